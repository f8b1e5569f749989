"""A remote that refuses pushes, one that moves between fetch and push, a branch moved back by
hand, and a remote that cannot be reached: nothing is lost, nothing is forced."""

from __future__ import annotations

import itertools
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.notes.sync import SyncError, driver, sync_store
from tests.sync.conftest import Machine, git, remote_files, tree_files

MakeMachine = Callable[..., Machine]


def remote_tip(remote: Path) -> str:
    """The remote branch's commit."""
    return git("--git-dir", str(remote), "rev-parse", "main").strip()


def refuse_pushes(remote: Path, message: str = "read-only for now") -> Path:
    """Install a pre-receive hook that refuses every push."""
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\necho '{message}' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)
    return hook


def test_a_refusing_remote_is_one_error_and_the_change_waits_committed_here(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    before = remote_tip(remote)
    hook = refuse_pushes(remote)
    a.agent().insert("/memories/n.md", 1, "two")
    with pytest.raises(SyncError) as refused:
        a.sync()
    assert str(refused.value) == (
        "the remote refused the push 5 times (pre-receive hook declined); this machine's "
        "changes are committed here and go out with the next sync"
    )
    assert remote_tip(remote) == before
    assert a.text("n.md") == "one\ntwo\n"
    hook.unlink()
    report = a.sync()
    assert report.pushed
    assert remote_files(remote) == {"n.md": "one\ntwo\n"}
    assert git("--git-dir", str(remote), "merge-base", "--is-ancestor", before, "main") == ""


def test_a_remote_that_moved_before_the_push_is_fetched_merged_and_pushed_again(
    machine: MakeMachine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = machine("a", files={"log.md": "# Log\n"})
    b = machine("b")
    a.agent().insert("/memories/log.md", 1, "- a")
    b.agent().insert("/memories/log.md", 1, "- b")
    real_push = driver.push
    raced: list[str] = []

    def push_after_b(ctx: driver.Context, tip: str) -> str | None:
        if not raced:
            raced.append(remote_tip(remote))
            b.sync()
        return real_push(ctx, tip)

    monkeypatch.setattr(driver, "push", push_after_b)
    tips = [remote_tip(remote)]
    report = a.sync()
    tips.append(remote_tip(remote))
    assert report.attempts == 2 and report.pushed
    monkeypatch.setattr(driver, "push", real_push)
    b.sync()
    tips.append(remote_tip(remote))
    assert a.text("log.md") == b.text("log.md") == "# Log\n- a\n- b\n"
    for older, newer in itertools.pairwise(tips):
        git("--git-dir", str(remote), "merge-base", "--is-ancestor", older, newer)


def test_commits_the_branch_no_longer_holds_are_kept_under_a_rescue_ref(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    hook = refuse_pushes(remote)
    a.agent().insert("/memories/n.md", 1, "two")
    with pytest.raises(SyncError):
        a.sync()
    hook.unlink()
    local = a.git("rev-parse", "main").strip()
    a.git("update-ref", "refs/heads/main", "main~1")
    report = a.sync()
    (rescue,) = report.rescued
    assert rescue.startswith("refs/memtui/rescue/")
    assert a.git("rev-parse", rescue).strip() == local
    assert remote_files(remote) == {"n.md": "one\ntwo\n"}


def test_an_unreachable_remote_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    from memtui.core.config import Settings
    from memtui.core.store import MemoryStore

    root = tmp_path / "store"
    root.mkdir()
    (root / "n.md").write_text("x\n")
    store = MemoryStore(root, actor="human:dana", settings=Settings())
    with pytest.raises(SyncError) as failed:
        sync_store(store, remote=str(tmp_path / "missing.git"), machine="a")
    assert str(failed.value) == (
        f"git ls-remote: '{tmp_path / 'missing.git'}' does not appear to be a git repository"
    )
    assert not (root / ".memtui" / "git").exists()
    assert tree_files(root) == {"n.md": b"x\n"}


def test_a_store_never_set_up_says_how(tmp_path: Path) -> None:
    from memtui.core.config import Settings
    from memtui.core.store import MemoryStore

    store = MemoryStore(tmp_path / "s", actor="human:dana", settings=Settings())
    with pytest.raises(SyncError) as failed:
        sync_store(store, machine="a")
    assert str(failed.value) == (
        f"{tmp_path / 's'} is not set up for sync: run `memtui sync {tmp_path / 's'} "
        "--remote URL` once"
    )


def test_a_remote_that_went_away_after_set_up_is_one_line(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"n.md": "one\n"})
    remote.rename(remote.with_name("moved.git"))
    a.agent().insert("/memories/n.md", 1, "two")
    with pytest.raises(SyncError) as failed:
        a.sync()
    assert str(failed.value) == f"git fetch: '{remote}' does not appear to be a git repository"
    assert a.git("rev-list", "--count", "main").strip() == "1"


def fetch_outlasts_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fetch is taken as still running once the changes are found (as a slow network's
    would be), so the sync waits for it with the store's lock released."""
    monkeypatch.setattr(driver.Running, "done_within", lambda _self, _seconds: False)


@pytest.mark.parametrize("slow", [False, True])
def test_a_fetch_failing_while_the_changes_are_found_changes_nothing_here(
    machine: MakeMachine, remote: Path, monkeypatch: pytest.MonkeyPatch, slow: bool
) -> None:
    """The fetch runs while this machine's changes are found; when it fails, whether it ended
    while the store's lock was held or after, nothing is committed, moved or written here, and
    the next sync sends the change."""
    if slow:
        fetch_outlasts_the_wait(monkeypatch)
    a = machine("a", files={"n.md": "one\n"})
    a.agent().insert("/memories/n.md", 1, "two")
    (a.root / "outside.md").write_text("written by hand\n")
    refs = a.git("for-each-ref")
    files = tree_files(a.root)
    moved = remote.rename(remote.with_name("moved.git"))
    with pytest.raises(SyncError) as failed:
        a.sync()
    assert str(failed.value) == f"git fetch: '{remote}' does not appear to be a git repository"
    assert (a.git("for-each-ref"), tree_files(a.root)) == (refs, files)
    assert a.git("status", "--porcelain").splitlines() == [" M n.md", "?? outside.md"]
    moved.rename(remote)
    report = a.sync()
    assert (report.committed, report.pushed) == (2, True)
    assert remote_files(remote) == {"n.md": "one\ntwo\n", "outside.md": "written by hand\n"}


def test_a_fetch_slower_than_the_wait_finds_the_changes_again_with_the_lock_taken_again(
    machine: MakeMachine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fetch that outlasts `LOCKED_WAIT` is waited for with the store's lock released; a
    change an agent makes meanwhile goes out in the same sync, under that agent's name."""
    fetch_outlasts_the_wait(monkeypatch)
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    b.agent("peer").insert("/memories/n.md", 0, "zero")
    b.sync()
    a.agent().insert("/memories/n.md", 1, "two")
    real = driver.fetched

    def an_agent_writes_first(ctx: driver.Context, fetching: object) -> object:
        a.agent("late").create("/memories/late.md", "while the fetch ran\n")
        return real(ctx, fetching)  # type: ignore[arg-type]

    monkeypatch.setattr(driver, "fetched", an_agent_writes_first)
    report = a.sync()
    assert (report.committed, report.pulled, report.pushed) == (2, 1, True)
    assert remote_files(remote) == {
        "n.md": "zero\none\ntwo\n",
        "late.md": "while the fetch ran\n",
    }
    subjects = a.git("log", "--format=%an: %s", "main").splitlines()
    assert "agent:late: agent:late changed late.md on a" in subjects
    assert "agent:claude: agent:claude changed n.md on a" in subjects


def test_a_remote_force_pushed_over_by_someone_else_loses_nothing_here(
    machine: MakeMachine, remote: Path, tmp_path: Path
) -> None:
    notes = {f"n{i}.md": f"# Note {i}\n- kept\n" for i in range(5)}
    a = machine("a", files=notes)
    b = machine("b")
    b.agent().insert("/memories/n1.md", 2, "- from b")
    b.sync()
    a.sync()
    stranger = tmp_path / "stranger"
    git("init", "--quiet", "--initial-branch=main", str(stranger))
    (stranger / "server.md").write_text("# Server\n")
    identity = ["-c", "user.name=s", "-c", "user.email=s@example.com"]
    git(*identity, "-C", str(stranger), "add", "-A")
    git(*identity, "-C", str(stranger), "commit", "--quiet", "-m", "start over")
    git("--git-dir", str(remote), "config", "receive.denyNonFastForwards", "false")
    git("-C", str(stranger), "push", "--quiet", "--force", str(remote), "main:main")
    git("--git-dir", str(remote), "config", "receive.denyNonFastForwards", "true")
    rewritten = remote_tip(remote)
    assert remote_files(remote) == {"server.md": "# Server\n"}
    report = b.sync()
    assert report.pushed and report.clashes == []
    expected = {**notes, "n1.md": "# Note 1\n- kept\n- from b\n", "server.md": "# Server\n"}
    assert remote_files(remote) == expected
    git("--git-dir", str(remote), "merge-base", "--is-ancestor", rewritten, "main")
    a.sync()
    assert {name: data.decode() for name, data in tree_files(a.root).items()} == expected
