"""advisor: a rule-based configuration advisor for MySQL-family servers."""

__version__ = "0.1.0"

# Where the project lives: the base of every absolute link the package writes (README on the
# package index, SARIF helpUri, rule pages). pyproject.toml's [project.urls] says the same.
PROJECT_URL = "https://github.com/mysql-advisor/mysql-advisor"


def docs_url(path: str) -> str:
    """The absolute URL of a file under docs/ for this version: its release tag (vX.Y.Z, see
    CONTRIBUTING.md), or main for a development version."""
    ref = "main" if any(t in __version__ for t in ("dev", "+")) else f"v{__version__}"
    return f"{PROJECT_URL}/blob/{ref}/docs/{path.lstrip('/')}"
