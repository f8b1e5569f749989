"""Store paths resolved and used on directory file descriptors, so no path leaves the store.

A path is never resolved once and used later by name. Each component is opened from its
parent folder's descriptor with `O_NOFOLLOW | O_DIRECTORY`; an in-store symlink is followed by
reading it and resolving its target the same way, from the root's descriptor (or by name only
while a `..` has climbed above the root, until the names lead back into it); and every read,
write, create, rename, listing and delete acts on one name relative to its parent's descriptor
(`dir_fd=`). A folder swapped for a link to elsewhere between two steps is then either still the
folder that was opened, or refused: it is never followed out of the store.

Resolution keeps the memory tool's `realpath` rules (spec section 3): links inside the store are
transparent, missing trailing parts are kept as written, a link that loops stays where the loop
was found. One difference: an absolute link target is followed only when its text names the
store's root or a path below it (`/home/me/memories/x`); any other absolute target is outside.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

WALK_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""A folder handle for `dir_fd=`: no read permission needed, and never a symlink."""
LIST_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""A folder opened to list (scandir) or to fsync."""
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
"""A file opened to read: never through a final symlink, never waiting on a FIFO."""
DIR_MODE = 0o700
"""The mode of every folder memtui makes (its own and a store's)."""
MAX_LINKS = 40
"""Links followed in one resolution before it counts as a loop (the kernel's own limit)."""
RACE_RETRIES = 8
"""How often a component that changed between its lstat and its readlink is looked at again."""
_MISSING = frozenset({errno.ENOENT, errno.ENOTDIR})
"""Errors that mean 'nothing there' rather than 'cannot look'."""
RENAME_NOREPLACE = 1
"""renameat2's flag: fail with EEXIST instead of replacing what is at the destination."""
_RENAMEAT2_SYSCALL = {"x86_64": 316, "aarch64": 276, "riscv64": 276, "i686": 353, "i386": 353}
"""renameat2's syscall number, for a libc without the wrapper."""
_UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP})
"""renameat2 errors that may mean the kernel or the filesystem lacks RENAME_NOREPLACE."""
_NO_HARD_LINK = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK})
"""link() errors of a file that cannot be moved by link and unlink (a folder, no hard links)."""


class OutsideStore(Exception):
    """Resolution left the store: a link out of it, or `..` above the root that never came back."""


def close_quietly(fd: int) -> None:
    """Close a descriptor, ignoring errors (it is being given up anyway)."""
    with contextlib.suppress(OSError):
        os.close(fd)


class StoreRoot:
    """The store's root folder, open: every walk starts at its descriptor.

    The root's own path is the user's choice and is followed as given (links included);
    everything below it is walked on descriptors.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        """Open `root` (which must exist)."""
        self.real = os.path.realpath(root)
        self.fd = os.open(self.real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self._names = [part for part in self.real.split("/") if part]

    def __enter__(self) -> StoreRoot:
        """Use as a context manager; the root is closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the root."""
        self.close()

    def close(self) -> None:
        """Close the root's descriptor."""
        if self.fd >= 0:
            close_quietly(self.fd)
            self.fd = -1

    def locate(self, components: Iterable[str]) -> Location:
        """Resolve components (names, `.`, `..`, as in a path) from the root; OutsideStore
        if out."""
        location = Location(self)
        try:
            location.walk(components)
        except BaseException:
            location.close()
            raise
        return location

    def locate_relative(self, relative: str) -> Location:
        """Resolve a `/`-separated path relative to the root (see `locate`)."""
        return self.locate(relative.split("/"))

    def parent_names(self) -> list[str]:
        """The absolute components of the folder holding the root."""
        return self._names[:-1]

    def is_root_names(self, names: list[str]) -> bool:
        """True if absolute path components `names` spell the root's real path."""
        return names == self._names


@dataclass
class _Walk:
    """One resolution's progress: what is left to resolve and the links being followed."""

    pending: deque[str]
    active: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    """Links being resolved: (their path, how many components follow their target)."""
    above: list[str] | None = None
    """Absolute components while a `..` or an absolute target has left the root by name."""
    followed: int = 0
    retries: int = 0


