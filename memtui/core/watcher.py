"""The store's file watcher: the folders of the store only, never through a link out of it.

watchfiles' recursive watch follows symlinks (a link to `/` in a store would add a watch for
every folder of the filesystem), so this watcher finds the store's folders itself, on
descriptors without following links, watches each one non-recursively, and re-arms when a
folder appears, goes or moves. One ignore rule (`is_ignored`) serves every consumer: the MCP
server's note refresh (`take`) and the app's live updates (`watch_store`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from watchfiles import Change
from watchfiles._rust_notify import RustNotify

from memtui.core.fd_paths import OutsideStore, StoreRoot, close_quietly, entries, walk_tree

IGNORED_NAMES = frozenset({"node_modules"})
"""Folder names never watched (the memory tool's listings leave them out too)."""
DEBOUNCE_MS = 200
"""The longest a burst of events is collected before it is delivered as one batch."""
STEP_MS = 20
"""A batch is delivered once no new event arrived for this long (atomic writes take far less)."""
TIMEOUT_MS = 200
"""How often the watch loop looks at its stop flag when nothing happens."""


def is_ignored(relpath: str) -> bool:
    """The one ignore rule: a hidden name anywhere (memtui's `.memtui`, temp files) or
    node_modules."""
    return any(part.startswith(".") or part in IGNORED_NAMES for part in relpath.split("/"))


def store_folders(root: Path) -> list[str]:
    """Every folder of the store to watch, relative (`""` for the root), found without links."""
    with StoreRoot(root) as store_root:
        walked = walk_tree(store_root, lambda relative: not is_ignored(relative))
        return [""] + [
            relative
            for relative, _folder, _name, info in walked
            if stat.S_ISDIR(info.st_mode) and not is_ignored(relative)
        ]


def relative_paths(root: Path | str, changed: Iterable[tuple[Change | int, str]]) -> frozenset[str]:
    """The store-relative POSIX paths of changed entries, ignored ones left out."""
    root_text = os.path.realpath(root).rstrip("/") + "/"
    paths: set[str] = set()
    for _change, raw in changed:
        if not raw.startswith(root_text):
            continue
        relpath = raw[len(root_text) :].strip("/")
        if relpath and not is_ignored(relpath):
            paths.add(relpath)
    return frozenset(paths)


class StoreWatcher:
    """Watches a store on a daemon thread: changed relative paths by `take()` or a callback.

    Folders are added or dropped as they appear or go (every entry below a new folder is
    reported, since it may have been filled before its watch began). If the watcher cannot
    run, `take` returns None and the caller falls back to a full stat walk.
    """

    def __init__(
        self,
        root: Path,
        *,
        on_batch: Callable[[frozenset[str]], object] | None = None,
        debounce_ms: int = 50,
        step_ms: int = STEP_MS,
        force_polling: bool = False,
    ) -> None:
        """Prepare to watch `root`; `on_batch` (if given) gets each batch on the watch thread."""
        self.root = Path(os.path.realpath(root))
        self._on_batch = on_batch
        self._debounce = debounce_ms
        self._step = step_ms
        self._polling = force_polling
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failed = False
        self._thread: threading.Thread | None = None
        self.folders: list[str] = []
        """The folders watched now, relative to the root."""

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

    def wait_ready(self, timeout: float) -> bool:
        """Wait until the watch is set up (True) or `timeout` seconds passed (False)."""
        return self._ready.wait(timeout) and not self._failed

    def take(self) -> set[str] | None:
        """The paths changed since the last call, or None when the watcher is not ready."""
        if not self.ready:
            return None
        with self._lock:
            pending, self._pending = self._pending, set()
        return pending

    def _deliver(self, paths: frozenset[str]) -> None:
        """Hand one batch to the callback and to `take`."""
        if not paths:
            return
        with self._lock:
            self._pending.update(paths)
        if self._on_batch is not None:
            self._on_batch(paths)

    def _notifier(self) -> RustNotify:
        """A non-recursive watch of every store folder found now."""
        self.folders = store_folders(self.root)
        paths = [str(self.root / folder) if folder else str(self.root) for folder in self.folders]
        return RustNotify(paths, False, self._polling, 300, False, True)

    def _run(self) -> None:
        """The watch loop: deliver every relevant change until stopped; re-arm on folder changes."""
        try:
            notifier = self._notifier()
        except Exception:
            self._failed = True
            return
        self._ready.set()
        try:
            while not self._stop.is_set():
                changes = notifier.watch(self._debounce, self._step, TIMEOUT_MS, self._stop)
                if not isinstance(changes, set):
                    continue
                self._deliver(relative_paths(self.root, changes))
                if self._folders_changed(changes):
                    notifier = self._rearm(notifier)
        except Exception:
            pass
        finally:
            self._failed = True
            notifier.close()

    def _folders_changed(self, changes: set[tuple[int, str]]) -> bool:
        """True if a batch added, removed or moved a folder (the set of watches must change)."""
        watched = {str(self.root / folder) for folder in self.folders if folder}
        for change, path in changes:
            if change == Change.deleted and path in watched:
                return True
            if change == Change.added and not is_ignored(path[len(str(self.root)) + 1 :]):
                with contextlib.suppress(OSError):
                    if stat.S_ISDIR(os.lstat(path).st_mode):
                        return True
        return False

    def _rearm(self, old: RustNotify) -> RustNotify:
        """Watch the folders found now, then report what the old watch saw and what new folders
        hold."""
        before = set(self.folders)
        new = self._notifier()
        leftover = old.watch(1, 1, 1, None)
        old.close()
        if isinstance(leftover, set):
            self._deliver(relative_paths(self.root, leftover))
        added = [folder for folder in self.folders if folder not in before]
        self._deliver(frozenset(_contents(self.root, added)))
        return new


def _contents(root: Path, folders: Iterable[str]) -> set[str]:
    """Every entry (files and folders) directly in `folders`, as relative paths (read by fd)."""
    found: set[str] = set()
    with StoreRoot(root) as store_root:
        for folder in folders:
            found.add(folder)
            try:
                with store_root.locate_relative(folder) as location:
                    handle = location.open_dir()
            except (OSError, OutsideStore):
                continue
            try:
                found.update(f"{folder}/{name}" for name in entries(handle))
            except OSError:
                pass
            finally:
                close_quietly(handle)
    return {path for path in found if not is_ignored(path)}


async def watch_store(
    root: Path,
    on_batch: Callable[[frozenset[str]], Awaitable[None]],
    *,
    force_polling: bool | None = None,
) -> None:
    """Call `on_batch` with the relative paths of each burst of changes until cancelled.

    While `on_batch` runs, new events accumulate and arrive as the next single batch.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[frozenset[str]] = asyncio.Queue()
    watcher = StoreWatcher(
        root,
        on_batch=lambda paths: loop.call_soon_threadsafe(queue.put_nowait, paths),
        debounce_ms=DEBOUNCE_MS,
        force_polling=bool(force_polling),
    )
    watcher.start()
    try:
        while True:
            paths = set(await queue.get())
            while not queue.empty():
                paths |= queue.get_nowait()
            await on_batch(frozenset(paths))
    finally:
        watcher.stop()
