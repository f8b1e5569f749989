"""Start-up recovery: remove temp files left by killed writes and log changes the history missed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.atomic import TEMP_PREFIX
from memtui.core.history import KIND_DIR, KIND_FILE, FileRecord, History
from memtui.core.paths import RESERVED_NAME, VIRTUAL_ROOT
from memtui.core.regular import open_regular

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


def walk_store_files(root: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every non-directory entry below `root` as (relative posix path, entry).

    Symlinked folders are not entered and `.memtui` is skipped, so the walk never leaves the
    store and never loops; unreadable folders are skipped.
    """
    pending = [""]
    while pending:
        relative_dir = pending.pop()
        directory = root / relative_dir if relative_dir else root
        try:
            with os.scandir(directory) as entries:
                found = list(entries)
        except OSError:
            continue
        for entry in found:
            relative = f"{relative_dir}/{entry.name}" if relative_dir else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if not (relative_dir == "" and entry.name == RESERVED_NAME):
                    pending.append(relative)
            else:
                yield relative, entry


def is_stale_temp(entry: os.DirEntry[str], *, now: float, max_age: float) -> bool:
    """True for a regular temp file whose writer is gone or that is older than `max_age`."""
    pid = temp_writer_pid(entry.name)
    if pid is None:
        return False
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode):
        return False
    return not process_alive(pid) or now - info.st_mtime > max_age


def remove_stale_temp_files(
    root: Path, *, now: float | None = None, max_age: float = STALE_TEMP_AGE
) -> list[str]:
    """Delete temp files left by killed atomic writes; returns their relative paths.

    Call it while holding the store's mutation lock, so no live write is in progress.
    """
    current = time.time() if now is None else now
    removed: list[str] = []
    for relative, entry in walk_store_files(root):
        if is_stale_temp(entry, now=current, max_age=max_age):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                removed.append(relative)
    return removed


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


def known_files(history: History) -> dict[str, str]:
    """Virtual path -> sha256 of every file the history says exists now, by replaying its changes."""
    state: dict[str, str] = {}
    for event in history.events(newest_first=False):
        if not event.changed or not event.path:
            continue
        folder = KIND_DIR in (event.before_kind, event.after_kind)
        _drop_below(state, event.path, folder=folder)
        base = event.new_path or event.path
        if event.new_path:
            _drop_below(state, event.new_path, folder=folder)
        _place(history, state, base, event.after_kind, event.after_hash)
    return state


def file_digest(path: str) -> str | None:
    """The sha256 of a file's bytes, read in chunks, or None if it cannot be read."""
    hasher = hashlib.sha256()
    try:
        with open_regular(path) as (handle, _info):
            while chunk := handle.read(1 << 20):
                hasher.update(chunk)
    except OSError:
        return None
    return hasher.hexdigest()


@dataclass
class DiskCheck:
    """One stat-only pass over the store against file_state."""

    suspects: list[str] = field(default_factory=list)
    """Virtual paths that are new, missing, or whose bytes differ from their row."""
    refreshed: dict[str, FileRecord | None] = field(default_factory=dict)
    """Rows whose file was hashed and still matches, with the stat taken before the hash."""
    hashed: int = 0
    removed_temp_files: list[str] = field(default_factory=list)


def check_disk(root: Path, history: History, *, now: float | None = None) -> DiskCheck:
    """Compare every regular file's (size, mtime_ns) with file_state; hash only the doubtful.

    One `os.scandir` walk with stat only. Stale temp files met on the way are removed. A file
    is hashed when its stat differs from its row or the row's stat was too close to its mtime
    to be trusted; if the hash still matches, only the row's stat is refreshed (its check time
    is the start of the walk, earlier than any stat in it). Call it while holding the store's
    mutation lock.
    """
    current = time.time() if now is None else now
    rows = history.file_records()
    check = DiskCheck()
    checked_ns = time.time_ns()
    for relative, entry in walk_store_files(root):
        if entry.name.startswith(TEMP_PREFIX) and is_stale_temp(
            entry, now=current, max_age=STALE_TEMP_AGE
        ):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)
                check.removed_temp_files.append(relative)
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        virtual = VIRTUAL_ROOT + "/" + relative
        row = rows.pop(virtual, None)
        if row is None:
            check.suspects.append(virtual)
        elif not row.matches(info.st_size, info.st_mtime_ns):
            check.hashed += 1
            if file_digest(entry.path) != row.sha256:
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

    No history replay on a normal start: the disk is compared with file_state by stat, and
    only new files or files whose stat changed are read. Unrecorded changes (made while no
    memtui process was recording, or by one killed between writing and recording) become
    `external` events, all in one transaction.
    """
    report = RecoveryReport()
    history = store.history
    with store.lock.hold():
        report.migrated = build_file_state(history)
        check = check_disk(store.root, history)
        report.removed_temp_files = check.removed_temp_files
        report.hashed_files = check.hashed
        if check.refreshed:
            history.record_many([], files=check.refreshed)
        relpaths = [path[len(VIRTUAL_ROOT) + 1 :] for path in check.suspects]
        report.external_event_ids = store.record_external(relpaths)
        report.external_paths = [
            event.path or ""
            for event in (history.event(i) for i in report.external_event_ids)
            if event
        ]
    return report
