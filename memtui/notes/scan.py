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
    """What the index needs to know about one file without reading it."""

    relpath: str
    size: int
    mtime_ns: int


@dataclass
class ScanResult:
    """The files found under a root, plus a one-line problem per thing that was skipped."""

    files: list[FileStat] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


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
    return FileStat(relpath, st.st_size, st.st_mtime_ns), None


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
    """
    result = ScanResult()
    files = result.files
    make = tuple.__new__
    root_real = os.path.realpath(root)
    stack: list[str] = [""]
    while stack:
        rel_dir = stack.pop()
        full_dir = os.path.join(root, rel_dir) if rel_dir else str(root)
        try:
            with os.scandir(full_dir) as it:
                entries = list(it)
        except OSError as exc:
            result.problems.append(f"{rel_dir or '.'}/: cannot list folder ({exc.strerror or exc})")
            continue
        prefix = f"{rel_dir}/" if rel_dir else ""
        for number, entry in enumerate(entries):
            if pace is not None and not number % PACE_ENTRIES:
                pace()
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    files.append(make(FileStat, (rel, st.st_size, st.st_mtime_ns)))
                    continue
                is_link = entry.is_symlink()
                if not is_link and entry.is_dir(follow_symlinks=False):
                    stack.append(rel)
                    continue
            except OSError as exc:
                result.problems.append(f"{rel}: cannot read ({exc.strerror or exc})")
                continue
            _odd_entry(root, root_real, entry, rel, is_link, result)
    if ordered:
        files.sort(key=itemgetter(0))
    result.problems.sort()
    return result


def _odd_entry(
    root: Path, root_real: str, entry: os.DirEntry[str], rel: str, is_link: bool, result: ScanResult
) -> None:
    """A symlink, a FIFO or another entry that is neither a plain file nor a folder."""
    if is_link:
        problem = linked_folder_problem(root_real, rel, entry.path)
        if problem is not None:
            result.problems.append(problem)
            return
        found, problem = stat_file(root, rel)
    else:
        found, problem = None, f"{rel}: not a regular file, skipped"
    if found is not None:
        result.files.append(found)
    elif problem is not None:
        result.problems.append(problem)
