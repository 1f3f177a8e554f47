"""Reading untrusted text: JSON and TOML with limits, and values cut for messages. Pure.

Every input file (snapshot, host-facts file, rule file, fleet file, option file) may be damaged or
hostile. The parsers of the standard library turn some inputs into exceptions no caller expects
(RecursionError on nesting 100,000 deep, ValueError on an integer of more than 4,300 digits) or into
values nothing downstream can use (1.0e309 -> inf, NaN). `load_json` (and, for TOML read at the edge, `finite_float`
and `check_toml`) turn each of those into `BadInput`, a ValueError with one sentence saying what was wrong, which the caller wraps
into its own typed error with the file's name and a Tip.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_DEPTH = 64  # nesting of arrays/objects; advisor documents use fewer than 10 levels
MAX_INT_DIGITS = 40  # 2**64 has 20 digits; no server counter or size needs more
MAX_SHOWN = 120  # characters of one value shown in a message


class BadInput(ValueError):
    """Text that cannot be read as the format says; str() is one sentence without a trailing period."""


def clip(value: object, limit: int = MAX_SHOWN) -> str:
    """A value for a message: repr() of a string, str() of anything else, cut to `limit` characters
    with the full length said ('AAAA'… (100,000 characters))."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text) if isinstance(value, str) else text
    cut = text[:limit]
    return f"{cut!r}… ({len(text):,} characters)" if isinstance(value, str) else f"{cut}… ({len(text):,} characters)"


def clip_words(text: str, limit: int = MAX_SHOWN) -> str:
    """Every run of more than `limit` non-space characters in a message cut as clip() cuts it."""
    if len(text) <= limit:
        return text
    out = []
    for word in text.split(" "):
        out.append(word if len(word) <= limit else f"{word[:limit]}… ({len(word):,} characters)")
    return " ".join(out)


def _int(s: str) -> int:
    digits = len(s.lstrip("-+"))
    if digits > MAX_INT_DIGITS:
        raise BadInput(f"an integer of {digits:,} digits (more than {MAX_INT_DIGITS} is not a value any "
                       "server setting or counter has)")
    return int(s)


def _float(s: str) -> float:
    v = float(s)
    if not math.isfinite(v):
        raise BadInput(f"the number {clip(s, 40)} is out of range (it does not fit a 64-bit float)")
    return v


def _constant(s: str) -> Any:
    raise BadInput(f"{s} is not a JSON number (the advisor writes null for a value that is not finite)")


def check_depth(doc: Any, limit: int = MAX_DEPTH) -> None:
    """Raise BadInput when arrays/objects nest deeper than `limit` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise BadInput(f"arrays or objects nested more than {limit} levels deep")
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))


def load_json(text: str | bytes) -> Any:
    """json.loads with limits: BadInput for nesting deeper than MAX_DEPTH, integers of more than
    MAX_INT_DIGITS digits, numbers that overflow a float, NaN/Infinity, and bytes that are not UTF-8.
    json.JSONDecodeError (a ValueError with lineno/colno) passes through for plain syntax errors."""
    import json

    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise BadInput(f"byte {e.start:,} is not UTF-8 ({bytes(text[e.start:e.start + 1])!r})") from None
    try:
        doc = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except RecursionError:
        raise BadInput(f"arrays or objects nested more than {MAX_DEPTH} levels deep") from None
    check_depth(doc)
    if _SURROGATE_ESCAPE.search(text):  # a pair decodes to one character; a lone one is not text
        _check_surrogates(doc)
    return doc


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_surrogates(doc: Any) -> None:
    stack = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            texts = [node]
        elif isinstance(node, dict):
            texts = list(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            texts = []
            stack.extend(node)
        else:
            continue
        for t in texts:
            if isinstance(t, str) and _SURROGATE.search(t):
                raise BadInput(f"a string holds a lone UTF-16 surrogate (\\u{ord(_SURROGATE.search(t).group()):04x}), "
                               "which is not text")


def finite_float(s: str) -> float:
    """A parse_float hook (json, tomllib): BadInput for a number that overflows to inf, for NaN and inf."""
    return _float(s)


def check_toml(doc: dict[str, Any]) -> dict[str, Any]:
    """A parsed TOML document within the limits load_json applies (depth, integer size); the edge
    calls tomllib (the core may not) and hands the result here."""
    check_depth(doc)
    for v in _leaves(doc):
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10 ** MAX_INT_DIGITS:
            raise BadInput(f"an integer of more than {MAX_INT_DIGITS} digits")
    return doc


def _leaves(doc: Any) -> list[Any]:
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            out.append(node)
    return out


def decode_utf8(data: bytes, source: str) -> str:
    """UTF-8 text of a file, or BadInput naming the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{source} is not UTF-8 text (byte {e.start:,} is {data[e.start:e.start + 1]!r})") from None
