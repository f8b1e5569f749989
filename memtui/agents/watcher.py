"""Collects the note paths changed on disk, from a background file watcher, for cheap refreshes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from watchfiles import Change, watch


class ChangeWatcher:
    """Watches a store on a daemon thread and hands out the relative paths changed since last asked.

    Paths are notes (`*.md`) or folders (a folder rename or delete shows up as the folder only).
    Dot-folders, `.memtui` included, are ignored. If the watcher cannot run, `take` returns None
    and the caller falls back to a full stat walk.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root_text = os.path.realpath(root)
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._failed = False
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start watching (returns at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memtui-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching; later `take` calls return None."""
        self._stop.set()
        self._failed = True

    @property
    def ready(self) -> bool:
        """Whether the watch is set up and working: changes from now on are all reported."""
        return self._ready.is_set() and not self._failed

    def take(self) -> set[str] | None:
        """The paths changed since the last call, or None when the watcher is not ready."""
        if not self.ready:
            return None
        with self._lock:
            pending, self._pending = self._pending, set()
        return pending

    def relpath(self, path: str) -> str | None:
        """The store-relative path of a watched path, or None for paths we ignore."""
        relative = os.path.relpath(path, self._root_text)
        if relative == "." or relative.startswith(".."):
            return None
        parts = relative.split(os.sep)
        if any(part.startswith(".") for part in parts):
            return None
        return "/".join(parts)

    def _run(self) -> None:
        """The watch loop: record every relevant change until stopped."""
        try:
            for changes in watch(
                self._root_text,
                watch_filter=_keep_all,
                debounce=50,
                step=20,
                stop_event=self._stop,
                rust_timeout=200,
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                self._ready.set()
                relpaths = {self.relpath(path) for _, path in changes}
                relpaths.discard(None)
                with self._lock:
                    self._pending.update(relpath for relpath in relpaths if relpath is not None)
        except Exception:
            self._failed = True
        else:
            self._failed = True


def _keep_all(change: Change, path: str) -> bool:
    """Let every change through; `ChangeWatcher.relpath` decides what matters."""
    return True
