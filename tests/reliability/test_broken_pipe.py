"""A reader that stops early (`memtui export DIR | head -1`) ends a command quietly, status 141."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MEMTUI = str(Path(sys.executable).with_name("memtui"))
NOTES = 600
FOLDER = "projects/" + "a-long-folder-name-" * 4
"""Long paths make every line long, so every command writes far more than a pipe holds."""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Enough notes and events that every command writes far more than a pipe holds (64 KiB);
    the notes are old, so `stale` lists each of them."""
    root = tmp_path_factory.mktemp("pipe") / "mem"
    memory = MemoryStore(root, actor="agent:claude", settings=Settings())
    for i in range(NOTES):
        memory.create(
            f"/memories/{FOLDER}/note-{i:04}-{'with-a-long-name-' * 5}.md",
            f"---\ntitle: Note {i}\n---\n\n- [fact] hello world number {i}, padded with words "
            "so that every line of output is long enough #tag\n",
        )
    long_ago = time.time() - 200 * 86400
    for note in (root / FOLDER).iterdir():
        os.utime(note, (long_ago, long_ago))
    return root


@pytest.mark.parametrize(
    "args",
    [
        ("export", "{root}"),
        ("export", "{root}", "--format", "json", "--warnings"),
        ("search", "{root}", "hello", "--json", "--limit", "1000"),
        ("search", "{root}", "hello", "--limit", "1000"),
        ("stale", "{root}", "--limit", "0"),
        ("stale", "{root}", "--json", "--limit", "0"),
        ("log", "{root}", "--json", "--limit", "0"),
        ("log", "{root}", "--limit", "0"),
    ],
)
def test_a_closed_pipe_ends_the_command_without_a_traceback(
    store: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    command = [MEMTUI, *(a.format(root=store) for a in args)]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.readline()
        process.stdout.close()
        errors = process.stderr.read().decode()
        status = process.wait(timeout=60)
    assert errors == ""
    assert status == 141
