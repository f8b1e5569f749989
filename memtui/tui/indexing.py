"""Open the store's index off the UI thread (reading only files changed since any memtui process
indexed them), install a searcher on it, and keep it in step with the disk."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.notes.index import NoteIndex
    from memtui.notes.search import Searcher
    from memtui.tui.context import AppContext

UPDATE_LOCK = threading.Lock()
"""Installing the index and catching up on paths changed meanwhile never run at the same time as
an update (readers need no lock: each update is one SQLite transaction)."""
PROGRESS_EVERY = 0.1
"""Seconds between two progress reports while indexing."""


def load_index(
    ctx: AppContext,
    progress: Callable[[int, int], object],
    ready: Callable[[NoteIndex], None] | None = None,
) -> tuple[NoteIndex | None, str | None, set[str]]:
    """Open the index, install it, and bring it up to date with the files (run in a thread).

    An index that already holds files is installed at once and `ready` is called with it, so
    search works while the files changed since are read; a new index is installed when built.
    Returns the index (or None and an error to show) and the paths the update changed.
    """
    last_report = [0.0]

    def throttled(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last_report[0] > PROGRESS_EVERY:
            last_report[0] = now
            progress(done, total)

    from memtui.notes.index import NoteIndex  # imported on first use: start-up

    try:
        index = NoteIndex.open(ctx.store.root)
        if ready is not None and not index.is_empty():
            with UPDATE_LOCK:
                ctx.index = index
            ready(index)
        changed = index.refresh(throttled, interaction=ctx.interaction)
    except Exception as error:
        return None, f"Could not index {ctx.store.root}: {error}", set()
    with UPDATE_LOCK:
        if ctx.changed_while_loading:
            changed |= index.update_paths(set(ctx.changed_while_loading))
        ctx.index = index
    return index, None, changed


def build_searcher(ctx: AppContext, index: NoteIndex, history: object) -> Searcher:
    """Install a searcher on the index (run in a thread); it reads the index's latest state at
    every search, so nothing is built or re-indexed here."""
    from memtui.notes.search import Searcher  # imported on first use: start-up

    searcher = Searcher(index, history)
    with UPDATE_LOCK:
        ctx.changed_while_loading.clear()
        ctx.searcher = searcher
    return searcher


def apply_changes(ctx: AppContext, paths: frozenset[str]) -> set[str]:
    """Update the index for changed paths (run in a thread); returns what changed."""
    with UPDATE_LOCK:
        if ctx.index is None:
            ctx.changed_while_loading.update(paths)
            return set(paths)
        return ctx.index.update_paths(paths) | set(paths)


def update_notes(ctx: AppContext, paths: Iterable[str]) -> set[str]:
    """Bring the index up to date for paths the app itself changed (search follows at once).

    Folder paths stand for every note below them. Returns what changed.
    """
    return apply_changes(ctx, frozenset(paths))


def after_changes(ctx: AppContext, paths: frozenset[str]) -> list[int]:
    """Log outside edits as `external` events (run in a thread)."""
    files = sorted(p for p in paths if not (ctx.root / p).is_dir())
    return ctx.store.record_external(files) if files else []
