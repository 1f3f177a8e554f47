"""advisor: a rule-based configuration advisor for MySQL-family servers."""

__version__ = "0.1.0"
