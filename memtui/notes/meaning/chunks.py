"""What gets a vector: one chunk per section of a note (split at its headings) or per run of lines
of another text file, each knowing its first line and heading, so a hit can say why it matched."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHUNK_CHARS = 1200
"""A section longer than this is cut at line ends into parts of about this size: a static model
averages its tokens, so a long text's vector says less about each part."""
MAX_CHUNKS = 200
"""Chunks kept per file (the first ones); the rest of a huge file is found by text only."""
HEADING_CHARS = 120
"""Characters of a heading kept to show why a chunk matched."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One part of a file that gets a vector."""

    line: int
    """1-based line of the file where the chunk starts."""
    heading: str
    """The section's heading (or the file's title): what a hit shows as why it matched."""
    text: str
    """What is embedded: the title, the heading and the section's lines."""


def chunk_file(
    title: str, body: str, body_line: int, *, markdown: bool, meta: str = ""
) -> list[Chunk]:
    """The chunks of a file: `body` is its text from 1-based line `body_line` on (after the
    frontmatter), `meta` its frontmatter values (tags, type), added to the first chunk."""
    lines = body.split("\n")
    sections = _sections(lines, title) if markdown else [(0, title, len(lines))]
    chunks: list[Chunk] = []
    for start, heading, end in sections:
        for part, (first, last) in enumerate(_parts(lines, start, end)):
            text = "\n".join(line for line in lines[first:last] if line.strip())
            if not text:
                continue
            if part and heading != title:
                text = f"{heading}\n{text}"
            lead = f"{title}\n{meta}" if not chunks and meta else title
            chunks.append(Chunk(body_line + first, _shorten(heading), f"{lead}\n{text}"))
            if len(chunks) == MAX_CHUNKS:
                return chunks
    if not chunks and (title or meta):
        chunks.append(Chunk(body_line, _shorten(title), f"{title}\n{meta}".strip()))
    return chunks


def _sections(lines: list[str], title: str) -> list[tuple[int, str, int]]:
    """(first line index, heading, end index) of each section: the text before the first heading
    goes under the title; headings inside code fences do not count."""
    starts: list[tuple[int, str]] = [(0, title)]
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if opened:
            marker = opened.group(1)
            if fence is None:
                fence = marker[0] * len(marker)
            elif marker.startswith(fence):
                fence = None
            continue
        if fence is None and (heading := _HEADING.match(line)):
            starts.append((number, heading.group(2).strip() or title))
    if len(starts) > 1 and starts[1][0] == 0:
        starts.pop(0)
    ends = [start for start, _heading in starts[1:]] + [len(lines)]
    return [(start, heading, end) for (start, heading), end in zip(starts, ends, strict=True)]


def _parts(lines: list[str], start: int, end: int) -> list[tuple[int, int]]:
    """Line ranges of a section, each at most about MAX_CHUNK_CHARS long (cut at line ends)."""
    parts: list[tuple[int, int]] = []
    first, size = start, 0
    for number in range(start, end):
        length = len(lines[number]) + 1
        if size and size + length > MAX_CHUNK_CHARS:
            parts.append((first, number))
            first, size = number, 0
        size += length
    parts.append((first, end))
    return parts


def _shorten(heading: str) -> str:
    """A heading cut to HEADING_CHARS characters."""
    heading = " ".join(heading.split())
    return heading if len(heading) <= HEADING_CHARS else heading[: HEADING_CHARS - 1] + "…"
