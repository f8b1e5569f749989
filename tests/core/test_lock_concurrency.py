"""Several processes editing the same files at once: no lost update, whole files, one event per
call."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

PROCESSES = 4
EDITS = 15

WORKER = """
import sys
from memtui.core.config import Settings
from memtui.core.store import MemoryStore

root, number, edits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = MemoryStore(root, actor=f"agent:p{number}", settings=Settings())
for edit in range(edits):
    replaced = store.str_replace(
        "/memories/shared.md", f"p{number}-slot{edit}\\n", f"p{number}-done{edit}\\n"
    )
    inserted = store.insert("/memories/log.md", 0, f"p{number}-line{edit}")
    assert not replaced.is_error, replaced.content
    assert not inserted.is_error, inserted.content
"""


def test_concurrent_processes_lose_no_update(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:setup", settings=Settings())
    slots = "".join(f"p{n}-slot{e}\n" for n in range(PROCESSES) for e in range(EDITS))
    store.create("/memories/shared.md", slots)
    store.create("/memories/log.md", "start\n")

    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(tmp_path), str(n), str(EDITS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for n in range(PROCESSES)
    ]
    failures = [w.communicate()[1].decode() for w in workers if w.wait() != 0]
    assert failures == []

    expected_shared = "".join(f"p{n}-done{e}\n" for n in range(PROCESSES) for e in range(EDITS))
    assert (tmp_path / "shared.md").read_text() == expected_shared
    log_lines = (tmp_path / "log.md").read_text().split("\n")
    assert log_lines[-2:] == ["start", ""]
    assert sorted(log_lines[:-2]) == sorted(
        f"p{n}-line{e}" for n in range(PROCESSES) for e in range(EDITS)
    )
    history = store.history
    for n in range(PROCESSES):
        assert len(history.events(actor=f"agent:p{n}", command="str_replace")) == EDITS
        assert len(history.events(actor=f"agent:p{n}", command="insert")) == EDITS
    assert len(history.events()) == 2 + 2 * PROCESSES * EDITS
    assert all(not event.is_error for event in history.events())
    inserts = history.events(path="/memories/log.md", command="insert", newest_first=False)
    for earlier, later in itertools.pairwise(inserts):
        assert later.before_hash == earlier.after_hash
