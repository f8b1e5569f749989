"""The changes inbox (`c`) against a real agent process: the status count follows the agent live,
approve, revert (forcing a conflict) and edit clear changes, and the marks outlive the app."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static, TextArea

import memtui.tui.app as app_module
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.changes import ChangesScreen
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle

MEMTUI = str(Path(sys.executable).with_name("memtui"))
SIZE = (120, 40)
TEXTUAL = "/memories/tools/textual.md"


def agent(root: Path, *commands: dict[str, Any], name: str = "claude") -> None:
    """Run memory-tool commands through `memtui tool` in another process, as an agent would."""
    done = subprocess.run(
        [MEMTUI, "tool", str(root), "--actor", name],
        input="\n".join(json.dumps(command) for command in commands),
        capture_output=True,
        text=True,
        env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
        timeout=60,
        check=True,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [result["is_error"] for result in results] == [False] * len(commands), results


def edit(old: str, new: str, path: str = TEXTUAL) -> dict[str, Any]:
    """A str_replace command."""
    return {"command": "str_replace", "path": path, "old_str": old, "new_str": new}


def status(app: MemtuiApp) -> str:
    """The main screen's status line."""
    main = next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))
    return str(main.query_one("#status", Static).render())


def reviews(root: Path) -> list[tuple[int, str]]:
    """(event id, reviewer) of every review mark on disk."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    try:
        return conn.execute("SELECT event_id, reviewer FROM reviews ORDER BY event_id").fetchall()
    finally:
        conn.close()


async def open_inbox(pilot: Pilot[None], rows: int) -> ChangesScreen:
    """Press `c` and wait until the inbox shows `rows` notes."""
    await pilot.press("c")
    screen = pilot.app.screen
    assert isinstance(screen, ChangesScreen)
    assert await wait_for(pilot, lambda: screen.loaded and len(screen.page.rows) == rows)
    return screen


def listed(screen: ChangesScreen) -> list[tuple[str, tuple[int, ...]]]:
    """(note path, event ids) of the rows shown."""
    return [(row.path, row.ids) for row in screen.page.rows]


async def test_the_count_follows_an_agent_writing_while_the_app_is_open(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app(watch=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert app.review_count == 0 and "to review" not in status(app)

        agent(
            store_root,
            edit("#workers\n", "#workers\n- [fact] Written by the agent #agent\n"),
            {"command": "create", "path": "/memories/tools/rich.md", "file_text": "# Rich\n"},
        )
        assert await wait_for(pilot, lambda: "2 changes to review (c)" in status(app))

        screen = await open_inbox(pilot, 2)
        assert listed(screen) == [("/memories/tools/rich.md", (3,)), (TEXTUAL, (2,))]
        title = str(screen.query_one("#changes-title", Static).render())
        assert title == "Changes to review · 2 changes in 2 notes, newest first"
        detail = str(screen.query_one("#changes-detail", Static).render())
        assert detail.startswith("tools/rich.md · 1 change waiting for review\n#3 ")
        assert "+# Rich" in detail

        agent(store_root, edit("#workers\n", "#workers and threads\n"), name="cursor")
        assert await wait_for(
            pilot,
            lambda: listed(screen) == [(TEXTUAL, (2, 4)), ("/memories/tools/rich.md", (3,))],
        )
        assert await wait_for(pilot, lambda: app.review_count == 3)


async def test_approve_clears_a_note_and_the_marks_survive_a_restart(
    store_root: Path, make_app: AppFactory
) -> None:
    agent(
        store_root,
        edit("#workers\n", "#workers\n- [fact] One more #agent\n"),
        {"command": "create", "path": "/memories/tools/rich.md", "file_text": "# Rich\n"},
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 2)
        await pilot.press("a")
        assert await wait_for(pilot, lambda: len(screen.page.rows) == 1)
        assert listed(screen) == [(TEXTUAL, (2,))]
        assert await wait_for(pilot, lambda: app.review_count == 1)
    assert reviews(store_root) == [(3, "human:tester")]

    again = make_app(actor="human:other")
    async with again.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "1 change to review (c)" in status(again))
        screen = await open_inbox(pilot, 1)
        assert listed(screen) == [(TEXTUAL, (2,))]


async def test_approve_all_shown_takes_only_what_the_filter_shows(
    store_root: Path, make_app: AppFactory
) -> None:
    agent(store_root, edit("#workers\n", "#workers!\n"))
    agent(store_root, edit("#style\n", "#style!\n", "/memories/user/preferences.md"), name="cursor")
    agent(
        store_root, edit("#memory\n", "#memory!\n", "/memories/projects/memtui.md"), name="cursor"
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 3)
        screen.query_one("#changes-filter", Input).value = "actor:agent:cursor path:user/"
        assert await wait_for(pilot, lambda: len(screen.page.rows) == 1)
        await pilot.press("A")
        assert await wait_for(pilot, lambda: reviews(store_root) == [(3, "human:tester")])

        screen.query_one("#changes-filter", Input).value = ""
        assert await wait_for(
            pilot,
            lambda: listed(screen) == [("/memories/projects/memtui.md", (4,)), (TEXTUAL, (2,))],
        )
        screen.table.focus()
        await pilot.press("A")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        body = str(app.screen.query_one(".confirm-body", Static).render())
        assert body == "Mark 2 changes in 2 notes reviewed as human:tester."
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.page.rows)
        assert [row[0] for row in reviews(store_root)] == [2, 3, 4]
        detail = str(screen.query_one("#changes-detail", Static).render())
        assert detail.startswith("Nothing waits for review")


async def test_revert_undoes_a_notes_changes_newest_first(
    store_root: Path, make_app: AppFactory
) -> None:
    agent(
        store_root,
        edit("#workers\n", "#workers\n- [fact] First #agent\n"),
        edit("First", "Second"),
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 1)
        assert listed(screen) == [(TEXTUAL, (2, 3))]
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.page.rows)
        assert await wait_for(pilot, lambda: app.review_count == 0)
    assert (store_root / "tools/textual.md").read_text() == FIXTURE_NOTES["tools/textual.md"]
    assert reviews(store_root) == [(2, "human:tester"), (3, "human:tester")]
    events = app.ctx.history.events(command="revert", newest_first=False)
    assert [(event.args["event_id"], event.actor) for event in events] == [
        (3, "human:tester"),
        (2, "human:tester"),
    ]


async def test_revert_asks_before_forcing_over_a_later_reviewed_change(
    store_root: Path, make_app: AppFactory
) -> None:
    agent(
        store_root, edit("#workers\n", "#workers\n- [fact] First #agent\n"), edit("First", "Later")
    )
    from memtui.core.recording.history import History

    History(store_root).mark_reviewed([3], "human:tester", 0.0)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 1)
        assert listed(screen) == [(TEXTUAL, (2,))]
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(
            pilot,
            lambda: (
                isinstance(app.screen, ConfirmScreen) and app.screen.title_text == "Undo conflicts"
            ),
        )
        body = str(app.screen.query_one(".confirm-body", Static).render())
        assert body.startswith(f"Conflict: {TEXTUAL} changed since event 2 (str_replace)")
        await pilot.press("y")
        assert await wait_for(pilot, lambda: not screen.page.rows)
    assert (store_root / "tools/textual.md").read_text() == FIXTURE_NOTES["tools/textual.md"]
    assert reviews(store_root) == [(2, "human:tester"), (3, "human:tester")]


async def test_saving_the_note_from_the_inbox_clears_its_changes(
    store_root: Path, make_app: AppFactory
) -> None:
    agent(store_root, edit("#workers\n", "#workers\n- [fact] Agent line #agent\n"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 1)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        area = app.screen.query_one(TextArea)
        area.text = area.text.replace("Agent line", "Agent line, checked by a person")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: app.screen is screen and not screen.page.rows)
    text = (store_root / "tools/textual.md").read_text()
    assert "- [fact] Agent line, checked by a person #agent\n" in text
    assert reviews(store_root) == [(2, "human:tester")]
    (write,) = app.ctx.history.events(command="write")
    assert write.actor == "human:tester" and write.id == 3


async def test_marks_made_by_another_process_show_without_a_file_change(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, make_app: AppFactory
) -> None:
    monkeypatch.setattr(app_module, "REVIEW_POLL", 0.2)
    agent(store_root, edit("#workers\n", "#workers!\n"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        screen = await open_inbox(pilot, 1)
        done = subprocess.run(
            [MEMTUI, "approve", str(store_root), "--all", "--actor", "eve"],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
            timeout=60,
        )
        assert done.stdout == "Approved 1 change as human:eve\n"
        assert await wait_for(pilot, lambda: not screen.page.rows and app.review_count == 0)


async def test_a_notes_history_and_side_panel_follow_it_across_renames(
    store_root: Path, make_app: AppFactory
) -> None:
    """`H` and the side panel show a note's events from before a rename of the note and of its
    folder, back to the baseline it started in."""
    agent(
        store_root,
        edit("#workers\n", "#workers!\n"),
        {"command": "rename", "old_path": TEXTUAL, "new_path": "/memories/tools/tui.md"},
        {"command": "rename", "old_path": "/memories/tools", "new_path": "/memories/lib"},
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("lib/tui.md")
        assert await wait_for(pilot, lambda: main.preview.relpath == "lib/tui.md")
        await wait_idle(pilot)
        side = main.side
        prompts = [str(side.get_option_at_index(n).prompt) for n in range(side.option_count)]
        history = prompts[prompts.index("History") + 1 :]
        assert [line.split()[-2:] for line in history] == [
            ["agent:claude", "rename"],
            ["agent:claude", "rename"],
            ["agent:claude", "str_replace"],
            ["external", "baseline"],
        ]
        await pilot.press("H")
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        assert await wait_for(pilot, lambda: [event.id for event in screen.events] == [4, 3, 2, 1])


async def test_the_inbox_is_in_the_palette_f1_and_remappable(
    store_root: Path, make_app: AppFactory
) -> None:
    """The palette verb "go: changes to review" opens the inbox, F1 lists its keys with their
    ids, and a keymap moves `c` to another key by its id."""
    from textual.command import CommandPalette

    from memtui.tui.screens.dialogs import HelpScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        await pilot.press("ctrl+p")
        assert await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        palette = app.screen
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        palette.remove_class("-ready")
        palette.query_one(Input).value = "changes to review"
        assert await wait_for(pilot, lambda: palette.has_class("-ready"))
        options = palette.query_one("CommandList").options  # type: ignore[attr-defined]
        assert options and "go: changes to review" in str(options[0].prompt)
        palette.query_one(Input).focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ChangesScreen))
        await pilot.press("f1")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        keys = str(app.screen.query_one("#help-keys", Static).render())
        assert "Approve  (changes.approve)" in keys
        assert "Revert  (changes.revert)" in keys
        await pilot.press("escape", "escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        app.set_keymap({"main.changes": "ctrl+g"})
        await pilot.press("c")
        await wait_idle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("ctrl+g")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ChangesScreen))
