"""Daily use on the command line: a refused undo says how to force it, and `memtui log` fits
its path column before the result's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def run(*args: str, columns: int = 200) -> subprocess.CompletedProcess[str]:
    """Run `memtui ARGS` with an isolated config and a terminal `columns` wide."""
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "COLUMNS": str(columns),
        "MEMTUI_ACTOR": "ann",
    }
    return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=env, timeout=60)


def test_a_conflicting_undo_names_the_force_flag(tmp_path: Path) -> None:
    """The core's conflict says what changed; the command line adds `--force`, never `force`."""
    store = MemoryStore(tmp_path / "mem", actor="agent:claude", settings=Settings())
    store.create("/memories/a.md", "one\n")
    edited = store.str_replace("/memories/a.md", "one", "two")
    store.str_replace("/memories/a.md", "two", "three")
    done = run("undo", str(store.root), str(edited.event_id))
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("memtui undo: Conflict: /memories/a.md changed since event ")
    assert done.stderr.endswith(". Use --force to undo it anyway.\n")
    assert "Use force" not in done.stderr
    assert (store.root / "a.md").read_text() == "three\n"
