"""The one template environment: jinja2 over the templates shipped as advisor.templates, StrictUndefined
(a missing key is an error, never an empty line), autoescaping for HTML templates only (`*.html.j2`;
the other outputs are text, Markdown and option files), trim_blocks and lstrip_blocks (a block tag alone on a line leaves no line behind).
Templates hold no logic: each renderer builds a view model of strings and lists, the template loops."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def environment() -> Any:
    from importlib.resources import files

    import jinja2

    def load(name: str) -> str:
        return (files("advisor.templates") / name).read_text(encoding="utf-8")

    autoescape = jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False,
                                          default=False)
    return jinja2.Environment(loader=jinja2.FunctionLoader(load), undefined=jinja2.StrictUndefined,
                              autoescape=autoescape, trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True)


def render_template(name: str, view: dict[str, Any]) -> str:
    return environment().get_template(name).render(**view)
