"""Render a plan to my.cnf text with the jinja2 templates shipped as advisor.templates.

The view model (advisor.mycnf.model.view_model) holds every string; the template only loops.
StrictUndefined: a missing key is an error, never an empty line.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

TEMPLATE = "mycnf.cnf.j2"


@lru_cache(maxsize=1)
def _env() -> Any:
    from importlib.resources import files

    import jinja2

    def load(name: str) -> str:
        return (files("advisor.templates") / name).read_text(encoding="utf-8")

    return jinja2.Environment(loader=jinja2.FunctionLoader(load), undefined=jinja2.StrictUndefined,
                              autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_view(view: dict[str, Any], template: str = TEMPLATE) -> str:
    return _env().get_template(template).render(**view)


def render(plan: Any) -> str:
    """The my.cnf text of a plan (advisor.mycnf.model.Plan)."""
    from advisor.mycnf.model import view_model

    return render_view(view_model(plan))
