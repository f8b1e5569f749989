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
from memtui.core.history import KIND_DIR, KIND_FILE, History
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


def disk_files(root: Path) -> dict[str, str | None]:
    """Virtual path -> sha256 of every regular file in the store (None if it cannot be read).

    Symlinks, FIFOs and other special files are left out: memtui never writes them, and a
    change through an in-root link shows up at its target, which is a regular file here.
    """
    found: dict[str, str | None] = {}
    for relative, entry in walk_store_files(root):
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            with open(entry.path, "rb") as handle:
                digest: str | None = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            digest = None
        found[VIRTUAL_ROOT + "/" + relative] = digest
    return found


def record_unrecorded_changes(store: MemoryStore) -> tuple[list[str], list[int]]:
    """Record `external` events for files whose content differs from the history's last state.

    Compares every file on disk with the history's replayed state in one pass, then lets the
    store record each difference (edits, creations, deletions made while no memtui process was
    recording, or by one that was killed between writing and recording).
    """
    known = known_files(store.history)
    on_disk = disk_files(store.root)
    suspects = sorted(
        path
        for path in set(known) | set(on_disk)
        if on_disk.get(path, "") != known.get(path, "") or path not in on_disk
    )
    relpaths = [path[len(VIRTUAL_ROOT) + 1 :] for path in suspects]
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
