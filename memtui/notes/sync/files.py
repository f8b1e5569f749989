"""A store file as a sync reads it: the regular file at exactly that path (no link followed on
the way), read on descriptors through the core, never past the size limit."""

from __future__ import annotations

import errno
import stat
from dataclasses import dataclass

from memtui.core.applying.site import Site
from memtui.core.resolving.fd_paths import OutsideStore
from memtui.core.resolving.regular import NotRegularFile, read_limited
from memtui.notes.sync.setup import is_reserved


@dataclass(frozen=True)
class Skipped:
    """A path a sync does not carry, and why (one line)."""

    reason: str


MISSING_FILE = None
"""What `read_file` gives for a path where nothing is."""


def read_file(site: Site, path: str, limit: int) -> bytes | Skipped | None:
    """The bytes of the regular file at relative `path`, None if nothing is there, or why it is
    not synced (a link, a folder, a FIFO, bigger than `limit` bytes, memtui's own)."""
    if is_reserved(path):
        return Skipped("memtui's own folder")
    parts = path.split("/")
    try:
        location = site.root.locate(parts)
    except OutsideStore:
        return Skipped("a link that leads out of the store")
    with location:
        if location.parts != parts:
            return Skipped("a symbolic link (memtui syncs regular files only)")
        try:
            info = location.lstat()
        except OSError as problem:
            return Skipped(f"cannot be read ({problem.strerror or problem})")
        if info is None:
            return MISSING_FILE
        if not stat.S_ISREG(info.st_mode):
            return Skipped("not a regular file")
        parent = location.parent_fd()
        if parent is None:
            return MISSING_FILE
        try:
            read = read_limited(parent, location.name, limit)
        except NotRegularFile:
            return Skipped("not a regular file")
        except OSError as problem:
            if problem.errno == errno.ENOENT:
                return MISSING_FILE
            return Skipped(f"cannot be read ({problem.strerror or problem})")
    if read.data is None:
        return Skipped(f"bigger than the largest file memtui keeps ({limit:,} bytes)")
    return read.data
