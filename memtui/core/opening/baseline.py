"""The baseline: one event listing what a folder held when memtui first opened it.

A folder memtui has never seen gets one `baseline` event instead of an `external` event per
file. Its after-state is a manifest blob (every file and its sha256), so 100,000 files cost one
row; each file's bytes (up to `max_file_size`) are stored as blobs, so a later outside change can
still be diffed and undone, and each file's stat goes to file_state as any change's does. The
files are read and stored one at a time within one transaction: all of it is recorded, or none.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memtui.core.actors import EXTERNAL
from memtui.core.applying.snapshots import FLAG_NOT_KEPT, capture_file
from memtui.core.hashing import digest
from memtui.core.parsing.paths import RESERVED_NAME, VIRTUAL_ROOT
from memtui.core.plurals import count
from memtui.core.recording.blobs import KIND_DIR, Manifest
from memtui.core.recording.events import BASELINE, PendingEvent
from memtui.core.recording.file_state import FileRecord
from memtui.core.resolving.fd_paths import StoreRoot, walk_tree

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore


def baseline_result(files: int) -> str:
    """The baseline event's text, e.g. `Baseline: 195 files were here when memtui first opened
    this folder`."""
    verb = "was" if files == 1 else "were"
    return f"Baseline: {count(files, 'file')} {verb} here when memtui first opened this folder"


@dataclass
class _Listing:
    """What the walk found: every file's hash and its file_state row."""

    files: dict[str, str] = field(default_factory=dict)
    rows: dict[str, FileRecord] = field(default_factory=dict)
    unkept: bool = False


def store_files(store_root: StoreRoot) -> Iterator[tuple[str, int, str, os.stat_result]]:
    """Every regular file below the root as (relative posix path, folder fd, name, lstat).

    Folders are entered by descriptor, never through a link; `.memtui` is skipped. The folder
    descriptor is valid until the next item.
    """
    for relative, folder, name, info in walk_tree(store_root, lambda path: path != RESERVED_NAME):
        if stat.S_ISREG(info.st_mode):
            yield relative, folder, name, info


def _read_files(store: MemoryStore, listing: _Listing) -> Iterator[tuple[str, bytes]]:
    """Read every file once, noting it in `listing`, and yield the blobs to keep."""
    with StoreRoot(store.root) as store_root:
        for relative, folder, name, _info in store_files(store_root):
            try:
                state = capture_file(folder, name, time.time_ns(), store.max_size)
            except OSError:
                continue
            if state is None or state.hash is None:
                continue
            listing.files[relative] = state.hash
            listing.rows[f"{VIRTUAL_ROOT}/{relative}"] = FileRecord(state.hash, *state.stats[""])
            listing.unkept = listing.unkept or state.unkept
            yield from state.blobs.items()


def has_files(store: MemoryStore) -> bool:
    """Whether the store holds at least one regular file (besides memtui's own)."""
    with StoreRoot(store.root) as store_root:
        return next(store_files(store_root), None) is not None


def record_baseline(store: MemoryStore) -> int | None:
    """Record the baseline of a folder memtui has not seen (`History.seen`); its event id, or
    None if the folder holds no file (it is then marked seen, so files that appear later are
    recorded as changes). Call it while holding the store's lock. Raises RecordFailed when the
    history cannot be written."""
    if not has_files(store):
        store.history.mark_seen()
        return None
    listing = _Listing()

    def event() -> PendingEvent:
        manifest = Manifest((), dict(sorted(listing.files.items())), {})
        encoded = manifest.to_bytes()
        key = digest(encoded)
        return PendingEvent(
            time=store.clock(),
            actor=EXTERNAL,
            session=None,
            command=BASELINE,
            path=VIRTUAL_ROOT,
            args={"files": len(listing.files)},
            result=baseline_result(len(listing.files)),
            is_error=False,
            after=(KIND_DIR, key),
            flags=(FLAG_NOT_KEPT,) if listing.unkept else (),
            blobs={key: encoded},
            files=listing.rows,
        )

    return store.history.record_with_blobs(_read_files(store, listing), event)
