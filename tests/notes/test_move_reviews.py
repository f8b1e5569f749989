"""A person's rename or move approves nothing: the link rewrites it makes in notes an agent wrote
leave the agent's changes waiting; only a save of what the person had in front of them marks."""

from __future__ import annotations

from pathlib import Path

from memtui.core.config import Settings
from memtui.core.recording.inbox import changes
from memtui.core.store import MemoryStore
from memtui.notes.index import NoteIndex
from memtui.notes.operations import move, save_edit
from memtui.notes.workspace import Workspace


def agent_wrote_two_links(root: Path) -> tuple[MemoryStore, MemoryStore]:
    """A store where an agent created two notes linking by path to a third a person wrote."""
    (root / "tools").mkdir(parents=True)
    (root / "tools" / "textual.md").write_text("# Textual\n")
    person = MemoryStore(root, actor="human:ana", settings=Settings(actor="ana"))
    agent = person.with_actor("agent:claude")
    assert not agent.create("/memories/a.md", "# A\n- uses [[tools/textual]]\n").is_error
    assert not agent.create("/memories/b.md", "# B\n- likes [[tools/textual]]\n").is_error
    return person, agent


def waiting(store: MemoryStore) -> list[tuple[str, str | None]]:
    """The changes waiting for review, oldest first, as (command, path)."""
    return [(event.command, event.path) for event in reversed(changes(store.history))]


def test_a_move_rewriting_links_in_agent_notes_leaves_their_changes_waiting(
    tmp_path: Path,
) -> None:
    person, _agent = agent_wrote_two_links(tmp_path / "s")
    index = NoteIndex.load(person.root, use_cache=False)

    workspace = Workspace(person, index=index)
    moved = move(workspace, "tools/textual.md", "libs/textual.md", rewrite_links=True)

    assert moved.summary == "Moved tools/textual.md to libs/textual.md; rewrote 2 links in 2 notes"
    assert (person.root / "a.md").read_text() == "# A\n- uses [[libs/textual]]\n"
    assert waiting(person) == [("create", "/memories/a.md"), ("create", "/memories/b.md")]
    assert person.history.reviews(event.id for event in changes(person.history)) == {}


def test_a_save_of_the_note_still_approves_what_the_person_saw(tmp_path: Path) -> None:
    person, _agent = agent_wrote_two_links(tmp_path / "s")
    text, revision = person.read("/memories/a.md")

    saved = save_edit(Workspace(person), "/memories/a.md", text + "mine\n", revision, text)

    assert not saved.result.is_error
    assert waiting(person) == [("create", "/memories/b.md")]


def test_a_write_not_seen_marks_nothing(tmp_path: Path) -> None:
    person, _agent = agent_wrote_two_links(tmp_path / "s")
    result = person.write("/memories/a.md", "# A\n", person.revision("/memories/a.md"))
    assert not result.is_error
    assert waiting(person) == [("create", "/memories/a.md"), ("create", "/memories/b.md")]
