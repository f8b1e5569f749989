"""Start-up recovery: remove temp files left by killed writes and log changes the history missed.

Temp files live under `.memtui/tmp` (see `atomic`), so only memtui's own are ever removed: a note
named like one (`/memories/.tmp-999999-<uuid>`) is a note. The one kind left among the notes (a
write to another filesystem) is removed only when its marker names its device and inode. The
store is walked on descriptors (`os.scandir` of each folder, never through a link), and a file is
hashed in chunks by descriptor, so recovery neither leaves the store nor reads more than it
hashes.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.applying.atomic import MARKER_SUFFIX, TEMP_DIR_NAME, TEMP_PREFIX, read_marker
from memtui.core.opening.baseline import record_baseline, store_files
from memtui.core.parsing.paths import VIRTUAL_ROOT
from memtui.core.recording.blobs import KIND_DIR, KIND_FILE
from memtui.core.recording.database import RecordFailed, failure_reason
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.file_state import FileRecord, stat_matches
from memtui.core.recording.history import History
from memtui.core.resolving.fd_paths import (
    OutsideStore,
    StoreRoot,
    close_quietly,
    entries,
    entry_lstat,
    open_child_dir,
)
from memtui.core.resolving.lock import META_DIR_NAME
from memtui.core.resolving.regular import open_regular, read_limited

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

STALE_TEMP_AGE = 60.0
"""Seconds after which a temp file is stale even if a process with its writer's pid is alive."""

_TEMP_NAME = re.compile(
    re.escape(TEMP_PREFIX)
    + r"(?P<pid>\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
)


@dataclass
class RecoveryReport:
    """What one recovery pass did: temp files removed and external events recorded."""

    removed_temp_files: list[str] = field(default_factory=list)
    external_paths: list[str] = field(default_factory=list)
    external_event_ids: list[int] = field(default_factory=list)
    hashed_files: int = 0
    """Files read because their stat differed from file_state (new files not counted)."""
    migrated: bool = False
    """True if this pass built file_state from the replayed history (an older history.db)."""
    baseline_event_id: int | None = None
    """The baseline this pass recorded (the first open of a folder that held files), if any."""
    unrecorded: str | None = None
    """Why outside changes could not be recorded (the history cannot be written), if so."""


def temp_writer_pid(name: str) -> int | None:
    """The writer's pid if `name` is exactly an atomic-write temp name, else None."""
    match = _TEMP_NAME.fullmatch(name)
    return int(match.group("pid")) if match else None


