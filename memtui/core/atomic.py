"""Crash-safe file writes: a temp file in the same directory, fsync, rename over, fsync the dir."""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

TEMP_PREFIX = ".tmp-"
FILE_MODE = 0o600
DIR_MODE = 0o700


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


def atomic_write(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Replace `path` with `data` so readers see the old bytes or the new, never a mix."""
    temp_path = path.parent / temp_name()
    fd = os.open(temp_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
    try:
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_path)
        raise
    fsync_dir(path.parent)


def create_exclusive(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Create `path` with `data`, refusing (FileExistsError) if anything already exists there.

    The file is created with O_EXCL so an existing file is never overwritten; if writing fails
    the half-written file is removed again, so a failure leaves nothing behind.
    """
    fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
    try:
        try:
            os.fchmod(fd, mode)
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    fsync_dir(path.parent)


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
