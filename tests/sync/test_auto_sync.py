"""Sync in the background (the app and `memtui mcp`): on a timer and when asked, on its own
thread, telling what it did."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.config_sync import SyncSettings
from memtui.notes.sync import SyncReport
from memtui.notes.sync.auto import AutoSync, Outcome
from memtui.notes.sync.setup import SyncError
from tests.sync.conftest import Machine, remote_files

MakeMachine = Callable[..., Machine]


class Done:
    """Collects outcomes, and lets a test wait for the next one."""

    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []
        self.steps: list[str] = []
        self.threads: set[str] = set()
        self.event = threading.Event()

    def __call__(self, outcome: Outcome) -> None:
        self.threads.add(threading.current_thread().name)
        self.outcomes.append(outcome)
        self.event.set()

    def wait(self) -> Outcome:
        assert self.event.wait(30)
        self.event.clear()
        return self.outcomes[-1]


def test_a_sync_asked_for_runs_on_its_own_thread(machine: MakeMachine, remote: Path) -> None:
    a = machine("a", files={"n.md": "one\n"})
    done = Done()
    auto = AutoSync(a.store, None, machine="a", on_done=done, on_progress=done.steps.append)
    a.agent().insert("/memories/n.md", 1, "two")
    auto.sync_now()
    outcome = done.wait()
    auto.stop()
    assert isinstance(outcome, SyncReport) and outcome.pushed
    assert done.threads == {"memtui-sync"}
    assert done.steps[:2] == ["fetching", "committing"] and "pushing" in done.steps
    assert remote_files(remote) == {"n.md": "one\ntwo\n"}


def test_the_timer_syncs_and_errors_come_back_as_one_line(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    done = Done()
    auto = AutoSync(a.store, 0.05, machine="a", on_done=done)
    auto.start()
    assert isinstance(done.wait(), SyncReport)
    remote.rename(remote.with_name("gone.git"))
    outcome = done.wait()
    auto.stop()
    assert isinstance(outcome, SyncError)
    assert str(outcome) == f"git fetch: '{remote}' does not appear to be a git repository"


def test_a_store_not_set_up_is_not_synced_by_the_timer(tmp_path: Path) -> None:
    from memtui.core.store import MemoryStore

    store = MemoryStore(tmp_path / "s", settings=Settings())
    auto = AutoSync(store, 0.01)
    assert not auto.configured
    done = Done()
    auto.on_done = done
    auto.sync_now()
    outcome = done.wait()
    auto.stop()
    assert isinstance(outcome, SyncError) and "is not set up for sync" in str(outcome)


def test_the_mcp_server_syncs_every_so_often_when_set_up(machine: MakeMachine) -> None:
    import pytest

    mcp_server = pytest.importorskip("memtui.agents.mcp_server")
    a = machine("a", files={"n.md": "one\n"})
    settings = Settings(sync=SyncSettings(every=60.0))
    service = mcp_server.MemoryService(a.root, actor="claude", settings=settings)
    service.start_sync()
    assert service.auto_sync is not None and service.auto_sync.every == 60.0
    service.auto_sync.stop()
    plain = mcp_server.MemoryService(a.root.parent / "plain", settings=settings)
    plain.start_sync()
    assert plain.auto_sync is None


def test_the_files_a_sync_wrote_reach_the_mcp_servers_index(machine: MakeMachine) -> None:
    import pytest

    mcp_server = pytest.importorskip("memtui.agents.mcp_server")
    a = machine("a", files={"n.md": "# N\none\n"})
    b = machine("b")
    settings = Settings(sync=SyncSettings(every=3600.0))
    service = mcp_server.MemoryService(a.root, actor="claude", settings=settings)
    service.start_sync()
    auto = service.auto_sync
    assert auto is not None
    index = service.workspace.current_index()
    assert index.entry("n.md").size == len("# N\none\n")
    b.agent().insert("/memories/n.md", 2, "two from b")
    b.sync()
    done, served = Done(), auto.on_done
    assert served is not None

    def then_tell(outcome: Outcome) -> None:
        served(outcome)
        done(outcome)

    auto.on_done = then_tell
    auto.sync_now()
    outcome = done.wait()
    assert isinstance(outcome, SyncReport) and outcome.paths == {"n.md"}
    assert index.entry("n.md").size == len("# N\none\ntwo from b\n")
    auto.stop()
    service.workspace.close()
