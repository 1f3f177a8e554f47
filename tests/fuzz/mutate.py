"""Seeded mutations of the advisor's input formats: every mutant is a function of (surface, index), so
a failing input is reproduced by its index alone (`python bench/fuzz.py --surface S --start I --count 1`).

The odd values are the ones issue 19 found crash sites with: nesting 100,000 deep, numbers of more
than 4,300 digits, 1.0e309 and 10**400, NaN and Infinity, non-UTF-8 bytes, 100 KB values, empty and
wrongly typed values, plus the ordinary suspects (negative, zero, quotes, NUL, format braces).
"""

from __future__ import annotations

import json
import random
from typing import Any

DEEP = 100_000
HUGE_DIGITS = "9" * 5000
LONG_TEXT = "A" * 100_000

# Raw tokens as they may appear in a text format (JSON, TOML, my.cnf, a command line, a server value).
ODD_TOKENS: list[str] = [
    "", " ", "0", "-1", "1", "-0", "0.0", "1.0e309", "-1.0e309", "1e-400", "NaN", "nan", "inf", "-inf",
    "Infinity", HUGE_DIGITS, "1" + "0" * 400, "18446744073709551616", "-9223372036854775809",
    "99999999999999999999P", "1.5G", "32M", "0x10", "1e3", "x", "ON", "OFF", "null", "NULL", "true",
    "\x00", "ü€ß", "'", '"', "\\", "%s", "{x}", "${HOME}", "../../etc/passwd", "a,b,c", ",,,", "=",
    "8.0.36", "10.11.6-MariaDB", "x.y.z", "8." + "9" * 5000, LONG_TEXT, "\t", "\r\n",
]
ODD_BYTES: list[bytes] = [b"\xff", b"\xfe\xff", b"\xc3\x28", b"\x80abc", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"]


def odd_json_value(rng: random.Random) -> Any:
    """A JSON value of a random odd kind; RawJSON for what json.dumps cannot write itself."""
    kind = rng.randrange(14)
    if kind == 0:
        return RawJSON(HUGE_DIGITS)
    if kind == 1:
        return RawJSON(rng.choice(["1.0e309", "-1.0e309", "1" + "0" * 400, "NaN", "Infinity", "-Infinity"]))
    if kind == 2:
        return RawJSON("[" * DEEP + "]" * DEEP)
    if kind == 3:
        return rng.choice([None, True, False])
    if kind == 4:
        return rng.choice([0, -1, 2**64, -(2**63) - 1, 0.5, -0.0])
    if kind == 5:
        return rng.choice(ODD_TOKENS)
    if kind == 6:
        return [rng.choice(ODD_TOKENS)]
    if kind == 7:
        return {rng.choice(["x", "", "errors", "value"]): rng.choice(ODD_TOKENS)}
    if kind == 8:
        return LONG_TEXT
    if kind == 9:
        return RawJSON('"\\ud800"')  # a lone surrogate, legal JSON, not encodable as UTF-8
    if kind == 10:
        return []
    if kind == 11:
        return {}
    if kind == 12:
        return rng.randint(-10**6, 10**6)
    return rng.choice(["8.0.36", "x", "10.11", "", "mysql", "mariadb", "tidb"])


class RawJSON:
    def __init__(self, text: str):
        self.text = text


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node[:20]):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


def _delete(doc: Any, path: tuple[Any, ...]) -> Any:
    if not path:
        return doc
    node = doc
    for p in path[:-1]:
        node = node[p]
    del node[path[-1]]
    return doc


def dump_json(doc: Any) -> str:
    raws: list[str] = []

    def default(o: Any) -> Any:
        if isinstance(o, RawJSON):
            raws.append(o.text)
            return f"__RAW{len(raws) - 1}__"
        raise TypeError(type(o).__name__)

    text = json.dumps(doc, default=default, indent=1)
    for i, raw in enumerate(raws):
        text = text.replace(f'"__RAW{i}__"', raw, 1)
    return text


