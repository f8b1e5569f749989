"""The history cannot be used to fill the disk: refused and failed calls keep a few KiB
(rule M5)."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtui.core.config import Settings
from memtui.core.parsing.echo import echo
from memtui.core.store import MemoryStore

TWENTY_MB = 20 * 1024 * 1024
GROWTH_LIMIT = 64 * 1024


def history_size(root: Path) -> int:
    """Bytes of history.db once its WAL is checkpointed into it (and truncated)."""
    database = root / ".memtui" / "history.db"
    conn = sqlite3.connect(database)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    wal = database.with_name("history.db-wal")
    return database.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def kept(text: str) -> str:
    """What the history keeps of a long argument of a refused or failed call."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    return f"{text[:4096]}… ({len(text)} characters in all, sha256 {digest})"


def shown(text: str) -> str:
    """What a message echoes of a long argument (rule M5)."""
    return f"{text[:4096]}… ({len(text) - 4096} more characters)"


@pytest.fixture
def agent(tmp_path: Path) -> MemoryStore:
    """An agent's store with one note, its history opened and checkpointed."""
    store = MemoryStore(tmp_path, actor="agent:filler", settings=Settings())
    assert not store.create("/memories/note.md", "hello\n").is_error
    return store


HUGE_PATH = "/etc/" + "p" * TWENTY_MB
HUGE_TEXT = "x" * TWENTY_MB
HUGE_OLD = "o" * TWENTY_MB


def refused_path(store: MemoryStore) -> Any:
    """A 20 MB path that does not start with /memories."""
    return store.view(HUGE_PATH)


def refused_create(store: MemoryStore) -> Any:
    """A 20 MB create, over the maximum file size."""
    return store.create("/memories/big.md", HUGE_TEXT)


def failed_str_replace(store: MemoryStore) -> Any:
    """A str_replace whose 20 MB old_str is not in the note."""
    return store.str_replace("/memories/note.md", HUGE_OLD, "new")


CASES: list[tuple[Callable[[MemoryStore], Any], str, dict[str, Any], str | None]] = [
    (
        refused_path,
        f"Path must start with /memories, got: {shown(HUGE_PATH)}",
        {"command": "view", "path": kept(HUGE_PATH)},
        kept(HUGE_PATH),
    ),
    (
        refused_create,
        "Refused: /memories/big.md would be 20M (20971520 bytes), over the maximum file size "
        "of 10M (10485760 bytes). Nothing was written.",
        {"command": "create", "path": "/memories/big.md", "file_text": kept(HUGE_TEXT)},
        "/memories/big.md",
    ),
    (
        failed_str_replace,
        f"No replacement was performed, old_str `{shown(HUGE_OLD)}` did not appear verbatim in "
        "/memories/note.md.",
        {
            "command": "str_replace",
            "path": "/memories/note.md",
            "old_str": kept(HUGE_OLD),
            "new_str": "new",
        },
        "/memories/note.md",
    ),
]


@pytest.mark.parametrize(
    ("call", "message", "args", "path"), CASES, ids=[case[0].__name__ for case in CASES]
)
def test_a_twenty_megabyte_input_adds_less_than_64_kib(
    agent: MemoryStore,
    tmp_path: Path,
    call: Callable[[MemoryStore], Any],
    message: str,
    args: dict[str, Any],
    path: str | None,
) -> None:
    before = history_size(tmp_path)
    result = call(agent)
    growth = history_size(tmp_path) - before
    print(f"{call.__name__}: history.db grew by {growth} bytes")
    assert (result.content, result.is_error) == (message, True)
    event = agent.history.event(result.event_id)
    assert event is not None
    assert (event.args, event.result, event.path, event.is_error) == (args, message, path, True)
    assert growth < GROWTH_LIMIT
    assert (tmp_path / "note.md").read_bytes() == b"hello\n"
    assert not (tmp_path / "big.md").exists()


def test_echo_cuts_after_4096_characters_only() -> None:
    assert echo("a" * 4096) == "a" * 4096
    assert echo("a" * 4097) == "a" * 4096 + "… (1 more characters)"


def test_a_refused_call_keeps_a_long_argument_that_fits_whole(agent: MemoryStore) -> None:
    text = "y" * 4096
    result = agent.str_replace("/memories/note.md", text, "z")
    event = agent.history.event(result.event_id)
    assert event is not None and event.args["old_str"] == text
