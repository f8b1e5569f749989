"""The statements of a memory file: the lines that each say one thing.

In a note these are its observations and its other list items and sentences; in any other text
file (a memory-tool `.txt` or `.xml` file, Claude Code's `MEMORY.md`) its lines. Left out:
frontmatter, headings, fenced code, tables, block quotes, comments, relation lines
(`- type [[Target]]`), bare XML tags that only open or close a block, blank lines and lines
too long to be one statement (a paragraph).
"""

from __future__ import annotations

import re

MAX_STATEMENT_CHARS = 300
"""A longer line is a paragraph, not one statement."""
_FENCE = re.compile(r"^\s*(```|~~~)")
_SKIPPED = re.compile(
    r"^\s*(?:#{1,6}\s|\||>|<!--|-->|[-*_]{3,}\s*$|</?[A-Za-z][\w.-]*(?:\s[^<>]*)?>\s*$)"
)
_RELATION = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])\s+(?:\S+|\"[^\"]+\"|'[^']+')\s+\[\[[^\]]+\]\]\s*(?:\([^()]*\))?\s*$"
)
_WORD = re.compile(r"[^\W_]")


def _body_start(lines: list[str]) -> int:
    """The index of the first line after a leading `---` frontmatter block (0 without one)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def statement_lines(relpath: str, text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of every statement of a file's text."""
    lines = text.split("\n")
    start = _body_start(lines) if relpath.lower().endswith(".md") else 0
    found: list[tuple[int, str]] = []
    fenced = False
    for number in range(start, len(lines)):
        line = lines[number].rstrip("\r")
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.strip() or len(line) > MAX_STATEMENT_CHARS:
            continue
        if _SKIPPED.match(line) or _RELATION.match(line) or not _WORD.search(line):
            continue
        found.append((number + 1, line))
    return found
