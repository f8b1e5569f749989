"""A sync killed (SIGKILL) at any moment: the next sync finishes cleanly and nothing is lost."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.sync.conftest import Machine, remote_files, tree_files

MakeMachine = Callable[..., Machine]
MEMTUI = str(Path(sys.executable).with_name("memtui"))
NOTES = 60
ROUNDS = 10


def start_sync(one: Machine) -> subprocess.Popen[bytes]:
    """`memtui sync` of a machine in a process of its own."""
    return subprocess.Popen(
        [MEMTUI, "sync", str(one.root), "--machine", one.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def merge_pending(one: Machine) -> bool:
    """Whether the sync tables hold a merge in progress (read on a connection of its own)."""
    uri = f"file:{one.root / '.memtui' / 'history.db'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=5)) as conn:
        try:
            row = conn.execute("SELECT value FROM sync_meta WHERE key = 'merging'").fetchone()
        except sqlite3.OperationalError:
            return False
    return bool(row and row[0])


def wait_for_merge(one: Machine, process: subprocess.Popen[bytes]) -> bool:
    """Wait until the sync running in `process` is in the middle of a merge (True) or ends."""
    while process.poll() is None:
        if merge_pending(one):
            return True
        time.sleep(0.001)
    return False


@pytest.mark.slow
def test_a_sync_killed_at_any_moment_is_finished_by_the_next(
    machine: MakeMachine, remote: Path
) -> None:
    files = {f"n{i:03}.md": f"# Note {i}\n- start\n" for i in range(NOTES)}
    a = machine("a", files=files)
    b = machine("b")
    chance = random.Random(7)
    duration = 0.0
    written: list[str] = []
    killed = merging = 0
    for round_number in range(ROUNDS):
        for i in range(0, NOTES, 3):
            line = f"- a{round_number} in {i}"
            assert not a.agent().insert(f"/memories/n{i:03}.md", 2, line).is_error
            written.append(line)
        a.sync()
        for i in range(1, NOTES, 3):
            line = f"- b{round_number} in {i}"
            assert not b.agent("b").insert(f"/memories/n{i:03}.md", 2, line).is_error
            written.append(line)
        started = time.monotonic()
        process = start_sync(b)
        if round_number == 0:
            assert process.wait(timeout=60) == 0, process.stderr
            duration = time.monotonic() - started
            continue
        if round_number % 2:
            in_merge = wait_for_merge(b, process)
        else:
            time.sleep(chance.uniform(duration * 0.3, duration * 1.1))
            in_merge = False
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            killed += 1
            merging += in_merge
        process.wait(timeout=30)
        b.store.close()
        report = b.sync()
        assert report.clashes == []
    a.sync()
    print(f"{killed} of {ROUNDS} syncs killed, {merging} in the middle of a merge")
    assert killed >= ROUNDS // 2 and merging >= 1
    assert tree_files(a.root) == tree_files(b.root)
    text = "".join(data.decode() for data in tree_files(b.root).values())
    assert "<<<<<<<" not in text
    assert [line for line in written if line not in text] == []
    assert {name: data.decode() for name, data in tree_files(b.root).items()} == remote_files(
        remote
    )
    assert b.git("--work-tree", str(b.root), "status", "--porcelain").strip() == ""
    pulled = [e for e in b.store.history.events(command="pull") if e.actor == "agent:claude"]
    assert pulled, "the other machine's changes are in this machine's history"
