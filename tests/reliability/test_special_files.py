"""A FIFO where a note, the history or the config should be is refused at once, never waited on."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BOUND = 5.0
"""Seconds a refusal may take; a blocked open waits for a writer forever."""


def without_blocking(function: Callable[[], Any], fifo: Path) -> Any:
    """`function()`'s result or exception; fails the test if it blocks on `fifo`.

    A blocked call is released by opening and closing the FIFO's write end.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BOUND)
    blocked = thread.is_alive()
    if blocked:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(BOUND)
    assert not blocked, f"blocked on the FIFO {fifo}"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A store holding one note and a FIFO named like a note."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(tmp_path / "store", actor="human:t")
    assert not store.create("/memories/a.md", "a\n").is_error
    os.mkfifo(store.root / "fifo.md")
    return store.root


def test_read_refuses_a_fifo_at_once_with_a_clear_message(root: Path) -> None:
    from memtui.core.store import MemoryStore, StoreError

    store = MemoryStore(root, actor="human:t")
    with pytest.raises(StoreError) as refused:
        without_blocking(lambda: store.read("/memories/fifo.md"), root / "fifo.md")
    assert str(refused.value) == (
        "The path /memories/fifo.md is a FIFO (named pipe), not a regular file"
    )
    assert store.read("/memories/a.md")[0] == "a\n"


def test_read_of_a_folder_still_says_it_is_a_folder(root: Path) -> None:
    from memtui.core.store import MemoryStore, StoreError

    (root / "sub").mkdir()
    with pytest.raises(StoreError, match=r"^The path /memories/sub is a folder, not a file$"):
        MemoryStore(root, actor="human:t").read("/memories/sub")


def test_a_fifo_in_place_of_the_history_is_refused_at_once(tmp_path: Path) -> None:
    from memtui.core.recording.database import HistoryCorrupt
    from memtui.core.recording.history import History

    fifo = tmp_path / "store" / ".memtui" / "history.db"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    with pytest.raises(HistoryCorrupt) as refused:
        without_blocking(lambda: History(tmp_path / "store"), fifo)
    assert refused.value.reason == "cannot read: it is a FIFO (named pipe), not a regular file"


def test_a_fifo_in_place_of_the_config_file_is_refused_at_once(tmp_path: Path) -> None:
    from memtui.core.config import ConfigError, load_settings

    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as refused:
        without_blocking(lambda: load_settings({"MEMTUI_CONFIG_FILE": str(fifo)}), fifo)
    assert str(refused.value) == (
        f"{fifo}: cannot read: it is a FIFO (named pipe), not a regular file"
    )
