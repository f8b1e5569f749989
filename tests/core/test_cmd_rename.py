"""The `rename` command (R1-R8, D9-D10, M1, M4): exact messages and resulting trees."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.vias import entries

Run = Callable[..., Any]


def rename(run: Run, old: str, new: str) -> tuple[str, bool]:
    """Run rename and return (content, is_error)."""
    outcome = run({"command": "rename", "old_path": old, "new_path": new})
    return outcome.content, outcome.is_error


def test_r1_rename_creates_parents(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    assert rename(cmd_run, "/memories/a.md", "/memories/x/y/b.md") == (
        "Successfully renamed /memories/a.md to /memories/x/y/b.md",
        False,
    )
    assert entries(cmd_root) == ["x"]
    assert (cmd_root / "x" / "y" / "b.md").read_bytes() == b"a"
    assert stat.S_IMODE((cmd_root / "x").stat().st_mode) == 0o700


def test_r1_case_only_rename(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    assert rename(cmd_run, "/memories/a.md", "/memories/A.md")[1] is False
    assert entries(cmd_root) == ["A.md"]


@pytest.mark.parametrize(
    "new", ["/memories/b.md", "/memories/a.md", "/memories/d", "/memories", "/memories/"]
)
def test_r2_r5_destination_exists(cmd_root: Path, cmd_run: Run, new: str) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    (cmd_root / "b.md").write_bytes(b"b")
    (cmd_root / "d").mkdir()
    assert rename(cmd_run, "/memories/a.md", new) == (
        f"Error: The destination {new} already exists",
        True,
    )
    assert (cmd_root / "a.md").read_bytes() == b"a"
    assert (cmd_root / "b.md").read_bytes() == b"b"


def test_r2_destination_checked_before_source(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "b.md").write_bytes(b"b")
    assert rename(cmd_run, "/memories/missing", "/memories/b.md") == (
        "Error: The destination /memories/b.md already exists",
        True,
    )


def test_r3_source_missing_after_creating_parents(cmd_root: Path, cmd_run: Run) -> None:
    assert rename(cmd_run, "/memories/missing", "/memories/new/dir/x") == (
        "Error: The path /memories/missing does not exist",
        True,
    )
    assert os.listdir(cmd_root / "new") == ["dir"]
    assert os.listdir(cmd_root / "new" / "dir") == []


@pytest.mark.parametrize("old", ["/memories", "/memories/", "/memories/."])
def test_r4_root_cannot_be_renamed(cmd_root: Path, cmd_run: Run, old: str) -> None:
    assert rename(cmd_run, old, "/memories/x") == (
        "Cannot rename the /memories directory itself",
        True,
    )
    assert entries(cmd_root) == []


def test_r6_into_own_subtree(
    cmd_root: Path, cmd_run: Run, cmd_snapshot: Callable[..., Any]
) -> None:
    (cmd_root / "d").mkdir()
    (cmd_root / "d" / "n.md").write_bytes(b"n")
    before = cmd_snapshot(cmd_root)
    assert rename(cmd_run, "/memories/d", "/memories/d/sub/x") == (
        "Cannot move /memories/d into itself",
        True,
    )
    assert cmd_snapshot(cmd_root) == before


def test_r6_missing_source_below_itself(cmd_root: Path, cmd_run: Run) -> None:
    assert rename(cmd_run, "/memories/m", "/memories/m/x") == (
        "Error: The path /memories/m does not exist",
        True,
    )
    assert entries(cmd_root) == []


def test_r6_below_a_regular_file(
    cmd_root: Path, cmd_run: Run, cmd_snapshot: Callable[..., Any]
) -> None:
    (cmd_root / "a.md").write_bytes(b"a")
    (cmd_root / "f.md").write_bytes(b"f")
    before = cmd_snapshot(cmd_root)
    for new in ("/memories/f.md/x", "/memories/f.md/y/z", "/memories/a.md/inside"):
        assert rename(cmd_run, "/memories/a.md", new) == (
            f"Cannot create {new}: a parent of it is a file",
            True,
        )
    assert cmd_snapshot(cmd_root) == before


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("/x/a", "/y/b", "Path must start with /memories, got: /x/a"),
        ("/memories/a", "/y/b", "Path must start with /memories, got: /y/b"),
        ("/memories/../a", "/y/b", "Path /memories/../a would escape /memories directory"),
        (
            "/memories/a",
            "/memories/.memtui/a",
            "The path /memories/.memtui/a is reserved for memtui's history",
        ),
    ],
)
def test_r7_first_invalid_path_wins(
    cmd_root: Path, cmd_run: Run, old: str, new: str, message: str
) -> None:
    (cmd_root / "a").write_bytes(b"a")
    assert rename(cmd_run, old, new) == (message, True)
    assert entries(cmd_root) == ["a"]


def test_r8_directory_subtree_moves(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "d" / "e").mkdir(parents=True)
    (cmd_root / "d" / "e" / "n.md").write_bytes(b"n")
    (cmd_root / "d" / ".h").write_bytes(b"h")
    assert rename(cmd_run, "/memories/d", "/memories/z/d2") == (
        "Successfully renamed /memories/d to /memories/z/d2",
        False,
    )
    assert entries(cmd_root) == ["z"]
    assert (cmd_root / "z" / "d2" / "e" / "n.md").read_bytes() == b"n"
    assert (cmd_root / "z" / "d2" / ".h").read_bytes() == b"h"


def test_fifo_can_be_renamed(cmd_root: Path, cmd_run: Run) -> None:
    os.mkfifo(cmd_root / "p")
    assert rename(cmd_run, "/memories/p", "/memories/q")[1] is False
    assert stat.S_ISFIFO((cmd_root / "q").lstat().st_mode)


def test_symlink_source_moves_the_target(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "t.md").write_bytes(b"t")
    (cmd_root / "l.md").symlink_to("t.md")
    assert rename(cmd_run, "/memories/l.md", "/memories/moved.md")[1] is False
    assert sorted(entries(cmd_root)) == ["l.md", "moved.md"]
    assert (cmd_root / "moved.md").read_bytes() == b"t"


def test_m1_rename_out_of_reserved_refused(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / ".memtui").mkdir()
    (cmd_root / ".memtui" / "kept").write_bytes(b"kept")
    outcome = cmd_run(
        {"command": "rename", "old_path": "/memories/.memtui", "new_path": "/memories/h"}
    )
    assert (outcome.content, outcome.flags) == (
        "The path /memories/.memtui is reserved for memtui's history",
        ("security:refused", "security:reserved"),
    )
    assert os.listdir(cmd_root) == [".memtui"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "/memories/missing",
            "/memories/f.md/x",
            "Error: The path /memories/missing does not exist",
        ),
        (
            "/memories/missing",
            "/memories/f.md/y/x",
            "Cannot create /memories/f.md/y/x: a parent of it is a file",
        ),
        (
            "/memories/f.md/inner",
            "/memories/new.md",
            "Error: The path /memories/f.md/inner does not exist",
        ),
    ],
)
def test_missing_source_and_file_parent_follow_sdk_order(
    cmd_root: Path, cmd_run: Run, cmd_snapshot: Callable[..., Any], old: str, new: str, message: str
) -> None:
    (cmd_root / "f.md").write_bytes(b"f")
    before = cmd_snapshot(cmd_root)
    assert rename(cmd_run, old, new) == (message, True)
    assert cmd_snapshot(cmd_root) == before
