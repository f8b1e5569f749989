"""Open regular files only: a FIFO, device or socket is refused at once instead of blocking."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from io import BufferedReader

_KINDS = {
    stat.S_IFDIR: "folder",
    stat.S_IFIFO: "FIFO (named pipe)",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
}
CHUNK = 1 << 20
"""Bytes read at a time when a file is hashed without being kept."""


class NotRegularFile(OSError):
    """The path is a folder, FIFO, socket or device rather than a regular file."""

    def __init__(self, path: str | os.PathLike[str], mode: int) -> None:
        """Name what `path` is, from its `st_mode`."""
        self.kind = kind_name(mode)
        super().__init__(errno.EINVAL, f"it is a {self.kind}, not a regular file", os.fspath(path))


def kind_name(mode: int) -> str:
    """`folder`, `FIFO (named pipe)`, `socket`, ... for an `st_mode`; `file` for a regular one."""
    return "file" if stat.S_ISREG(mode) else _KINDS.get(stat.S_IFMT(mode), "special file")


@contextmanager
def open_regular(
    path: str | os.PathLike[str], *, follow_symlinks: bool = False, dir_fd: int | None = None
) -> Iterator[tuple[BufferedReader, os.stat_result]]:
    """The open file and its fstat; raises NotRegularFile without ever blocking on the open.

    O_NONBLOCK keeps the open of a FIFO from waiting for a writer; O_NOFOLLOW (unless
    `follow_symlinks`) refuses a final symlink with ELOOP. With `dir_fd`, `path` is a name
    in that folder.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(path, info.st_mode)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, info


def whole_chars(data: bytes) -> bytes:
    """`data` without a UTF-8 character cut short at its end (a read stopped inside it)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= needed else data[:-back]
    return data


def read_regular(
    path: str | os.PathLike[str],
    *,
    follow_symlinks: bool = False,
    dir_fd: int | None = None,
    limit: int | None = None,
) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file (at most its first `limit` bytes) and the stat they were read
    under (see `open_regular`); a huge or sparse file costs only what is read."""
    with open_regular(path, follow_symlinks=follow_symlinks, dir_fd=dir_fd) as (handle, info):
        return (handle.read() if limit is None else handle.read(limit)), info


@dataclass(frozen=True, slots=True)
class Head:
    """The first part of a regular file (all of it when it is small) and the stat it was read
    under: what `read_head` gives every reader of a file's start."""

    data: bytes
    """At most the limit asked for; when the file was cut, never a partial UTF-8 character."""
    size: int
    """The whole file's size, as its stat gave it."""
    mtime_ns: int
    cut: bool
    """Whether the file holds more than `data`."""
    mtime: float = 0.0
    """`st_mtime` (seconds) as the stat gave it."""
    ctime_ns: int = 0
    """`st_ctime_ns`: no user process can set it back, so an edit with its mtime restored shows."""
    inode: int = 0

    @property
    def text(self) -> str:
        """`data` as UTF-8 text; raises UnicodeDecodeError when it is not."""
        return self.data.decode("utf-8")


def read_head(
    path: str | os.PathLike[str],
    *,
    limit: int,
    dir_fd: int | None = None,
    follow_symlinks: bool = False,
) -> Head:
    """At most the first `limit` bytes of a regular file (see `open_regular`; one byte more is
    read to tell whether the file was cut): a huge or sparse file costs only the limit."""
    data, info = read_regular(path, follow_symlinks=follow_symlinks, dir_fd=dir_fd, limit=limit + 1)
    cut = len(data) > limit
    if cut:
        data = whole_chars(data[:limit])
    return Head(
        data, info.st_size, info.st_mtime_ns, cut, info.st_mtime, info.st_ctime_ns, info.st_ino
    )


@dataclass(frozen=True)
class FileRead:
    """A regular file read up to a limit: its sha256, and its bytes if it was within the limit."""

    digest: str
    data: bytes | None
    """None when the file was bigger than the limit (only hashed, in chunks)."""
    info: os.stat_result
    size: int
    """Bytes read (the file's size when it was read)."""


def read_limited(dir_fd: int, name: str, limit: int) -> FileRead:
    """Read regular file `name` in `dir_fd`: keep its bytes up to `limit`, else only hash them.

    Never holds more than `limit` bytes (plus one chunk) in memory, however big or sparse the
    file is. Raises NotRegularFile, or OSError(ELOOP) for a link.
    """
    with open_regular(name, dir_fd=dir_fd) as (handle, info):
        head = handle.read(limit + 1) if info.st_size <= limit else b""
        if info.st_size <= limit and len(head) <= limit:
            return FileRead(hashlib.sha256(head).hexdigest(), head, info, len(head))
        hasher = hashlib.sha256(head)
        size = len(head)
        while chunk := handle.read(CHUNK):
            hasher.update(chunk)
            size += len(chunk)
        return FileRead(hasher.hexdigest(), None, info, size)
