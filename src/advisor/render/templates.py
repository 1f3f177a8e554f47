"""The one template environment: jinja2 over the templates shipped as advisor.templates, StrictUndefined
(a missing key is an error, never an empty line), autoescaping for HTML templates only (`*.html.j2`;
the other outputs are text, Markdown and option files), trim_blocks and lstrip_blocks (a block tag alone on a line leaves no line behind).
Templates hold no logic: each renderer builds a view model of strings and lists, the template loops."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


LONG_TOKEN = 12  # characters: a token at least this long gets break opportunities in HTML


def breakable(text: Any) -> Any:
    """HTML-escaped `text` whose long tokens (a sql_mode list, a regular expression, a dotted fact
    name) may break after a comma, a colon, a bar, a dot, an underscore, a slash or a closing parenthesis
    (<wbr>), so a narrow table cell wraps there instead of splitting a word or widening the page.
    The jinja filter `breakable` of the HTML templates."""
    import re

    from markupsafe import Markup, escape

    def soft(m: "re.Match[str]") -> str:
        return re.sub(r"([,:|._/)])(?=[^\s])", r"\1<wbr>", m.group(0))

    return Markup(re.sub(rf"[^\s<>&]{{{LONG_TOKEN},}}", soft, str(escape(text))))  # noqa: S704 (escaped first)


@lru_cache(maxsize=1)
def environment() -> Any:
    from importlib.resources import files

    import jinja2

    def load(name: str) -> str:
        return (files("advisor.templates") / name).read_text(encoding="utf-8")

    autoescape = jinja2.select_autoescape(enabled_extensions=("html", "html.j2"), default_for_string=False,
                                          default=False)
    env = jinja2.Environment(loader=jinja2.FunctionLoader(load), undefined=jinja2.StrictUndefined,
                             autoescape=autoescape, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.filters["breakable"] = breakable
    return env


def render_template(name: str, view: dict[str, Any]) -> str:
    return environment().get_template(name).render(**view)
