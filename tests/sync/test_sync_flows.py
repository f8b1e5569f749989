"""Two or three machines syncing through a local bare repository: set-up, provenance, merges,
clashes, deletions, undo (stores as clones, git without an identity)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memtui.core.recording.inbox import changes
from memtui.notes.sync.state import CLASH_DELETED_HERE, CLASH_DELETED_THERE, CLASH_TEXT
from tests.sync.conftest import Machine, git, remote_files, tree_files

MakeMachine = Callable[..., Machine]


def remote_log(remote: Path, fmt: str) -> list[str]:
    """One formatted line per commit of the remote's branch, newest first."""
    return git("--git-dir", str(remote), "log", f"--format={fmt}", "main").splitlines()


def test_a_store_with_files_and_an_empty_remote_is_committed_and_pushed(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"notes.md": "# Notes\n- one\n", "people/ana.md": "# Ana\n"})
    assert remote_files(remote) == {"notes.md": "# Notes\n- one\n", "people/ana.md": "# Ana\n"}
    assert (a.root / ".memtui" / "git" / "HEAD").is_file()
    assert not (a.root / ".git").exists()
    assert (a.root / ".memtui" / "git" / "info" / "exclude").read_text() == "/.memtui/\n"
    assert remote_log(remote, "%an <%ae>|%cn|%s") == [
        "memtui on a <memtui@a>|memtui on a|memtui: the notes on a when sync began"
    ]


def test_git_has_no_identity_and_commits_carry_the_actor(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a")
    assert git("config", "--get", "user.name", check=False) == ""
    a.agent("claude").create("/memories/x.md", "hello\n")
    a.store.create("/memories/y.md", "mine\n")
    report = a.sync()
    assert (report.committed, report.pushed) == (2, True)
    assert remote_log(remote, "%an|%s") == [
        "human:dana|human:dana changed y.md on a",
        "agent:claude|agent:claude changed x.md on a",
    ]
    ids = {e.path: e.id for e in a.store.history.events(changes_only=True)}
    machine_id = a.state.machine_id()
    bodies = remote_log(remote, "%(trailers:only,unfold)")
    assert f"Memtui-Machine: {machine_id} a" in bodies
    assert f"Memtui-Change: {ids['/memories/x.md']} x.md" in bodies
    assert f"Memtui-Change: {ids['/memories/y.md']} y.md" in bodies


def test_a_second_machine_joins_and_both_sides_are_merged(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"notes.md": "# Notes\n- one\n", "only-a.md": "a\n"})
    b = machine("b", files={"notes.md": "# Notes\n- one\n- two\n", "only-b.md": "b\n"})
    expected = {
        "notes.md": "# Notes\n- one\n- two\n",
        "only-a.md": "a\n",
        "only-b.md": "b\n",
    }
    assert remote_files(remote) == expected
    a.sync()
    assert {name: a.text(name) for name in expected} == expected
    assert {name: b.text(name) for name in expected} == expected


def test_a_pulled_change_is_recorded_under_its_actor_with_the_machine_named(
    machine: MakeMachine,
) -> None:
    a = machine("a", files={"notes.md": "# Notes\n- one\n"})
    b = machine("b")
    a.agent("claude").insert("/memories/notes.md", 2, "- two")
    a.sync()
    report = b.sync()
    assert (report.pulled, report.paths) == (1, {"notes.md"})
    assert b.text("notes.md") == "# Notes\n- one\n- two\n"
    event = b.store.history.events(path="/memories/notes.md", limit=1)[0]
    assert (event.actor, event.command) == ("agent:claude", "pull")
    assert event.result == "Pulled /memories/notes.md from a"
    assert event.args["machine"] == "a"
    a_event = a.store.history.events(path="/memories/notes.md", limit=1)[0]
    assert event.args["changes"] == [f"{a.state.machine_id()}.{a_event.id}"]
    waiting = [e.id for e in changes(b.store.history)]
    assert event.id in waiting
    before, after = b.store.history.texts(event)
    assert (before, after) == ("# Notes\n- one\n", "# Notes\n- one\n- two\n")


def test_a_pulled_persons_change_does_not_wait_for_review(machine: MakeMachine) -> None:
    a = machine("a", files={"notes.md": "x\n"})
    b = machine("b")
    a.store.write("/memories/notes.md", "x\ny\n", a.store.revision("/memories/notes.md"))
    a.sync()
    b.sync()
    event = b.store.history.events(path="/memories/notes.md", limit=1)[0]
    assert (event.actor, event.command) == ("human:dana", "pull")
    assert event.id not in [e.id for e in changes(b.store.history)]


def test_changes_to_different_lines_merge_and_both_machines_converge(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"notes.md": "# Notes\n- one\n- two\n- three\n"})
    b = machine("b")
    a.agent().str_replace("/memories/notes.md", "- one", "- ONE")
    b.agent("cursor").str_replace("/memories/notes.md", "- three", "- THREE")
    a.sync()
    report = b.sync()
    assert (report.pulled, report.clashes) == (1, [])
    a.sync()
    expected = "# Notes\n- ONE\n- two\n- THREE\n"
    assert a.text("notes.md") == b.text("notes.md") == remote_files(remote)["notes.md"] == expected
    merge = b.store.history.events(path="/memories/notes.md", limit=1)[0]
    assert merge.result == "Pulled /memories/notes.md from a (merged with this machine's changes)"


