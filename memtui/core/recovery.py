"""Start-up recovery: remove temp files left by killed writes and log changes the history missed."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.atomic import TEMP_PREFIX
from memtui.core.history import KIND_DIR, History
from memtui.core.paths import RESERVED_NAME, VIRTUAL_ROOT

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


def history_paths(history: History) -> set[str]:
    """Every virtual path the history ever saw changed, including files inside recorded folders."""
    paths: set[str] = set()
    for event in history.events(newest_first=False):
        if not event.changed:
            continue
        for path in (event.path, event.new_path):
            if path:
                paths.add(path)
        base = event.new_path or event.path
        for kind, key in (
            (event.before_kind, event.before_hash),
            (event.after_kind, event.after_hash),
        ):
            if kind != KIND_DIR or key is None or not base:
                continue
            manifest = history.manifest(key)
            if manifest is not None:
                paths.update(f"{base}/{relative}" for relative in manifest.files)
    return paths


def disk_paths(root: Path) -> set[str]:
    """The virtual path of every non-folder entry in the store (links and specials included)."""
    return {VIRTUAL_ROOT + "/" + relative for relative, _entry in walk_store_files(root)}


def record_unrecorded_changes(store: MemoryStore) -> tuple[list[str], list[int]]:
    """Record `external` events for files whose content differs from the history's last state.

    Checks every file on disk and every path the history knows, so edits, creations and
    deletions made while no memtui process was recording (or by a killed one) are all found.
    """
    candidates = sorted(disk_paths(store.root) | history_paths(store.history))
    relpaths = [
        path[len(VIRTUAL_ROOT) + 1 :] for path in candidates if path.startswith(VIRTUAL_ROOT + "/")
    ]
    event_ids = store.record_external(relpaths)
    changed = [event.path or "" for event in (store.history.event(i) for i in event_ids) if event]
    return changed, event_ids


def recover(store: MemoryStore) -> RecoveryReport:
    """Start-up recovery under the store's lock: drop stale temp files, log unrecorded changes."""
    report = RecoveryReport()
    with store.lock.hold():
        report.removed_temp_files = remove_stale_temp_files(store.root)
        report.external_paths, report.external_event_ids = record_unrecorded_changes(store)
    return report
