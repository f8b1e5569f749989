"""`read_only: true` in a note's frontmatter: the note is `read` for every agent.

Only the file's start is read. The frontmatter is the YAML block between a first line `---` and
the next `---` line, as Basic Memory reads it; the key must be at the top level, its value a
YAML boolean true as PyYAML reads one (`true`, `yes`, `on` in any of their usual cases). A
quoted value is a string, not a boolean.
"""

from __future__ import annotations

import re

from memtui.core.resolving.regular import read_head

HEAD_BYTES = 64 * 1024
"""How much of a file is read to find its frontmatter."""
_KEY = re.compile(rb"read_only[ \t]*:[ \t]*([^#\r\n]*?)[ \t]*(?:#.*)?\r?$")
_TRUE = frozenset(
    {b"true", b"True", b"TRUE", b"yes", b"Yes", b"YES", b"on", b"On", b"ON"},
)
_FENCE = re.compile(rb"---[ \t]*\r?$")


def says_read_only(head: bytes) -> bool:
    """Whether text starting with `head` has frontmatter saying `read_only: true`."""
    lines = head.split(b"\n")
    if not lines or not _FENCE.fullmatch(lines[0].removeprefix(b"\xef\xbb\xbf")):
        return False
    said = False
    for line in lines[1:]:
        if _FENCE.fullmatch(line):
            return said
        match = _KEY.fullmatch(line)
        if match is not None:
            said = match.group(1) in _TRUE
    return False


def file_read_only(name: str, dir_fd: int) -> bool:
    """Whether the regular file `name` in folder `dir_fd` says `read_only: true` (a file that
    cannot be read says nothing)."""
    try:
        head = read_head(name, dir_fd=dir_fd, limit=HEAD_BYTES)
    except OSError:
        return False
    return says_read_only(head.data)
