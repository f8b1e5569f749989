"""`E`: the note in $EDITOR on a copy. A missing or failing editor is one message and the app
carries on (the suspended screen always comes back); the copy is kept until its text is saved
or discarded on purpose; Esc after "Keep editing" asks before discarding."""

from __future__ import annotations

import contextlib
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.tui.app import MemtuiApp
from memtui.tui.screens.editor import EditorScreen
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.merge import ConflictScreen
from memtui.tui.screens.search import SearchScreen
from memtui.tui.widgets.confirm import ConfirmScreen
from tests.tui.conftest import FIXTURE_NOTES, AppFactory, wait_for, wait_idle
from tests.tui.test_edit import NOTE
from tests.tui.test_large_notes import toast_texts

VIRTUAL = f"/memories/{NOTE}"
MINE = FIXTURE_NOTES[NOTE].replace("# Textual\n", "# Textual (mine)\n")
THEIRS = FIXTURE_NOTES[NOTE].replace("# Textual\n", "# Textual (agent)\n")


def executable(path: Path, text: str) -> str:
    """Write an executable script; its path."""
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


class Suspension:
    """Stands in for `App.suspend` (a headless app cannot suspend): counts entries and
    resumes, and runs `meanwhile` as the editor starts (an agent writing while the person
    edits). Like Textual's, it resumes only when the block ends normally, not on an error."""

    def __init__(self, meanwhile: object = None) -> None:
        self.entered = 0
        self.exited = 0
        self.meanwhile = meanwhile

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        self.entered += 1
        if callable(self.meanwhile):
            self.meanwhile()
        yield
        self.exited += 1


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder the editor's copies go in."""
    folder = tmp_path / "copies"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def heading_edited_by_both(
    make_app: AppFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> MemtuiApp:
    """The app with an $EDITOR that changes the heading while an agent changes it too."""
    monkeypatch.setenv(
        "EDITOR",
        executable(tmp_path / "ed", "#!/bin/sh\nsed -i 's/^# Textual$/# Textual (mine)/' \"$1\"\n"),
    )
    app = make_app()
    agent = app.ctx.store.with_actor("agent:claude")
    suspension = Suspension(
        lambda: agent.str_replace(VIRTUAL, "# Textual\n", "# Textual (agent)\n")
    )
    monkeypatch.setattr(app, "suspend", suspension)
    return app


async def open_external(app: MemtuiApp, pilot: object) -> MainScreen:
    """Show the note and press `E`."""
    await wait_idle(pilot)  # type: ignore[arg-type]
    main = app.screen
    assert isinstance(main, MainScreen)
    main.show_path(NOTE)
    assert await wait_for(pilot, lambda: main.preview.relpath == NOTE)  # type: ignore[arg-type]
    await pilot.press("E")  # type: ignore[attr-defined]
    return main


async def test_a_missing_editor_is_one_message_and_the_app_carries_on(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, copies: Path, make_app: AppFactory
) -> None:
    monkeypatch.setenv("EDITOR", "nano-not-installed")
    app = make_app()
    suspension = Suspension()
    monkeypatch.setattr(app, "suspend", suspension)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        main = await open_external(app, pilot)
        wanted = (
            'Cannot edit in your editor: cannot run the editor "nano-not-installed" ($EDITOR): '
            "it is not installed or not on PATH; set $VISUAL or $EDITOR to an editor you have "
            "(press e to edit in memtui)."
        )
        assert await wait_for(pilot, lambda: wanted in " ".join(toast_texts(app)))
        assert suspension.entered == 0 and app.screen is main
        await pilot.press("slash")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
    assert list(copies.iterdir()) == []
    assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]


async def test_an_editor_that_fails_to_start_hands_the_screen_back(
    store_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    copies: Path,
    tmp_path: Path,
    make_app: AppFactory,
) -> None:
    """An editor on PATH that cannot be started (a script whose interpreter is missing): the
    suspended app resumes, one message says why, the copy is thrown away."""
    bad = executable(tmp_path / "bad-editor", "#!/nonexistent/interpreter\n")
    monkeypatch.setenv("EDITOR", bad)
    app = make_app()
    suspension = Suspension()
    monkeypatch.setattr(app, "suspend", suspension)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        main = await open_external(app, pilot)
        wanted = (
            f'Cannot edit in your editor: cannot run the editor "{bad}": No such file or directory'
        )
        assert await wait_for(pilot, lambda: wanted in " ".join(toast_texts(app)))
        assert (suspension.entered, suspension.exited) == (1, 1)
        assert app.screen is main
        await pilot.press("e")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
    assert list(copies.iterdir()) == []


async def test_escape_after_keep_editing_asks_and_the_copy_is_kept_until_saved(
    store_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    copies: Path,
    tmp_path: Path,
    make_app: AppFactory,
) -> None:
    """The editor changes the heading while an agent changes it too: the conflict shows; Keep
    editing (escape) opens my text in the app's editor; escape there asks before discarding,
    and the copy stays on disk; saving with Keep mine writes mine and throws the copy away."""
    app = heading_edited_by_both(make_app, monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_external(app, pilot)
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        [copy] = list(copies.glob("memtui-edit-*/textual.md"))
        assert copy.read_text(encoding="utf-8") == MINE
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        editor = app.screen
        assert isinstance(editor, EditorScreen)
        assert editor.text == MINE and editor.unsaved
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "are not saved" in str(app.screen.query_one(".confirm-body").render())
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is editor)
        assert editor.text == MINE and copy.exists()
        assert (store_root / NOTE).read_text(encoding="utf-8") == THEIRS
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("ctrl+k")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert (store_root / NOTE).read_text(encoding="utf-8") == MINE
        assert not copy.exists() and list(copies.iterdir()) == []


async def test_discarding_on_purpose_throws_the_copy_away(
    store_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    copies: Path,
    tmp_path: Path,
    make_app: AppFactory,
) -> None:
    app = heading_edited_by_both(make_app, monkeypatch, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_external(app, pilot)
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert list(copies.iterdir()) == []
        assert (store_root / NOTE).read_text(encoding="utf-8") == THEIRS


async def test_an_editor_exiting_with_an_error_saves_nothing_and_keeps_an_edited_copy(
    store_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    copies: Path,
    tmp_path: Path,
    make_app: AppFactory,
) -> None:
    script = "#!/bin/sh\nsed -i 's/^# Textual$/# Textual (mine)/' \"$1\"\nexit 3\n"
    monkeypatch.setenv("EDITOR", executable(tmp_path / "ed", script))
    app = make_app()
    monkeypatch.setattr(app, "suspend", Suspension())
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await open_external(app, pilot)
        assert await wait_for(pilot, lambda: "exited with status 3" in " ".join(toast_texts(app)))
        [copy] = list(copies.glob("memtui-edit-*/textual.md"))
        assert f"nothing saved; your edited copy is kept at {copy}." in " ".join(toast_texts(app))
        assert copy.read_text(encoding="utf-8") == MINE
    assert (store_root / NOTE).read_text(encoding="utf-8") == FIXTURE_NOTES[NOTE]
