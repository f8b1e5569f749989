"""Sync in the background: every `[sync] every` and whenever asked, on a thread of its own, so a
long fetch or push never holds up keys or agents (they wait only while the sync commits and
merges, holding the store's lock). The app and `memtui mcp` each run one per store."""

from __future__ import annotations

import threading
from collections.abc import Callable

from memtui.core.store import MemoryStore
from memtui.notes.sync.driver import SyncReport, sync_store
from memtui.notes.sync.git import Git
from memtui.notes.sync.setup import SyncError, repo_exists

Outcome = SyncReport | SyncError
"""What one background sync ended with."""


class AutoSync:
    """Syncs one store on a background thread: every `every` seconds (None: only when asked)."""

    def __init__(
        self,
        store: MemoryStore,
        every: float | None,
        *,
        machine: str | None = None,
        on_start: Callable[[], object] | None = None,
        on_progress: Callable[[str], object] | None = None,
        on_done: Callable[[Outcome], object] | None = None,
    ) -> None:
        """Prepare (not start) the thread; the callbacks run on it."""
        self.store = store
        self.every = every
        self.machine = machine
        self.on_start = on_start
        self.on_progress = on_progress
        self.on_done = on_done
        self.last: Outcome | None = None
        self.running = False
        self._asked = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def configured(self) -> bool:
        """Whether the store is set up for sync (`memtui sync PATH --remote URL` was run)."""
        return repo_exists(Git.for_store(self.store.root))

    def start(self) -> None:
        """Start the thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="memtui-sync", daemon=True)
            self._thread.start()

    def sync_now(self) -> None:
        """Ask for a sync as soon as the one running (if any) ends."""
        self.start()
        self._asked.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop after the sync running now, if any (waiting at most `timeout` seconds)."""
        self._stopped.set()
        self._asked.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        """Wait for the next turn or a request, sync, tell; until stopped."""
        while not self._stopped.is_set():
            asked = self._asked.wait(self.every)
            self._asked.clear()
            if self._stopped.is_set():
                return
            if asked or self.configured:
                self.run_once()

    def run_once(self) -> Outcome:
        """One sync on the calling thread, told through the callbacks."""
        self.running = True
        if self.on_start is not None:
            self.on_start()
        try:
            outcome: Outcome = sync_store(self.store, machine=self.machine, progress=self._progress)
        except SyncError as problem:
            outcome = problem
        except Exception as problem:
            outcome = SyncError(f"the sync failed: {type(problem).__name__}: {problem}")
        finally:
            self.running = False
        self.last = outcome
        if self.on_done is not None:
            self.on_done(outcome)
        return outcome

    def _progress(self, text: str) -> None:
        """Pass a step of the sync on."""
        if self.on_progress is not None:
            self.on_progress(text)
