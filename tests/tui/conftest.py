"""Fixtures for app tests: a small store at a fixed path, no cursor blink, waiting on workers."""

from __future__ import annotations

import contextlib
import fcntl
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from memtui.tui.app import MemtuiApp
from tests.tui.settle import wait_for, wait_idle

__all__ = ["wait_for", "wait_idle"]


@pytest.fixture(autouse=True)
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`memtui` opens the app only on a terminal; under pytest stdin and stdout are none, so
    app tests that start it through the CLI run as if they were (tests/cli/test_cli_conventions.py
    checks the refusal itself)."""
    from memtui.cli import app_cmd

    monkeypatch.setattr(app_cmd, "terminal_problem", lambda: None)


FIXTURE_BASE = Path("/tmp/memtui-tui-fixture")
"""Fixture stores live at `FIXTURE_BASE/<test name>/memories`: the same path on every run and
machine whatever `TMPDIR` says, since snapshots show the store's path."""

FIXTURE_NOTES: dict[str, str] = {
    "projects/memtui.md": (
        "---\n"
        "title: memtui\n"
        "type: project\n"
        "tags: [tui, memory]\n"
        "permalink: projects/memtui\n"
        "---\n"
        "\n"
        "# memtui\n"
        "\n"
        "## Observations\n"
        "- [goal] Show what agents remember #memory\n"
        "- [decision] Build the tree from a folder walk #performance\n"
        "\n"
        "## Relations\n"
        "- uses [[Textual]]\n"
        "- depends_on [[Ghost Note]]\n"
    ),
    "tools/textual.md": (
        "---\n"
        "title: Textual\n"
        "type: tool\n"
        "tags: [python]\n"
        "permalink: tools/textual\n"
        "---\n"
        "\n"
        "# Textual\n"
        "\n"
        "## Observations\n"
        "- [fact] A TUI framework for Python #python\n"
        "- [tip] Workers never touch widgets #workers\n"
    ),
    "user/preferences.md": (
        "---\n"
        "title: Preferences\n"
        "type: note\n"
        "permalink: user/preferences\n"
        "---\n"
        "\n"
        "# Preferences\n"
        "\n"
        "- [style] Prefers short answers #style\n"
        "- likes [[memtui]]\n"
    ),
}


def write_fixture_store(root: Path) -> Path:
    """(Re)create the fixture store at `root` with the fixture notes and no history."""
    if root.exists():
        shutil.rmtree(root)
    for relpath, text in FIXTURE_NOTES.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@contextlib.contextmanager
def fixed_folder(name: str) -> Iterator[Path]:
    """An empty folder `FIXTURE_BASE/<name>`, locked while in use so concurrent runs take turns."""
    FIXTURE_BASE.mkdir(parents=True, exist_ok=True)
    with (FIXTURE_BASE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        folder = FIXTURE_BASE / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        yield folder


@pytest.fixture
def store_root(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Path]:
    """A fresh fixture store at a fixed path per test, with user config discovery pointed away."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("MEMTUI_ROOT", "MEMTUI_THEME", "MEMTUI_ACTOR", "EDITOR", "VISUAL"):
        monkeypatch.delenv(name, raising=False)
    name = request.node.name.replace("[", "-").replace("]", "").replace("/", "-")
    with fixed_folder(name) as folder:
        yield write_fixture_store(folder / "memories")


AppFactory = Callable[..., MemtuiApp]
"""`make_app(root=None, *, actor="human:tester", watch=False, **options)`: see `make_app`."""


@pytest.fixture
def make_app(request: pytest.FixtureRequest) -> AppFactory:
    """Build the app as app tests do: as `human:tester`, without the file watcher, cursors
    steady (screenshots are deterministic), on the fixture store (`store_root`) unless given
    another root; other options pass through."""

    def make(
        root: Path | None = None,
        *,
        actor: str | None = "human:tester",
        watch: bool = False,
        cursor_blink: bool = False,
        **options: Any,
    ) -> MemtuiApp:
        """A new app on `root` (the fixture store by default)."""
        where = root if root is not None else request.getfixturevalue("store_root")
        return MemtuiApp(where, actor=actor, watch=watch, cursor_blink=cursor_blink, **options)

    return make


async def wait_for_results(pilot: Pilot[None], query: str) -> bool:
    """Pause until the search screen shows the finished results of exactly `query`."""
    screen: Any = pilot.app.screen

    def settled() -> bool:
        status = str(screen.query_one("#search-status").render())
        return screen.shown_query == query and status != "searching…"

    return await wait_for(pilot, settled)
