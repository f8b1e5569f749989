"""Editing through the app: save, conflicts both ways, discard, new, rename with links, delete and
undo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, TextArea

from memtui.notes import parser
from memtui.notes.links import links_into
from memtui.notes.model import Note
from memtui.notes.operations.naming import note_template
from memtui.notes.parser import parse_note
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.dialogs import RenameScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import ConflictScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle

NOTE = "tools/textual.md"


async def start_editing(app: MemtuiApp, pilot: object, relpath: str = NOTE) -> EditorScreen:
    """Select `relpath` and press `e`."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    screen = app.screen
    assert isinstance(screen, MainScreen)
    screen.show_path(relpath)
    assert await wait_for(pilot, lambda: screen.preview.relpath == relpath)  # type: ignore[arg-type]
    await pilot.press("e")  # type: ignore[attr-defined]
    assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))  # type: ignore[arg-type]
    await pilot.pause()  # type: ignore[attr-defined]
    assert isinstance(app.screen, EditorScreen)
    return app.screen


async def test_save_writes_through_the_store_as_the_human(
    store_root: Path, make_app: AppFactory
) -> None:
    """ctrl+s writes the exact text and records a human `write` event."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        area = editor.query_one(TextArea)
        area.text = FIXTURE_NOTES[NOTE] + "- [fact] Edited in the app #edit\n"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        expected = FIXTURE_NOTES[NOTE] + "- [fact] Edited in the app #edit\n"
        assert (store_root / NOTE).read_bytes() == expected.encode()
        event = app.ctx.history.events(limit=1)[0]
        assert (event.actor, event.command, event.path) == (
            "human:tester",
            "write",
            "/memories/" + NOTE,
        )


async def test_conflict_keep_mine_overwrites_the_agent_change(
    store_root: Path, make_app: AppFactory
) -> None:
    """The agent changed the same line meanwhile: the conflict shows, keep mine writes mine."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        assert not agent.str_replace(
            "/memories/" + NOTE, "# Textual\n", "# Textual #agent\n"
        ).is_error
        mine = FIXTURE_NOTES[NOTE].replace("# Textual", "# Textual (mine)")
        editor.query_one(TextArea).text = mine
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        conflict = app.screen
        assert isinstance(conflict, ConflictScreen)
        assert conflict.theirs is not None and "# Textual #agent" in conflict.theirs
        await pilot.click("#mine")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_text(encoding="utf-8") == mine
        changes = [e for e in app.ctx.history.events(limit=3) if e.command != "view"]
        assert [(e.actor, e.command, e.is_error) for e in changes] == [
            ("human:tester", "write", False),
            ("human:tester", "write", True),
            ("agent:claude", "str_replace", False),
        ]
        assert changes[1].result.startswith("Conflict")


async def test_conflict_take_theirs_keeps_the_agent_version(
    store_root: Path, make_app: AppFactory
) -> None:
    """Take theirs leaves the agent's bytes on disk and records no human write."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        agent = app.ctx.store.with_actor("agent:claude")
        agent.str_replace("/memories/" + NOTE, "#python\n", "#python #agent\n")
        theirs = (store_root / NOTE).read_bytes()
        editor.query_one(TextArea).text = "mine\n"
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.click("#theirs")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_bytes() == theirs
        writes = app.ctx.history.events(command="write")
        assert [(e.is_error, e.result.startswith("Conflict")) for e in writes] == [(True, True)]


async def test_escape_with_changes_asks_before_discarding(
    store_root: Path, make_app: AppFactory
) -> None:
    """Escape on a changed buffer asks; cancel keeps editing, confirm discards without writing."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        editor.query_one(TextArea).text = "changed\n"
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]


async def test_new_note_from_the_template(store_root: Path, make_app: AppFactory) -> None:
    """`n`, a title, Enter: the template is written in the selected folder, selected and opened
    in the editor."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)
        await pilot.press("n")
        assert await wait_for(pilot, lambda: bool(app.screen.query("#new-folder")))
        assert app.screen.query_one("#new-folder", Input).value == "tools"
        await pilot.press(*"Rich Text", "enter")
        assert await wait_for(pilot, lambda: (store_root / "tools" / "rich-text.md").exists())
        text = (store_root / "tools" / "rich-text.md").read_text(encoding="utf-8")
        assert text == note_template("Rich Text", "tools/rich-text.md")
        assert text.startswith("---\ntitle: Rich Text\ntype: note\ntags: []\npermalink: ")
        assert "\n## Observations\n" in text and "\n## Relations\n" in text
        assert "[[]]" not in text
        assert parse_note(text, "tools/rich-text.md").relations == []
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        assert isinstance(editor, EditorScreen) and editor.relpath == "tools/rich-text.md"
        row, column = editor.query_one(TextArea).cursor_location
        assert text.splitlines()[row] == "- [fact] " and column == len("- [fact] ")
        assert screen.note_tree.cursor_relpath == "tools/rich-text.md"


async def rename_in_app(app: MemtuiApp, pilot: Pilot[None], relpath: str, new: str) -> str:
    """Select `relpath`, press `m`, type `new` and confirm; returns the link checkbox's label."""
    screen = app.screen
    assert isinstance(screen, MainScreen)
    screen.show_path(relpath)
    assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == relpath)
    await pilot.press("m")
    assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
    dialog = app.screen
    assert isinstance(dialog, RenameScreen)
    dialog.query_one("#rename-path", Input).value = new
    assert await wait_for(pilot, lambda: dialog.counted == new)
    label = str(app.screen.query_one("#rename-links", Checkbox).label)
    await pilot.press("enter")
    return label


