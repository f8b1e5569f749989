"""The history screen shows what an agent read even when the history kept a reference, and
names that hold a line break or bytes that are not UTF-8 escaped and whole."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.tui.widgets.history_events import describe_event, event_path_text, result_cell


def test_a_long_read_is_shown_whole_from_the_history(tmp_path: Path) -> None:
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings())
    agent.create("/memories/long.md", "".join(f"line {n}\n" for n in range(5000)))
    shown = agent.view("/memories/long.md")
    event = agent.history.events(limit=1)[0]
    assert "[memtui: lines 1-5001 of the file with sha256" in event.result
    described = describe_event(event, *agent.history.texts(event)).plain
    assert described.endswith("The agent read:\n" + shown.content + "\n")
    assert "[memtui:" not in described


def test_rows_show_such_names_escaped_and_whole(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    store.ensure_recovered()
    for name in ("new\nline.md", os.fsdecode(b"caf\xe9.md")):
        (tmp_path / name).write_text("outside\n")
    store.record_external(["new\nline.md", os.fsdecode(b"caf\xe9.md")])
    latin1, newline = store.history.events(limit=2)
    assert (event_path_text(newline), event_path_text(latin1)) == ("new\nline.md", "caf\udce9.md")
    assert result_cell(newline.result, (newline.path,), 80) == (
        "/memories/new␊line.md was created outside memtui"
    )
    assert result_cell(latin1.result, (latin1.path,), 80) == (
        "/memories/caf\\xe9.md was created outside memtui"
    )
