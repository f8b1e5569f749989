"""Crash-safe writes on folder descriptors: a temp file under `.memtui/tmp`, fsync, then into place.

Temp files live in memtui's own folder, where no note can be, so start-up recovery removes only
what memtui wrote. They are renamed (or hard-linked, for a new file) into the target folder by
descriptor, which is atomic on one filesystem. A target folder on another filesystem (a mount
inside the store) gets its temp file beside the target instead, registered first by a marker
under `.memtui/tmp` that names it, so recovery still knows it is memtui's.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from memtui.core.resolving.fd_paths import (
    DIR_MODE,
    StoreRoot,
    close_quietly,
    fsync_dir_fd,
    make_dir_at,
)
from memtui.core.resolving.lock import META_DIR_NAME

TEMP_PREFIX = ".tmp-"
MARKER_SUFFIX = ".where"
"""A marker `<temp name>.where` in the temp folder names an in-place temp: its folder and inode."""
TEMP_DIR_NAME = "tmp"
FILE_MODE = 0o600
_NEW_FILE_FLAGS = os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)
"""Errors of `os.link` on filesystems without hard links, where creation falls back to O_EXCL."""


def temp_name() -> str:
    """A unique temp file name holding the writer's pid (recovery checks whether it still runs)
    and 128 random bits, written as a uuid is (the form recovery knows)."""
    hexed = os.urandom(16).hex()
    random = f"{hexed[:8]}-{hexed[8:12]}-{hexed[12:16]}-{hexed[16:20]}-{hexed[20:]}"
    return f"{TEMP_PREFIX}{os.getpid()}-{random}"


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


def make_dirs(path: Path, mode: int = DIR_MODE) -> None:
    """Create a store's root folder and its missing parents with exactly `mode`, like the SDK.

    Only for the root, whose path the user chose; everything below it is made on descriptors.
    """
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=mode)
        except FileExistsError:
            continue
        os.chmod(directory, mode)


class TempArea:
    """`<root>/.memtui/tmp`, opened on descriptors from the root (a link there is refused)."""

    def __init__(self, root: StoreRoot) -> None:
        """Prepare (without opening) the temp folder of `root`."""
        self.root = root
        self._fd: int | None = None

    def fd(self) -> int:
        """The temp folder's descriptor, created on first use."""
        if self._fd is None:
            meta = make_dir_at(self.root.fd, META_DIR_NAME)
            try:
                self._fd = make_dir_at(meta, TEMP_DIR_NAME)
            finally:
                close_quietly(meta)
        return self._fd

    def close(self) -> None:
        """Close the temp folder's descriptor."""
        if self._fd is not None:
            close_quietly(self._fd)
            self._fd = None

    @staticmethod
    def write_temp(dir_fd: int, data: bytes, mode: int) -> str:
        """A new, fsynced temp file in `dir_fd` holding `data`; its name."""
        name = temp_name()
        write_new(dir_fd, name, data, mode)
        return name

    def place(self, dir_fd: int, data: bytes, mode: int, put: Callable[[int, str], None]) -> None:
        """Write `data` to a temp file and `put(temp_dir_fd, temp_name)` it into `dir_fd`.

        The temp file is gone afterwards whatever happens. A target on another filesystem
        (EXDEV) gets a temp file in its own folder, registered by a marker first.
        """
        area = self.fd()
        name = self.write_temp(area, data, mode)
        try:
            put(area, name)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
        else:
            return
        finally:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=area)
        self._place_in_folder(dir_fd, data, mode, put)

    def _place_in_folder(
        self, dir_fd: int, data: bytes, mode: int, put: Callable[[int, str], None]
    ) -> None:
        """As `place`, with the temp file in the target's own folder (another filesystem).

        Its marker, written before any data, names the folder and the temp file's device and
        inode, so recovery removes that very file and never another of the same name.
        """
        area = self.fd()
        name = temp_name()
        folder = os.readlink(f"/proc/self/fd/{dir_fd}")
        relative = os.path.relpath(folder, self.root.real)
        fd = os.open(name, _NEW_FILE_FLAGS, mode, dir_fd=dir_fd)
        try:
            write_new(area, name + MARKER_SUFFIX, marker_bytes(relative, os.fstat(fd)), FILE_MODE)
            filling, fd = fd, -1
            _fill_and_close(filling, data, mode)
            put(dir_fd, name)
        finally:
            if fd >= 0:
                close_quietly(fd)
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=dir_fd)
            with contextlib.suppress(OSError):
                os.unlink(name + MARKER_SUFFIX, dir_fd=area)


def marker_bytes(folder: str, info: os.stat_result) -> bytes:
    """A marker's content: `<device> <inode>` of the temp file, then its folder in the store."""
    return f"{info.st_dev} {info.st_ino}\n".encode() + os.fsencode(folder)


def read_marker(data: bytes) -> tuple[str, int, int] | None:
    """(folder, device, inode) from a marker's content, or None if it is not one memtui wrote."""
    identity, newline, folder = data.partition(b"\n")
    numbers = identity.split(b" ")
    if not newline or len(numbers) != 2 or not all(number.isdigit() for number in numbers):
        return None
    return os.fsdecode(folder), int(numbers[0]), int(numbers[1])


def replace_at(temps: TempArea, dir_fd: int, name: str, data: bytes, mode: int = FILE_MODE) -> None:
    """Replace `name` in `dir_fd` with `data` so readers see the old bytes or the new,
    never a mix."""

    def put(temp_fd: int, temp: str) -> None:
        os.replace(temp, name, src_dir_fd=temp_fd, dst_dir_fd=dir_fd)

    temps.place(dir_fd, data, mode, put)
    fsync_dir_fd(dir_fd)


def create_at(temps: TempArea, dir_fd: int, name: str, data: bytes, mode: int = FILE_MODE) -> None:
    """Create `name` in `dir_fd` holding `data`; FileExistsError if anything is there already.

    The bytes are written to a temp file first and hard-linked into place, which fails if
    anything exists there, so a crash leaves either no file or the whole file.
    """

    def put(temp_fd: int, temp: str) -> None:
        try:
            os.link(temp, name, src_dir_fd=temp_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
        except OSError as error:
            if error.errno not in _NO_HARD_LINKS:
                raise
            write_new(dir_fd, name, data, mode)

    temps.place(dir_fd, data, mode, put)
    fsync_dir_fd(dir_fd)


def write_new(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """O_EXCL-create `name` in `dir_fd` holding `data` (fsynced); removed again if writing fails."""
    fd = os.open(name, _NEW_FILE_FLAGS, mode, dir_fd=dir_fd)
    try:
        _fill_and_close(fd, data, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        raise


def private_file(path: Path, *, create: bool = True) -> None:
    """Make memtui's own file `path` readable by its owner only: created empty with mode 0600
    if missing (FileNotFoundError without `create`), narrowed to 0600 if it allows more. A link
    there is never followed (ELOOP); anything but a regular file is left as it is."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    if create:
        flags |= os.O_CREAT
    fd = os.open(path, flags, FILE_MODE)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode) and info.st_mode & 0o077:
            os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def replace_file(path: Path, data: bytes, mode: int = FILE_MODE) -> None:
    """Replace a file outside any store (a config file) with `data`, readers seeing the old
    bytes or the new: a temp file beside it, fsynced, renamed over it, the folder fsynced."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        temp = temp_name()
        write_new(folder, temp, data, mode)
        try:
            os.replace(temp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=folder)
            raise
        fsync_dir_fd(folder)
    finally:
        close_quietly(folder)