class Location:
    """One resolved path in the store: descriptors of its existing folders, the rest by name.

    `parts` is the resolved path relative to the root (links followed, `.`/`..` applied, no
    link left in it unless one loops). `fds[i]` is the open folder `parts[:i]` (`fds[0]` is the
    root's, not owned). While the walk has not reached the leaf's folder (a missing or non-folder
    component), the rest of `parts` is kept by name only: `stopped` says why.
    """

    def __init__(self, root: StoreRoot) -> None:
        """An empty location (the root itself) on `root`."""
        self.root = root
        self.parts: list[str] = []
        self.fds: list[int] = [root.fd]
        self.stopped: int | None = None
        """errno of the component the walk could not enter (ENOENT, ENOTDIR, ELOOP...)."""
        self.looped = False
        self.made = 0
        """How many folders above the leaf `make_parents` created (the innermost ones)."""

    def __enter__(self) -> Location:
        """Use as a context manager; descriptors are closed on exit."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close every descriptor this location opened."""
        self.close()

    def close(self) -> None:
        """Close every descriptor this location opened (the root's stays open)."""
        while len(self.fds) > 1:
            close_quietly(self.fds.pop())

    # Resolution.

    def walk(self, components: Iterable[str]) -> None:
        """Resolve `components` from here, following in-store links the way `realpath` does."""
        state = _Walk(deque(components))
        while state.pending:
            while state.active and len(state.pending) <= state.active[-1][1]:
                state.active.pop()
            name = state.pending.popleft()
            if name in ("", "."):
                continue
            if state.above is not None:
                state.above = self._step_above(state.above, name)
            elif name == "..":
                if self.parts:
                    self._pop()
                else:
                    state.above = self.root.parent_names()
            else:
                info = self._lstat_next(name)
                if info is None or not stat.S_ISLNK(info.st_mode):
                    self.parts.append(name)
                elif not self._follow(name, state):
                    return
        if state.above is not None:
            raise OutsideStore

    def _follow(self, name: str, state: _Walk) -> bool:
        """Read link `name` and queue its target; False once resolution stops at a loop."""
        key = (*self.parts, name)
        if state.followed >= MAX_LINKS or any(link == key for link, _ in state.active):
            self._loop_at(name, state.pending)
            return False
        try:
            target = os.readlink(name, dir_fd=self.fds[-1])
        except OSError:
            state.retries += 1
            if state.retries > RACE_RETRIES:
                self.parts.append(name)
            else:
                state.pending.appendleft(name)
            return True
        state.followed += 1
        state.active.append((key, len(state.pending)))
        if target.startswith("/"):
            self._reset()
            state.above = []
        state.pending.extendleft(reversed(target.split("/")))
        return True

    def _step_above(self, above: list[str], name: str) -> list[str] | None:
        """One component while outside the root by name; None once the names are back at
        the root."""
        above = above[:-1] if name == ".." else [*above, name]
        if self.root.is_root_names(above):
            self._reset()
            return None
        return above

    def _reset(self) -> None:
        """Back to the root itself (an absolute link target starts over)."""
        self.close()
        self.parts.clear()
        self.stopped = None

    def _pop(self) -> None:
        """Apply `..` below the root: drop the last component (and its descriptor)."""
        self.parts.pop()
        if len(self.fds) > len(self.parts) + 1:
            close_quietly(self.fds.pop())
        if len(self.fds) == len(self.parts) + 1:
            self.stopped = None

    def _enter(self, depth: int) -> bool:
        """Open the folders `parts[:depth]` not opened yet; False if one cannot be (see
        `stopped`)."""
        while len(self.fds) <= depth:
            if self.stopped is not None:
                return False
            name = self.parts[len(self.fds) - 1]
            try:
                self.fds.append(os.open(name, WALK_FLAGS, dir_fd=self.fds[-1]))
            except OSError as error:
                self.stopped = error.errno
                return False
        return True

    def _lstat_next(self, name: str) -> os.stat_result | None:
        """lstat of `name` in the current folder, or None if it is missing or cannot be reached."""
        if not self._enter(len(self.parts)):
            return None
        try:
            return os.stat(name, dir_fd=self.fds[-1], follow_symlinks=False)
        except OSError:
            return None

    def _loop_at(self, name: str, pending: deque[str]) -> None:
        """A link loop: the location is the looping link, the rest kept by name unresolved."""
        self.looped = True
        self.parts.append(name)
        for rest in pending:
            if rest == "..":
                if self.parts:
                    self.parts.pop()
            elif rest not in ("", "."):
                self.parts.append(rest)
        pending.clear()

    # What is there.

    @property
    def is_root(self) -> bool:
        """True for the store's root itself."""
        return not self.parts

    @property
    def relative(self) -> str:
        """The resolved path relative to the root, `/`-separated (`""` for the root)."""
        return "/".join(self.parts)

    @property
    def name(self) -> str:
        """The leaf's name (`""` for the root)."""
        return self.parts[-1] if self.parts else ""

    def parent_fd(self) -> int | None:
        """The open folder holding the leaf, or None if it does not exist (or is not a folder)."""
        if not self.parts or not self._enter(len(self.parts) - 1):
            return None
        return self.fds[len(self.parts) - 1]

    def lstat(self) -> os.stat_result | None:
        """The leaf's own stat (a link is not followed), or None if nothing is there.

        An error other than 'missing' on the way (a loop, a name too long) is raised as the
        kernel would raise it for the whole path.
        """
        if not self.parts:
            return os.fstat(self.root.fd)
        parent = self.parent_fd()
        if parent is None:
            if self.stopped is None or self.stopped in _MISSING or self.looped:
                return None
            raise OSError(self.stopped, os.strerror(self.stopped), self.relative)
        try:
            return os.stat(self.name, dir_fd=parent, follow_symlinks=False)
        except OSError as error:
            if error.errno in _MISSING:
                return None
            raise

    def blocked_by_file(self) -> bool:
        """True if a component above the leaf exists but is not a folder (a file, a FIFO...)."""
        if not self.parts or self.parent_fd() is not None:
            return False
        return self.stopped not in (None, errno.ENOENT)

    def open_dir(self) -> int:
        """A new descriptor (WALK_FLAGS) of the leaf folder; the caller closes it.

        Raises NotADirectoryError, or OSError(ELOOP) if the leaf was swapped for a link.
        """
        if not self.parts:
            return os.dup(self.root.fd)
        parent = self.parent_fd()
        if parent is None:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.relative)
        return os.open(self.name, WALK_FLAGS, dir_fd=parent)

    def make_parents(self, mode: int) -> int:
        """Create every missing folder above the leaf (exactly `mode`); the parent's descriptor.

        Raises NotADirectoryError if a component above the leaf is not a folder, and OSError
        (ELOOP) if one is a link (it never follows it).
        """
        while len(self.fds) < len(self.parts):
            name = self.parts[len(self.fds) - 1]
            try:
                fd = os.open(name, WALK_FLAGS, dir_fd=self.fds[-1])
            except FileNotFoundError:
                try:
                    fd = make_dir_at(self.fds[-1], name, mode, exclusive=True)
                except FileExistsError:
                    fd = os.open(name, WALK_FLAGS, dir_fd=self.fds[-1])
                else:
                    self.made += 1
            self.fds.append(fd)
        self.stopped = None
        return self.fds[len(self.parts) - 1]

    def remove_empty_parents(self, count: int) -> int:
        """Remove up to `count` folders above the leaf, innermost first, each only while it is
        empty (a folder holding anything stops it); how many were removed."""
        removed = 0
        depth = len(self.parts) - 1
        while removed < count and 1 <= depth < len(self.fds):
            try:
                os.rmdir(self.parts[depth - 1], dir_fd=self.fds[depth - 1])
            except OSError:
                break
            removed += 1
            depth -= 1
        return removed

    def starts_with(self, other: Location) -> bool:
        """True if this path is `other` or below it."""
        return self.parts[: len(other.parts)] == other.parts


