"""Sync: a store as a git work tree with a remote, merged by memtui's rules (see docs/sync.md).

`sync_store(store, remote=None)` runs one sync; `SyncError` is its one-line failure.
"""

from memtui.notes.sync.driver import SyncReport, sync_store
from memtui.notes.sync.setup import SyncError

__all__ = ["SyncError", "SyncReport", "sync_store"]
