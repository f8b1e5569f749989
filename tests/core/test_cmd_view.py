"""The `view` command: directory listings (V1-V9, D11) and file views (F1-F7), byte-exact."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HEADER = (
    "Here're the files and directories up to 2 levels deep in {path}, "
    "excluding hidden items and node_modules:\n"
)
FILE_HEADER = "Here's the content of {path} with line numbers:\n"

Run = Callable[..., Any]


def view(run: Run, path: str, view_range: object = None) -> tuple[str, bool]:
    """Run view and return (content, is_error)."""
    command: dict[str, object] = {"command": "view", "path": path}
    if view_range is not None:
        command["view_range"] = view_range
    outcome = run(command)
    return outcome.content, outcome.is_error


def test_v1_empty_store(cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]) -> None:
    size = cmd_dir_size(cmd_root)
    assert view(cmd_run, "/memories") == (
        HEADER.format(path="/memories") + f"{size}\t/memories",
        False,
    )


def test_v1_root_on_ext4_is_4k(cmd_root: Path, cmd_run: Run) -> None:
    if os.stat(cmd_root).st_size != 4096:
        pytest.skip("directory size is filesystem-specific")
    assert view(cmd_run, "/memories")[0].endswith(":\n4K\t/memories")


def test_v2_v5_listing_order_depth_and_sizes(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    for name, size in [
        ("a.txt", 0),
        ("B.txt", 1023),
        ("10.txt", 1024),
        ("9.txt", 1025),
        ("_u.txt", 1),
        ("é.txt", 1536),
    ]:
        (cmd_root / name).write_bytes(b"x" * size)
    (cmd_root / "Z" / "deep" / "deeper").mkdir(parents=True)
    (cmd_root / "Z" / "inner.txt").write_bytes(b"abc")
    (cmd_root / "Z" / "deep" / "third-level.txt").write_bytes(b"hidden by depth")
    root_size, z_size, deep_size = (
        cmd_dir_size(cmd_root),
        cmd_dir_size(cmd_root / "Z"),
        cmd_dir_size(cmd_root / "Z" / "deep"),
    )
    expected = HEADER.format(path="/memories") + "\n".join(
        [
            f"{root_size}\t/memories",
            "1K\t/memories/10.txt",
            "1.0K\t/memories/9.txt",
            "1023B\t/memories/B.txt",
            f"{z_size}\t/memories/Z/",
            f"{deep_size}\t/memories/Z/deep/",
            "3B\t/memories/Z/inner.txt",
            "1B\t/memories/_u.txt",
            "0B\t/memories/a.txt",
            "1.5K\t/memories/é.txt",
        ]
    )
    assert view(cmd_run, "/memories") == (expected, False)


def test_v3_v4_hidden_and_node_modules_skipped(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    (cmd_root / ".hidden").write_bytes(b"h")
    (cmd_root / ".git").mkdir()
    (cmd_root / ".git" / "config").write_bytes(b"c")
    (cmd_root / "node_modules" / "pkg").mkdir(parents=True)
    (cmd_root / "node_modules" / "pkg" / "index.js").write_bytes(b"js")
    (cmd_root / "proj" / "node_modules").mkdir(parents=True)
    (cmd_root / "proj" / "node_modules.txt").write_bytes(b"n")
    (cmd_root / "proj" / ".env").write_bytes(b"SECRET")
    root_size, proj_size = cmd_dir_size(cmd_root), cmd_dir_size(cmd_root / "proj")
    expected = HEADER.format(path="/memories") + (
        f"{root_size}\t/memories\n{proj_size}\t/memories/proj/\n1B\t/memories/proj/node_modules.txt"
    )
    assert view(cmd_run, "/memories") == (expected, False)


def test_d11_viewing_node_modules_directly_lists_it(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    (cmd_root / "node_modules" / "pkg").mkdir(parents=True)
    (cmd_root / "node_modules" / "pkg" / "index.js").write_bytes(b"js")
    nm, pkg = (
        cmd_dir_size(cmd_root / "node_modules"),
        cmd_dir_size(cmd_root / "node_modules" / "pkg"),
    )
    expected = HEADER.format(path="/memories/node_modules") + (
        f"{nm}\t/memories/node_modules\n{pkg}\t/memories/node_modules/pkg/\n"
        "2B\t/memories/node_modules/pkg/index.js"
    )
    assert view(cmd_run, "/memories/node_modules") == (expected, False)


def test_v6_trailing_slash_echoed_raw(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    (cmd_root / "a.txt").write_bytes(b"a")
    expected = (
        HEADER.format(path="/memories/")
        + f"{cmd_dir_size(cmd_root)}\t/memories/\n1B\t/memories//a.txt"
    )
    assert view(cmd_run, "/memories/") == (expected, False)


def test_v7_fifo_dangling_and_escaping_links_skipped(
    tmp_path: Path, cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"secret")
    os.mkfifo(cmd_root / "pipe")
    (cmd_root / "dangling").symlink_to("nowhere")
    (cmd_root / "escape").symlink_to(outside)
    (cmd_root / "escape-file").symlink_to(outside / "secret.txt")
    (cmd_root / "loop").symlink_to("loop")
    (cmd_root / "real").mkdir()
    (cmd_root / "real" / "n.md").write_bytes(b"12345")
    (cmd_root / "dirlink").symlink_to("real")
    (cmd_root / "filelink").symlink_to("real/n.md")
    real = cmd_dir_size(cmd_root / "real")
    expected = HEADER.format(path="/memories") + "\n".join(
        [
            f"{cmd_dir_size(cmd_root)}\t/memories",
            f"{real}\t/memories/dirlink/",
            "5B\t/memories/dirlink/n.md",
            "5B\t/memories/filelink",
            f"{real}\t/memories/real/",
            "5B\t/memories/real/n.md",
        ]
    )
    assert view(cmd_run, "/memories") == (expected, False)


def test_listing_skips_links_into_reserved_folder(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    (cmd_root / ".memtui").mkdir()
    (cmd_root / ".memtui" / "kept").write_bytes(b"kept")
    (cmd_root / "hist").symlink_to(".memtui")
    assert view(cmd_run, "/memories") == (
        HEADER.format(path="/memories") + f"{cmd_dir_size(cmd_root)}\t/memories",
        False,
    )


def test_v8_view_range_ignored_for_directories(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "a.txt").write_bytes(b"a")
    assert view(cmd_run, "/memories", [2, 3]) == view(cmd_run, "/memories")


def test_v9_hidden_directory_viewed_directly(
    cmd_root: Path, cmd_run: Run, cmd_dir_size: Callable[[Path], str]
) -> None:
    (cmd_root / ".hidden").mkdir()
    (cmd_root / ".hidden" / "x.md").write_bytes(b"xy")
    expected = HEADER.format(path="/memories/.hidden") + (
        f"{cmd_dir_size(cmd_root / '.hidden')}\t/memories/.hidden\n2B\t/memories/.hidden/x.md"
    )
    assert view(cmd_run, "/memories/.hidden") == (expected, False)


def test_a3_undecodable_file_names_folded(cmd_root: Path, cmd_run: Run) -> None:
    fd = os.open(os.fsencode(cmd_root) + b"/caf\xe9.txt", os.O_CREAT | os.O_WRONLY, 0o600)
    os.close(fd)
    content, is_error = view(cmd_run, "/memories")
    assert (content.split("\n")[-1], is_error) == ("0B\t/memories/caf\ufffd.txt", False)


def test_f1_file_view(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "h.txt").write_bytes(b"hello\n")
    assert view(cmd_run, "/memories/h.txt") == (
        FILE_HEADER.format(path="/memories/h.txt") + "     1\thello\n     2\t",
        False,
    )


def test_f1_empty_file_is_one_empty_line(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "e.txt").write_bytes(b"")
    assert view(cmd_run, "/memories/e.txt") == (
        FILE_HEADER.format(path="/memories/e.txt") + "     1\t",
        False,
    )


def test_f2_special_characters_verbatim_and_no_truncation(cmd_root: Path, cmd_run: Run) -> None:
    long_line = "y" * 20000
    text = "\ufeffbom\r\ntab\there\u2028same\x0cline\x00nul\n" + long_line
    (cmd_root / "s.txt").write_bytes(text.encode())
    expected = FILE_HEADER.format(path="/memories/s.txt") + (
        "     1\t\ufeffbom\r\n     2\ttab\there\u2028same\x0cline\x00nul\n     3\t" + long_line
    )
    assert view(cmd_run, "/memories/s.txt") == (expected, False)


def test_line_numbers_wider_than_six_digits_not_padded(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "many.txt").write_bytes(b"\n" * 999_998)
    content, is_error = view(cmd_run, "/memories/many.txt", [999_998, -1])
    assert (content, is_error) == (
        FILE_HEADER.format(path="/memories/many.txt") + "999998\t\n999999\t",
        False,
    )


@pytest.mark.parametrize(
    ("view_range", "numbers"),
    [
        ([2, 3], [2, 3]),
        ([3, -1], [3, 4, 5, 6]),
        ([0, 2], [1, 2]),
        ([-5, 1], [1]),
        ([4, 2], []),
        ([9, 12], []),
        ([1, 0], []),
        ([1, -2], [1, 2, 3, 4]),
        ([5, 100], [5, 6]),
        ([1], [1, 2, 3, 4, 5, 6]),
        ([1, 2, 3], [1, 2, 3, 4, 5, 6]),
        ([], [1, 2, 3, 4, 5, 6]),
        (["2", " 3 "], [2, 3]),
        ([2.0, True], []),
    ],
)
def test_f3_view_range(
    cmd_root: Path, cmd_run: Run, view_range: list[object], numbers: list[int]
) -> None:
    (cmd_root / "r.txt").write_bytes(b"l1\nl2\nl3\nl4\nl5\n")
    lines = ["l1", "l2", "l3", "l4", "l5", ""]
    body = "\n".join(f"{n:>6}\t{lines[n - 1]}" for n in numbers)
    assert view(cmd_run, "/memories/r.txt", view_range) == (
        FILE_HEADER.format(path="/memories/r.txt") + body,
        False,
    )


def test_f4_line_limit(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "big.txt").write_bytes(b"\n" * 999_999)
    assert view(cmd_run, "/memories/big.txt") == (
        "File /memories/big.txt exceeds maximum line limit of 999,999 lines.",
        True,
    )


@pytest.mark.parametrize(
    "path", ["/memories/missing.txt", "/memories/file.txt/below", "/memories/no/such/dir/"]
)
def test_f5_missing_path(cmd_root: Path, cmd_run: Run, path: str) -> None:
    (cmd_root / "file.txt").write_bytes(b"f")
    assert view(cmd_run, path) == (
        f"The path {path} does not exist. Please provide a valid path.",
        True,
    )


def test_f6_not_utf8(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "bin.dat").write_bytes(b"\xff\xfeabc\n")
    assert view(cmd_run, "/memories/bin.dat") == (
        "The file /memories/bin.dat is not valid UTF-8 text",
        True,
    )


def test_f7_fifo(cmd_root: Path, cmd_run: Run) -> None:
    os.mkfifo(cmd_root / "pipe")
    assert view(cmd_run, "/memories/pipe") == ("Unsupported file type for /memories/pipe", True)


def test_symlinked_file_view_echoes_raw_path(cmd_root: Path, cmd_run: Run) -> None:
    (cmd_root / "t.md").write_bytes(b"target")
    (cmd_root / "alias.md").symlink_to("t.md")
    assert view(cmd_run, "/memories/alias.md") == (
        FILE_HEADER.format(path="/memories/alias.md") + "     1\ttarget",
        False,
    )


def test_view_changes_nothing(
    cmd_root: Path, cmd_run: Run, cmd_snapshot: Callable[..., Any]
) -> None:
    (cmd_root / "a.txt").write_bytes(b"a\n")
    (cmd_root / "d").mkdir()
    before = cmd_snapshot(cmd_root)
    view(cmd_run, "/memories")
    view(cmd_run, "/memories/a.txt", [1, 1])
    view(cmd_run, "/memories/d/missing")
    assert cmd_snapshot(cmd_root) == before


def test_unreadable_file_gives_clear_error(cmd_root: Path, cmd_run: Run) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores file permissions")
    (cmd_root / "locked.txt").write_bytes(b"x")
    (cmd_root / "locked.txt").chmod(0)
    assert view(cmd_run, "/memories/locked.txt") == (
        "Cannot view /memories/locked.txt: Permission denied",
        True,
    )
