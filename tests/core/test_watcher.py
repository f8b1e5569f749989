"""The store watcher watches the store's folders only: never through a link out of it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.core.watcher import StoreWatcher, is_ignored, store_folders


def inotify_watches() -> int:
    """Inotify watches this process holds now (from /proc/self/fdinfo)."""
    count = 0
    for fd in os.listdir("/proc/self/fdinfo"):
        try:
            with open(f"/proc/self/fdinfo/{fd}") as info:
                count += sum(line.startswith("inotify wd:") for line in info)
        except OSError:
            continue
    return count


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Poll `condition` until it holds or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with two folders, a hidden one, node_modules, and links to `/` and outside."""
    root = tmp_path / "store"
    (root / "a" / "b").mkdir(parents=True)
    (root / ".memtui").mkdir()
    (root / "node_modules" / "pkg").mkdir(parents=True)
    (root / "to-root").symlink_to("/")
    (tmp_path / "outside").mkdir()
    (root / "out").symlink_to(tmp_path / "outside")
    return root


def test_the_one_ignore_rule() -> None:
    assert is_ignored(".memtui/history.db") and is_ignored("a/.tmp-1-x")
    assert is_ignored("node_modules/x.md") and is_ignored("a/node_modules")
    assert not is_ignored("a/b.md") and not is_ignored("notes/modules.md")


def test_only_the_store_folders_are_watched(store: Path) -> None:
    assert sorted(store_folders(store)) == ["", "a", "a/b"]
    before = inotify_watches()
    watcher = StoreWatcher(store)
    watcher.start()
    try:
        assert watcher.wait_ready(10)
        assert inotify_watches() - before == 3
    finally:
        watcher.stop()


def test_changes_are_seen_in_new_folders_but_not_through_links(store: Path, tmp_path: Path) -> None:
    seen: set[str] = set()
    watcher = StoreWatcher(store, on_batch=seen.update)
    watcher.start()
    try:
        assert watcher.wait_ready(10)
        (store / "a" / "b" / "n.md").write_text("x")
        (tmp_path / "outside" / "o.md").write_text("outside")
        (store / "new" / "deeper").mkdir(parents=True)
        (store / "new" / "deeper" / "m.md").write_text("y")
        assert wait_until(lambda: {"a/b/n.md", "new/deeper/m.md"} <= seen), seen
        (store / "new" / "deeper" / "m.md").write_text("changed")
        seen.clear()
        assert wait_until(lambda: "new/deeper/m.md" in seen), seen
        assert not any(path.startswith(("out", "to-root")) for path in seen), seen
        assert sorted(watcher.folders) == ["", "a", "a/b", "new", "new/deeper"]
    finally:
        watcher.stop()
