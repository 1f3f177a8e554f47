"""The text of `advisor mycnf --validate` (a ValidationResult of advisor.mycnf.validate). Returns a
string; never prints."""

from __future__ import annotations

from advisor.knowledge.catalogue import SECRET_MASK, is_secret_variable
from advisor.mycnf.validate import ValidationResult


def render_text(r: ValidationResult) -> str:
    """The report; the values of options that hold a secret (report_password, wsrep_sst_auth, ...)
    are shown as *** wherever they would appear."""
    secrets = sorted({i.value for i in r.items if i.value and is_secret_variable(i.option.replace("-", "_"), i.value)},
                     key=len, reverse=True)
    text = _text(r)
    for s in secrets:
        text = text.replace(s, SECRET_MASK)
    return text


def _text(r: ValidationResult) -> str:
    label = {"ok": "ok", "problem": "PROBLEM", "warning": "warning", "not_checked": "not checked"}
    lines = [f"advisor mycnf --validate {r.path}: target {r.flavor} {r.version} ({r.target_source})", ""]
    for e in r.file_errors:
        lines.append(f"  PROBLEM      {e}")
    lines.append("Catalogue:")
    for i in r.items:
        val = "" if i.value is None else f" = {i.value}"
        lines.append(f"  {label[i.status]:<12} {i.option}{val}  ({i.where})" + (f": {i.message}" if i.message else ""))
    if not r.items:
        lines.append("  (no server options)")
    lines.append("Memory budget:")
    lines += [f"  {b}" for b in r.budget_lines]
    s = r.server
    lines.append("Server check:")
    if not s.ran:
        lines.append(f"  {s.reason or 'not run'}")
    else:
        lines.append(f"  {s.method} ({s.binary}, {s.binary_version}): "
                     + ("accepted" if s.ok else "REFUSED" if s.ok is False else "inconclusive") + (f"; {s.reason}" if s.reason else ""))
        lines += [f"  PROBLEM  {p}" for p in s.problems]
        lines += [f"  warning  {w}" for w in s.warnings]
        lines += [f"  trial    {o}" for o in s.overrides]
        same = sum(1 for x in s.readback if x[3])
        if s.readback:
            lines.append(f"  read back: {same} of {len(s.readback)} settings as the file sets them")
    # distinct problems: a server error an option's line already quotes counts once, with that option
    told = [i.message for i in r.items if i.status == "problem"]
    n_prob = (len(told) + len(r.file_errors) + sum(1 for p in s.problems if not any(p in m for m in told))
              + (r.budget_ok is False))
    said = [i.message for i in r.items if i.status == "warning"]
    n_warn = len(said) + sum(1 for w in s.warnings if not any(w in m for m in said))
    lines.append("")
    verdict = r.verdict
    tail = ""
    if verdict == "not confirmed":
        names = ", ".join(i.option for i in r.unconfirmed)
        tail = (f" {len(r.unconfirmed)} option(s) neither the catalogue nor a server check could confirm ({names}); "
                "an unknown or removed option stops the server at start-up.")
    lines.append(f"{verdict}: {n_prob} problem(s), {n_warn} warning(s).{tail}")
    return "\n".join(lines) + "\n"


