"""The before-state of a change: read only for commands that will run, and never an exception."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.cli import tool_cmd
from memtui.core.applying import snapshots
from memtui.core.config import Settings
from memtui.core.resolving.regular import FileRead
from memtui.core.store import MemoryStore

real_read = snapshots.read_limited


def files(root: Path, snapshot: Callable[[Path], dict[str, object]]) -> dict[str, object]:
    """The tree below `root` apart from memtui's own `.memtui`."""
    return {key: value for key, value in snapshot(root).items() if not key.startswith(".memtui")}


def make_store(root: Path) -> MemoryStore:
    """An agent store with a file and a folder of two files."""
    store = MemoryStore(root, actor="agent:t", settings=Settings(actor="t"))
    store.create("/memories/a.md", "a\n")
    store.create("/memories/d/x.md", "x\n")
    store.create("/memories/d/y.md", "y\n")
    return store


def refuse_reading(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make the snapshot reader fail with EACCES on files called `name`."""

    def guarded(folder: int, path: str, limit: int) -> FileRead:
        if path == name:
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real_read(folder, path, limit)

    monkeypatch.setattr(snapshots, "read_limited", guarded)


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every file the snapshot reader opens."""
    opened: list[str] = []

    def counting(folder: int, path: str, limit: int) -> FileRead:
        opened.append(path)
        return real_read(folder, path, limit)

    monkeypatch.setattr(snapshots, "read_limited", counting)
    return opened


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        (
            {"command": "str_replace", "path": "/memories/a.md", "old_str": "a", "new_str": "b"},
            "Cannot edit /memories/a.md: Permission denied",
        ),
        (
            {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "b"},
            "Cannot edit /memories/a.md: Permission denied",
        ),
        (
            {"command": "delete", "path": "/memories/d"},
            "Cannot delete /memories/d: Permission denied (/memories/d/x.md)",
        ),
        (
            {"command": "rename", "old_path": "/memories/d/", "new_path": "/memories/e"},
            "Cannot rename /memories/d/: Permission denied (/memories/d/x.md)",
        ),
    ],
)
def test_an_unreadable_before_state_is_a_recorded_error(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool_input: dict[str, object],
    message: str,
    cmd_snapshot: Callable[[Path], dict[str, object]],
) -> None:
    store = make_store(tmp_path)
    before = files(tmp_path, cmd_snapshot)
    refuse_reading(monkeypatch, "a.md" if tool_input.get("path") == "/memories/a.md" else "x.md")
    result = store.execute(tool_input)
    assert (result.content, result.is_error) == (message, True)
    event = store.history.event(result.event_id)
    assert event is not None
    assert (event.command, event.result, event.is_error) == (tool_input["command"], message, True)
    assert (event.before_hash, event.after_hash) == (None, None)
    assert files(tmp_path, cmd_snapshot) == before


def test_memtui_tool_prints_the_virtual_path_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    make_store(tmp_path)
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    refuse_reading(monkeypatch, "y.md")
    stdin = json.dumps({"command": "delete", "path": "/memories/d"}).encode() + b"\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = tool_cmd.run(Namespace(path=str(tmp_path), actor="cli", session=None))
    out, err = capsysbinary.readouterr()
    assert (status, err) == (0, b"")
    assert out == (
        b'{"is_error": true, "content": '
        b'"Cannot delete /memories/d: Permission denied (/memories/d/y.md)"}\n'
    )


@pytest.mark.parametrize(
    ("tool_input", "message"),
    [
        (
            {"command": "delete", "path": "/memories"},
            "Cannot delete the /memories directory itself",
        ),
        ({"command": "delete", "path": "/memories/d/.."}, None),
        (
            {"command": "delete", "path": "/memories/./"},
            "Cannot delete the /memories directory itself",
        ),
        (
            {"command": "rename", "old_path": "/memories/", "new_path": "/memories/z"},
            "Cannot rename the /memories directory itself",
        ),
        (
            {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/a.md"},
            "Error: The destination /memories/a.md already exists",
        ),
        (
            {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/in"},
            "Cannot move /memories/d into itself",
        ),
        (
            {"command": "str_replace", "path": "/memories/d", "old_str": "x", "new_str": "y"},
            "Error: The path /memories/d does not exist. Please provide a valid path.",
        ),
        (
            {"command": "insert", "path": "/memories", "insert_line": 0, "insert_text": "y"},
            "Error: The path /memories does not exist",
        ),
        (
            {"command": "delete", "path": "/memories/none"},
            "Error: The path /memories/none does not exist",
        ),
    ],
)
def test_a_refused_command_reads_no_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool_input: dict[str, object],
    message: str | None,
) -> None:
    store = make_store(tmp_path)
    store.history  # noqa: B018 - recovery reads the files once, before counting starts
    opened = count_reads(monkeypatch)
    result = store.execute(tool_input)
    if message is None:
        assert result.content.startswith("Path /memories/d/.. would escape")
    else:
        assert (result.content, result.is_error) == (message, True)
    assert opened == []


def test_a_change_still_keeps_every_file_of_its_before_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path)
    store.history  # noqa: B018 - recovery reads the files once, before counting starts
    opened = count_reads(monkeypatch)
    result = store.delete("/memories/d")
    assert (result.content, result.is_error) == ("Successfully deleted /memories/d", False)
    assert sorted(opened) == ["x.md", "y.md"]
    event = store.history.event(result.event_id)
    assert event is not None and store.history.texts(event) == ("x.md\ny.md\n", None)