def make_dir_at(dir_fd: int, name: str, mode: int = DIR_MODE, *, exclusive: bool = False) -> int:
    """Folder `name` in `dir_fd`, created with exactly `mode` if missing; its WALK_FLAGS descriptor.

    Raises OSError (ELOOP, ENOTDIR) if something other than a folder is there: never a link;
    with `exclusive`, FileExistsError if anything is there.
    """
    try:
        os.mkdir(name, mode, dir_fd=dir_fd)
    except FileExistsError:
        if exclusive:
            raise
        return os.open(name, WALK_FLAGS, dir_fd=dir_fd)
    fd = os.open(name, WALK_FLAGS, dir_fd=dir_fd)
    try:
        chmod_fd(fd, mode)
    except BaseException:
        close_quietly(fd)
        raise
    fsync_dir_fd(dir_fd)
    return fd


def open_child_dir(dir_fd: int, name: str) -> int:
    """A new WALK_FLAGS descriptor of folder `name` in `dir_fd` (never through a link)."""
    return os.open(name, WALK_FLAGS, dir_fd=dir_fd)


@contextlib.contextmanager
def listing_fd(dir_fd: int) -> Iterator[int]:
    """A readable descriptor of the folder `dir_fd` (which may be an O_PATH handle), closed
    after."""
    fd = os.open(".", LIST_FLAGS, dir_fd=dir_fd)
    try:
        yield fd
    finally:
        close_quietly(fd)


def entries(dir_fd: int) -> list[str]:
    """The names in folder `dir_fd` (`.` and `..` aside), unsorted."""
    with listing_fd(dir_fd) as fd, os.scandir(fd) as found:
        return [entry.name for entry in found]


