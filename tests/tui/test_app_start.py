"""Start-up: the CLI's path handling, the first frame from a folder walk, the index filling in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static
from textual.widgets._toast import Toast

from memtui.cli.app_cmd import build_parser, resolve_root
from memtui.cli.app_cmd import main as app_main
from memtui.core.config import Settings
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.widgets.note_tree import NoteTree, list_folder
from memtui.tui.widgets.text_view import TextView
from tests.tui.conftest import AppFactory, wait_for, wait_idle


def test_a_file_as_path_exits_2_with_one_line(tmp_path: Path, capsys: object) -> None:
    """A file is not a store: exit status 2 and a one-line message, no traceback."""
    file = tmp_path / "note.md"
    file.write_text("x", encoding="utf-8")
    assert app_main([str(file)]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert err == f"memtui: {file} is not a folder\n"


def test_a_missing_folder_is_created_with_a_note(tmp_path: Path) -> None:
    """A missing folder is created (0700) and the app is told to say so."""
    asked: list[str] = []
    wanted = str(tmp_path / "new" / "memories")
    root, notice = resolve_root(wanted, Settings(), ask=lambda path: not asked.append(path))
    assert asked == [wanted]
    assert root.is_dir()
    assert oct(root.stat().st_mode & 0o777) == "0o700"
    assert notice == f"Created an empty memory folder at {root}."


def test_without_a_path_the_configured_root_is_opened(tmp_path: Path) -> None:
    """No PATH: the settings' root (config or MEMTUI_ROOT) is the folder opened."""
    (tmp_path / "configured").mkdir()
    settings = Settings(root=tmp_path / "configured")
    assert resolve_root(None, settings) == (tmp_path / "configured", None)
    assert resolve_root(str(tmp_path), settings) == (tmp_path, None)


