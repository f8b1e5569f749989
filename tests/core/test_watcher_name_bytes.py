"""The watcher keeps watching when a name is not UTF-8, and reports it as Python names it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from watchfiles._rust_notify import RustNotify, WatchfilesRustInternalError

from memtui.core.config import Settings
from memtui.core.debug_paths import undecodable_path
from memtui.core.store import MemoryStore
from memtui.core.watcher import StoreWatcher
from tests.core.test_watcher import wait_until

HOSTILE = b"a\"b\\c\nd\te'\x01\xff\xc3\xa9\xe2\x80\x8b.md"
"""A name with quotes, a backslash, controls, a bad byte, UTF-8 and an invisible character."""


def test_the_name_in_watchfiles_error_is_read_back_exactly(tmp_path: Path) -> None:
    notifier = RustNotify([str(tmp_path)], False, False, 300, False, True)
    try:
        (tmp_path / os.fsdecode(HOSTILE)).write_bytes(b"x")
        with pytest.raises(WatchfilesRustInternalError) as failure:
            for _ in range(50):
                notifier.watch(20, 10, 200, None)
    finally:
        notifier.close()
    assert undecodable_path(str(failure.value)) == os.fsdecode(bytes(tmp_path) + b"/" + HOSTILE)
    assert undecodable_path("error in underlying watcher: gone") is None
    assert undecodable_path('Unable to decode path "a\\u{d800}" to string') is None


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Path, list[frozenset[str]]]]:
    """A running watcher of an empty store and the batches it delivers."""
    batches: list[frozenset[str]] = []
    watcher = StoreWatcher(tmp_path, on_batch=batches.append)
    watcher.start()
    assert watcher.wait_ready(10)
    yield tmp_path, batches
    assert watcher.ready, "the watcher stopped"
    watcher.stop()
    assert watcher.wait_stopped(10)


def seen(batches: list[frozenset[str]]) -> set[str]:
    """Every path delivered so far."""
    return set().union(*batches)


def test_creation_edit_and_deletion_of_such_a_name_are_delivered(
    watched: tuple[Path, list[frozenset[str]]],
) -> None:
    root, batches = watched
    name = os.fsdecode(b"x\xff.md")
    for change in (
        lambda: (root / name).write_bytes(b"one"),
        lambda: (root / name).write_bytes(b"two, longer"),
        (root / name).unlink,
    ):
        batches.clear()
        change()
        (root / "marker.md").write_text(str(len(batches)))
        assert wait_until(lambda: {name, "marker.md"} <= seen(batches)), batches


def test_reading_such_a_name_is_not_delivered_again(
    watched: tuple[Path, list[frozenset[str]]],
) -> None:
    root, batches = watched
    name = os.fsdecode(b"x\xff.md")
    (root / name).write_bytes(b"one")
    assert wait_until(lambda: name in seen(batches)), batches
    batches.clear()
    (root / name).read_bytes()
    (root / "after.md").write_text("after")
    assert wait_until(lambda: "after.md" in seen(batches)), batches
    assert name not in seen(batches)


def test_a_folder_whose_name_is_not_utf8_is_watched(
    watched: tuple[Path, list[frozenset[str]]],
) -> None:
    root, batches = watched
    folder = os.fsdecode(b"d\xfe")
    (root / folder).mkdir()
    assert wait_until(lambda: folder in seen(batches)), batches
    inside = folder + "/" + os.fsdecode(b"in\xfd.md")
    (root / inside).write_bytes(b"inside")
    (root / folder / "plain.md").write_bytes(b"plain")
    assert wait_until(lambda: {inside, f"{folder}/plain.md"} <= seen(batches)), batches


def test_the_store_records_what_the_watcher_delivers(
    watched: tuple[Path, list[frozenset[str]]],
) -> None:
    root, batches = watched
    store = MemoryStore(root, actor="human:dana", settings=Settings())
    store.ensure_recovered()
    name = os.fsdecode(b"caf\xe9.md")
    (root / name).write_bytes(b"latin-1\n")
    assert wait_until(lambda: name in seen(batches)), batches
    (event_id,) = store.record_external(sorted(seen(batches)))
    event = store.history.event(event_id)
    assert event is not None
    assert (event.command, event.path) == ("external", f"/memories/{name}")
