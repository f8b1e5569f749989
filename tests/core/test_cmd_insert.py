"""The `insert` command (I1-I6, D5-D7): exact messages and bytes on disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.vias import entries

Run = Callable[..., Any]


def insert(run: Run, path: str, line: object, text: str) -> tuple[str, bool]:
    """Run insert and return (content, is_error)."""
    outcome = run({"command": "insert", "path": path, "insert_line": line, "insert_text": text})
    return outcome.content, outcome.is_error


@pytest.mark.parametrize(
    ("before", "line", "text", "after"),
    [
        (b"a\nb\n", 0, "new", b"new\na\nb\n"),
        (b"a\nb\n", 1, "new", b"a\nnew\nb\n"),
        (b"a\nb\n", 2, "new", b"a\nb\nnew\n"),
        (b"a\nb", 2, "c", b"a\nb\nc\n"),
        (b"", 0, "", b"\n"),
        (b"a\n", 1, "x\n\n\n", b"a\nx\n"),
        (b"a\n", 0, "x\r\n", b"x\r\na\n"),
        (b"a\n", 1, "m1\nm2", b"a\nm1\nm2\n"),
        (b"a\n\n", 2, "z", b"a\n\nz\n"),
    ],
)
def test_i1_insert_bytes(
    cmd_root: Path, cmd_run: Run, before: bytes, line: int, text: str, after: bytes
) -> None:
    (cmd_root / "f.txt").write_bytes(before)
    assert insert(cmd_run, "/memories/f.txt", line, text) == (
        "The file /memories/f.txt has been edited.",
        False,
    )
    assert (cmd_root / "f.txt").read_bytes() == after
    assert stat.S_IMODE((cmd_root / "f.txt").stat().st_mode) == 0o600
    assert entries(cmd_root) == ["f.txt"]


@pytest.mark.parametrize(
    ("before", "line", "n_lines"),
    [
        (b"a\nb\n", 3, 2),
        (b"a\nb\n", -1, 2),
        (b"", 1, 0),
        (b"a", 2, 1),
        (b"a\n\n", 3, 2),
        (b"a\r\nb\r\n", 5, 2),
    ],
)
def test_i2_d7_bad_line(
    cmd_root: Path, cmd_run: Run, before: bytes, line: int, n_lines: int
) -> None:
    (cmd_root / "f.txt").write_bytes(before)
    assert insert(cmd_run, "/memories/f.txt", line, "x") == (
        f"Error: Invalid `insert_line` parameter: {line}. It should be within the range of "
        f"lines of the file: [0, {n_lines}]",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == before


@pytest.mark.parametrize("path", ["/memories/missing.txt", "/memories/f.txt/x", "/memories/d/"])
def test_i3_d5_missing(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "f.txt").write_bytes(b"f")
    (cmd_root / "d").mkdir()
    expected = (f"Error: The path {path} does not exist", True)
    assert insert(cmd_run, path, 0, "x") == expected


@pytest.mark.parametrize("path", ["/memories/d", "/memories/pipe", "/memories"])
def test_i4_d6_not_a_regular_file(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "d").mkdir()
    os.mkfifo(cmd_root / "pipe")
    assert insert(cmd_run, path, 0, "x") == (f"Error: The path {path} does not exist", True)


def test_i5_crlf_without_final_newline(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "w.txt").write_bytes(b"a\r\nb\r\nc")
    assert insert(cmd_run, "/memories/w.txt", 1, "new")[1] is False
    assert (cmd_root / "w.txt").read_bytes() == b"a\r\nnew\nb\r\nc\n"


def test_i6_empty_file_has_zero_lines(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "e.txt").write_bytes(b"")
    assert insert(cmd_run, "/memories/e.txt", 1, "x") == (
        "Error: Invalid `insert_line` parameter: 1. It should be within the range of lines of "
        "the file: [0, 0]",
        True,
    )
    assert insert(cmd_run, "/memories/e.txt", 0, "first") == (
        "The file /memories/e.txt has been edited.",
        False,
    )
    assert (cmd_root / "e.txt").read_bytes() == b"first\n"


def test_coerced_insert_line(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"a\nb\n")
    assert insert(cmd_run, "/memories/f.txt", " 1 ", "s")[1] is False
    assert insert(cmd_run, "/memories/f.txt", 3.0, "f")[1] is False
    assert insert(cmd_run, "/memories/f.txt", True, "t")[1] is False
    assert (cmd_root / "f.txt").read_bytes() == b"a\nt\ns\nb\nf\n"


def test_not_utf8(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "b.dat").write_bytes(b"\xc3(\n")
    assert insert(cmd_run, "/memories/b.dat", 0, "x") == (
        "The file /memories/b.dat is not valid UTF-8 text",
        True,
    )
    assert (cmd_root / "b.dat").read_bytes() == b"\xc3(\n"


def test_unencodable_text_leaves_file_untouched(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"a\n")
    assert insert(cmd_run, "/memories/f.txt", 0, "\ud83d") == (
        "The text for /memories/f.txt is not valid Unicode",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"a\n"
    assert entries(cmd_root) == ["f.txt"]


def test_bad_line_checked_before_text_encoding(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"a\n")
    assert insert(cmd_run, "/memories/f.txt", 9, "\ud83d")[0].startswith(
        "Error: Invalid `insert_line` parameter: 9."
    )
