"""Start-up through the CLI's own path: config keymap and theme, the default folder, the demo.

Every test here starts the app the way `memtui` does: `memtui.cli.main(argv)` resolves the folder,
loads the settings from the config file (found through `XDG_CONFIG_HOME`) and builds the app;
only `App.run` is replaced, so the test can drive that very app with `run_test` and a Pilot.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Static
from textual.widgets._toast import Toast

from memtui.cli import main as cli_main
from memtui.core.recording.history import History
from memtui.demo import DEMO_NOTES_DIR, demo_note_paths
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen
from tests.tui.conftest import wait_for, wait_idle, write_fixture_store
from tests.tui.tmux import MEMTUI, tmux, wait_for_screen


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """HOME and XDG_CONFIG_HOME in a temp folder, no MEMTUI_* overrides; yields HOME."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MEMTUI_CONFIG_FILE", "MEMTUI_ROOT", "MEMTUI_ACTOR", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    yield home


def write_config(tmp_path: Path, text: str) -> Path:
    """Write `$XDG_CONFIG_HOME/memtui/config.toml` (the file the CLI reads)."""
    path = tmp_path / "config" / "memtui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def app_from_cli(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> MemtuiApp:
    """The app `memtui ARGV` builds, with `run` replaced so the test can drive it."""
    built: list[MemtuiApp] = []
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: built.append(self))
    assert cli_main(argv) == 0
    (app,) = built
    return app


def toasts(app: MemtuiApp) -> str:
    """The text of every notification toast on the current screen."""
    return "\n".join(str(toast.render()) for toast in app.screen.query(Toast))


def status(app: MemtuiApp) -> str:
    """The main screen's status line."""
    return str(app.screen.query_one("#status", Static).render())


