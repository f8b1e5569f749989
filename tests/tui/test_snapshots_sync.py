"""SVG snapshots of the sync screen (a clash and a file held back) and of a clash in the merge
dialog, on the fixture store synced with a second machine through a local bare repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.sync import sync_store
from memtui.tui.screens.sync import ClashScreen, SyncScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle
from tests.tui.screens_harness import demo_clock

SIZE = (120, 30)
PREFS = "user/preferences.md"
OLD = "- [style] Prefers short answers #style"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


@pytest.fixture
def clashed(store_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture store after a sync that left one clash and one file held back."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(remote)], check=True)
    here = MemoryStore(store_root, actor="human:tester", settings=Settings())
    sync_store(here, remote=str(remote), machine="here")
    other = MemoryStore(tmp_path / "other", actor="human:bo", settings=Settings())
    sync_store(other, remote=str(remote), machine="work-laptop")
    other.with_actor("agent:claude").str_replace(f"/memories/{PREFS}", OLD, "- long answers")
    sync_store(other, machine="work-laptop")
    other.close()
    agent = here.with_actor("agent:cursor")
    agent.str_replace(f"/memories/{PREFS}", OLD, "- no answers")
    agent.create("/memories/keys.md", f"aws {AWS_KEY}\n")
    report = sync_store(here, machine="here")
    assert (len(report.clashes), list(report.held)) == (1, ["keys.md"])
    here.close()
    return store_root


def on_sync_screen(*keys: str, then: type | None = None) -> Any:
    """A run_before that opens the sync screen, waits for its two rows and presses `keys`."""

    async def run_before(pilot: Pilot[None]) -> None:
        app: Any = pilot.app
        await wait_idle(pilot)
        app.action_sync_screen()
        assert await wait_for(
            pilot, lambda: isinstance(app.screen, SyncScreen) and app.screen.query(DataTable)
        )
        table = app.screen.query_one(DataTable)
        title = app.screen.query_one("#sync-title", Static)
        assert await wait_for(pilot, lambda: table.row_count == 2)
        assert await wait_for(pilot, lambda: "1 held back" in str(title.render()))
        await pilot.press(*keys)
        if then is not None:
            assert await wait_for(pilot, lambda: isinstance(app.screen, then))
        await wait_idle(pilot)

    return run_before


def test_the_sync_screen_lists_a_clash_and_a_file_held_back(
    snap_compare: Any, clashed: Path, make_app: AppFactory
) -> None:
    """The title is the status line's sync part; one row per clash and per held file."""
    app = make_app(clashed, clock=demo_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=on_sync_screen())
    app.syncing.stop()


def test_a_clash_opens_in_the_merge_dialog(
    snap_compare: Any, clashed: Path, make_app: AppFactory
) -> None:
    """Enter on the clash: this machine's line against the other machine's, side by side."""
    app = make_app(clashed, clock=demo_clock)
    run_before = on_sync_screen("enter", then=ClashScreen)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    app.syncing.stop()
