"""What another machine's commits say is untrusted: trailers cannot stand for unbounded ids,
name an unchecked reviewer or a machine of any length, and no tree reaches memtui's folder in
any case of letters."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.notes.sync.context import committer_for
from memtui.notes.sync.git import Git
from memtui.notes.sync.provenance import (
    CHANGE,
    MACHINE,
    MAX_RANGE,
    REVIEWED,
    LogCommit,
    _read_trailer,
    expand,
)
from memtui.notes.sync.setup import clone_into_empty, is_reserved
from tests.sync.conftest import git

MACHINE_ID = "0123456789abcdef"


def test_the_ranges_of_one_commit_stand_for_at_most_max_range_ids() -> None:
    assert expand("1-3,7") == [1, 2, 3, 7]
    assert expand(f"1-{MAX_RANGE}") == list(range(1, MAX_RANGE + 1))
    assert expand(f"1-{MAX_RANGE},1") == []
    assert expand("1-10", 9) == []
    commit = LogCommit("sha", "agent:claude", 0.0)
    half = MAX_RANGE // 2
    for _ in range(4):
        _read_trailer(commit, f"{CHANGE}: 1-{half} notes.md")
    assert sum(len(change.ids) for change in commit.changes) == MAX_RANGE
    _read_trailer(commit, f"{REVIEWED}: {MACHINE_ID}.1-{half} 5.0 human:dana")
    assert commit.marks == []


def test_a_reviewer_is_an_actor_and_a_machine_name_is_cut() -> None:
    commit = LogCommit("sha", "agent:claude", 0.0)
    _read_trailer(commit, f"{REVIEWED}: {MACHINE_ID}.1 5.0 human:\x1b[2Jdana")
    _read_trailer(commit, f"{REVIEWED}: {MACHINE_ID}.2 5.0 root")
    assert commit.marks == []
    _read_trailer(commit, f"{REVIEWED}: {MACHINE_ID}.3 5.0 human:dana")
    assert [(mark.uid, mark.reviewer) for mark in commit.marks] == [
        (f"{MACHINE_ID}.3", "human:dana")
    ]
    _read_trailer(commit, f"{MACHINE}: {MACHINE_ID} {'laptop ' * 50}")
    assert commit.machine == " ".join(["laptop"] * 50)[:100]


def test_memtuis_folder_is_reserved_in_any_case() -> None:
    assert is_reserved(".memtui/git/config")
    assert is_reserved(".MEMTUI/git/config")
    assert is_reserved(".MemTui")
    assert not is_reserved("notes/.memtui")
    assert not is_reserved(".memtuix/a.md")


def test_a_remote_holding_memtuis_folder_in_capitals_is_not_cloned(
    tmp_path: Path, remote: Path
) -> None:
    work = tmp_path / "work"
    git("init", "--quiet", "--initial-branch=main", str(work))
    (work / ".MEMTUI" / "git").mkdir(parents=True)
    (work / ".MEMTUI" / "git" / "config").write_text("[core]\n\tsshCommand = touch /tmp/x\n")
    (work / "notes.md").write_text("# n\n")
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    git(*identity, "-C", str(work), "add", "-A")
    git(*identity, "-C", str(work), "commit", "--quiet", "-m", "hostile")
    git("-C", str(work), "push", "--quiet", str(remote), "HEAD:main")
    store = tmp_path / "store"
    assert clone_into_empty(Git.for_store(store, committer_for("two")), str(remote)) is None
    assert sorted(os.listdir(store)) == [".memtui"]
    assert not (store / ".memtui" / "git" / "config").read_text().count("sshCommand")
