"""Directory walk: every file under a root (notes and other text files), safely, without following
links out."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

PACE_ENTRIES = 256
"""Entries walked between two calls of a walk's `pace`."""


class FileStat(NamedTuple):
    """What the index needs to know about one file without reading it: a file whose stat has
    all four numbers unchanged is taken as unchanged."""

    relpath: str
    size: int
    mtime_ns: int
    ctime_ns: int
    """When the inode last changed: no user process can set it back, as it can the mtime."""
    inode: int
    """The inode's number: a file swapped for another changes it."""


Stat = tuple[str, int, int, int, int]
"""A FileStat as a plain tuple (relpath, size, mtime_ns, ctime_ns, inode): a walk makes 100k."""


@dataclass
class ScanResult:
    """The files found under a root, plus a one-line problem per thing that was skipped."""

    stats: list[Stat] = field(default_factory=list)
    """(relpath, size, mtime_ns, ctime_ns, inode) of every file, as plain tuples (cheaper)."""
    problems: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[FileStat]:
        """The files as FileStat records."""
        return [FileStat._make(stat) for stat in self.stats]


def _inside(real: str, root_real: str) -> bool:
    """True when the resolved path `real` is the root or below it."""
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def stat_file(root: Path, relpath: str) -> tuple[FileStat | None, str | None]:
    """Stat one path; (FileStat, None) for a regular file (or a link to one inside the store),
    else (None, problem).

    A missing file gives (None, None): it was deleted, which is not a problem.
    """
    full = os.path.join(root, relpath)
    try:
        st = os.lstat(full)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{relpath}: cannot read ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        try:
            real = os.path.realpath(full, strict=True)
        except (OSError, RuntimeError):
            return None, f"{relpath}: broken or looping symlink, skipped"
        if not _inside(real, os.path.realpath(root)):
            return None, f"{relpath}: symlink points outside the store, skipped"
        try:
            st = os.stat(full)
        except OSError as exc:
            return None, f"{relpath}: cannot read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            return None, None
        return None, f"{relpath}: not a regular file, skipped"
    return (
        FileStat(relpath, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino),
        None,
    )


def linked_folder_problem(root_real: str, rel: str, full: str) -> str | None:
    """Why a symlink to a folder is skipped (outside, looping, or not followed); None otherwise."""
    try:
        real = os.path.realpath(full, strict=True)
    except (OSError, RuntimeError):
        return None
    if not os.path.isdir(real):
        return None
    if not _inside(real, root_real):
        return f"{rel}: symlink points outside the store, skipped"
    if _inside(os.path.realpath(os.path.dirname(full)), real):
        return f"{rel}: symlink loops back to a folder that holds it, skipped"
    return f"{rel}: symlinked folder not followed"


def scan_files(
    root: Path, *, ordered: bool = True, pace: Callable[[], None] | None = None
) -> ScanResult:
    """Walk `root` iteratively for files, skipping dot-files, dot-folders and symlinked folders.

    Never recurses (deep trees are fine), never follows a link out of the root, and turns
    unreadable folders, FIFOs, symlinked folders and symlink loops into entries of `problems`.
    The files come sorted by path, or (`ordered` False, faster) in the order the folders list
    them, which is the same from one walk to the next while nothing changes. `pace` is called
    now and then (a background walk rests while someone uses the app).

    Each folder is listed on its own descriptor (opened from the root's, never through a link
    at its end), so every file is stat'ed by name in its folder rather than by a whole path.
    """
    result = ScanResult()
    root_real = os.path.realpath(root)
    root_fd = os.open(root, _DIR_FLAGS)
    try:
        stack: list[str] = [""]
        while stack:
            rel_dir = stack.pop()
            try:
                fd = (
                    os.open(rel_dir, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=root_fd)
                    if rel_dir
                    else root_fd
                )
            except OSError as exc:
                result.problems.append(f"{rel_dir}/: cannot list folder ({exc.strerror or exc})")
                continue
            try:
                _scan_folder(root, root_real, fd, rel_dir, stack, result, pace)
            finally:
                if fd != root_fd:
                    os.close(fd)
    finally:
        os.close(root_fd)
    if ordered:
        result.stats.sort(key=itemgetter(0))
    result.problems.sort()
    return result


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def _scan_folder(
    root: Path,
    root_real: str,
    fd: int,
    rel_dir: str,
    stack: list[str],
    result: ScanResult,
    pace: Callable[[], None] | None,
) -> None:
    """List one open folder: its files into `result`, its sub-folders onto `stack`."""
    try:
        with os.scandir(fd) as it:
            entries = list(it)
    except OSError as exc:
        result.problems.append(f"{rel_dir or '.'}/: cannot list folder ({exc.strerror or exc})")
        return
    prefix = f"{rel_dir}/" if rel_dir else ""
    append = result.stats.append
    for start in range(0, len(entries), PACE_ENTRIES):
        if pace is not None:
            pace()
        for entry in entries[start : start + PACE_ENTRIES]:
            name = entry.name
            if name[0] == ".":
                continue
            try:
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    append(
                        (
                            prefix + name,
                            st.st_size,
                            st.st_mtime_ns,
                            st.st_ctime_ns,
                            st.st_ino,
                        )
                    )
                    continue
                is_link = entry.is_symlink()
                if not is_link and entry.is_dir(follow_symlinks=False):
                    stack.append(prefix + name)
                    continue
            except OSError as exc:
                result.problems.append(f"{prefix + name}: cannot read ({exc.strerror or exc})")
                continue
            _odd_entry(root, root_real, prefix + name, is_link, result)


def _odd_entry(root: Path, root_real: str, rel: str, is_link: bool, result: ScanResult) -> None:
    """A symlink, a FIFO or another entry that is neither a plain file nor a folder."""
    if is_link:
        problem = linked_folder_problem(root_real, rel, os.path.join(root, rel))
        if problem is not None:
            result.problems.append(problem)
            return
        found, problem = stat_file(root, rel)
    else:
        found, problem = None, f"{rel}: not a regular file, skipped"
    if found is not None:
        result.stats.append(found)
    elif problem is not None:
        result.problems.append(problem)
