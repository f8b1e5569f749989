"""Sync: a store as a git work tree with a remote, merged by memtui's rules (see docs/sync.md).

`sync_store(store, remote=None)` runs one sync; `SyncError` is its one-line failure. They are
imported on first use, so a module of the package (its git runner) loads without the sync's
machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memtui.notes.sync.driver import SyncReport, sync_store
    from memtui.notes.sync.setup import SyncError

__all__ = ["SyncError", "SyncReport", "sync_store"]


def __getattr__(name: str) -> Any:
    """`SyncError`, `SyncReport` and `sync_store`, imported when first asked for."""
    if name == "SyncError":
        from memtui.notes.sync.setup import SyncError

        return SyncError
    if name in ("SyncReport", "sync_store"):
        from memtui.notes.sync import driver

        return getattr(driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
