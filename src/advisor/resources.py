"""The package's own data files (the rule catalogue, the knowledge files, the demo snapshot), found
as importlib.resources finds them, without importing importlib.resources and its readers (zipfile,
~3 ms of a ~90 ms audit) when the package is a directory on disk, as pip installs it."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any


def files(package: str) -> Any:
    """importlib.resources.files(package): its directory as a Path when the package is one plain
    directory; otherwise (a zip, a namespace spread over several directories) what
    importlib.resources gives."""
    spec = getattr(importlib.import_module(package), "__spec__", None)
    where = list(getattr(spec, "submodule_search_locations", None) or [])
    if len(where) == 1 and os.path.isdir(where[0]):
        return Path(where[0])
    from importlib.resources import files as resource_files

    return resource_files(package)
