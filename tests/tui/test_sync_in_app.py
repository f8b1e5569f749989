"""Sync in the app: `S` syncs in the background (keys keep working while it runs), the status
line says where the store stands, and a clash is resolved in the merge dialog."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from memtui.core.config import Settings
from memtui.core.config_sync import SyncSettings
from memtui.core.store import MemoryStore
from memtui.notes.sync import driver, sync_store
from memtui.tui.app import MemtuiApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.screens.search import SearchScreen
from memtui.tui.screens.sync import ClashChoiceScreen, ClashScreen, SyncScreen
from tests.tui.conftest import AppFactory, wait_for, wait_idle

SIZE = (140, 40)
PREFS = "user/preferences.md"


@pytest.fixture
def remote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty bare repository; git with no identity."""
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--quiet", "--bare", str(path)], check=True)
    return path


def status(app: MemtuiApp) -> str:
    """The main screen's status line."""
    main = next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))
    return str(main.query_one("#status", Static).render())


def other_machine(remote: Path, where: Path) -> MemoryStore:
    """A second machine's store, joined to the remote."""
    store = MemoryStore(where, actor="human:bo", settings=Settings())
    sync_store(store, remote=str(remote), machine="other")
    return store


async def test_s_syncs_in_the_background_while_keys_keep_working(
    store_root: Path,
    make_app: AppFactory,
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    here = MemoryStore(store_root, actor="human:tester", settings=Settings())
    sync_store(here, remote=str(remote), machine="here")
    here.close()
    other = other_machine(remote, tmp_path / "other")
    other.with_actor("agent:claude").insert(f"/memories/{PREFS}", 1, "- from the other machine")
    sync_store(other, machine="other")
    release = threading.Event()
    real_fetch = driver.start_fetch

    def slow_fetch(git: driver.Git, branch: str) -> driver.Running:
        assert release.wait(30)
        return real_fetch(git, branch)

    monkeypatch.setattr(driver, "start_fetch", slow_fetch)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "sync: in sync" in status(app))
        await pilot.press("S")
        assert await wait_for(pilot, lambda: "sync: fetching…" in status(app))
        await pilot.press("slash")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: isinstance(app.screen, MainScreen))
        assert "sync: fetching…" in status(app)
        release.set()
        assert await wait_for(pilot, lambda: "sync: in sync" in status(app), timeout=20)
        assert "- from the other machine" in (store_root / PREFS).read_text()
        size = (store_root / PREFS).stat().st_size
        assert await wait_for(pilot, lambda: app.ctx.index.entry(PREFS).size == size)
    app.syncing.stop()


async def test_a_clash_is_resolved_in_the_merge_dialog(
    store_root: Path, make_app: AppFactory, remote: Path, tmp_path: Path
) -> None:
    here = MemoryStore(store_root, actor="human:tester", settings=Settings())
    sync_store(here, remote=str(remote), machine="here")
    other = other_machine(remote, tmp_path / "other")
    old = "- [style] Prefers short answers #style"
    other.with_actor("agent:claude").str_replace(f"/memories/{PREFS}", old, "- long answers")
    sync_store(other, machine="other")
    here.with_actor("agent:cursor").str_replace(f"/memories/{PREFS}", old, "- no answers")
    report = sync_store(here, machine="here")
    assert len(report.clashes) == 1
    here.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        assert await wait_for(pilot, lambda: "1 clash" in status(app))
        app.action_sync_screen()
        assert await wait_for(
            pilot, lambda: isinstance(app.screen, SyncScreen) and app.screen.query(DataTable)
        )
        screen = app.screen
        assert isinstance(screen, SyncScreen)
        table = screen.query_one(DataTable)
        assert await wait_for(pilot, lambda: table.row_count == 1)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ClashScreen))
        await pilot.press("t")
        await pilot.press("ctrl+s")
        assert await wait_for(pilot, lambda: isinstance(app.screen, SyncScreen))
        assert await wait_for(pilot, lambda: table.row_count == 0)
        size = (store_root / PREFS).stat().st_size
        index = app.ctx.index
        assert index is not None
        assert await wait_for(pilot, lambda: index.entry(PREFS).size == size)  # type: ignore[union-attr]
    assert "- long answers" in (store_root / PREFS).read_text()
    assert "- no answers" not in (store_root / PREFS).read_text()


async def test_the_automatic_sync_stops_when_the_app_ends(
    store_root: Path, make_app: AppFactory, remote: Path
) -> None:
    here = MemoryStore(store_root, actor="human:tester", settings=Settings())
    sync_store(here, remote=str(remote), machine="here")
    here.close()
    app = make_app(settings=Settings(sync=SyncSettings(every=60.0)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        auto = app.syncing.auto
        assert auto is not None and auto.every == 60.0
        thread = auto._thread
        assert thread is not None and thread.is_alive()
    thread.join(10)
    assert not thread.is_alive()


async def test_a_clash_over_conflict_markers_is_kept_or_taken_whole(
    store_root: Path, make_app: AppFactory, remote: Path, tmp_path: Path
) -> None:
    here = MemoryStore(store_root, actor="human:tester", settings=Settings())
    sync_store(here, remote=str(remote), machine="here")
    pat = tmp_path / "pat"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(remote), str(pat)], check=True)
    mine = (store_root / PREFS).read_text()
    marked = "<<<<<<< HEAD\n- short\n=======\n- long\n>>>>>>> theirs\n"
    (pat / PREFS).write_text(marked)
    identity = ["-c", "user.name=Pat", "-c", "user.email=pat@example.com"]
    subprocess.run(["git", *identity, "-C", str(pat), "commit", "-qam", "by hand"], check=True)
    subprocess.run(["git", "-C", str(pat), "push", "-q", "origin", "main"], check=True)
    report = sync_store(here, machine="here")
    assert [clash.kind for clash in report.clashes] == ["markers"]
    here.close()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_idle(pilot)
        app.action_sync_screen()
        assert await wait_for(
            pilot, lambda: isinstance(app.screen, SyncScreen) and app.screen.query(DataTable)
        )
        screen = app.screen
        table = screen.query_one(DataTable)
        assert await wait_for(pilot, lambda: table.row_count == 1)
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ClashChoiceScreen))
        await pilot.press("escape")
        assert await wait_for(pilot, lambda: app.screen is screen)
        assert table.row_count == 1
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: isinstance(app.screen, ClashChoiceScreen))
        await pilot.press("ctrl+k")
        assert await wait_for(pilot, lambda: table.row_count == 0)
    assert (store_root / PREFS).read_text() == mine
