"""The `create` command (C1-C7, P11): exact messages, exact bytes and modes on disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtui.core.applying.dispatch import apply_command
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.tool_input import parse_command
from tests.core.vias import entries

Run = Callable[..., Any]


def create(run: Run, path: str, text: str) -> tuple[str, bool]:
    """Run create and return (content, is_error)."""
    outcome = run({"command": "create", "path": path, "file_text": text})
    return outcome.content, outcome.is_error


def mode(path: Path) -> int:
    """Permission bits of a path."""
    return stat.S_IMODE(path.stat().st_mode)


def test_c1_create_new_file_exact_bytes_and_mode(cmd_root: Path, cmd_run: Run) -> None:
    text = "line one\r\nzwei é 😀\n\n"
    assert create(cmd_run, "/memories/notes/n.md", text) == (
        "File created successfully at: /memories/notes/n.md",
        False,
    )
    assert (cmd_root / "notes" / "n.md").read_bytes() == text.encode("utf-8")
    assert mode(cmd_root / "notes" / "n.md") == 0o600
    assert mode(cmd_root / "notes") == 0o700


def test_c1_no_newline_added(cmd_root: Path, cmd_run: Run) -> None:
    assert create(cmd_run, "/memories/a", "no newline")[1] is False
    assert create(cmd_run, "/memories/empty", "")[1] is False
    assert (cmd_root / "a").read_bytes() == b"no newline"
    assert (cmd_root / "empty").read_bytes() == b""


def test_parents_created_0700_even_under_permissive_umask(cmd_root: Path, cmd_run: Run) -> None:
    old = os.umask(0)
    try:
        assert create(cmd_run, "/memories/a/b/c/d.md", "x")[1] is False
    finally:
        os.umask(old)
    assert [mode(cmd_root / p) for p in ("a", "a/b", "a/b/c", "a/b/c/d.md")] == [
        0o700,
        0o700,
        0o700,
        0o600,
    ]


def test_c2_existing_file_never_overwritten(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.md").write_bytes(b"original")
    assert create(cmd_run, "/memories/a.md", "new") == (
        "Error: File /memories/a.md already exists",
        True,
    )
    assert (cmd_root / "a.md").read_bytes() == b"original"


def test_c2_echoes_raw_path(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.md").write_bytes(b"original")
    assert create(cmd_run, "/memories//./a.md", "new") == (
        "Error: File /memories//./a.md already exists",
        True,
    )


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/dir", "/memories/dir/"])
def test_c3_directory_or_root_exists(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "dir").mkdir()
    assert create(cmd_run, path, "x") == (f"Error: File {path} already exists", True)
    assert sorted(entries(cmd_root)) == ["dir"]
    assert os.listdir(cmd_root / "dir") == []


@pytest.mark.parametrize("path", ["/memories", "/memories/", "/memories/./"])
def test_create_on_the_root_writes_nothing_beside_it(
    cmd_root: Path, cmd_run: Run, path: str
) -> None:
    parent = cmd_root.parent
    before = sorted(os.listdir(parent)), os.stat(parent).st_mtime_ns
    assert create(cmd_run, path, "x") == (f"Error: File {path} already exists", True)
    assert (sorted(os.listdir(parent)), os.stat(parent).st_mtime_ns) == before


def test_parents_created_before_existence_check_stay(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "dir").mkdir()
    assert create(cmd_run, "/memories/new/../dir", "x")[1] is True
    assert create(cmd_run, "/memories/dir", "x") == (
        "Error: File /memories/dir already exists",
        True,
    )


def test_c4_parent_is_a_file(
    cmd_root: Path, cmd_run: Run, cmd_snapshot: Callable[..., Any]
) -> None:
    (cmd_root / "f.txt").write_bytes(b"f")
    before = cmd_snapshot(cmd_root)
    for path in ("/memories/f.txt/x.md", "/memories/f.txt/a/b/x.md"):
        assert create(cmd_run, path, "x") == (
            f"Cannot create {path}: a parent of it is a file",
            True,
        )
    assert cmd_snapshot(cmd_root) == before


def test_c5_trailing_slash_creates_file(cmd_root: Path, cmd_run: Run) -> None:
    assert create(cmd_run, "/memories/dir/", "x") == (
        "File created successfully at: /memories/dir/",
        False,
    )
    assert (cmd_root / "dir").read_bytes() == b"x"


def test_c6_unencodable_text_leaves_nothing(cmd_root: Path, cmd_run: Run) -> None:
    assert create(cmd_run, "/memories/sub/dir/bad.md", "ok \ud800 bad") == (
        "The text for /memories/sub/dir/bad.md is not valid Unicode",
        True,
    )
    assert entries(cmd_root) == []


def test_c7_hidden_file_created_but_not_listed(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    assert create(cmd_run, "/memories/.hidden", "h") == (
        "File created successfully at: /memories/.hidden",
        False,
    )
    assert (cmd_root / ".hidden").read_bytes() == b"h"
    assert cmd_run({"command": "view", "path": "/memories"}).content.endswith(
        ":\n" + cmd_dir_size(cmd_root) + "\t/memories"
    )


def test_dangling_in_root_link_creates_its_target(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "link.md").symlink_to("target.md")
    assert create(cmd_run, "/memories/link.md", "t") == (
        "File created successfully at: /memories/link.md",
        False,
    )
    assert (cmd_root / "target.md").read_bytes() == b"t"
    assert os.readlink(cmd_root / "link.md") == "target.md"


def test_p11_missing_root_is_recreated(tmp_path: Path) -> None:
    root = tmp_path / "gone" / "memories"
    parsed = parse_command(root, {"command": "create", "path": "/memories/a.md", "file_text": "a"})
    assert not isinstance(parsed, CommandOutcome)
    assert not (tmp_path / "gone").exists()
    assert apply_command(root, parsed) == CommandOutcome(
        "File created successfully at: /memories/a.md", False
    )
    assert (root / "a.md").read_bytes() == b"a"
    assert mode(root) == 0o700


def test_no_temp_files_left(cmd_root: Path, cmd_run: Run) -> None:
    create(cmd_run, "/memories/a.md", "a")
    create(cmd_run, "/memories/a.md", "b")
    assert entries(cmd_root) == ["a.md"]


def test_write_failure_removes_partial_file(
    cmd_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memtui.core.applying.atomic as atomic

    def failing_write(fd: int, data: bytes) -> None:
        os.write(fd, data[:1])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic, "write_all", failing_write)
    parsed = parse_command(
        cmd_root, {"command": "create", "path": "/memories/a.md", "file_text": "abc"}
    )
    assert not isinstance(parsed, CommandOutcome)
    assert apply_command(cmd_root, parsed) == CommandOutcome(
        "Cannot create /memories/a.md: No space left on device", True
    )
    assert entries(cmd_root) == []
