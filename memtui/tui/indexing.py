"""Load the note index and the search index off the UI thread and keep both in step with the disk."""

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
"""Index loads, index updates and search index updates never run at the same time."""
PROGRESS_EVERY = 0.1
"""Seconds between two progress reports while indexing."""


def load_index(
    ctx: AppContext, progress: Callable[[int, int], None]
) -> tuple[NoteIndex | None, str | None]:
    """Load the index, catch up on files changed meanwhile and install it (run in a thread).

    Returns the index, or None and an error to show.
    """
    from memtui.notes.index import NoteIndex

    last_report = [0.0]

    def throttled(done: int, total: int) -> None:
        now = time.monotonic()
        if done == total or now - last_report[0] > PROGRESS_EVERY:
            last_report[0] = now
            progress(done, total)

    try:
        index = NoteIndex.load(ctx.store.root, progress=throttled)
    except Exception as error:
        return None, f"Could not index {ctx.store.root}: {error}"
    with UPDATE_LOCK:
        if ctx.changed_while_loading:
            index.update_paths(set(ctx.changed_while_loading))
        ctx.index = index
    return index, None


def build_searcher(ctx: AppContext, index: NoteIndex, history: object) -> Searcher:
    """Build the search index (seconds at 50k notes), then install it (run in a thread).

    The build does not hold the update lock, so the tree and previews follow the disk meanwhile;
    the notes that changed during the build are re-indexed before the searcher is installed.
    """
    from memtui.notes.search import Searcher

    searcher = Searcher(index, history)
    with UPDATE_LOCK:
        changed = set(ctx.changed_while_loading)
        ctx.changed_while_loading.clear()
        if changed:
            searcher.invalidate(changed)
        ctx.searcher = searcher
    return searcher


def apply_changes(ctx: AppContext, paths: frozenset[str]) -> set[str]:
    """Update the index for changed paths (run in a thread); returns what changed."""
    with UPDATE_LOCK:
        if ctx.index is None:
            ctx.changed_while_loading.update(paths)
            return set(paths)
        return ctx.index.update_paths(paths) | set(paths)


def refresh_search(ctx: AppContext, changed: Iterable[str]) -> None:
    """Tell the search index which notes changed (or remember them until it is installed)."""
    with UPDATE_LOCK:
        if ctx.searcher is not None:
            ctx.searcher.invalidate(changed)
        else:
            ctx.changed_while_loading.update(changed)


def update_notes(ctx: AppContext, paths: Iterable[str]) -> set[str]:
    """Bring the index and the search index up to date for paths the app itself changed.

    Folder paths stand for every note below them. Returns what changed.
    """
    changed = apply_changes(ctx, frozenset(paths))
    refresh_search(ctx, changed)
    return changed


def after_changes(ctx: AppContext, paths: frozenset[str], changed: set[str]) -> list[int]:
    """Refresh the search index and log outside edits as `external` events (run in a thread)."""
    refresh_search(ctx, changed)
    files = sorted(p for p in paths if not (ctx.root / p).is_dir())
    return ctx.store.record_external(files) if files else []
