"""Derived facts that compare the server's variables with the variable catalogue of its version:
which are at their default, which are pinned to an older release's default, which are deprecated."""

from __future__ import annotations

from typing import Any

from advisor.knowledge.catalogue import CATALOGUE_VERSIONS_TEXT, catalogue_covers
from advisor.rules.derived.common import default_inputs
from advisor.rules.facts import FactSet, FactView, Unknown
from advisor.versions import Version

FACTS = FactSet()
PRE_84_REFERENCE = Version(8, 0, 36)  # the 8.0 release whose defaults 8.4 is compared with


def _default_split(v: FactView) -> tuple[list[str], list[str]]:
    def split() -> tuple[list[str], list[str]]:
        ctx = default_inputs(v)
        same: list[str] = []
        differ: list[str] = []
        for name, value in sorted(v.variables().items()):
            if not v.catalogue.traits(name).fix_target:
                continue  # an identity, a path, the version or a value the server reports: not a setting
            r = v.catalogue.is_default(name, value, v.flavor, v.version, **ctx)
            if r is True:
                same.append(name)
            elif r is False:
                differ.append(name)
        return same, differ
    return v.memo("_default_split", split)


@FACTS.define("default_variables", "Server variables whose value equals the catalogue's default for this flavor and "
              "version (VariableCatalogue.is_default; formula defaults use the host's CPUs, memory and buffer pool).")
def default_variables(v: FactView) -> Any:
    if not v.variables():
        return Unknown("no server variables were collected")
    return _default_split(v)[0]


@FACTS.define("nondefault_variables", "Server variables whose value differs from the catalogue's default for this "
              "flavor and version; variables whose default is not known appear in neither list.")
def nondefault_variables(v: FactView) -> Any:
    if not v.variables():
        return Unknown("no server variables were collected")
    return _default_split(v)[1]


def pinned_old_defaults_list(v: FactView) -> Any:
    """On MySQL/Percona 8.4+: 'name=value (8.4 default d)' for each variable set to the 8.0 default where
    8.4 changed the default; Unknown on other targets."""
    if v.flavor not in ("mysql", "percona") or v.version < Version(8, 4, 0):
        return Unknown(f"{v.flavor} {v.version} is not MySQL/Percona 8.4 or later")
    cat, ctx, old = v.catalogue, default_inputs(v), PRE_84_REFERENCE
    out = []
    for name, value in sorted(v.variables().items()):
        d80 = cat.default_for(name, v.flavor, old, **ctx)
        d84 = cat.default_for(name, v.flavor, v.version, **ctx)
        if d80 is None or d84 is None or cat.is_default(name, d80, v.flavor, v.version, **ctx) is not False:
            continue  # unknown, or 8.4 did not change this default
        if cat.is_default(name, value, v.flavor, old, **ctx) is True:
            out.append(f"{name}={value} (8.4 default {d84})")
    return out


@FACTS.define("pinned_old_defaults", "On MySQL/Percona 8.4+: settings equal to the 8.0 default of a variable whose "
              "default 8.4 changed, e.g. 'innodb_io_capacity=200 (8.4 default 10000)'.")
def pinned_old_defaults(v: FactView) -> Any:
    r = pinned_old_defaults_list(v)
    return r if isinstance(r, Unknown) else ", ".join(r)


@FACTS.define("pinned_old_defaults_count", "How many settings are pinned to a pre-8.4 default (see "
              "pinned_old_defaults).", unit="count")
def pinned_old_defaults_count(v: FactView) -> Any:
    r = pinned_old_defaults_list(v)
    return r if isinstance(r, Unknown) else len(r)