async def test_the_config_keymap_remaps_a_binding(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`[keymap] "main.search" = "ctrl+f"` in config.toml: ctrl+f opens the search, `/` no more."""
    write_config(tmp_path, '[keymap]\n"main.search" = "ctrl+f"\n')
    root = write_fixture_store(tmp_path / "memories")
    app = app_from_cli(monkeypatch, [str(root)])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("slash")
        await wait_idle(pilot)
        assert isinstance(app.screen, MainScreen)
        await pilot.press("ctrl+f")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))


async def test_the_config_theme_is_applied(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`theme = "nord"` in config.toml: the app uses nord and paints nord's colours."""
    root = write_fixture_store(tmp_path / "memories")
    default_app = app_from_cli(monkeypatch, [str(root)])
    async with default_app.run_test(size=(80, 24)) as pilot:
        await wait_idle(pilot)
        default_background = default_app.screen.styles.background
        default_status = default_app.screen.query_one("#status").styles.background
    assert default_app.theme != "nord"

    write_config(tmp_path, 'theme = "nord"\n')
    app = app_from_cli(monkeypatch, [str(root)])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_idle(pilot)
        assert app.theme == "nord"
        nord = app.get_theme("nord")
        assert nord is not None and nord.background is not None
        background = app.screen.styles.background
        assert background.hex.upper() == nord.background.upper()
        assert background != default_background
        assert app.screen.query_one("#status").styles.background != default_status


async def test_a_missing_folder_is_created_and_the_notice_is_on_screen(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui NEW`, answered yes, creates NEW and the screen says so."""
    from memtui.cli import app_cmd

    root = tmp_path / "new" / "memories"
    monkeypatch.setattr(app_cmd, "ask_to_create", lambda path: path == str(root))
    app = app_from_cli(monkeypatch, [str(root)])
    assert root.is_dir()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        notice = f"Created an empty memory folder at {root}."
        assert await wait_for(pilot, lambda: notice in toasts(app))
        assert "0 notes" in status(app)


async def test_without_a_path_the_configured_root_is_opened(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui` with `root = ...` in config.toml opens that folder (and not ~/memories)."""
    configured = write_fixture_store(tmp_path / "configured")
    write_config(tmp_path, f'root = "{configured}"\n')
    app = app_from_cli(monkeypatch, [])
    assert app.ctx.root == configured.resolve()
    assert not (home / "memories").exists()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        assert status(app) == f" {app.ctx.root}  ·  3 notes  ·  F1 keys"
        assert "Created an empty memory folder" not in toasts(app)


async def test_without_a_path_or_config_home_memories_is_created(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui` with no config creates and opens `~/memories`, saying so on screen."""
    app = app_from_cli(monkeypatch, [])
    expected = home / "memories"
    assert expected.is_dir()
    assert app.ctx.root == expected.resolve()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        notice = f"Created an empty memory folder at {expected}."
        assert await wait_for(pilot, lambda: notice in toasts(app))


def files_on_disk(root: Path) -> dict[str, bytes]:
    """Every file under `root` except memtui's own folder, as relpath -> bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".memtui" not in p.relative_to(root).parts
    }


async def test_demo_opens_a_temporary_copy_with_history(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui --demo`: a copy of the bundled notes in a temp folder, with agent and human
    events in its history, opened in the app with the demo notes on screen."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    app = app_from_cli(monkeypatch, ["--demo"])
    root = app.ctx.root
    assert root.is_relative_to(temp.resolve()) and root.parent.name.startswith("memtui-demo-")
    expected = {path: (DEMO_NOTES_DIR / path).read_bytes() for path in demo_note_paths()}
    assert files_on_disk(root) == expected
    actors = {event.actor for event in History(root).events()}
    assert any(a.startswith("agent:") for a in actors)
    assert any(a.startswith("human:") for a in actors)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tree = screen.note_tree
        assert [c.label.plain for c in tree.root.children] == [
            "claude",
            "patterns",
            "projects",
            "sessions",
            "user",
        ]
        notes = [path for path in expected if path.endswith(".md")]
        others = len(expected) - len(notes)
        assert f"{len(notes)} notes, {others} other files  ·  " in status(app)
        assert await wait_for(pilot, lambda: "Demo store: a temporary copy" in toasts(app))
        screen.show_path("user/profile.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "user/profile.md")
        header = str(screen.query_one("#preview-header", Static).render())
        assert header.startswith("user/profile.md  ·  ")
    # The source bundle was copied, not opened in place.
    assert root != DEMO_NOTES_DIR.resolve()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_installed_memtui_demo_in_a_real_terminal(tmp_path: Path) -> None:
    """The installed `memtui --demo` opens a temp copy of the demo in tmux, finds a demo note by
    search and quits with status 0."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    log = tmp_path / "exit.txt"
    session = f"memtui-demo-{os.getpid()}-{tmp_path.name}"
    command = (
        f"env -u COLUMNS -u LINES -u MEMTUI_CONFIG_FILE -u MEMTUI_ROOT HOME={tmp_path} "
        f"XDG_CONFIG_HOME={tmp_path}/config TMPDIR={temp} {MEMTUI} --demo;"
        f" echo exit=$? > {log}; sleep 5"
    )
    tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
    try:
        tmux("resize-window", "-t", session, "-x", "120", "-y", "40")
        screen = wait_for_screen(session, "Demo store: a temporary copy")
        assert "Demo store: a temporary copy" in screen, screen
        assert "patterns" in screen and "sessions" in screen
        tmux("send-keys", "-t", session, "-l", "/")
        wait_for_screen(session, "Type to search")
        tmux("send-keys", "-t", session, "-l", "runbook")
        screen = wait_for_screen(session, "projects/data-pipeline/runbook.md")
        assert "projects/data-pipeline/runbook.md" in screen, screen
        tmux("send-keys", "-t", session, "Escape")
        (copy,) = temp.glob("memtui-demo-*/memories")
        assert files_on_disk(copy).keys() == set(demo_note_paths())
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 10
        while not log.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert log.read_text(encoding="utf-8") == "exit=0\n"
        assert "Traceback" not in tmux("capture-pane", "-t", session, "-p")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