def mutate_json(seed_doc: Any, rng: random.Random, rounds: int = 0) -> bytes:
    """A structurally mutated copy of a JSON document (1–3 edits), sometimes also damaged as text."""
    doc = json.loads(json.dumps(seed_doc))
    for _ in range(rounds or rng.randint(1, 3)):
        paths = _paths(doc)
        # prefer leaves deep in the document: they reach further than a broken top level
        path = max(rng.sample(paths, min(3, len(paths))), key=len)
        op = rng.randrange(10)
        if op < 7 or not path:
            doc = _set(doc, path, odd_json_value(rng))
        elif op < 9:
            doc = _delete(doc, path)
        else:
            parent = path[:-1]
            node = doc
            for p in parent:
                node = node[p]
            if isinstance(node, dict):
                node[rng.choice(["unknown_key", "", "x" * 300])] = odd_json_value(rng)
    data = dump_json(doc).encode("utf-8")
    return damage_text(data, rng) if rng.random() < 0.15 else data


def damage_text(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage: truncate, flip a byte, insert non-UTF-8 bytes or a NUL, duplicate a slice."""
    if not data:
        return rng.choice(ODD_BYTES)
    op = rng.randrange(5)
    i = rng.randrange(len(data))
    if op == 0:
        return data[:i]
    if op == 1:
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if op == 2:
        return data[:i] + rng.choice(ODD_BYTES) + data[i:]
    if op == 3:
        return data[:i] + b"\x00" + data[i:]
    j = min(len(data), i + rng.randint(1, 200))
    return data[:j] + data[i:j] * rng.randint(2, 50) + data[j:]


def mutate_lines(text: str, rng: random.Random, extra_lines: list[str] | None = None) -> bytes:
    """Line-oriented formats (TOML, my.cnf, option files, fleet files): replace a value after '=',
    delete, duplicate or insert a line, or damage the bytes."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(10)
        i = rng.randrange(len(lines)) if lines else 0
        if op < 5 and lines:
            line = lines[i]
            key, eq, _ = line.partition("=")
            token = rng.choice(ODD_TOKENS)
            if line.lstrip().startswith(("[", "#", "!")) or not eq:
                lines[i] = line + token if rng.random() < 0.5 else token
            else:
                quoted = _quote_like(line.partition("=")[2].strip(), token, rng)
                lines[i] = f"{key}= {quoted}"
        elif op == 5 and lines:
            del lines[i]
        elif op == 6 and lines:
            lines.insert(i, lines[i])
        elif op == 7:
            pool = (extra_lines or []) + ["[", "[x", "]]", "= x", "x =", "!include /nonexistent",
                                          "!includedir /nonexistent", "#" + LONG_TEXT, "a" * 5000 + " = 1"]
            lines.insert(i, rng.choice(pool))
        elif op == 8 and lines:
            lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
        else:
            lines.insert(i, f"{rng.choice(['x', 'sort_buffer_size', 'port', 'host', 'user'])} = "
                            f"{rng.choice(ODD_TOKENS)}")
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    return damage_text(data, rng) if rng.random() < 0.2 else data


def _quote_like(old: str, token: str, rng: random.Random) -> str:
    """A replacement value written the way the old one was: quoted, a list, a table, or bare."""
    r = rng.random()
    if old.startswith('"') and r < 0.6:
        return json.dumps(token)
    if old.startswith("[") and r < 0.6:
        return "[" + json.dumps(token) + "]"
    if r < 0.1:
        return "[" * DEEP + "]" * DEEP
    if r < 0.15:
        return "{ " + "a = { " * 2000 + "}" * 2000 + " }"
    return token


def toml_value(rng: random.Random) -> str:
    """A value that is valid TOML (so the mutant reaches the schema, the examples and the engine, not
    only the parser) but odd: wrong types, non-finite and huge numbers, deep arrays, long strings."""
    kind = rng.randrange(12)
    if kind == 0:
        return json.dumps(rng.choice(ODD_TOKENS))  # a basic string (JSON escapes are TOML escapes)
    if kind == 1:
        return rng.choice(["0", "-1", "1", "2", "3306", "-9223372036854775808", "9223372036854775807"])
    if kind == 2:
        return rng.choice(["1.0e309", "-1.0e309", "inf", "-inf", "nan", "0.5", "1e-400"])
    if kind == 3:
        return rng.choice(["1" + "0" * 400, HUGE_DIGITS])
    if kind == 4:
        return rng.choice(["true", "false"])
    if kind == 5:
        return rng.choice(["[]", "{}", '[1, "x"]', '{ a = 1 }', '[[1], [2]]', '{ fact = "var.x", op = "eq" }'])
    if kind == 6:
        return "[" * 80 + "]" * 80
    if kind == 7:
        return json.dumps("x" * 5000)
    if kind == 8:
        return rng.choice(['"8.0.36"', '">=8.0"', '"*"', '"<5.0,>=9.0"', '"x.y"', '"=' + "9" * 50 + '"'])
    if kind == 9:
        return rng.choice(['"var.sort_buffer_size"', '"status.Uptime"', '"derived.nope"', '"host.ram_bytes"',
                           '"var."', '"{target.version}"', '"{x|nosuch}"'])
    if kind == 10:
        return rng.choice(['"fired"', '"passed"', '"unknown"', '"critical"', '"warning"', '"gte"', '"between"'])
    return rng.choice(['"32M"', '"1.5G"', '"-1K"', '"99999999999999999999P"', '"ON"', '"OFF"'])


def mutate_toml(text: str, rng: random.Random) -> bytes:
    """A rule file with 1–3 values replaced by toml_value()s (kept valid TOML), sometimes a line
    dropped or duplicated, and now and then damaged as mutate_lines() damages any text."""
    if rng.random() < 0.25:
        return mutate_lines(text, rng, ['fact = "var.x"', 'formula = "flavor_default"', 'op = "gte"', 'value = "32M"'])
    lines = text.splitlines()
    values = [i for i, ln in enumerate(lines) if "=" in ln and not ln.lstrip().startswith(("#", "["))
              and ln.rstrip().endswith(('"', "]", "}", "e", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"))]
    for _ in range(rng.randint(1, 3)):
        if not values:
            break
        i = rng.choice(values)
        line = lines[i]
        inline = line.find("{ ")
        if inline != -1 and rng.random() < 0.5 and " = " in line[inline:]:  # a value inside an inline table
            head, _, tail = line[inline:].partition(" = ")
            rest = tail.split(",", 1)
            new_tail = toml_value(rng) + ("," + rest[1] if len(rest) > 1 else " }")
            lines[i] = line[:inline] + head + " = " + new_tail
        else:
            key = line.split("=", 1)[0]
            lines[i] = f"{key}= {toml_value(rng)}"
    if rng.random() < 0.2 and lines:
        j = rng.randrange(len(lines))
        if rng.random() < 0.5:
            del lines[j]
        else:
            lines.insert(j, lines[j])
    return "\n".join(lines).encode("utf-8", "surrogatepass")


def mutate_words(line: str, rng: random.Random, options: list[str]) -> str:
    """A command line: replace an option's value, drop or duplicate a word, add a known option with an
    odd value, quote a word so it holds a space."""
    words = line.split()
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        i = rng.randrange(len(words)) if words else 0
        token = rng.choice(ODD_TOKENS)
        if op <= 1 and words:
            name, eq, _ = words[i].partition("=")
            words[i] = f"{name}={token}" if eq or name.startswith("--") else token
        elif op == 2 and words:
            del words[i]
        elif op == 3 and words:
            words.insert(i, words[i])
        elif op == 4:
            words.insert(i, f"{rng.choice(options)}={token}")
        elif op == 5:
            words.insert(i, rng.choice(options))
        else:
            words.insert(i, "'" + rng.choice(options) + " " + token.replace("'", "") + "'")
    return " ".join(words)