def test_observations_appended_on_both_machines_are_all_kept_in_one_order(
    machine: MakeMachine,
) -> None:
    a = machine("a", files={"log.md": "# Log\n"})
    b = machine("b")
    a.agent().insert("/memories/log.md", 1, "- [obs] a saw x")
    b.agent("cursor").insert("/memories/log.md", 1, "- [obs] b saw y")
    a.sync()
    report = b.sync()
    a.sync()
    assert report.clashes == []
    assert a.text("log.md") == b.text("log.md") == "# Log\n- [obs] a saw x\n- [obs] b saw y\n"


def test_a_same_line_clash_keeps_this_machines_text_and_waits_with_both_texts(
    machine: MakeMachine, remote: Path
) -> None:
    a = machine("a", files={"prefs.md": "# Prefs\n- editor: vim\n"})
    b = machine("b")
    a.agent().str_replace("/memories/prefs.md", "vim", "emacs")
    b.agent("cursor").str_replace("/memories/prefs.md", "vim", "zed")
    a.sync()
    report = b.sync()
    assert b.text("prefs.md") == "# Prefs\n- editor: zed\n"
    (clash,) = report.clashes
    assert (clash.kind, clash.path, clash.actor, clash.machine) == (
        CLASH_TEXT,
        "prefs.md",
        "agent:claude",
        "a",
    )
    assert clash.ours == b"# Prefs\n- editor: zed\n"
    assert clash.theirs == b"# Prefs\n- editor: emacs\n"
    a.sync()
    for files in (tree_files(a.root), tree_files(b.root)):
        assert b"<<<<<<<" not in files[b"prefs.md".decode()]
    assert a.text("prefs.md") == remote_files(remote)["prefs.md"] == "# Prefs\n- editor: zed\n"
    assert a.state.clashes() == []


def test_a_note_deleted_there_and_changed_here_is_kept_and_asks(machine: MakeMachine) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    a.agent().delete("/memories/n.md")
    b.agent().insert("/memories/n.md", 1, "two")
    a.sync()
    report = b.sync()
    assert b.text("n.md") == "one\ntwo\n"
    assert [c.kind for c in report.clashes] == [CLASH_DELETED_THERE]
    a.sync()
    assert a.text("n.md") == "one\ntwo\n"


def test_a_note_deleted_here_and_changed_there_comes_back_and_asks(machine: MakeMachine) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    a.agent().insert("/memories/n.md", 1, "two")
    b.agent().delete("/memories/n.md")
    a.sync()
    report = b.sync()
    assert b.text("n.md") == "one\ntwo\n"
    assert [c.kind for c in report.clashes] == [CLASH_DELETED_HERE]


def test_undoing_a_pulled_change_syncs_out_as_a_new_change(machine: MakeMachine) -> None:
    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    a.agent().insert("/memories/n.md", 1, "two")
    a.sync()
    b.sync()
    pulled = b.store.history.events(path="/memories/n.md", limit=1)[0]
    undone = b.store.revert(pulled.id)
    assert not undone.is_error, undone.content
    assert b.text("n.md") == "one\n"
    report = b.sync()
    assert report.committed == 1
    a.sync()
    assert a.text("n.md") == "one\n"
    assert a.store.history.events(path="/memories/n.md", limit=1)[0].actor == "human:dana"


def test_a_fresh_store_pulls_files_made_elsewhere(machine: MakeMachine) -> None:
    a = machine("a", files={"deep/folder/n.md": "x\n"})
    b = machine("b")
    assert tree_files(b.root) == {"deep/folder/n.md": b"x\n"}
    a.agent().rename("/memories/deep/folder/n.md", "/memories/top.md")
    a.sync()
    b.sync()
    assert tree_files(b.root) == {"top.md": b"x\n"}


def test_the_status_says_what_waits_to_be_sent_merged_and_resolved(machine: MakeMachine) -> None:
    from memtui.notes.sync.status import sync_status

    a = machine("a", files={"n.md": "one\n"})
    b = machine("b")
    status = sync_status(a.store)
    assert status.line(status.last_sync or 0.0) == "sync: in sync · just now"
    a.agent().insert("/memories/n.md", 1, "two")
    a.agent().insert("/memories/n.md", 2, "three")
    status = sync_status(a.store)
    assert (status.to_send, status.to_merge) == (2, 0)
    a.sync()
    b.sync()
    assert sync_status(a.store).to_send == 0
    assert sync_status(b.store).line(10_000_000_000.0).startswith("sync: in sync · ")
    from memtui.core.config import Settings
    from memtui.core.store import MemoryStore

    assert not sync_status(MemoryStore(a.root.parent / "plain", settings=Settings())).configured