def test_the_app_reads_the_config_once_at_start_up(
    store_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memtui PATH` and `memtui` (configured root) each load the settings one time."""
    from memtui.cli import main
    from memtui.core import config

    loads: list[Settings] = []
    real_load = config.load_settings

    def counted(*args: object, **kwargs: object) -> Settings:
        loads.append(real_load())
        return loads[-1]

    monkeypatch.setattr(config, "load_settings", counted)
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: None)
    assert main([str(store_root)]) == 0
    assert len(loads) == 1
    monkeypatch.setenv("MEMTUI_ROOT", str(store_root))
    assert main([]) == 0
    assert len(loads) == 2


def test_help_lists_the_options() -> None:
    """`memtui --help` documents PATH, --demo and --actor."""
    out = subprocess.run(
        [sys.executable, "-m", "memtui", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--demo" in out and "--actor NAME" in out and "path" in out


def test_folder_listing_hides_state_and_temp_files(store_root: Path) -> None:
    """The walk lists folders first and never shows `.memtui/` or `.tmp-*` files."""
    (store_root / ".memtui").mkdir()
    (store_root / "projects" / ".tmp-123").write_text("x", encoding="utf-8")
    assert [e.relpath for e in list_folder(store_root, "")] == ["projects", "tools", "user"]
    assert [e.relpath for e in list_folder(store_root, "projects")] == ["projects/memtui.md"]


async def test_first_frame_shows_the_tree_then_the_index_fills_in(
    store_root: Path, make_app: AppFactory
) -> None:
    """The tree is there from the walk; the status line counts the notes once indexed."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.screen.query_one(NoteTree)
        assert isinstance(app.screen, MainScreen)
        assert [child.label.plain for child in tree.root.children] == ["projects", "tools", "user"]
        await wait_idle(pilot)
        assert app.ctx.index is not None and len(app.ctx.index.notes) == 3
        status = str(app.screen.query_one("#status", Static).render())
        assert status == f" {store_root}  ·  3 notes  ·  F1 keys"
        assert app.actor == "human:tester"


def test_the_first_frame_needs_no_notes_layer_fuzzy_matcher_or_watcher() -> None:
    """Importing the app and its main screen loads none of the heavy modules used after it."""
    heavy = ["memtui.notes", "rapidfuzz", "markdown_it", "watchfiles", "yaml"]
    code = (
        "import sys, memtui.tui.app, memtui.tui.screens.main\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "[]\n"


async def test_the_plain_view_is_created_only_when_a_big_note_is_shown(
    store_root: Path, make_app: AppFactory
) -> None:
    """Start-up mounts no text area; showing a note too big for Markdown creates one."""
    big = "---\ntitle: Big\n---\n" + "".join(f"- [fact] line {n}\n" for n in range(800))
    (store_root / "tools" / "big.md").write_text(big, encoding="utf-8")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert list(screen.query("#preview-plain")) == []
        await wait_idle(pilot)
        screen.show_path("tools/big.md")
        assert await wait_for(pilot, lambda: screen.preview.relpath == "tools/big.md")
        await wait_idle(pilot)
        assert screen.preview.mode == "plain"
        assert screen.query_one("#preview-plain", TextView).text == big


def test_actor_is_always_recorded_as_a_human() -> None:
    """`--actor NAME` and `--actor human:NAME` become `human:NAME`; the default is human too."""
    parser = build_parser()
    assert parser.parse_args(["--actor", "dana"]).actor == "human:dana"
    assert parser.parse_args(["--actor", "human:dana"]).actor == "human:dana"
    assert parser.parse_args([]).actor is None


@pytest.mark.parametrize("actor", ["agent:x", "external:sync", "human:", "bot:y"])
def test_a_non_human_actor_is_refused_with_a_clear_message(
    actor: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The app's own edits are never recorded as an agent or an outside tool: exit 2, one reason."""
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--actor", actor])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"memtui: --actor: {actor!r} is not a human name")
    assert "always acts as human:NAME" in err and err.count("\n") == 1


def test_an_agent_actor_from_the_environment_is_refused(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """MEMTUI_ACTOR=agent:x cannot make the app record as an agent either."""
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: None)
    monkeypatch.setenv("MEMTUI_ACTOR", "agent:x")
    assert app_main([str(store_root)]) == 2
    assert capsys.readouterr().err.startswith("memtui: MEMTUI_ACTOR: 'agent:x' is not a human")


def write_config(text: str) -> Path:
    """Write the user config file found through XDG_CONFIG_HOME; returns its path."""
    import os

    path = Path(os.environ["XDG_CONFIG_HOME"]) / "memtui" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_an_unknown_theme_stops_the_command_naming_file_and_key(
    store_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like every other bad config value: exit 2 with the file, the key and the known names."""
    monkeypatch.setattr(MemtuiApp, "run", lambda self, *args, **kwargs: None)
    config = write_config('theme = "no-such-theme"\n')
    assert app_main([str(store_root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f'memtui: {config}: key "theme": unknown theme "no-such-theme"')
    assert "nord" in err and "textual-dark" in err


def test_the_demo_runs_on_a_clock_that_starts_at_its_scripted_present(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--demo` opens the copy with a clock starting at DEMO_NOW, so its ages and badges hold."""
    from memtui.demo import DEMO_NOW

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    seen: list[tuple[float, Path]] = []
    monkeypatch.setattr(
        MemtuiApp, "run", lambda self, *args, **kwargs: seen.append((self.clock(), self.ctx.root))
    )
    assert app_main(["--demo"]) == 0
    [(now, root)] = seen
    assert DEMO_NOW <= now < DEMO_NOW + 60
    assert root.is_relative_to(tmp_path) and (root / "user" / "profile.md").is_file()


async def test_an_unknown_theme_is_reported_on_screen(
    store_root: Path, tmp_path: Path, make_app: AppFactory
) -> None:
    """An app given a bad theme says so in an error notification and keeps the default theme."""
    config = tmp_path / "config.toml"
    settings = Settings(theme="no-such-theme", source=config)
    app = make_app(settings=settings)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await wait_idle(pilot)
        toasts = [str(toast.render()) for toast in app.screen.query(Toast)]
        assert any(
            f'{config}: key "theme": unknown theme "no-such-theme"' in text for text in toasts
        )
        assert app.theme == "textual-dark"


async def test_a_known_theme_is_applied(store_root: Path, make_app: AppFactory) -> None:
    """A valid theme name in the settings becomes the app's theme, with no error shown."""
    app = make_app(settings=Settings(theme="nord"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        assert app.theme == "nord"
        assert app.theme_problem() is None
