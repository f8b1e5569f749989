"""The `delete` command (D1-D5, D8): exact messages and what is left on disk."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.vias import entries

Run = Callable[..., Any]


def delete(run: Run, path: str) -> tuple[str, bool]:
    """Run delete and return (content, is_error)."""
    outcome = run({"command": "delete", "path": path})
    return outcome.content, outcome.is_error


def test_d1_delete_file(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    (cmd_root / "b.md").write_bytes(b"b")
    assert delete(cmd_run, "/memories//a.md") == ("Successfully deleted /memories//a.md", False)
    assert entries(cmd_root) == ["b.md"]


def test_d2_delete_directory_recursively_with_hidden_content(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "d" / "e" / "f").mkdir(parents=True)
    (cmd_root / "d" / ".hidden").write_bytes(b"h")
    (cmd_root / "d" / "e" / "f" / "x.md").write_bytes(b"x")
    (cmd_root / "keep.md").write_bytes(b"k")
    assert delete(cmd_run, "/memories/d/") == ("Successfully deleted /memories/d/", False)
    assert entries(cmd_root) == ["keep.md"]


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/.", "/memories//./"])
def test_d3_root_refused_in_any_spelling(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    assert delete(cmd_run, path) == ("Cannot delete the /memories directory itself", True)
    assert entries(cmd_root) == ["a.md"]


def test_d3_symlink_to_root_refused(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "self").symlink_to(".")
    assert delete(cmd_run, "/memories/self") == (
        "Cannot delete the /memories directory itself",
        True,
    )
    assert entries(cmd_root) == ["self"]


@pytest.mark.parametrize(
    "path", ["/memories/missing", "/memories/pipe", "/memories/dangling", "/memories/f.md/x"]
)
def test_d4_d8_missing_fifo_dangling(cmd_root: Path, cmd_run: Run, path: str) -> None:
    os.mkfifo(cmd_root / "pipe")
    (cmd_root / "dangling").symlink_to("nowhere")
    (cmd_root / "f.md").write_bytes(b"f")
    assert delete(cmd_run, path) == (f"Error: The path {path} does not exist", True)
    assert sorted(entries(cmd_root)) == ["dangling", "f.md", "pipe"]


def test_d5_symlink_deletes_target_and_leaves_link(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "t.md").write_bytes(b"t")
    (cmd_root / "l.md").symlink_to("t.md")
    assert delete(cmd_run, "/memories/l.md") == ("Successfully deleted /memories/l.md", False)
    assert entries(cmd_root) == ["l.md"]
    assert os.readlink(cmd_root / "l.md") == "t.md"


def test_reserved_folder_cannot_be_deleted(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / ".memtui").mkdir()
    (cmd_root / ".memtui" / "kept").write_bytes(b"kept")
    outcome = cmd_run({"command": "delete", "path": "/memories/.memtui"})
    assert (outcome.content, outcome.is_error, outcome.flags) == (
        "The path /memories/.memtui is reserved for memtui's history",
        True,
        ("security:refused", "security:reserved"),
    )
    assert (cmd_root / ".memtui" / "kept").read_bytes() == b"kept"
