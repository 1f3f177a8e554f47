"""Import what a DBA has in hand: SHOW VARIABLES / SHOW STATUS dumps in the formats people save
them in, turned into a snapshot that the audit reads like a collected one.

  formats.py  one pure parse function per format (JSON and CSV in structured.py, shared pieces in
              rows.py), and format detection
  build.py    parsed rows -> Snapshot (pure; flavor and version as a live collection finds them)
  read.py     the I/O edge: files, gzip, directories of pt-mysql-summary / pt-stalk / MySQLTuner

`import_snapshot` is the entry point the CLI and api use."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from advisor.dumps.formats import FORMATS, detect, formats_sentence, parse
from advisor.dumps.model import Dump, DumpError, Section

__all__ = ["FORMATS", "Dump", "DumpError", "Section", "detect", "formats_sentence", "import_snapshot", "parse"]


def import_snapshot(variables: str, status: Optional[str] = None, *, flavor: Optional[str] = None,
                    version: Optional[str] = None, input_format: Optional[str] = None,
                    host_facts: Optional[str] = None, now: Optional[str] = None,
                    variables_text: Optional[str] = None):
    """Build a Snapshot from a variables file (or a pt-mysql-summary / pt-stalk / MySQLTuner
    directory) and an optional status file; `variables_text` is the variables file's content when
    the caller has read it already (standard input). Raises advisor.errors errors, one paragraph."""
    from advisor import __version__
    from advisor.dumps.build import build_snapshot
    from advisor.dumps.read import read_directory, read_dump, read_pair
    from advisor.errors import InvalidInputError, UsageError

    if input_format is not None and input_format not in FORMATS:
        raise UsageError(f"--input-format {input_format!r} is not one of {', '.join(FORMATS)}.",
                         "leave it out to detect the format.")
    if variables_text is None and Path(variables).is_dir():
        v_in, s_in = read_directory(variables, input_format)
        if status is not None:
            s_in = read_dump(status, "status", input_format)
    else:
        v_in, s_in = read_pair(variables, "variables", input_format, variables_text)
        if status is not None:
            s_in = read_dump(status, "status", input_format)
    host = None
    if host_facts:
        from advisor.collect.host import load_host_facts_file, server_dirs
        from advisor.collect.host_parse import parse_host

        raw = load_host_facts_file(host_facts)
        dirs = server_dirs({k.lower(): val for k, val in v_in.section.rows})
        host = parse_host(raw, dirs or None, "file")
        host.origin = f"read from the host-facts file {host_facts}"
    if now is None:
        from advisor.collect.clock import now_iso

        now = now_iso()
    try:
        return build_snapshot(v_in, s_in, advisor_version=__version__, now=now, flavor=flavor, version=version,
                              host=host)
    except DumpError as e:
        raise InvalidInputError(f"{e}.", f"{e.tip}." if e.tip else None) from None
