"""`memtui sync`, `memtui resolve` and the clashes in `memtui changes`: exit statuses 0/1/2,
one line per waiting item, both texts in JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from tests.sync.conftest import git, remote_files


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`memtui ARGS` in this process: status, stdout, stderr."""
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def agent(root: Path) -> MemoryStore:
    """The store at `root` as an agent."""
    return MemoryStore(root, actor="agent:claude", settings=Settings())


def test_two_laptops_from_nothing_to_in_sync(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "laptop-1", tmp_path / "laptop-2"
    one.mkdir()
    (one / "notes.md").write_text("# Notes\n- one\n")
    status, out, err = run(capsys, "sync", str(one), "--remote", str(remote), "--machine", "l1")
    assert (status, err) == (0, "")
    assert out == f"In sync with {remote} (main): committed 1 file, pushed.\n"
    status, out, err = run(capsys, "sync", str(two), "--remote", str(remote), "--machine", "l2")
    assert (status, err) == (0, "")
    assert out == (f"Cloned {remote} into {two}.\nIn sync with {remote} (main): nothing to do.\n")
    assert (two / "notes.md").read_text() == "# Notes\n- one\n"
    status, out, _err = run(capsys, "sync", str(two), "--machine", "l2")
    assert (status, out) == (0, f"In sync with {remote} (main): nothing to do.\n")


def test_the_machine_name_given_once_is_kept(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "laptop-1"
    one.mkdir()
    (one / "notes.md").write_text("# Notes\n")
    assert run(capsys, "sync", str(one), "--remote", str(remote), "--machine", "work")[0] == 0
    agent(one).insert("/memories/notes.md", 1, "- later")
    assert run(capsys, "sync", str(one))[0] == 0
    log = git("--git-dir", str(remote), "log", "-1", "--format=%an <%ae>%n%b", "main")
    assert log.splitlines()[0] == "agent:claude <memtui@work>"
    assert log.splitlines()[1].endswith(" work")


def test_a_clash_is_exit_1_listed_in_changes_with_both_texts_and_resolved(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    (one / "prefs.md").write_text("- editor: vim\n")
    run(capsys, "sync", str(one), "--remote", str(remote), "--machine", "one")
    run(capsys, "sync", str(two), "--remote", str(remote), "--machine", "two")
    agent(one).str_replace("/memories/prefs.md", "vim", "emacs")
    agent(two).str_replace("/memories/prefs.md", "vim", "zed")
    assert run(capsys, "sync", str(one), "--machine", "one")[0] == 0
    status, out, err = run(capsys, "sync", str(two), "--machine", "two")
    assert (status, err) == (1, "")
    assert out.splitlines()[1:] == [
        "Waiting for you (1 item):",
        "clash 1: /memories/prefs.md: the same lines were changed here and by agent:claude "
        f"on one; this machine's text is kept (memtui resolve {two} 1)",
    ]
    status, out, _err = run(capsys, "changes", str(two), "--json")
    record = json.loads(out.splitlines()[0])
    assert {k: record[k] for k in ("clash", "path", "kind", "ours", "theirs", "base")} == {
        "clash": 1,
        "path": "/memories/prefs.md",
        "kind": "text",
        "ours": "- editor: zed\n",
        "theirs": "- editor: emacs\n",
        "base": "- editor: vim\n",
    }
    status, out, _err = run(capsys, "resolve", str(two), "1")
    assert (status, out) == (
        0,
        "clash 1: /memories/prefs.md: the same lines were changed here and by agent:claude on "
        "one; this machine's text is kept\n@@ line 1 @@\n--- yours\n- editor: zed\n--- theirs\n"
        "- editor: emacs\n",
    )
    status, out, _err = run(capsys, "resolve", str(two), "1", "--both")
    assert (status, out) == (0, "Resolved clash 1 (both): Saved /memories/prefs.md\n")
    assert (two / "prefs.md").read_text() == "- editor: zed\n- editor: emacs\n"
    assert run(capsys, "sync", str(two), "--machine", "two")[0] == 0
    assert run(capsys, "sync", str(one), "--machine", "one")[0] == 0
    assert remote_files(remote)["prefs.md"] == (one / "prefs.md").read_text()
    assert (one / "prefs.md").read_text() == "- editor: zed\n- editor: emacs\n"
    status, out, _err = run(capsys, "resolve", str(two), "1", "--theirs")
    assert (status, out) == (1, "")


def test_errors_are_exit_2_and_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    store.mkdir()
    status, out, err = run(capsys, "sync", str(store))
    assert (status, out) == (2, "")
    assert err == (
        f"memtui sync: {store} is not set up for sync: run `memtui sync {store} --remote URL` "
        "once\n"
    )
    status, out, err = run(capsys, "sync", str(store), "--remote", str(tmp_path / "nope.git"))
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "does not appear to be a git repository" in err


def test_an_edit_made_while_memtui_was_closed_is_recorded_before_it_is_committed(
    tmp_path: Path, remote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The one-shot sync runs the store's start-up recovery while it fetches: a note changed
    with memtui closed is an `external` event in the history and an `external` commit, and a
    remote that went away is exit 2, one line, with nothing changed here."""
    one = tmp_path / "laptop-1"
    one.mkdir()
    (one / "notes.md").write_text("# Notes\n")
    assert run(capsys, "sync", str(one), "--remote", str(remote), "--machine", "l1")[0] == 0
    (one / "notes.md").write_text("# Notes\n- by hand\n")
    moved = remote.rename(remote.with_name("moved.git"))
    head = git("--git-dir", str(one / ".memtui" / "git"), "rev-parse", "main")
    status, out, err = run(capsys, "sync", str(one))
    assert (status, out) == (2, "")
    assert err == f"memtui sync: git fetch: '{remote}' does not appear to be a git repository\n"
    assert git("--git-dir", str(one / ".memtui" / "git"), "rev-parse", "main") == head
    assert (one / "notes.md").read_text() == "# Notes\n- by hand\n"
    moved.rename(remote)
    status, out, err = run(capsys, "sync", str(one))
    assert (status, out, err) == (
        0,
        f"In sync with {remote} (main): committed 1 file, pushed.\n",
        "",
    )
    events = MemoryStore(one, actor="human:dana", settings=Settings()).history.events(
        path="/memories/notes.md", limit=1
    )
    assert (events[0].actor, events[0].command) == ("external", "external")
    log = git("--git-dir", str(remote), "log", "-1", "--format=%an: %s", "main")
    assert log == "external: external changed notes.md on l1\n"
