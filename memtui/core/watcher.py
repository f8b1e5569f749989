"""The store's file watcher: the folders of the store only, never through a link out of it.

watchfiles' recursive watch follows symlinks (a link to `/` in a store would add a watch for
every folder of the filesystem), so this watcher finds the store's folders itself, on
descriptors without following links, watches each one non-recursively, and re-arms when a
folder appears, goes or moves. One ignore rule (`is_ignored`) serves every consumer: the MCP
server's note refresh (`take`) and the app's live updates (`watch_store`).

A name that is not UTF-8 is a name like any other: watchfiles cannot decode one and fails the
whole batch instead, so the watch is re-armed, the name is read back from the error
(`debug_paths`) and delivered together with every entry changed since the failed batch began
(by ctime, which no process can set back). A folder with such a name is watched through its
descriptor's `/proc/self/fd/N` alias.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Iterable
from pathlib import Path

from watchfiles import Change
from watchfiles._rust_notify import RustNotify, WatchfilesRustInternalError

from memtui.core.debug_paths import undecodable_path
from memtui.core.watch_walk import StoreWalk, is_utf8

IGNORED_NAMES = frozenset({"node_modules"})
"""Folder names never watched (the memory tool's listings leave them out too)."""
DEBOUNCE_MS = 200
"""The longest a burst of events is collected before it is delivered as one batch."""
STEP_MS = 20
"""A batch is delivered once no new event arrived for this long (atomic writes take far less)."""
TIMEOUT_MS = 200
"""How often the watch loop looks at its stop flag when nothing happens."""
CTIME_MARGIN_NS = 1_000_000_000
"""How much earlier than a failed batch's start an entry's ctime may be and still count as
changed in it (filesystems keep coarse times)."""
UNDECODABLE = "Unable to decode path"
"""How watchfiles' error about a name that is not UTF-8 begins."""


def is_ignored(relpath: str) -> bool:
    """The one ignore rule: a hidden name anywhere (memtui's `.memtui`, temp files) or
    node_modules."""
    return any(part.startswith(".") or part in IGNORED_NAMES for part in relpath.split("/"))


def store_folders(root: Path) -> list[str]:
    """Every folder of the store to watch, relative (`""` for the root), found without links."""
    with StoreWalk(root, _watched) as walk:
        return walk.folders


def _watched(relative: str) -> bool:
    """Whether the walk enters (and watches) the folder `relative`."""
    return not is_ignored(relative)


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
        self._signatures: dict[str, tuple[int, ...] | None] = {}
        """The stat last seen of each name that is not UTF-8 delivered after a failed batch."""

    def start(self) -> None:
        """Start watching (returns at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memtui-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop watching; later `take` calls return None."""
        self._stop.set()
        self._failed = True

    def wait_stopped(self, timeout: float) -> bool:
        """Wait until the watch thread has ended and released its watches (True), or `timeout`
        seconds passed (False)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()

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

    def _watch(self, since_ns: int | None = None, known: Collection[str] = ()) -> _Watch:
        """A non-recursive watch of every store folder found now (the walk, which opens
        folders, ends before the watch begins, so the watch never sees the walk)."""
        walk = StoreWalk(self.root, _watched, since_ns, known)
        self.folders = walk.folders
        return _Watch(walk, self._polling)

    def _run(self) -> None:
        """The watch loop: deliver every relevant change until stopped; re-arm on folder changes
        and after a batch that failed on a name that is not UTF-8."""
        try:
            watch = self._watch()
        except Exception:
            self._failed = True
            return
        self._ready.set()
        try:
            while not self._stop.is_set():
                since = time.time_ns()
                try:
                    changes = watch.changes(self._debounce, self._step, TIMEOUT_MS, self._stop)
                except Undecodable as failure:
                    watch = self._rearm(watch, since, failure)
                    continue
                if not isinstance(changes, set):
                    continue
                self._deliver(relative_paths(self.root, changes))
                if self._folders_changed(changes):
                    watch = self._rearm(watch, time.time_ns())
        except Exception:
            pass
        finally:
            self._failed = True
            watch.close()

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

    def _rearm(self, old: _Watch, since_ns: int, failure: Undecodable | None = None) -> _Watch:
        """Watch the folders found now, then report what the old watch saw (or, if its batch
        begun at `since_ns` failed, what it lost) and what new folders hold."""
        new = self._watch(since_ns - CTIME_MARGIN_NS, known=set(self.folders))
        try:
            leftover = old.changes(1, 1, 1, None) if failure is None else None
            if isinstance(leftover, set):
                self._deliver(relative_paths(self.root, leftover))
        except Undecodable as problem:
            failure = problem
        finally:
            old.close()
        if failure is not None:
            self._deliver(self._lost(failure, new.walk.recent))
        self._deliver(frozenset(path for path in new.walk.new if not is_ignored(path)))
        return new

    def _lost(self, failure: Undecodable, recent: set[str]) -> frozenset[str]:
        """What a failed batch held: the name it could not decode and every `recent` entry (its
        other changes are gone with it). A name that is not UTF-8 counts only if its stat
        changed since it was last delivered: opening one fails a batch too, and that is no
        change."""
        bad = [(Change.added, failure.path)] if failure.path is not None else []
        found = set(recent) | relative_paths(self.root, bad)
        return frozenset(
            path for path in found if not is_ignored(path) and self._changed_name(path)
        )

    def _changed_name(self, relative: str) -> bool:
        """True for a UTF-8 name, or one that is not whose stat differs from the last one seen
        (remembered now)."""
        if is_utf8(relative):
            return True
        try:
            info = os.lstat(self.root / relative)
            signature: tuple[int, ...] | None = (
                info.st_ino,
                info.st_ctime_ns,
                info.st_mtime_ns,
                info.st_size,
            )
        except OSError:
            signature = None
        changed = self._signatures.get(relative, ()) != signature
        self._signatures[relative] = signature
        return changed


class Undecodable(Exception):
    """A batch failed on a name watchfiles cannot decode; `path` is its real absolute path (None
    if the error could not be read)."""

    def __init__(self, path: str | None) -> None:
        """Keep the path."""
        super().__init__(path)
        self.path = path


class _Watch:
    """A watchfiles notifier over one walk's folders; closed together."""

    def __init__(self, walk: StoreWalk, polling: bool) -> None:
        """Watch every folder of `walk` (non-recursively)."""
        self.walk = walk
        try:
            self.notifier = RustNotify(walk.paths(), False, polling, 300, False, True)
        except BaseException:
            walk.close()
            raise

    def changes(
        self, debounce: int, step: int, timeout: int, stop: threading.Event | None
    ) -> set[tuple[int, str]] | str:
        """The next batch (paths made real), or why none came (`timeout`, `stop`, `signal`);
        raises Undecodable for a batch that failed on a name that is not UTF-8."""
        try:
            found = self.notifier.watch(debounce, step, timeout, stop)
        except WatchfilesRustInternalError as problem:
            if not str(problem).startswith(UNDECODABLE):
                raise
            bad = undecodable_path(str(problem))
            raise Undecodable(None if bad is None else self.walk.real(bad)) from problem
        if not isinstance(found, set):
            return str(found)
        return {(change, self.walk.real(path)) for change, path in found}

    def close(self) -> None:
        """Stop watching and close the walk's descriptors."""
        self.notifier.close()
        self.walk.close()


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
