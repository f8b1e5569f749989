"""Warnings about a note file itself: a hostile name, NUL bytes, a size too big to show whole."""

from __future__ import annotations

import os
import re

from memtui.core.plurals import noun_for

MIB = 1024 * 1024
LARGE_NOTE_BYTES = MIB
"""Notes bigger than this get a warning; the app shows only their first part."""
LARGE_NOTE_LINES = 20_000
"""Notes with more lines than this get a warning; the app shows only their first lines."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\udc80-\udcff]")


def name_warnings(path: str) -> list[str]:
    """A warning for a relative path that is not valid UTF-8 or holds control characters."""
    warnings: list[str] = []
    bad_byte = _SURROGATE.search(path)
    if bad_byte is not None:
        byte = os.fsencode(bad_byte.group())[0]
        warnings.append(
            f"file name is not valid UTF-8 (byte 0x{byte:02x}); agents cannot open it by path"
        )
    control = _CONTROL.search(path)
    if control is not None:
        warnings.append(f"file name contains a control character (U+{ord(control.group()):04X})")
    return warnings


def size_warnings(size: int, lines: int, *, lines_at_least: bool = False) -> list[str]:
    """A warning for a note over `LARGE_NOTE_BYTES` bytes or `LARGE_NOTE_LINES` lines
    (`lines_at_least`: only part of the note was counted, so it has `lines` or more)."""
    warnings: list[str] = []
    if size > LARGE_NOTE_BYTES:
        warnings.append(
            f"large note: {size:,} bytes, over {LARGE_NOTE_BYTES // MIB} MiB; "
            f"the app shows only its first {LARGE_NOTE_BYTES // MIB} MiB"
        )
    if lines > LARGE_NOTE_LINES:
        warnings.append(
            f"long note: {'at least ' if lines_at_least else ''}{lines:,} lines, "
            f"over {LARGE_NOTE_LINES:,}; "
            f"the app shows only its first {LARGE_NOTE_LINES:,} lines"
        )
    return warnings


def nul_warning(text: str) -> str | None:
    """A warning for text holding NUL characters (they are left out when parsing)."""
    count = text.count("\x00")
    if not count:
        return None
    return f"contains {count} {noun_for(count, 'NUL byte')}; they are left out"


def note_head(text: str) -> str | None:
    """The part of a large note the app shows, or None when the note is shown whole."""
    head = text[:LARGE_NOTE_BYTES]
    if len(head.encode("utf-8", "surrogatepass")) > LARGE_NOTE_BYTES:
        head = head.encode("utf-8", "surrogatepass")[:LARGE_NOTE_BYTES].decode("utf-8", "ignore")
    head = first_lines(head)
    return head if len(head) < len(text) else None


def shown_part(text: str) -> str:
    """What the app shows, searches and indexes of a text: its first 20,000 lines within its
    first MiB (all of any ordinary note)."""
    head = note_head(text)
    return text if head is None else head


def first_lines(text: str) -> str:
    """The first `LARGE_NOTE_LINES` lines of `text` (all of it when it has no more)."""
    if len(text) <= LARGE_NOTE_LINES:
        return text
    cut = -1
    for _ in range(LARGE_NOTE_LINES):
        cut = text.find("\n", cut + 1)
        if cut < 0:
            return text
    return text[: cut + 1]