def process_alive(pid: int) -> bool:
    """True if a process with this pid exists (a zombie counts as alive until it is reaped)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_stale_temp(name: str, info: os.stat_result, *, now: float, max_age: float) -> bool:
    """True for a regular temp file (or marker) whose writer is gone or older than `max_age`."""
    pid = temp_writer_pid(name.removesuffix(MARKER_SUFFIX))
    if pid is None or not stat.S_ISREG(info.st_mode):
        return False
    return not process_alive(pid) or now - info.st_mtime > max_age


def remove_stale_temp_files(
    root: Path | str, *, now: float | None = None, max_age: float = STALE_TEMP_AGE
) -> list[str]:
    """Delete temp files left by killed writes under `.memtui/tmp`; returns their store paths.

    A marker there names a temp file a write left beside its target (a folder on another
    filesystem); that file is removed too. Call it while holding the store's mutation lock,
    so no live write is in progress.
    """
    current = time.time() if now is None else now
    removed: list[str] = []
    with StoreRoot(root) as store_root:
        try:
            meta = open_child_dir(store_root.fd, META_DIR_NAME)
        except OSError:
            return removed
        try:
            area = open_child_dir(meta, TEMP_DIR_NAME)
        except OSError:
            return removed
        finally:
            close_quietly(meta)
        try:
            for name in entries(area):
                info = entry_lstat(area, name)
                if info is None or not is_stale_temp(name, info, now=current, max_age=max_age):
                    continue
                if name.endswith(MARKER_SUFFIX):
                    removed += _remove_marked_temp(store_root, area, name)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=area)
                    removed.append(f"{META_DIR_NAME}/{TEMP_DIR_NAME}/{name}")
        finally:
            close_quietly(area)
    return removed


def _remove_marked_temp(store_root: StoreRoot, area: int, marker: str) -> list[str]:
    """Remove the temp file a marker names (in the store folder it records), if it is still
    there and is the very file the marker was written for (same device and inode)."""
    try:
        with open_regular(marker, dir_fd=area) as (handle, _info):
            marked = read_marker(handle.read(4096))
    except OSError:
        return []
    if marked is None:
        return []
    folder, device, inode = marked
    temp = marker.removesuffix(MARKER_SUFFIX)
    try:
        with store_root.locate_relative(folder) as location:
            parent = location.open_dir()
    except (OSError, OutsideStore):
        return []
    try:
        info = entry_lstat(parent, temp)
        if info is None or not stat.S_ISREG(info.st_mode):
            return []
        if (info.st_dev, info.st_ino) != (device, inode):
            return []
        os.unlink(temp, dir_fd=parent)
    except OSError:
        return []
    finally:
        close_quietly(parent)
    return [f"{folder}/{temp}" if folder not in ("", ".") else temp]


def _drop_below(state: dict[str, str], base: str, *, folder: bool) -> None:
    """Forget `base`, and everything recorded below it when the event concerned a folder."""
    state.pop(base, None)
    if folder:
        prefix = base + "/"
        for path in [path for path in state if path.startswith(prefix)]:
            del state[path]


def _place(
    history: History, state: dict[str, str], base: str, kind: str | None, key: str | None
) -> None:
    """Record what an event left at `base`: a file's hash, or every file of a folder's manifest."""
    if kind == KIND_FILE and key is not None:
        state[base] = key
    elif kind == KIND_DIR and key is not None:
        manifest = history.manifest(key)
        if manifest is not None:
            for relative, digest in manifest.files.items():
                state[f"{base}/{relative}"] = digest


def known_files(
    history: History, *, until: float | None = None, through: int | None = None
) -> dict[str, str]:
    """Virtual path -> sha256 of every file the history says exists now, by replaying its
    changes; with `until` (a unix time) or `through` (an event id), as it was then."""
    state: dict[str, str] = {}
    query = EventQuery(until=until, skip_reads=True)
    before = None if through is None else through + 1
    for event in history.events(query, newest_first=False, before_id=before):
        if not event.changed or not event.path:
            continue
        folder = KIND_DIR in (event.before_kind, event.after_kind)
        _drop_below(state, event.path, folder=folder)
        base = event.new_path or event.path
        if event.new_path:
            _drop_below(state, event.new_path, folder=folder)
        _place(history, state, base, event.after_kind, event.after_hash)
    return state


def file_digest(folder: int, name: str) -> str | None:
    """The sha256 of file `name` in `folder`, read in chunks, or None if it cannot be read."""
    try:
        return read_limited(folder, name, 0).digest
    except OSError:
        return None


@dataclass
class DiskCheck:
    """One stat-only pass over the store against file_state."""

    suspects: list[str] = field(default_factory=list)
    """Virtual paths that are new, missing, or whose bytes differ from their row."""
    refreshed: dict[str, FileRecord | None] = field(default_factory=dict)
    """Rows whose file was hashed and still matches, with the stat taken before the hash."""
    hashed: int = 0


def check_disk(root: Path, history: History) -> DiskCheck:
    """Compare every regular file's (size, mtime_ns) with file_state; hash only the doubtful.

    One walk on descriptors with stat only. A file is hashed when its stat differs from its
    row or the row's stat was too close to its mtime to be trusted; if the hash still matches,
    only the row's stat is refreshed (its check time is the start of the walk, earlier than any
    stat in it). Call it while holding the store's mutation lock.
    """
    rows = history.file_stats()
    check = DiskCheck()
    checked_ns = time.time_ns()
    with StoreRoot(root) as store_root:
        for relative, folder, name, info in store_files(store_root):
            virtual = VIRTUAL_ROOT + "/" + relative
            stats = rows.pop(virtual, None)
            if stats is None:
                check.suspects.append(virtual)
            elif not stat_matches(stats, info.st_size, info.st_mtime_ns):
                check.hashed += 1
                row = history.file_record(virtual)
                if row is None or file_digest(folder, name) != row.sha256:
                    check.suspects.append(virtual)
                else:
                    fresh = FileRecord(row.sha256, info.st_size, info.st_mtime_ns, checked_ns)
                    moved_on = (row.size, row.mtime_ns) != (fresh.size, fresh.mtime_ns)
                    if moved_on or fresh.matches(fresh.size, fresh.mtime_ns):
                        check.refreshed[virtual] = fresh
    check.suspects += rows
    check.suspects.sort()
    return check


def build_file_state(history: History) -> bool:
    """Build file_state once from the replayed history (an older history.db has none)."""
    if history.file_state_built():
        return False
    return history.build_file_state(lambda: known_files(history))


def recover(store: MemoryStore) -> RecoveryReport:
    """Start-up recovery under the store's lock: drop stale temp files, log unrecorded changes.

    The first open of a folder (an empty history) records one baseline event of what is there.
    No history replay on a normal start: the disk is compared with file_state by stat, and
    only new files or files whose stat changed are read. Unrecorded changes (made while no
    memtui process was recording, or by one killed between writing and recording) become
    `external` events, all in one transaction. A history that cannot be written (read-only,
    disk full) leaves them for the next start: `report.unrecorded` says why.
    """
    report = RecoveryReport()
    history = store.history
    if history.read_only is not None:
        report.unrecorded = history.read_only
        return report
    with store.lock.hold():
        report.removed_temp_files = remove_stale_temp_files(store.root)
        try:
            report.migrated = build_file_state(history)
            if not history.seen():
                report.baseline_event_id = record_baseline(store)
            check = check_disk(store.root, history)
            report.hashed_files = check.hashed
            if check.refreshed:
                history.record_many([], files=check.refreshed)
            relpaths = [path[len(VIRTUAL_ROOT) + 1 :] for path in check.suspects]
            report.external_event_ids = store.record_external(relpaths)
        except RecordFailed as problem:
            report.unrecorded = problem.reason
            return report
        except sqlite3.Error as problem:
            report.unrecorded = failure_reason(problem, history.path)
            return report
        report.external_paths = [
            event.path or ""
            for event in (history.event(i) for i in report.external_event_ids)
            if event
        ]
    return report