def entry_lstat(dir_fd: int, name: str) -> os.stat_result | None:
    """The stat of `name` in `dir_fd` without following a link, or None if it cannot be read."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None


def walk_tree(
    root: StoreRoot, enter: Callable[[str], bool]
) -> Iterator[tuple[str, int, str, os.stat_result]]:
    """Every entry below the root as (relative path, folder fd, name, lstat), folders included.

    A folder is entered (by descriptor, O_NOFOLLOW: a link is never followed) when
    `enter(relative)` says so; unreadable folders are passed over. The folder descriptor is
    valid until the next item.
    """
    pending: list[tuple[str, int]] = [("", os.dup(root.fd))]
    while pending:
        relative_dir, folder = pending.pop()
        try:
            try:
                names = entries(folder)
            except OSError:
                continue
            for name in names:
                relative = f"{relative_dir}/{name}" if relative_dir else name
                info = entry_lstat(folder, name)
                if info is None:
                    continue
                yield relative, folder, name, info
                if stat.S_ISDIR(info.st_mode) and enter(relative):
                    with contextlib.suppress(OSError):
                        pending.append((relative, open_child_dir(folder, name)))
        finally:
            close_quietly(folder)


def remove_tree_at(dir_fd: int, name: str) -> None:
    """Remove `name` in `dir_fd`: a file or link is unlinked, a folder emptied and removed.

    Folders are entered by descriptor with O_NOFOLLOW, so a link inside (or a folder swapped for
    a link meanwhile) is removed as a link, never followed.
    """
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    try:
        child = os.open(name, WALK_FLAGS, dir_fd=dir_fd)
    except OSError as error:
        if error.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(name, dir_fd=dir_fd)
        return
    try:
        for entry in entries(child):
            remove_tree_at(child, entry)
    finally:
        close_quietly(child)
    os.rmdir(name, dir_fd=dir_fd)


def fsync_dir_fd(dir_fd: int) -> None:
    """Flush a folder's entry changes (create, rename, unlink) to disk; best effort."""
    try:
        with listing_fd(dir_fd) as fd:
            os.fsync(fd)
    except OSError:
        return


def chmod_fd(fd: int, mode: int) -> None:
    """Give the file or folder behind `fd` (an O_PATH handle too) exactly `mode`."""
    try:
        os.fchmod(fd, mode)
    except OSError as error:
        if error.errno != errno.EBADF:
            raise
        os.chmod(f"/proc/self/fd/{fd}", mode)


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, loaded once, with errno kept for the caller."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def renameat2(src_dir_fd: int, src: str, dst_dir_fd: int, dst: str, flags: int) -> None:
    """The renameat2 system call (libc's wrapper, else the raw syscall); OSError on failure.

    OSError(ENOSYS) when neither is there.
    """
    import ctypes

    libc = _libc()
    names = (os.fsencode(src), os.fsencode(dst))
    if b"\0" in names[0] + names[1]:
        raise ValueError("embedded null byte")
    wrapper = getattr(libc, "renameat2", None)
    if wrapper is not None:
        result = wrapper(src_dir_fd, names[0], dst_dir_fd, names[1], ctypes.c_uint(flags))
    else:
        number = _RENAMEAT2_SYSCALL.get(os.uname().machine)
        if number is None:
            raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), src, None, dst)
        fds = (ctypes.c_long(src_dir_fd), ctypes.c_long(dst_dir_fd))
        result = libc.syscall(ctypes.c_long(number), fds[0], names[0], fds[1], names[1], flags)
    if result != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), src, None, dst)


def rename_noreplace(src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
    """Rename `src` in `src_dir_fd` to `dst` in `dst_dir_fd`, never replacing anything there.

    FileExistsError if anything (a file, a folder, a link) is at the destination: another
    process that creates it at any moment keeps it. Where the filesystem lacks
    RENAME_NOREPLACE, a file (or link) is hard-linked to the destination, which fails the same
    way, and then unlinked from its old name; a folder, which cannot be hard-linked, is renamed
    after a check that nothing is there (only that last fallback leaves a window, between the
    check and the rename, in which an empty folder created there would be replaced).
    """
    try:
        renameat2(src_dir_fd, src, dst_dir_fd, dst, RENAME_NOREPLACE)
        return
    except OSError as error:
        if error.errno not in _UNSUPPORTED:
            raise
    _rename_without_flag(src_dir_fd, src, dst_dir_fd, dst)


def _rename_without_flag(src_dir_fd: int, src: str, dst_dir_fd: int, dst: str) -> None:
    """rename_noreplace on a filesystem without RENAME_NOREPLACE: link and unlink, or a checked
    rename for a folder."""
    try:
        os.link(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd, follow_symlinks=False)
    except OSError as error:
        if error.errno not in _NO_HARD_LINK:
            raise
    else:
        os.unlink(src, dir_fd=src_dir_fd)
        return
    if entry_lstat(dst_dir_fd, dst) is not None:
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), src, None, dst)
    os.rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
