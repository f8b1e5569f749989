"""`memtui sync` as its own process: the head start (the fetch begun before the store loads)
and the quick exit keep its output, its exit statuses and what it leaves on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from tests.sync.conftest import remote_files


def memtui(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m memtui ARGS` as a process, its output piped."""
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_a_process_syncs_prints_and_exits_with_its_status(tmp_path: Path, remote: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    (one / "prefs.md").write_text("- editor: vim\n")
    assert main(["sync", str(one), "--remote", str(remote), "--machine", "one"]) == 0
    assert main(["sync", str(two), "--remote", str(remote), "--machine", "two"]) == 0
    MemoryStore(one, actor="agent:a", settings=Settings()).str_replace(
        "/memories/prefs.md", "vim", "emacs"
    )
    MemoryStore(two, actor="agent:b", settings=Settings()).insert(
        "/memories/prefs.md", 1, "- shell: fish"
    )
    done = memtui("sync", str(one), "--machine", "one")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"In sync with {remote} (main): committed 1 file, pushed.\n"
    done = memtui("sync", str(two), "--machine", "two")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"In sync with {remote} (main): committed 1 file, pulled 1 file, pushed.\n"
    )
    assert (two / "prefs.md").read_text() == "- editor: emacs\n- shell: fish\n"
    assert remote_files(remote)["prefs.md"] == "- editor: emacs\n- shell: fish\n"
    assert not (two / ".memtui" / "git" / "index.lock").exists()
    again = memtui("sync", str(two), "--machine", "two")
    assert (again.returncode, again.stdout) == (
        0,
        f"In sync with {remote} (main): nothing to do.\n",
    )


def test_a_process_reports_a_store_not_set_up_and_a_gone_remote_in_one_line(
    tmp_path: Path, remote: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    done = memtui("sync", str(plain))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"memtui sync: {plain} is not set up for sync: run `memtui sync {plain} --remote URL` "
        "once\n"
    )
    assert not (plain / ".memtui" / "git").exists()
    one = tmp_path / "one"
    one.mkdir()
    (one / "a.md").write_text("a\n")
    assert main(["sync", str(one), "--remote", str(remote), "--machine", "one"]) == 0
    remote.rename(tmp_path / "gone.git")
    done = memtui("sync", str(one), "--machine", "one")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("memtui sync: git fetch: ")
    assert done.stderr.count("\n") == 1
