"""The statements of a memory file: the lines that each say one thing.

In a note these are its observations and its other list items and sentences; in any other text
file (a memory-tool `.txt` or `.xml` file, Claude Code's `MEMORY.md`) its lines. Left out:
frontmatter, headings, fenced code, tables, block quotes, comments, relation lines
(`- type [[Target]]`), bare XML tags that only open or close a block, lines that only link
(`- [Setup](#setup)`) or introduce what follows (ending in `:`), blank lines, lines too
long to be one statement, and the lines of a wrapped paragraph or list item (a line that runs
on into the next: no closing punctuation, and the next line goes on in lower case or indented),
which hold parts of sentences, not statements.
"""

from __future__ import annotations

import re

from memtui.notes.statement_words import STOPWORDS

MAX_STATEMENT_CHARS = 200
"""A longer line is a paragraph, not one statement."""
WRAPPED_WIDTH = 50
"""A line at least this long, open at its end, followed by one in lower case, is wrapped text
(shorter lines in lower case are one fact each, as agents often write them)."""
_FENCE = re.compile(r"^\s*(```|~~~)")
_SKIPPED = re.compile(
    r"^\s*(?:#{1,6}\s|\||>|<!--|-->|[-*_]{3,}\s*$|</?[A-Za-z][\w.-]*(?:\s[^<>]*)?>\s*$)"
)
_RELATION = re.compile(
    r"^\s*(?:[-*+]|\d+[.)])\s+(?:\S+|\"[^\"]+\"|'[^']+')\s+\[\[[^\]]+\]\]\s*(?:\([^()]*\))?\s*$"
)
_WORD = re.compile(r"[^\W_]")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_INTRODUCES = re.compile(r":\**\s*$")
"""A line ending in a colon introduces what follows; it states nothing itself."""
_LINK_ONLY = re.compile(r"^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+)?\[[^\]]*\]\([^)]*\)\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")
_CLOSED = re.compile(r"[.!?:;)>\]`*\"']\s*$")


def _body_start(lines: list[str]) -> int:
    """The index of the first line after a leading `---` frontmatter block (0 without one)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def statement_lines(relpath: str, text: str) -> list[tuple[int, str, int]]:
    """(1-based line number, line, section) of every statement of a file's text; the section
    is the line number of the heading the statement is under (0 before any heading)."""
    lines = [line.rstrip("\r") for line in text.split("\n")]
    start = _body_start(lines) if relpath.lower().endswith(".md") else 0
    found: list[tuple[int, str, int]] = []
    fenced = False
    joined = False
    section = 0
    for number in range(start, len(lines)):
        line = lines[number]
        follows = lines[number + 1] if number + 1 < len(lines) else ""
        part_of_paragraph, joined = joined, _runs_on(line, follows)
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.strip() or len(line) > MAX_STATEMENT_CHARS:
            continue
        if _HEADING.match(line):
            section = number + 1
        if part_of_paragraph or joined:
            continue
        if _SKIPPED.match(line) or _RELATION.match(line) or not _WORD.search(line):
            continue
        if _INTRODUCES.search(line) or _LINK_ONLY.match(line):
            continue
        found.append((number + 1, line, section))
    return found


def _runs_on(line: str, follows: str) -> bool:
    """Whether `line` runs on into the next line: a wrapped sentence or list item."""
    if not line.strip() or not follows.strip() or _CLOSED.search(line):
        return False
    if _LIST_ITEM.match(follows) or _SKIPPED.match(follows) or _FENCE.match(follows):
        return False
    if follows[:1].isspace():
        return True
    last = line.split()[-1].lower()
    return follows.lstrip()[:1].islower() and (len(line) >= WRAPPED_WIDTH or last in STOPWORDS)
