"""Read a store file the way every notes reader does: regular files only, never past the cap."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from memtui.core.resolving.fd_paths import Location, OutsideStore, StoreRoot
from memtui.core.resolving.regular import Head, read_head, whole_chars
from memtui.notes.file_checks import LARGE_NOTE_BYTES

SNIFF_BYTES = 8192
"""How much of a file decides whether it is text: no NUL byte and valid UTF-8 there."""
NOTE_SUFFIX = ".md"
"""Files with this suffix are Basic Memory notes; every other text file is searched as lines."""


def binary_reason(data: bytes) -> str | None:
    """Why a file is not text (a NUL byte or bytes that are not UTF-8 in its first block),
    or None."""
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


def store_parts(relpath: str) -> list[str]:
    """The components of a path the index names (its name is not trusted); OSError for one that
    is not a plain relative path or that goes through a hidden folder."""
    parts = relpath.split("/")
    if (
        not relpath
        or "\0" in relpath
        or relpath.startswith("/")
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
    ):
        raise OSError(errno.EINVAL, "not a path inside the store", relpath)
    return parts


def read_store_head(root: Path, relpath: str) -> Head:
    """The head (up to the cap) of a file of the store by its relative path, read on folder
    descriptors
    (`core.fd_paths`): never through a linked folder, a final symlink only to a file inside the
    store (as the folder walk indexes it), and nothing swapped in between a check and the read.

    Raises OSError (FileNotFoundError when nothing is there).
    """
    parts = store_parts(relpath)
    try:
        with StoreRoot(root) as store, store.locate(parts[:-1]) as folder:
            if folder.parts != parts[:-1] or folder.looped:
                raise OSError(errno.ELOOP, "a linked folder is not followed", relpath)
            parent = _open_folder(folder)
            try:
                return _read_at(store, parent, parts)
            finally:
                os.close(parent)
    except OutsideStore:
        raise OSError(errno.ELOOP, "a symlink out of the store is not followed", relpath) from None


def _open_folder(folder: Location) -> int:
    """A new descriptor of a located folder, the root included (FileNotFoundError when it is
    not there)."""
    try:
        return folder.open_dir()
    except NotADirectoryError:
        raise FileNotFoundError(errno.ENOENT, "no such file", folder.relative) from None


def _read_at(store: StoreRoot, parent: int, parts: list[str]) -> Head:
    """Read the file `parts[-1]` in the open folder `parent`; a symlink there is followed by
    locating its target from the root."""
    name = parts[-1]
    info = os.stat(name, dir_fd=parent, follow_symlinks=False)
    if not stat.S_ISLNK(info.st_mode):
        return _head(name, parent)
    with store.locate(parts) as target:
        target_parent = target.parent_fd()
        if target.looped or target_parent is None:
            raise OSError(
                errno.ELOOP, "a broken or looping symlink is not followed", "/".join(parts)
            )
        return _head(target.name, target_parent)


def _head(name: str, dir_fd: int) -> Head:
    """The head (up to the cap) of the regular file `name` in the open folder `dir_fd` (never a
    link)."""
    return read_head(name, dir_fd=dir_fd, limit=LARGE_NOTE_BYTES)
