"""The note operations the app, the CLI and MCP share: names, create, move with link rewrite,
archive, delete with its broken links, and a save merged three ways."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.index import NoteIndex
from memtui.notes.merge import diff_lines, merge_texts
from memtui.notes.operations import (
    archive,
    create_note,
    delete,
    move,
    note_template,
    plan_delete,
    save_edit,
    save_merged,
    slug_filename,
    who_changed,
)
from memtui.notes.operations.undoing import undo, undo_target
from memtui.notes.workspace import Workspace

LINES = "".join(f"line {n}\n" for n in range(1, 25))


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    """A store with a note linked to by path from two others (one inside a folder)."""
    root = tmp_path / "s"
    (root / "tools").mkdir(parents=True)
    (root / "projects").mkdir()
    (root / "tools" / "textual.md").write_text("---\ntitle: Textual\n---\n# Textual\n")
    (root / "projects" / "p.md").write_text(
        "# P\n- uses [[tools/textual]]\n- x [[tools/textual|T]]\n"
    )
    (root / "projects" / "q.md").write_text("# Q\nsee [[tools/textual#Tips]]\n")
    (root / "notes.md").write_text("# Notes\nby title: [[Textual]]\n")
    return MemoryStore(root, actor="human:ana", settings=Settings(actor="ana"))


@pytest.mark.parametrize(
    ("title", "name"),
    [
        ("Deploy Checklist", "deploy-checklist.md"),
        ("Coupon Enable/Disable Feature", "coupon-enable-disable-feature.md"),
        ("Café: notes?", "cafe-notes.md"),
        ("Release v1.2", "release-v1.2.md"),
        ("My  Note -- draft", "my-note-draft.md"),
        ("日本語 メモ", "日本語-memo.md"),
        ("a\x1bb", "a-b.md"),
        ("", "untitled.md"),
        ("...", "untitled.md"),
    ],
)
def test_slug_file_names_as_basic_memory_names_them(title: str, name: str) -> None:
    assert slug_filename(title) == name


def test_create_writes_the_template_under_a_slug_name_as_one_operation(store: MemoryStore) -> None:
    created = create_note(Workspace(store), "projects/", "Deploy: Checklist")
    assert (created.relpath, created.result.is_error) == ("projects/deploy-checklist.md", False)
    text = (store.root / "projects" / "deploy-checklist.md").read_text(encoding="utf-8")
    assert text == note_template("Deploy: Checklist", "projects/deploy-checklist.md")
    assert text.startswith(
        "---\ntitle: 'Deploy: Checklist'\ntype: note\ntags: []\n"
        "permalink: projects/deploy-checklist\n---\n\n# Deploy: Checklist\n"
    )
    event = store.history.event(created.result.event_id or 0)
    assert event is not None and event.group_id is not None
    group = store.history.group(event.group_id)
    assert group is not None and (group.kind, group.summary) == (
        "create",
        "create /memories/projects/deploy-checklist.md",
    )
    again = create_note(Workspace(store), "projects", "Deploy Checklist")
    assert (again.result.content, again.result.kind) == (
        "A file named projects/deploy-checklist.md is already there; choose another title "
        "(nothing changed)",
        "conflict",
    )
    assert (store.root / "projects" / "deploy-checklist.md").read_text(encoding="utf-8") == text


def test_move_rewrites_the_links_it_breaks_in_one_operation(store: MemoryStore) -> None:
    index = NoteIndex.load(store.root, use_cache=False)
    moved = move(
        Workspace(store, index=index), "tools/textual.md", "libs/textual.md", rewrite_links=True
    )
    assert moved.summary == ("Moved tools/textual.md to libs/textual.md; rewrote links in 2 notes")
    assert (store.root / "projects" / "p.md").read_text() == (
        "# P\n- uses [[libs/textual]]\n- x [[libs/textual|T]]\n"
    )
    assert (store.root / "projects" / "q.md").read_text() == "# Q\nsee [[libs/textual#Tips]]\n"
    assert (store.root / "notes.md").read_text() == "# Notes\nby title: [[Textual]]\n"
    parts = store.history.group_events(moved.group_id or 0)
    assert [(e.command, e.path) for e in parts] == [
        ("rename", "/memories/tools/textual.md"),
        ("write", "/memories/projects/p.md"),
        ("write", "/memories/projects/q.md"),
    ]
    assert moved.changed == {
        "tools/textual.md",
        "libs/textual.md",
        "projects/p.md",
        "projects/q.md",
    }
    target = undo_target(Workspace(store), parts[2].id)
    assert target is not None and target.whole_operation
    assert target.describe() == (
        "rename tools/textual.md → libs/textual.md by human:ana, and the links it rewrote in "
        "2 notes"
    )
    assert not undo(Workspace(store), target).is_error
    assert (store.root / "projects" / "p.md").read_text() == (
        "# P\n- uses [[tools/textual]]\n- x [[tools/textual|T]]\n"
    )
    assert (store.root / "tools" / "textual.md").exists()


def test_move_without_rewriting_names_the_notes_left_with_broken_links(store: MemoryStore) -> None:
    index = NoteIndex.load(store.root, use_cache=False)
    moved = move(
        Workspace(store, index=index), "tools/textual.md", "libs/textual.md", rewrite_links=False
    )
    assert moved.summary == (
        "Moved tools/textual.md to libs/textual.md; 2 notes still link to the old path "
        "(projects/p.md, projects/q.md)"
    )
    assert len(store.history.group_events(moved.group_id or 0)) == 1


def test_a_refused_move_changes_nothing(store: MemoryStore) -> None:
    index = NoteIndex.load(store.root, use_cache=False)
    moved = move(Workspace(store, index=index), "tools/textual.md", "notes.md", rewrite_links=True)
    assert moved.result.is_error
    assert moved.summary == "Error: The destination /memories/notes.md already exists"
    assert moved.changed == set()
    assert (store.root / "projects" / "p.md").read_text().count("[[tools/textual") == 2


def test_archive_moves_to_archive_and_keeps_links_working(store: MemoryStore) -> None:
    index = NoteIndex.load(store.root, use_cache=False)
    archived = archive(Workspace(store, index=index), "tools/textual.md")
    assert archived.summary == (
        "Archived tools/textual.md to archive/tools/textual.md; rewrote links in 2 notes"
    )
    assert (store.root / "archive" / "tools" / "textual.md").exists()
    group = store.history.group(archived.group_id or 0)
    assert group is not None and group.kind == "archive"


def test_delete_names_the_links_it_breaks_and_the_files_of_a_folder(store: MemoryStore) -> None:
    index = NoteIndex.load(store.root, use_cache=False)
    (store.root / "tools" / "image.png").write_bytes(b"\x89PNG")
    plan = plan_delete(Workspace(store, index=index), "tools")
    assert (plan.is_folder, plan.files) == (True, 2)
    assert plan.what() == "the folder tools/ and its 2 files"
    assert plan.consequences() == [
        "4 links in 3 other notes would point nowhere:",
        "  notes.md: [[Textual]]",
        "  projects/p.md: [[tools/textual]], [[tools/textual|T]]",
        "  projects/q.md: [[tools/textual#Tips]]",
    ]
    note = plan_delete(Workspace(store, index=index), "notes.md")
    assert (note.is_folder, note.files, note.consequences()) == (
        False,
        1,
        ["No other note links here."],
    )
    deleted = delete(Workspace(store), plan)
    assert deleted.summary == (
        "Deleted the folder tools/ and its 2 files; 4 links in 3 notes now point nowhere "
        "(notes.md, projects/p.md, projects/q.md)"
    )
    assert not (store.root / "tools").exists()
    assert store.history.group(deleted.group_id or 0) is not None


def test_merge_combines_changes_to_different_lines_and_leaves_overlaps() -> None:
    mine = LINES.replace("line 20\n", "line 20 mine\n")
    theirs = LINES.replace("line 3\n", "line 3 theirs\n")
    merged = merge_texts(LINES, mine, theirs)
    assert merged.clean
    assert merged.text() == LINES.replace("line 20\n", "line 20 mine\n").replace(
        "line 3\n", "line 3 theirs\n"
    )
    overlap = merge_texts(LINES, mine, LINES.replace("line 20\n", "line 20 theirs\n"))
    assert not overlap.clean and len(overlap.conflicts) == 1
    conflict = overlap.conflicts[0]
    assert (conflict.base, conflict.mine, conflict.theirs, conflict.line) == (
        ("line 20\n",),
        ("line 20 mine\n",),
        ("line 20 theirs\n",),
        20,
    )
    assert conflict.side("both") == "line 20 mine\nline 20 theirs\n"
    assert overlap.text([conflict.side("theirs")]) == LINES.replace("line 20\n", "line 20 theirs\n")
    with pytest.raises(ValueError):
        overlap.text()
    assert diff_lines("a\nb", "a\nc", "x", "y") == [
        "--- x",
        "+++ y",
        "@@ -1,2 +1,2 @@",
        " a",
        "-b",
        "\\ No newline at end of file",
        "+c",
        "\\ No newline at end of file",
    ]


def test_a_save_over_a_changed_note_merges_with_the_base_from_the_history(
    store: MemoryStore,
) -> None:
    store.write("/memories/long.md", LINES, None)
    loaded, revision = store.read("/memories/long.md")
    agent = store.with_actor("agent:claude")
    assert not agent.str_replace("/memories/long.md", "line 3\n", "line 3 agent\n").is_error
    mine = loaded.replace("line 20\n", "line 20 mine\n")
    saved = save_edit(Workspace(store), "/memories/long.md", mine, revision, "not what was loaded")
    assert saved.result.kind == "conflict" and saved.changed is not None
    changed = saved.changed
    assert changed.base == LINES
    assert changed.clean and changed.merge is not None
    assert [(e.actor, e.command) for e in changed.changes] == [("agent:claude", "str_replace")]
    assert who_changed(changed.changes, lambda _t: "10:03") == (
        "changed by agent:claude (str_replace, 10:03)"
    )
    assert (store.root / "long.md").read_text().count("mine") == 0
    again = save_merged(Workspace(store), changed, changed.merge.text())
    assert not again.result.is_error
    assert (store.root / "long.md").read_text() == LINES.replace(
        "line 3\n", "line 3 agent\n"
    ).replace("line 20\n", "line 20 mine\n")


def test_a_save_of_a_note_deleted_meanwhile_has_no_merge(store: MemoryStore) -> None:
    loaded, revision = store.read("/memories/notes.md")
    store.with_actor("agent:claude").delete("/memories/notes.md")
    saved = save_edit(Workspace(store), "/memories/notes.md", loaded + "more\n", revision, loaded)
    assert saved.changed is not None and saved.changed.theirs is None
    assert saved.changed.merge is None and not saved.changed.clean
    recreated = save_merged(Workspace(store), saved.changed, loaded + "more\n")
    assert not recreated.result.is_error
    assert (store.root / "notes.md").read_text() == loaded + "more\n"
