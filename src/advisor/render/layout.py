"""Laying out text for a terminal: the one wrapper every terminal renderer uses. The width comes from
the CLI (advisor.commands.options.terminal_width: COLUMNS, else the terminal's width, else 100); a
renderer takes it as an argument and never reads the environment.

Lines break at spaces, and inside a word only after a comma (a long sql_mode list): an identifier,
an option (--host-facts-only), a path or a URL is never split, so such a token longer than the room
overflows its line. That is the one case where a line passes the width."""

from __future__ import annotations

import re
import textwrap


class _Wrapper(textwrap.TextWrapper):
    """textwrap's wrapper that also breaks after a comma inside a word longer than the line."""

    def _split(self, text: str) -> list[str]:
        chunks: list[str] = []
        for chunk in super()._split(text):
            if len(chunk) > self.width - len(self.subsequent_indent) and "," in chunk.strip(","):
                chunks += [c for c in re.split(r"(?<=,)", chunk) if c]
            else:
                chunks.append(chunk)
        return chunks


def wrap(text: str, width: int, indent: str = "", rest: str | None = None) -> str:
    """`text` wrapped to `width`: the first line behind `indent`, the others behind `rest` (default
    `indent`)."""
    return _Wrapper(width=width, initial_indent=indent, subsequent_indent=indent if rest is None else rest,
                    break_on_hyphens=False, break_long_words=False).fill(text)


def fill(text: str, width: int, indent: str) -> str:
    """Every line behind `indent`."""
    return wrap(text, width, indent)


def hang(text: str, width: int, at: int, indent: str = "") -> str:
    """One line of a table or a labelled block: the first line starts with `indent` and keeps its own
    padding, the next ones start at column `at` (under the text, not the label)."""
    return wrap(indent + text, width, "", " " * at)


def _fits(text: str, room: int) -> bool:
    return room >= 20 and all(len(w) <= room for w in text.split())


def columns(prefix: str, text: str, width: int, narrow_indent: int = 4) -> str:
    """A table row: fixed columns (`prefix`, already padded) then free text wrapped under its own
    column; when that column is narrower than 20 characters or than the text's longest word, the text
    goes on the lines below, indented by `narrow_indent`."""
    if len(prefix) + len(text) <= width:
        return prefix + text
    if _fits(text, width - len(prefix)):
        return hang(prefix + text, width, len(prefix))
    return prefix.rstrip() + "\n" + fill(text, width, " " * narrow_indent)


def table(head: list[str], rows: list[list[str]], width: int, gaps: tuple[str, ...] = (), key: int = 0) -> list[str]:
    """A table whose last column is free text (a title): the other columns padded to their widest
    cell and the text wrapped under its own column (columns()), when the fixed columns leave it 20
    characters; else, on a narrow terminal or with long ids, one block per row: the `key` cell on its
    own line, then the other cells and the text, indented by four (the header in the same form). `gaps`: the separator after each
    fixed column (default one space)."""
    fixed = len(head) - 1
    ws = [max([len(head[i])] + [len(r[i]) for r in rows]) for i in range(fixed)]
    sep = [gaps[i] if i < len(gaps) else " " for i in range(fixed)]

    def prefix(cells: list[str]) -> str:
        return "".join(f"{c:<{ws[i]}}{sep[i]}" for i, c in enumerate(cells[:fixed]))

    if width - sum(ws) - sum(len(s) for s in sep) >= 20:
        return [prefix(head) + head[-1]] + [columns(prefix(r), r[-1], width) for r in rows]
    out = []
    for r in [head, *rows]:
        out.append(r[key])
        out.append(fill(", ".join(c for i, c in enumerate(r[:fixed]) if c and i != key) + ": " + r[-1], width, "    "))
    return out
