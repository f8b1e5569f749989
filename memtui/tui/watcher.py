"""Watch the store on disk and turn bursts of file events into relative paths to refresh."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from watchfiles import Change, DefaultFilter

DEBOUNCE_MS = 200
"""The longest a burst of events is collected before it is delivered as one batch."""
STEP_MS = 20
"""A batch is delivered once no new event arrived for this long (atomic writes take far less)."""


def relative_paths(root: Path, changed: Iterable[tuple[Change, str]]) -> frozenset[str]:
    """The store-relative POSIX paths of changed files, without memtui's own and temp files."""
    root_text = str(root)
    paths: set[str] = set()
    for _change, raw in changed:
        if not raw.startswith(root_text):
            continue
        relpath = raw[len(root_text) :].lstrip("/\\").replace("\\", "/")
        if relpath and not is_ignored(relpath):
            paths.add(relpath)
    return frozenset(paths)


def is_ignored(relpath: str) -> bool:
    """Whether a path is memtui's own state, a temp file or hidden."""
    return any(part.startswith(".") for part in relpath.split("/"))


class StoreFilter(DefaultFilter):
    """watchfiles' default filter plus memtui's state folder and atomic-write temp files."""

    def __init__(self, root: Path) -> None:
        """Filter events under `root`."""
        super().__init__()
        self.root_text = str(root)

    def __call__(self, change: Change, path: str) -> bool:
        """Keep an event unless it is ignored by default or hidden below the root."""
        if not super().__call__(change, path):
            return False
        relpath = path[len(self.root_text) :].lstrip("/\\")
        return bool(relpath) and not is_ignored(relpath.replace("\\", "/"))


async def watch_store(
    root: Path,
    on_batch: Callable[[frozenset[str]], Awaitable[None]],
    *,
    force_polling: bool | None = None,
) -> None:
    """Call `on_batch` with the relative paths of each burst of changes until cancelled.

    While `on_batch` runs, new events accumulate and arrive as the next single batch.
    """
    from watchfiles import awatch

    real_root = root.resolve()
    async for changes in awatch(
        real_root,
        watch_filter=StoreFilter(real_root),
        debounce=DEBOUNCE_MS,
        step=STEP_MS,
        force_polling=force_polling,
        recursive=True,
    ):
        paths = relative_paths(real_root, changes)
        if paths:
            await on_batch(paths)
