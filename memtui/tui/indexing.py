"""The app's side of its Workspace: the index worker's steps (reporting progress at most every
PROGRESS_EVERY seconds, errors as one line to show) and the watcher's batches applied to it."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.core.recording.history import History
    from memtui.notes.index import NoteIndex
    from memtui.notes.search import Searcher
    from memtui.tui.context import AppContext

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

    try:
        index, changed = ctx.workspace.open_index(
            throttled, ready=ready, interaction=ctx.interaction
        )
    except Exception as error:
        return None, f"Could not index {ctx.root}: {error}", set()
    return index, None, changed


def build_searcher(ctx: AppContext, index: NoteIndex, history: History | None) -> Searcher:
    """Install a searcher on the installed `index` (run in a thread), reading `history` for the
    actor filter; it reads the index's latest state at every search, so nothing is built here."""
    assert ctx.workspace.index is index
    return ctx.workspace.install_searcher(history)


def apply_changes(ctx: AppContext, paths: frozenset[str]) -> set[str]:
    """Apply changed paths to the workspace (run in a thread); returns them and what else
    changed."""
    return ctx.workspace.apply(paths) | set(paths)


def update_notes(ctx: AppContext, paths: Iterable[str]) -> set[str]:
    """Bring the index up to date for paths the app itself changed (search follows at once).

    Folder paths stand for every note below them. Returns what changed.
    """
    return apply_changes(ctx, frozenset(paths))


def after_changes(ctx: AppContext, paths: frozenset[str]) -> list[int]:
    """Log outside edits as `external` events (run in a thread)."""
    return ctx.workspace.record_outside(paths)
