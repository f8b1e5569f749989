"""Crash-safe file writes: a temp file in the same directory, fsync, rename over, fsync the dir."""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
from pathlib import Path

TEMP_PREFIX = ".tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700
_NEW_FILE_FLAGS = os.O_CREAT | os.O_EXCL | os.O_WRONLY


def temp_name() -> str:
    """A unique hidden temp file name; the `.tmp-` prefix keeps it out of listings."""
    return f"{TEMP_PREFIX}{os.getpid()}-{uuid.uuid4()}"


def fsync_dir(path: Path) -> None:
    """Flush a directory entry change (create, rename, unlink) to disk; best effort."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd`, looping over short writes."""
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        written = os.write(fd, view[offset:])
        if written == 0:
            raise OSError("os.write returned 0")
        offset += written


def _fill_and_close(fd: int, data: bytes, mode: int) -> None:
    """Give the new file `fd` exactly `mode`, write all of `data`, fsync it and close it."""
    try:
        os.fchmod(fd, mode)
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Replace `path` with `data` so readers see the old bytes or the new, never a mix."""
    temp_path = path.parent / temp_name()
    fd = os.open(temp_path, _NEW_FILE_FLAGS, mode)
    try:
        _fill_and_close(fd, data, mode)
        os.replace(temp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_path)
        raise
    fsync_dir(path.parent)


def create_exclusive(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Create `path` with `data`, refusing (FileExistsError) if anything already exists there.

    The bytes go to a temp file first and are hard-linked into place, which fails if anything
    exists there, so a crash leaves either no file or the whole file, never a partial one.
    """
    temp_path = path.parent / temp_name()
    fd = os.open(temp_path, _NEW_FILE_FLAGS, mode)
    try:
        _fill_and_close(fd, data, mode)
        try:
            os.link(temp_path, path)
        except FileExistsError:
            raise
        except OSError as error:
            if error.errno not in _NO_HARD_LINKS:
                raise
            _create_in_place(path, data, mode)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp_path)
    fsync_dir(path.parent)


_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.EXDEV)
"""Errors of `os.link` on filesystems without hard links, where creation falls back to O_EXCL."""


def _create_in_place(path: Path, data: bytes, mode: int) -> None:
    """O_EXCL-create `path` and write `data` into it, removing it again if the write fails."""
    fd = os.open(path, _NEW_FILE_FLAGS, mode)
    try:
        _fill_and_close(fd, data, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise


def make_dirs(path: Path, mode: int = DIR_MODE) -> None:
    """Create `path` and every missing parent with exactly `mode` (umask-proof), like the SDK."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        parent = current.parent
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=mode)
        except FileExistsError:
            continue
        os.chmod(directory, mode)
        fsync_dir(directory.parent)
