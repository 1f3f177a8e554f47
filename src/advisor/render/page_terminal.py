"""A generated page (Markdown, advisor.render.pages) for a terminal: `advisor explain ID`.

No Markdown syntax reaches the reader: the generated-file comment is dropped, headings are
underlined, code blocks indented, tables aligned (or, when too wide, one `header: value` list per
row), inline code, emphasis and links printed as text; paragraphs are wrapped to `width` without
ever splitting a word (an identifier longer than the line overflows it instead).
"""

from __future__ import annotations

import re
import textwrap

_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")
_EM = re.compile(r"(?<![\w*])\*([^*\s][^*]*?)\*(?![\w*])|(?<![\w_])_([^_\s][^_]*?)_(?![\w_])")
_LIST = re.compile(r"^(\s*)([-*+]|\d+\.)\s+(.*)$")


def inline(text: str, color: bool = False) -> str:
    """Markdown inline markup as plain text (bold on a colour terminal)."""
    def b(s: str) -> str:
        return f"{_BOLD}{s}{_RESET}" if color else s

    text = _LINK.sub(lambda m: m.group(1) if m.group(1) == m.group(2) else f"{m.group(1)} ({m.group(2)})", text)
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = re.sub(r"(?<!`)``(?!`)", "''", text)  # an empty code span: the empty value
    text = _CODE.sub(lambda m: b(m.group(1)), text)
    text = _STRONG.sub(lambda m: b(m.group(1)), text)
    text = _EM.sub(lambda m: m.group(1) or m.group(2), text)
    return text.replace("\\|", "|").replace("\\*", "*").replace("\\_", "_")


def _fill(text: str, width: int, first: str, rest: str) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]


def _visible(s: str) -> int:
    return len(re.sub(r"\033\[[0-9;]*m", "", s))


def _table(rows: list[str], width: int, color: bool) -> list[str]:
    cells = [[inline(c.strip(), color) for c in re.split(r"(?<!\\)\|", r.strip().strip("|"))] for r in rows
             if not re.fullmatch(r"\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?", r.strip())]
    if not cells:
        return []
    head, body = cells[0], cells[1:]
    ncol = max(len(r) for r in cells)
    cols = [max((_visible(r[i]) for r in cells if i < len(r)), default=0) for i in range(ncol)]
    if sum(cols) + 2 * (ncol - 1) + 2 <= width:
        def line(r: list[str]) -> str:
            return "  " + "  ".join(c + " " * (cols[i] - _visible(c)) for i, c in enumerate(r)).rstrip()
        return [line(head), "  " + "  ".join("-" * w for w in cols)] + [line(r) for r in body]
    out: list[str] = []
    for r in body:  # too wide: one list item per row, "header: value"
        first = r[0] if r else ""
        rest = "; ".join(f"{head[i]}: {c}" for i, c in enumerate(r[1:], start=1) if c and i < len(head))
        out += _fill(f"{first} — {rest}" if rest else first, width, "  - ", "    ")
    return out


def to_terminal(markdown: str, width: int = 100, color: bool = False) -> str:
    """The page as terminal text."""
    text = re.sub(r"<!--.*?-->\n?", "", markdown, flags=re.S)
    lines = text.split("\n")
    out: list[str] = []
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            out.extend(_fill(inline(" ".join(para), color), width, "", ""))
            para.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):
            flush()
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                out.append(("    " + lines[i]).rstrip() if not color else f"    {_DIM}{lines[i]}{_RESET}")
                i += 1
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(lines[i])
                i += 1
            out += _table(rows, width, color)
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        if m:
            flush()
            title = _fill(inline(m.group(2), False), width, "", "")
            if out and out[-1] != "":
                out.append("")
            out += [f"{_BOLD}{t}{_RESET}" if color else t for t in title]
            if len(m.group(1)) <= 2:
                out.append(("=" if len(m.group(1)) == 1 else "-") * min(max(map(len, title)), width))
            i += 1
            continue
        lm = _LIST.match(line)
        if lm:
            flush()
            indent = "  " * (len(lm.group(1)) // 2)
            bullet = "-" if lm.group(2) in "-*+" else lm.group(2)
            item = [lm.group(3)]
            i += 1
            while i < len(lines) and lines[i].startswith(" " * (len(lm.group(1)) + 2)) and lines[i].strip() \
                    and not _LIST.match(lines[i]):
                item.append(lines[i].strip())
                i += 1
            out += _fill(inline(" ".join(item), color), width, f"{indent}{bullet} ", indent + " " * (len(bullet) + 1))
            continue
        if stripped.startswith(">"):
            flush()
            quote = []
            while i < len(lines) and lines[i].strip().startswith(">"):
                quote.append(lines[i].strip()[1:].strip())
                i += 1
            out += _fill(inline(" ".join(quote), color), width, "  | ", "  | ")
            continue
        if not stripped:
            flush()
            if out and out[-1] != "":
                out.append("")
            i += 1
            continue
        para.append(stripped)
        i += 1
    flush()
    while out and out[-1] == "":
        out.pop()
    while out and out[0] == "":
        out.pop(0)
    return "\n".join(out) + "\n"
