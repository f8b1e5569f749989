"""`memtui log`, `changes` and `undo` show names that are not UTF-8 or hold a line break escaped
and whole, and undo restores them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run memtui without a config file, on a wide terminal."""
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull, "COLUMNS": "200"}
    return subprocess.run([MEMTUI, *args], capture_output=True, env=env, timeout=60)


def outside_changes(root: Path) -> None:
    """Record (as memtui's start-up does) a name with a line break deleted outside memtui and a
    Latin-1 name created outside it."""
    root.mkdir()
    (root / "new\nline.md").write_text("first\n")
    MemoryStore(root, actor="human:dana", settings=Settings()).history.close()
    (root / "new\nline.md").unlink()
    Path(os.fsdecode(bytes(root) + b"/caf\xe9.md")).write_bytes(b"latin-1\n")
    store = MemoryStore(root, actor="human:dana", settings=Settings())
    assert store.recovery is not None and len(store.recovery.external_event_ids) == 2
    store.close()


def test_log_shows_a_name_with_a_line_break_escaped_and_whole(tmp_path: Path) -> None:
    root = tmp_path / "store"
    outside_changes(root)
    done = run("log", str(root))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.decode().splitlines()
    assert len(lines) == 5, lines
    deleted = next(line for line in lines if "deleted" in line).split()
    assert deleted[5:] == ["/memories/new␊line.md"] * 2 + ["was", "deleted", "outside", "memtui"]
    created = next(line for line in lines if "created" in line).split()
    assert created[5:] == ["/memories/caf\\xe9.md"] * 2 + ["was", "created", "outside", "memtui"]


def test_changes_and_undo_name_such_files_escaped_and_undo_restores_them(tmp_path: Path) -> None:
    root = tmp_path / "store"
    outside_changes(root)
    listed = run("changes", str(root))
    assert listed.returncode == 0, listed.stderr
    shown = listed.stdout.decode()
    assert "/memories/new␊line.md" in shown and "/memories/caf\\xe9.md" in shown
    store = MemoryStore(root, actor="human:dana", settings=Settings())
    deleted = next(event for event in store.history.events() if "deleted" in event.result)
    store.close()
    done = run("undo", str(root), str(deleted.id), "--actor", "dana")
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == (
        f"Reverted event {deleted.id} (external /memories/new␊line.md)\n"
    )
    assert (root / "new\nline.md").read_bytes() == b"first\n"
