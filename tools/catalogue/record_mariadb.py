"""Record the installed MariaDB server's own lists of variables into tools/catalogue/sources/.

    .venv/bin/python -m tools.catalogue.record_mariadb

Writes two extracts, named after the server's version:
- mariadb-<version>-help-variables.tsv: the "Variables (--variable-name=value)" table that
  `mariadbd --no-defaults --verbose --help` prints (option name, value after reading options);
- mariadb-<version>-system-variables.json: information_schema.SYSTEM_VARIABLES of a throwaway
  server (tests/support/mariadb.py) started with no options beyond the harness's paths.

Reading a server is this tool's job; turning the extracts into catalogue data is tools.catalogue.build.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "sources"

COLUMNS = ("VARIABLE_NAME", "VARIABLE_SCOPE", "VARIABLE_TYPE", "DEFAULT_VALUE", "GLOBAL_VALUE",
           "GLOBAL_VALUE_ORIGIN", "NUMERIC_MIN_VALUE", "NUMERIC_MAX_VALUE", "NUMERIC_BLOCK_SIZE",
           "ENUM_VALUE_LIST", "READ_ONLY", "COMMAND_LINE_ARGUMENT", "VARIABLE_COMMENT")


def help_text(mariadbd: str) -> str:
    return subprocess.run([mariadbd, "--no-defaults", "--verbose", "--help"], capture_output=True,
                          text=True, check=True).stdout


def scrub(text: str, tmpdir: str) -> str:
    """The machine's host name and the throwaway's temporary directory are not facts about the
    server: replace them (as tests/fixtures/flavors does) so the extract is the same everywhere."""
    host = socket.gethostname().split(".")[0]
    out = text.replace(tmpdir.rstrip("/"), "/tmp/adv-mdb") if tmpdir else text
    for old, new in ((f"/{host}.", "/db1."), (f"{host}.log", "db1.log"), (f"{host}-slow.log", "db1-slow.log"),
                     (f"{host}-bin", "db1-bin"), (f"{host}-relay-bin", "db1-relay-bin")):
        out = out.replace(old, new)
    return out


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.support.mariadb import MariaDB, find_mariadbd, server_version

    from tools.catalogue.parse import parse_help_variables

    mariadbd = find_mariadbd()
    version = server_version(mariadbd).split("-")[0]
    rows = parse_help_variables(help_text(mariadbd))
    rows["server-uid"] = "(random per datadir)"
    (SOURCES / f"mariadb-{version}-help-variables.tsv").write_text(scrub(
        "option\tvalue\n" + "".join(f"{k}\t{v}\n" for k, v in rows.items()), ""), encoding="utf-8")
    with MariaDB() as db:
        got = db.query(f"SELECT {', '.join(COLUMNS)} FROM information_schema.SYSTEM_VARIABLES ORDER BY VARIABLE_NAME")
        build = db.query("SELECT @@version, @@version_comment")[0]
        tmpdir, port = str(db.dir), str(db.port)
    variables = []
    for r in got:
        row = dict(zip(COLUMNS, (None if v is None else str(v) for v in r)))
        row["VARIABLE_NAME"] = row["VARIABLE_NAME"].lower()
        for k in ("DEFAULT_VALUE", "GLOBAL_VALUE"):
            if row["VARIABLE_NAME"] in ("port", "report_port") and row[k] == port:
                row[k] = "(the throwaway's port)"
            if row["VARIABLE_NAME"] == "server_uid" and row[k]:
                row[k] = "(random per datadir)"
            if row[k] == socket.gethostname().split(".")[0]:
                row[k] = "db1"
        variables.append(row)
    # the throwaway's own paths and port are not facts about the server: keep the option names only
    server = {"version": build[0], "version_comment": build[1],
              "options": [o.split("=")[0] for o in db._command("mariadbd")[1:]]}
    body = ",\n".join(json.dumps(v, ensure_ascii=False) for v in variables)
    text = '{"server": ' + json.dumps(server) + ',\n"variables": [\n' + body + "\n]}\n"
    (SOURCES / f"mariadb-{version}-system-variables.json").write_text(scrub(text, tmpdir), encoding="utf-8")
    print(f"recorded {len(rows)} help variables and {len(variables)} system variables of MariaDB {build[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
