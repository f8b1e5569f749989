"""Every CLI line that shows a file name, an actor or a history record shows it display-safe."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))
TITLE = "\x1b]0;owned\x07"
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run memtui without a config file."""
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    return subprocess.run([MEMTUI, *args], capture_output=True, env=env, timeout=60)


def test_undo_prints_hostile_file_names_as_visible_symbols(tmp_path: Path) -> None:
    name = f"n{TITLE}{CLIPBOARD}.md"
    MemoryStore(tmp_path, actor="agent:t", settings=Settings()).history.close()
    (tmp_path / name).write_text("outside\n")
    store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    (event,) = store.history.events(command="external")
    store.close()
    done = run("undo", str(tmp_path), str(event.id), "--actor", "dana")
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stdout + done.stderr and b"\x07" not in done.stdout
    assert done.stdout.decode() == (
        f"Reverted event {event.id} (external /memories/n␛]0;owned␇␛]52;c;ZWNobyBvd25lZA==␇.md)\n"
    )
    assert not (tmp_path / name).exists()
    (tmp_path / name).write_text("again\n")
    again = run("undo", str(tmp_path), str(event.id + 1), "--actor", "dana")
    assert again.returncode == 1
    assert b"\x1b" not in again.stderr and b"\x07" not in again.stderr
    assert again.stderr.decode().startswith("memtui undo: Conflict: /memories/n␛]0;owned␇␛]52;c;")


def test_a_failure_line_naming_a_hostile_path_is_display_safe(tmp_path: Path) -> None:
    folder = tmp_path / f"f{TITLE}"
    folder.write_text("a file, not a folder")
    done = run("log", str(folder))
    assert done.returncode == 2
    assert done.stderr.decode() == f"memtui log: {tmp_path}/f␛]0;owned␇ is not a folder\n"


def test_changes_and_approve_print_hostile_names_and_actors_as_visible_symbols(
    tmp_path: Path,
) -> None:
    MemoryStore(tmp_path, actor="agent:t", settings=Settings()).history.close()
    agent = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    agent.create(f"/memories/n{TITLE}.md", "hi\n")
    agent.close()
    listed = run("changes", str(tmp_path))
    assert listed.returncode == 0, listed.stderr
    assert b"\x1b" not in listed.stdout and b"\x07" not in listed.stdout
    assert "/memories/n␛]0;owned␇.md" in listed.stdout.decode()
    done = run("approve", str(tmp_path), "1", "--actor", "dana")
    assert (done.returncode, done.stdout.decode()) == (0, "Approved 1 change as human:dana: 1\n")
