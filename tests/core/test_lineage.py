"""A note's history follows it across renames and folder moves, back to where it began."""

from __future__ import annotations

from pathlib import Path

from memtui.core.config import Settings
from memtui.core.recording.history import History
from memtui.core.recording.lineage import Span
from memtui.core.store import MemoryStore


def agent_store(root: Path) -> MemoryStore:
    """An agent's store on `root`."""
    return MemoryStore(root, actor="agent:claude", settings=Settings())


def ids(history: History, path: str) -> list[int]:
    """The ids of a note's history, oldest first."""
    return [event.id for event in history.events(path=path, follow=True, newest_first=False)]


def test_history_follows_a_note_through_its_renames_and_a_folder_move(tmp_path: Path) -> None:
    store = agent_store(tmp_path)
    store.create("/memories/a.md", "one\n")  # 1
    store.create("/memories/unrelated.md", "x\n")  # 2
    store.str_replace("/memories/a.md", "one", "two")  # 3
    store.rename("/memories/a.md", "/memories/p/b.md")  # 4
    store.view("/memories/p/b.md")  # 5
    store.create("/memories/p/sibling.md", "s\n")  # 6
    store.rename("/memories/p", "/memories/q")  # 7
    store.str_replace("/memories/q/b.md", "two", "three")  # 8
    history = store.history

    assert ids(history, "/memories/q/b.md") == [1, 3, 4, 5, 7, 8]
    assert history.lineage("/memories/q/b.md").names == (
        "/memories/q/b.md",
        "/memories/p/b.md",
        "/memories/a.md",
    )
    assert [e.id for e in history.events(path="/memories/q/b.md", newest_first=False)] == [8]
    assert history.count_events(path="/memories/q/b.md", follow=True) == 6
    assert ids(history, "/memories/q") == [4, 5, 6, 7, 8]


def test_a_note_made_where_another_was_moved_away_starts_its_own_history(tmp_path: Path) -> None:
    store = agent_store(tmp_path)
    store.create("/memories/a.md", "first\n")  # 1
    store.rename("/memories/a.md", "/memories/old.md")  # 2
    store.create("/memories/a.md", "second\n")  # 3
    store.str_replace("/memories/a.md", "second", "2nd")  # 4

    assert ids(store.history, "/memories/a.md") == [3, 4]
    assert ids(store.history, "/memories/old.md") == [1, 2]
    assert store.history.lineage("/memories/a.md").spans == (Span("/memories/a.md", 3, None),)


def test_undoing_a_rename_and_deleting_then_recreating_keep_one_history(tmp_path: Path) -> None:
    store = agent_store(tmp_path)
    person = store.with_actor("human:dana")
    store.create("/memories/a.md", "one\n")  # 1
    store.rename("/memories/a.md", "/memories/b.md")  # 2
    person.revert(2)  # 3: b.md moves back to a.md
    store.delete("/memories/a.md")  # 4
    store.create("/memories/a.md", "again\n")  # 5

    assert ids(store.history, "/memories/a.md") == [1, 2, 3, 4, 5]


def test_a_note_that_was_there_at_the_first_open_begins_with_the_baseline(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "kept.md").write_text("kept\n")
    store = agent_store(tmp_path)
    store.rename("/memories/notes", "/memories/archive")  # 2, after the baseline (1)
    store.create("/memories/archive/new.md", "new\n")  # 3
    history = store.history

    assert ids(history, "/memories/archive/kept.md") == [1, 2]
    assert ids(history, "/memories/archive/new.md") == [3]
    assert ids(history, "/memories/archive") == [1, 2, 3]