def drop_permalink(path: Path) -> None:
    """Remove a note's frontmatter permalink, so its permalink follows its path."""
    path.write_text(
        "".join(
            line
            for line in path.read_text(encoding="utf-8").splitlines(keepends=True)
            if not line.startswith("permalink:")
        ),
        encoding="utf-8",
    )


async def test_rename_rewrites_inbound_links(store_root: Path, make_app: AppFactory) -> None:
    """Moving a note rewrites the path links that broke, as a human `write` through the core."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        source = store_root / "projects" / "memtui.md"
        source.write_text(
            source.read_text(encoding="utf-8").replace("[[Textual]]", "[[tools/textual]]"),
            encoding="utf-8",
        )
        target = store_root / NOTE
        drop_permalink(target)
        await screen.changed({"projects/memtui.md", NOTE})
        label = await rename_in_app(app, pilot, NOTE, "libs/textual.md")
        assert label == "Rewrite links in 1 note the move would break"
        assert await wait_for(
            pilot, lambda: "[[libs/textual]]" in source.read_text(encoding="utf-8")
        )
        assert not target.exists() and (store_root / "libs" / "textual.md").exists()
        assert source.read_text(encoding="utf-8") == FIXTURE_NOTES["projects/memtui.md"].replace(
            "[[Textual]]", "[[libs/textual]]"
        )
        changes = [(e.actor, e.command, e.path) for e in app.ctx.history.events(limit=2)]
        assert changes == [
            ("human:tester", "write", "/memories/projects/memtui.md"),
            ("human:tester", "rename", "/memories/tools/textual.md"),
        ]
        assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == "libs/textual.md")


async def test_the_rename_dialog_counts_only_the_notes_whose_links_it_rewrites(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """Two notes link here, one by title (still resolves after the move), one by path: the
    dialog offers to rewrite 1 note, and exactly 1 is rewritten."""
    drop_permalink(store_root / NOTE)
    prefs = store_root / "user" / "preferences.md"
    prefs.write_text(FIXTURE_NOTES["user/preferences.md"] + "- uses [[tools/textual]]\n")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert app.ctx.index is not None
        assert len(links_into(app.ctx.index, NOTE)) == 2
        before = app.ctx.history.events(limit=1)[0].id if app.ctx.history.events(limit=1) else 0
        label = await rename_in_app(app, pilot, NOTE, "libs/textual.md")
        assert await wait_for(pilot, lambda: "[[libs/textual]]" in prefs.read_text())
        await wait_idle(pilot)
        writes = [
            e.path
            for e in app.ctx.history.events(limit=10)
            if e.id > before and e.command == "write"
        ]
        assert writes == ["/memories/user/preferences.md"]
        assert label == "Rewrite links in 1 note the move would break"
        assert "[[Textual]]" in (store_root / "projects" / "memtui.md").read_text()


async def test_rename_rewrites_alias_heading_and_relation_links(
    store_root: Path, make_app: AppFactory
) -> None:
    """`[[T|alias]]`, `[[T#heading]]` and `- rel [[T]]` all follow a note whose title changed."""
    rich = store_root / "tools" / "rich.md"
    rich.write_text("# Rich\n\n## Usage\n", encoding="utf-8")
    prefs = store_root / "user" / "preferences.md"
    links = "- see [[rich|the Rich lib]] and [[rich#Usage]]\n- depends_on [[rich]]\n"
    prefs.write_text(FIXTURE_NOTES["user/preferences.md"] + links, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        label = await rename_in_app(app, pilot, "tools/rich.md", "tools/rich-text.md")
        assert label == "Rewrite links in 1 note the move would break"
        renamed = links.replace("[[rich", "[[rich-text")
        assert await wait_for(pilot, lambda: renamed in prefs.read_text(encoding="utf-8"))
        assert prefs.read_text(encoding="utf-8") == FIXTURE_NOTES["user/preferences.md"] + renamed
        assert app.ctx.index is not None
        assert [s for s, _ in app.ctx.index.backlinks("tools/rich-text.md")] == [
            "user/preferences.md"
        ]


async def test_moving_a_folder_rewrites_links_into_its_notes_and_undo_restores_them(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    """A folder move offers the rewrite; links into any note below it follow; `u` undoes one."""
    drop_permalink(store_root / NOTE)
    source = store_root / "projects" / "memtui.md"
    original = FIXTURE_NOTES["projects/memtui.md"].replace(
        "- uses [[Textual]]\n", "- uses [[tools/textual|Textual]]\n- see [[tools/textual#Tips]]\n"
    )
    source.write_text(original, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        label = await rename_in_app(app, pilot, "tools", "libs")
        assert label == "Rewrite links in 1 note the move would break"
        moved = original.replace("[[tools/textual", "[[libs/textual")
        assert await wait_for(pilot, lambda: source.read_text(encoding="utf-8") == moved)
        assert (store_root / "libs" / "textual.md").exists() and not (store_root / "tools").exists()
        changes = [(e.actor, e.command, e.path) for e in app.ctx.history.events(limit=2)]
        assert changes == [
            ("human:tester", "write", "/memories/projects/memtui.md"),
            ("human:tester", "rename", "/memories/tools"),
        ]
        index = app.ctx.index
        assert index is not None
        await wait_idle(pilot)
        assert list(links_into(index, "libs")) == ["projects/memtui.md"]
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: source.read_text(encoding="utf-8") == original)
        assert (store_root / NOTE).exists() and not (store_root / "libs").exists()
        assert app.ctx.history.events(limit=1)[0].command == "revert"


async def test_a_folder_rename_dialog_counts_off_the_ui_thread_without_parsing_notes(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    """Typing a new path for a folder of many notes parses none of them; the count shown, once
    typing pauses, is the number of notes the rename then rewrites (path links to notes whose
    permalink follows the path; a permalink set in the frontmatter keeps its links working)."""
    notes = 30
    for n in range(notes):
        head = f"---\ntitle: Bulk {n}\npermalink: bulk/n{n}\n---\n" if n % 2 else ""
        (store_root / "bulk").mkdir(exist_ok=True)
        (store_root / "bulk" / f"n{n}.md").write_text(f"{head}- [fact] {n}\n", encoding="utf-8")
        (store_root / "src").mkdir(exist_ok=True)
        (store_root / "src" / f"s{n}.md").write_text(f"- uses [[bulk/n{n}]]\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("bulk")
        assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == "bulk")
        await pilot.press("m")
        assert await wait_for(pilot, lambda: isinstance(app.screen, RenameScreen))
        dialog = app.screen
        assert isinstance(dialog, RenameScreen)
        await wait_idle(pilot)
        parses: list[str] = []
        original = parser.parse_note

        def counting_parse(data: bytes | str, path: str, **options: object) -> Note:
            parses.append(path)
            return original(data, path, **options)  # type: ignore[arg-type]

        monkeypatch.setattr(parser, "parse_note", counting_parse)
        await pilot.press(*["backspace"] * 4, *"moved")
        assert await wait_for(pilot, lambda: dialog.counted == "moved")
        assert parses == []
        label = str(dialog.query_one("#rename-links", Checkbox).label)
        assert label == f"Rewrite links in {notes // 2} notes the move would break"
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: (store_root / "moved").is_dir())
        expected = {n: f"- uses [[{'bulk' if n % 2 else 'moved'}/n{n}]]\n" for n in range(notes)}

        def rewritten() -> bool:
            return all(
                (store_root / "src" / f"s{n}.md").read_text(encoding="utf-8") == text
                for n, text in expected.items()
            )

        assert await wait_for(pilot, rewritten)


async def test_delete_then_undo_restores_the_note(store_root: Path, make_app: AppFactory) -> None:
    """`d` asks, deletes through the core; `u` reverts the delete with the exact bytes."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path(NOTE)
        assert await wait_for(pilot, lambda: screen.preview.relpath == NOTE)
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not (store_root / NOTE).exists())
        assert app.ctx.history.events(limit=1)[0].command == "delete"
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: (store_root / NOTE).exists())
        assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]
        assert app.ctx.history.events(limit=1)[0].command == "revert"


async def test_delete_a_folder(store_root: Path, make_app: AppFactory) -> None:
    """Folders can be deleted too, after confirmation."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.show_path("user")
        assert await wait_for(pilot, lambda: screen.note_tree.cursor_relpath == "user")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not (store_root / "user").exists())
        assert screen.note_tree.node_for("user") is None


async def test_quit_with_unsaved_edits_asks_first(store_root: Path, make_app: AppFactory) -> None:
    """ctrl+q in the editor with unsaved text asks; cancel keeps editing, confirm quits unsaved."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await start_editing(app, pilot)
        editor.query_one(TextArea).text = "UNSAVED\n" + FIXTURE_NOTES[NOTE]
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert NOTE in str(app.screen.query_one(".confirm-body").render())
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is editor)
        assert app.is_running
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not app.is_running)
    assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]


async def test_quit_without_edits_does_not_ask(store_root: Path, make_app: AppFactory) -> None:
    """ctrl+q quits at once when the editor holds nothing unsaved."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await start_editing(app, pilot)
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: not app.is_running)
