"""Renderers: each takes structured data and returns a string. Renderers never print."""
