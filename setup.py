"""Package discovery and the sdist's file list; everything else (metadata, dependencies, package
data) is in pyproject.toml.

Packages are found, not listed: every package under src/, plus the rule catalogue (rules/, shipped
as advisor.catalog) and the templates (templates/, shipped as advisor.templates) with each of their
subdirectories as a namespace package, so that setuptools ships their data files without
"package absent from the packages configuration" warnings.

The sdist (MANIFEST.in) carries the tests and their recorded /proc and /sys trees, whose symlinks
are facts (/sys/class/block/X -> ../../devices/...): they are kept as symlinks instead of being
copied as the files they point to (absolute ones cannot be: see _extractable), and byte-code
caches are left out.
"""

import os
import re

from setuptools import find_namespace_packages, find_packages, setup
from setuptools.command.sdist import sdist as _sdist

MAPPED = {"advisor.catalog": "rules", "advisor.templates": "templates"}
LINKED = "tests"  # grafted whole by MANIFEST.in; holds recorded trees with symlinks
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".hypothesis"}


def discover(root: str = ".") -> list:
    packages = find_packages(os.path.join(root, "src"))
    for name, where in MAPPED.items():
        packages.append(name)
        packages += [f"{name}.{p}" for p in find_namespace_packages(os.path.join(root, where),
                                                                     exclude=["*__pycache__*", "__pycache__"])]
    return sorted(packages)


def project_url(root: str = ".") -> str:
    text = open(os.path.join(root, "src", "advisor", "__init__.py"), encoding="utf-8").read()
    return re.search(r'^PROJECT_URL = "([^"]+)"', text, re.M).group(1)


def long_description(root: str = ".") -> str:
    """README.md as the package index shows it: without the repository around it, so every relative
    link (`](docs/x.md)`, `](rules/)`) becomes absolute against PROJECT_URL (blob/ for a file, tree/
    for a directory, on main)."""
    base = project_url(root)
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()

    def absolute(m: "re.Match[str]") -> str:
        target = m.group(1)
        kind = "tree" if os.path.isdir(os.path.join(root, target)) else "blob"
        return f"]({base}/{kind}/main/{target})"

    return re.sub(r"\]\((?!https?://|#|mailto:)([^)\s]+)\)", absolute, text)


def _symlink_of(path: str):
    """The first component of a relative path that is a symlink (the path itself included), or None."""
    parts = path.split(os.sep)
    for i in range(1, len(parts) + 1):
        head = os.path.join(*parts[:i])
        if os.path.islink(head):
            return head
    return None


def _extractable(link: str) -> bool:
    """Whether a symlink survives extraction with tarfile's "data" filter, which `python -m build`
    and pip use: relative, and pointing inside the tree. An absolute one (the recorded
    /proc/PID/cwd -> /var/lib/mysql of tests/fixtures/hosts/this-vm) is left out of the sdist; no
    test reads it."""
    target = os.readlink(link)
    if os.path.isabs(target):
        return False
    resolved = os.path.normpath(os.path.join(os.path.dirname(link), target))
    return not resolved.startswith(os.pardir + os.sep) and resolved != os.pardir


class sdist(_sdist):
    def prune_file_list(self):
        super().prune_file_list()
        self.filelist.exclude_pattern(r"(^|/)(__pycache__|\.pytest_cache|\.hypothesis)/|\.py[co]$", is_regex=True)

    def make_release_tree(self, base_dir, files):
        # The file list follows symlinks and, to avoid loops, lists each real directory once under
        # the first path it met it by, which may be a symlink's. So the trees with symlinks (the
        # recorded /proc and /sys under tests/) are walked again here without following them.
        keep = [f for f in files if _symlink_of(f) is None and not f.startswith(LINKED + os.sep)]
        links = set()
        for top, dirs, names in os.walk(LINKED):
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for name in dirs + names:
                path = os.path.join(top, name)
                if os.path.islink(path):
                    links.add(path)
                elif name in names and not name.endswith((".pyc", ".pyo")):
                    keep.append(path)
        super().make_release_tree(base_dir, keep)
        for link in sorted(links):
            if not _extractable(link):
                continue
            dest = os.path.join(base_dir, link)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.lexists(dest):
                os.remove(dest)
            os.symlink(os.readlink(link), dest)


if __name__ == "__main__":
    setup(packages=discover(), cmdclass={"sdist": sdist}, long_description=long_description(),
          long_description_content_type="text/markdown")
