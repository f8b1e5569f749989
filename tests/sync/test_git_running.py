"""A git run started in the background (`Git.start`): waited for in parts, stopped at its
deadline or on demand, with everything it started."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from memtui.notes.sync.git import Git, GitError


def hanging_git(tmp_path: Path) -> tuple[Git, Path]:
    """A `git` that starts a child which sleeps, writing the child's pid first."""
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "git"
    script.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {pid_file}\nwait\n")
    script.chmod(0o755)
    return Git(tmp_path, tmp_path / ".git", executable=str(script)), pid_file


def gone(pid: int) -> bool:
    """Whether no process `pid` runs (a killed child may linger a moment as a zombie of init)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        with open(f"/proc/{pid}/stat") as stat:
            if stat.read().split(") ")[1].startswith("Z"):
                return True
        time.sleep(0.01)
    return False


def child_pid(pid_file: Path) -> int:
    """The pid the hanging git wrote, once it has."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        text = pid_file.read_text() if pid_file.exists() else ""
        if text.endswith("\n"):
            return int(text)
        time.sleep(0.01)
    raise AssertionError("the hanging git wrote no pid")


def test_a_run_past_its_deadline_is_stopped_with_all_it_started(tmp_path: Path) -> None:
    git, pid_file = hanging_git(tmp_path)
    running = git.start("fetch", timeout=1)
    assert running.done_within(0.05) is False
    with pytest.raises(GitError) as failed:
        running.finish()
    assert str(failed.value) == "git fetch did not finish within 1 s; it was stopped"
    assert failed.value.status == 124
    assert gone(child_pid(pid_file))


def test_a_run_stopped_before_its_end_leaves_nothing_running(tmp_path: Path) -> None:
    git, pid_file = hanging_git(tmp_path)
    running = git.start("fetch")
    pid = child_pid(pid_file)
    running.stop()
    assert running.process.returncode is not None
    assert gone(pid)


def test_a_run_waited_for_in_parts_keeps_its_output(tmp_path: Path) -> None:
    git = Git(tmp_path, tmp_path / ".git")
    git.run("init", "--quiet")
    running = git.start("hash-object", "--stdin", input=b"hello\n")
    while not running.done_within(0.01):
        pass
    done = running.finish()
    assert done.stdout == b"ce013625030ba8dba906f756967f9e9ca394464a\n"
    running.stop()
    assert running.finish().returncode == 0