def _deprecated_in_use(v: FactView) -> list[str]:
    """Deprecated variables away from their default, as 'name=value (deprecated since ..., use new)'.

    A variable the catalogue marks `renamed` (slave_net_timeout -> replica_net_timeout in MySQL 8.0.26,
    tx_isolation -> transaction_isolation in 5.7.20) is one variable under two names: the server prints
    both, with one value, whichever name the option file used, so SHOW VARIABLES cannot tell a setting
    made under the old name. The old name is left out while the new one is printed beside it; only a
    variable list without the new name (the old name alone) shows that the old name is what was set."""
    def find() -> list[str]:
        ctx = default_inputs(v)
        out = []
        variables = v.variables()
        for name, value in sorted(variables.items()):
            if not v.catalogue.maybe_deprecated(name):
                continue  # most variables: no deprecation mark anywhere, no need to merge their entry
            spec = v.catalogue.info(name, v.flavor, v.version)
            if spec is None or not spec.deprecated:
                continue
            if spec.renamed and spec.replaced_by[0] in variables:
                continue  # the old name printed beside the new one: not a setting anyone can attribute to it
            if v.catalogue.is_default(name, value, v.flavor, v.version, **ctx) is False:
                there = [r for r in spec.replaced_by if v.catalogue.exists_on(r, v.flavor, v.version) is not False]
                repl = f", use {'/'.join(there)}" if there else ""  # a replacement this flavor has
                gone = f", removed in {v.flavor} {spec.removed_in}" if spec.removed_in else ""
                out.append(f"{name}={value} ({spec.deprecation}{gone}{repl}{_legacy_redo_effect(v, name)})")
        return out
    return v.memo("_deprecated_in_use", find)


def _legacy_redo_effect(v: FactView, name: str) -> str:
    """For innodb_log_file_size / innodb_log_files_in_group on MySQL/Percona ≥ 8.0.30: whether the setting
    still sizes the redo log (innodb_redo_log_capacity not set) or is ignored (the capacity is set)."""
    if name not in ("innodb_log_file_size", "innodb_log_files_in_group") or v.flavor not in ("mysql", "percona") \
            or v.version < Version(8, 0, 30):
        return ""
    by = v.get("derived.redo_sized_by")
    if isinstance(by, Unknown):
        return ""
    if by.startswith("innodb_redo_log_capacity"):
        return "; it has no effect here: innodb_redo_log_capacity is set and sizes the redo log"
    return "; still in effect: innodb_redo_log_capacity is not set, so it sizes the redo log"


@FACTS.define("deprecated_settings", "Variables set away from their default although the catalogue marks them "
              "deprecated on this flavor and version.")
def deprecated_settings(v: FactView) -> Any:
    if not v.variables():
        return Unknown("no server variables were collected")
    return ", ".join(_deprecated_in_use(v))


@FACTS.define("deprecated_settings_count", "How many deprecated variables are set away from their default.",
              unit="count")
def deprecated_settings_count(v: FactView) -> Any:
    if not v.variables():
        return Unknown("no server variables were collected")
    return len(_deprecated_in_use(v))


@FACTS.define("catalogue_covers_target", "Whether the variable catalogue's defaults were researched for the target's "
              "flavor and release (advisor.knowledge.catalogue.CATALOGUE_VERSIONS); outside, no default is judged.")
def catalogue_covers_target(v: FactView) -> Any:
    return catalogue_covers(v.flavor, v.version)


@FACTS.define("catalogue_versions", "The releases the variable catalogue covers for the target's flavor, in words "
              "('MySQL 5.7 to 8.4').")
def catalogue_versions(v: FactView) -> Any:
    text = CATALOGUE_VERSIONS_TEXT.get(v.flavor)
    return text if text is not None else Unknown(f"the catalogue has no version window for {v.flavor}")


@FACTS.define("innodb_thread_concurrency_default", "innodb_thread_concurrency's default on this release, from the "
              "variable catalogue; unknown outside the releases it covers.", unit="count")
def innodb_thread_concurrency_default(v: FactView) -> Any:
    d = v.catalogue.default_for("innodb_thread_concurrency", v.flavor, v.version)
    if d is None:
        why = ("is outside the releases the variable catalogue covers" if not catalogue_covers(v.flavor, v.version)
               else "has no recorded default for it")
        return Unknown(f"{v.flavor} {v.version} {why}, so whether innodb_thread_concurrency "
                       f"{v.get('var.innodb_thread_concurrency')} is its default is not known")
    return int(d)
