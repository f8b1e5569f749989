"""The `str_replace` command (S1-S10, D2-D4): exact messages, snippets and bytes on disk."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.core.vias import entries

Run = Callable[..., Any]
EDITED = (
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
)
TEN_LINES = "".join(f"line {n}\n" for n in range(1, 11))


def replace(run: Run, path: str, old: str, new: str | None) -> tuple[str, bool]:
    """Run str_replace (omitting new_str when None) and return (content, is_error)."""
    command: dict[str, object] = {"command": "str_replace", "path": path, "old_str": old}
    if new is not None:
        command["new_str"] = new
    outcome = run(command)
    return outcome.content, outcome.is_error


def test_s1_success_snippet_and_bytes(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(TEN_LINES.encode())
    assert replace(cmd_run, "/memories/f.txt", "line 5", "LINE FIVE") == (
        EDITED
        + "     3\tline 3\n     4\tline 4\n     5\tLINE FIVE\n     6\tline 6\n     7\tline 7",
        False,
    )
    assert (cmd_root / "f.txt").read_bytes() == TEN_LINES.replace("line 5", "LINE FIVE").encode()
    assert stat.S_IMODE((cmd_root / "f.txt").stat().st_mode) == 0o600
    assert entries(cmd_root) == ["f.txt"]


def test_s1_snippet_clipped_at_start_and_shows_trailing_empty_line(
    cmd_root: Path, cmd_run: Run
) -> None:
    (cmd_root / "f.txt").write_bytes(TEN_LINES.encode())
    assert replace(cmd_run, "/memories/f.txt", "line 1\n", "first\n") == (
        EDITED + "     1\tfirst\n     2\tline 2\n     3\tline 3",
        False,
    )
    assert replace(cmd_run, "/memories/f.txt", "line 10", "last") == (
        EDITED + "     8\tline 8\n     9\tline 9\n    10\tlast\n    11\t",
        False,
    )


def test_s1_window_does_not_grow_with_multiline_new_str(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"a\nb\nc\n")
    assert replace(cmd_run, "/memories/f.txt", "b", "B1\nB2\nB3\nB4") == (
        EDITED + "     1\ta\n     2\tB1\n     3\tB2\n     4\tB3",
        False,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"a\nB1\nB2\nB3\nB4\nc\n"


def test_s2_not_found(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"abc\n")
    assert replace(cmd_run, "/memories/f.txt", "x`y\nz", "q") == (
        "No replacement was performed, old_str `x`y\nz` did not appear verbatim in "
        "/memories/f.txt.",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"abc\n"


def test_s3_multiple_occurrences_one_entry_per_match(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"ab ab\nx\nab\ny\nab\n")
    assert replace(cmd_run, "/memories/f.txt", "ab", "Q") == (
        "No replacement was performed. Multiple occurrences of old_str `ab` in lines: 1, 1, 3, "
        "5. Please ensure it is unique",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"ab ab\nx\nab\ny\nab\n"


@pytest.mark.parametrize("path", ["/memories/missing.txt", "/memories/f.txt/x"])
def test_s4_missing_path(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "f.txt").write_bytes(b"f")
    assert replace(cmd_run, path, "a", "b") == (
        f"Error: The path {path} does not exist. Please provide a valid path.",
        True,
    )


@pytest.mark.parametrize(
    "path", ["/memories/dir", "/memories/pipe", "/memories", "/memories/dangling"]
)
def test_s5_not_a_regular_file_gets_missing_message(
    cmd_root: Path, cmd_run: Run, path: str
) -> None:
    (cmd_root / "dir").mkdir()
    os.mkfifo(cmd_root / "pipe")
    (cmd_root / "dangling").symlink_to("nowhere")
    assert replace(cmd_run, path, "a", "b") == (
        f"Error: The path {path} does not exist. Please provide a valid path.",
        True,
    )


def test_s6_empty_old_str_on_empty_file(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "e.txt").write_bytes(b"")
    assert replace(cmd_run, "/memories/e.txt", "", "new\ntext") == (
        EDITED + "     1\tnew\n     2\ttext",
        False,
    )
    assert (cmd_root / "e.txt").read_bytes() == b"new\ntext"


def test_s6_empty_old_str_on_non_empty_file(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"ab\nc")
    assert replace(cmd_run, "/memories/f.txt", "", "x") == (
        "No replacement was performed. Multiple occurrences of old_str `` in lines: 1, 1, 1, 2, "
        "2. Please ensure it is unique",
        True,
    )


def test_s7_multiline_crlf_and_empty_new_str(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "w.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    assert replace(cmd_run, "/memories/w.txt", "a\r\nb\r\n", "") == (
        EDITED + "     1\tc\r\n     2\t",
        False,
    )
    assert (cmd_root / "w.txt").read_bytes() == b"c\r\n"


def test_s7_crlf_kept_in_snippet(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert replace(cmd_run, "/memories/w.txt", "two", "2") == (
        EDITED + "     1\tone\r\n     2\t2\r\n     3\t",
        False,
    )
    assert (cmd_root / "w.txt").read_bytes() == b"one\r\n2\r\n"


@pytest.mark.parametrize("new_str", [None, "__omit_as_null__"])
def test_d4_s8_omitted_new_str_deletes(cmd_root: Path, cmd_run: Run, new_str: str | None) -> None:
    (cmd_root / "f.txt").write_bytes(b"keep drop keep\n")
    command: dict[str, object] = {
        "command": "str_replace",
        "path": "/memories/f.txt",
        "old_str": "drop ",
    }
    if new_str is not None:
        command["new_str"] = None
    outcome = cmd_run(command)
    assert (outcome.content, outcome.is_error) == (EDITED + "     1\tkeep keep\n     2\t", False)
    assert (cmd_root / "f.txt").read_bytes() == b"keep keep\n"


def test_s9_not_utf8(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "b.dat").write_bytes(b"\xff\xfeabc\n")
    assert replace(cmd_run, "/memories/b.dat", "abc", "x") == (
        "The file /memories/b.dat is not valid UTF-8 text",
        True,
    )
    assert (cmd_root / "b.dat").read_bytes() == b"\xff\xfeabc\n"


def test_s10_overlap_counting(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.txt").write_bytes(b"aaa")
    assert replace(cmd_run, "/memories/a.txt", "aa", "Z") == (EDITED + "     1\tZa", False)
    assert (cmd_root / "a.txt").read_bytes() == b"Za"
    (cmd_root / "b.txt").write_bytes(b"aaaa\nxaaa\n")
    assert replace(cmd_run, "/memories/b.txt", "aa", "Z") == (
        "No replacement was performed. Multiple occurrences of old_str `aa` in lines: 1, 1, 1, "
        "2, 2. Please ensure it is unique",
        True,
    )


def test_same_old_and_new_succeeds(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"x\n")
    assert replace(cmd_run, "/memories/f.txt", "x", "x") == (EDITED + "     1\tx\n     2\t", False)


def test_unencodable_new_str_leaves_file_untouched(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"abc\n")
    assert replace(cmd_run, "/memories/f.txt", "b", "\udc80") == (
        "The text for /memories/f.txt is not valid Unicode",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"abc\n"
    assert entries(cmd_root) == ["f.txt"]


def test_symlink_edits_target_and_keeps_link(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "t.md").write_bytes(b"old\n")
    (cmd_root / "l.md").symlink_to("t.md")
    assert replace(cmd_run, "/memories/l.md", "old", "new")[1] is False
    assert (cmd_root / "t.md").read_bytes() == b"new\n"
    assert os.readlink(cmd_root / "l.md") == "t.md"


def test_permissive_mode_tightened_to_0600(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "f.txt").write_bytes(b"a")
    (cmd_root / "f.txt").chmod(0o644)
    assert replace(cmd_run, "/memories/f.txt", "a", "b")[1] is False
    assert stat.S_IMODE((cmd_root / "f.txt").stat().st_mode) == 0o600


def test_failed_write_keeps_old_bytes_and_no_temp(
    cmd_root: Path, cmd_run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memtui.core.applying.atomic as atomic

    def failing_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    (cmd_root / "f.txt").write_bytes(b"abc\n")
    monkeypatch.setattr(atomic.os, "fsync", failing_fsync)
    assert replace(cmd_run, "/memories/f.txt", "b", "B") == (
        "Cannot edit /memories/f.txt: Input/output error",
        True,
    )
    assert (cmd_root / "f.txt").read_bytes() == b"abc\n"
    assert entries(cmd_root) == ["f.txt"]
