"""Operations from the app: a rename and its link rewrites shown and undone as one (history and
`u`, which names what it undoes), delete confirming with the links it breaks and the files it
takes, and another process holding the store's lock while keys are pressed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static, TextArea

from memtui.tui.app import MemtuiApp
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.history import HistoryScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from memtui.tui.widgets.history_events import EventTable
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle
from tests.tui.test_edit import NOTE, drop_permalink, rename_in_app, start_editing
from tests.tui.test_large_notes import toast_texts

SOURCE = "projects/memtui.md"
LINKED = FIXTURE_NOTES[SOURCE].replace("[[Textual]]", "[[tools/textual]]")


async def renamed_with_links(app: MemtuiApp, pilot: object, store_root: Path) -> None:
    """Link memtui.md to tools/textual by path, then move tools/textual.md to libs/ in the app,
    rewriting the link."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    (store_root / SOURCE).write_text(LINKED, encoding="utf-8")
    drop_permalink(store_root / NOTE)
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await screen.changed({SOURCE, NOTE})
    await rename_in_app(app, pilot, NOTE, "libs/textual.md")  # type: ignore[arg-type]
    assert await wait_for(  # type: ignore[arg-type]
        pilot, lambda: "[[libs/textual]]" in (store_root / SOURCE).read_text(encoding="utf-8")
    )


def confirm_body(app: MemtuiApp) -> str:
    """The text of the confirmation on screen."""
    return str(app.screen.query_one(".confirm-body", Static).render())


async def test_u_names_the_rename_and_undoes_its_link_rewrites_with_it(
    store_root: Path, make_app: AppFactory
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await renamed_with_links(app, pilot, store_root)
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        what = (
            "rename tools/textual.md → libs/textual.md by human:tester, and the links it "
            "rewrote in 1 note"
        )
        assert confirm_body(app) == f"Undo {what}?"
        await pilot.press("y")
        assert await wait_for(pilot, lambda: (store_root / NOTE).exists())
        assert await wait_for(pilot, lambda: f"Undid {what}" in " ".join(toast_texts(app)))
        assert (store_root / SOURCE).read_text(encoding="utf-8") == LINKED
        assert not (store_root / "libs" / "textual.md").exists()
        main = app.screen
        assert isinstance(main, MainScreen)
        assert await wait_for(pilot, lambda: main.note_tree.cursor_relpath == NOTE)


async def test_the_history_shows_the_rename_as_one_entry_and_undoes_it_whole(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await renamed_with_links(app, pilot, store_root)
        await pilot.press("h")
        assert await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one(EventTable)
        assert await wait_for(pilot, lambda: table.row_count > 0)
        first = table.get_row_at(0)
        assert str(first[3]) == "rename (2)"
        assert str(first[4]) == "tools/textual.md → libs/textual.md"
        assert str(first[5]).startswith("moved; rewrote links in")
        diff = history.query_one("#history-diff", Static)
        assert await wait_for(pilot, lambda: "2 changes, undone as one (u)" in str(diff.render()))
        assert "+- uses [[libs/textual]]" in str(diff.render())
        assert "(u)\n\n" in str(diff.render()) and "␊" not in str(diff.render())
        await pilot.press("u")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert str(app.screen.query_one(".confirm-title").render()) == "Undo operation?"
        assert "and the links it rewrote in 1 note" in confirm_body(app)
        await pilot.press("y")
        assert await wait_for(pilot, lambda: (store_root / NOTE).exists())
        assert await wait_for(
            pilot, lambda: (store_root / SOURCE).read_text(encoding="utf-8") == LINKED
        )
        assert await wait_for(pilot, lambda: "undo operation" in str(table.get_row_at(0)[5]))


async def test_delete_confirms_with_the_links_it_breaks_and_the_files_of_a_folder(
    store_root: Path,
    make_app: AppFactory,
) -> None:
    (store_root / "tools" / "extra.txt").write_text("more\n", encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        main = app.screen
        assert isinstance(main, MainScreen)
        main.show_path("tools")
        assert await wait_for(pilot, lambda: main.note_tree.cursor_relpath == "tools")
        await pilot.press("d")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert confirm_body(app) == (
            "This deletes the folder tools/ and its 2 files.\n"
            "1 link in 1 other note would point nowhere:\n"
            "  projects/memtui.md: [[Textual]]\n"
            "The history keeps what is deleted: u undoes it."
        )
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / "tools").is_dir()


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
sys.stdin.readline()
"""


@pytest.mark.parametrize("seconds", [2.0, pytest.param(10.0, marks=pytest.mark.slow)])
async def test_keys_are_answered_while_another_process_holds_the_lock(
    store_root: Path, seconds: float, make_app: AppFactory
) -> None:
    """Another process holds the store's lock: ctrl+s waits off the UI thread and says so,
    typing goes on in the editor meanwhile, and the save lands once the lock is free (the
    text typed since stays, unsaved)."""
    app = make_app()
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        editor = await start_editing(app, pilot)
        saved = FIXTURE_NOTES[NOTE] + "- [fact] Saved while locked #lock\n"
        area = editor.query_one(TextArea)
        area.text = saved
        (store_root / ".memtui").mkdir(exist_ok=True)
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(store_root / ".memtui" / "lock"), str(seconds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
            await pilot.press("ctrl+s")
            assert await wait_for(
                pilot, lambda: "Waiting for the store's lock" in " ".join(toast_texts(app))
            )
            area.move_cursor(area.document.end)
            await pilot.press(*"typed meanwhile")
            assert area.text == saved + "typed meanwhile"
            assert holder.poll() is None
            assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]
            assert holder.stdin is not None
            holder.stdin.write("release\n")
            holder.stdin.flush()
            assert await wait_for(
                pilot,
                lambda: (store_root / NOTE).read_text(encoding="utf-8") == saved,
                timeout=seconds + 10,
            )
        finally:
            holder.kill()
            holder.wait()
        assert isinstance(app.screen, EditorScreen) and app.screen is editor
        assert editor.text == saved + "typed meanwhile" and editor.unsaved
        assert await wait_for(
            pilot, lambda: "what you typed since is not saved yet" in " ".join(toast_texts(app))
        )
