"""Read a store file the way every notes reader does: regular files only, never past the cap."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from memtui.core.regular import read_regular
from memtui.notes.file_checks import LARGE_NOTE_BYTES

SNIFF_BYTES = 8192
"""How much of a file decides whether it is text: no NUL byte and valid UTF-8 there."""
NOTE_SUFFIX = ".md"
"""Files with this suffix are Basic Memory notes; every other text file is searched as lines."""


@dataclass(frozen=True, slots=True)
class HeadBytes:
    """The first part of a file (all of it when it is small) and the stat it was read under."""

    data: bytes
    """At most `LARGE_NOTE_BYTES` bytes; when the file was cut, never a partial UTF-8 char."""
    size: int
    mtime_ns: int
    cut: bool
    """Whether the file holds more than `data`."""
    mtime: float = 0.0
    """`st_mtime` (seconds) as the stat gave it."""


def read_head(path: str | os.PathLike[str], *, follow_symlinks: bool = False) -> HeadBytes:
    """Read at most the cap (one byte more tells whether the file was cut) of a regular file.

    A sparse or huge file costs what the cap says; a FIFO or device is refused at once
    (`core.regular`), a final symlink too. Raises OSError.
    """
    data, info = read_regular(path, follow_symlinks=follow_symlinks, limit=LARGE_NOTE_BYTES + 1)
    cut = len(data) > LARGE_NOTE_BYTES
    if cut:
        data = whole_chars(data[:LARGE_NOTE_BYTES])
    return HeadBytes(data, info.st_size, info.st_mtime_ns, cut, info.st_mtime)


def whole_chars(data: bytes) -> bytes:
    """`data` without a UTF-8 sequence cut short at its end (what a cut at a byte count leaves)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= needed else data[:-back]
    return data


def binary_reason(data: bytes) -> str | None:
    """Why a file is not text (a NUL byte or bytes that are not UTF-8 in its first block), or None."""
    sniff = data[:SNIFF_BYTES]
    nul = sniff.find(b"\0")
    if nul >= 0:
        return f"binary file (a NUL byte at {nul}), skipped"
    if len(data) > SNIFF_BYTES:
        sniff = whole_chars(sniff)
    try:
        sniff.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"binary file (not UTF-8 at byte {error.start}), skipped"
    return None


def is_note(relpath: str) -> bool:
    """Whether a file is parsed as a Basic Memory note (by its suffix)."""
    return relpath.endswith(NOTE_SUFFIX)


def normalise_text(data: bytes) -> str:
    """Decoded file text with `\\n` line ends, so line numbers match the parser's."""
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def store_file(root: Path, relpath: str) -> tuple[Path, bool]:
    """The path of a file the index names (its name is not trusted) and whether opening it may
    follow a final symlink (one that stays inside the store, as the folder walk indexes it).

    Raises OSError for a name that is not a plain relative path, that goes through a linked or
    hidden folder, or that is a link out of the store.
    """
    parts = relpath.split("/")
    if (
        not relpath
        or "\0" in relpath
        or relpath.startswith("/")
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
    ):
        raise OSError(errno.EINVAL, "not a path inside the store", relpath)
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        if stat.S_ISLNK(os.lstat(folder).st_mode):
            raise OSError(errno.ELOOP, "a linked folder is not followed", str(folder))
    full = root / relpath
    if not stat.S_ISLNK(os.lstat(full).st_mode):
        return full, False
    real = os.path.realpath(full)
    base = os.path.realpath(root)
    if not real.startswith(base.rstrip(os.sep) + os.sep):
        raise OSError(errno.ELOOP, "a symlink out of the store is not followed", str(full))
    return full, True


def read_store_head(root: Path, relpath: str) -> HeadBytes:
    """`read_head` of a file of the store by its relative path (see `store_file`)."""
    full, follow = store_file(root, relpath)
    return read_head(full, follow_symlinks=follow)
