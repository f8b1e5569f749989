"""Path validation and resolution: spec section 3 with memtui's rules M1-M3 (P1-P8)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memtui.core.parsing.paths import (
    FLAG_OUTSIDE,
    FLAG_REFUSED,
    FLAG_RESERVED,
    FLAG_TRAVERSAL,
    PathRefusal,
    ResolvedPath,
    check_path,
)


def test_plain_path_resolves_and_normalises(cmd_root: Path) -> None:
    assert check_path(cmd_root, "/memories/a/b.md") == ResolvedPath(
        cmd_root / "a" / "b.md", "/memories/a/b.md"
    )


@pytest.mark.parametrize(
    ("path", "relative", "virtual"),
    [
        ("/memories", "", "/memories"),
        ("/memories/", "", "/memories"),
        ("/memories/.", "", "/memories"),
        ("/memories//a.txt", "a.txt", "/memories/a.txt"),
        ("/memories/./a.txt", "a.txt", "/memories/a.txt"),
        ("/memories/a.txt/", "a.txt", "/memories/a.txt"),
        ("/memories///x//y/", "x/y", "/memories/x/y"),
    ],
)
def test_p5_accepted_spellings_normalise(
    cmd_root: Path, path: str, relative: str, virtual: str
) -> None:
    expected = cmd_root / relative if relative else cmd_root
    assert check_path(cmd_root, path) == ResolvedPath(expected, virtual)


@pytest.mark.parametrize(
    "path", ["", "memories/a", "/Memories/a", "/memorie", "a/memories", " /memories"]
)
def test_p1_path_must_start_with_memories(cmd_root: Path, path: str) -> None:
    assert check_path(cmd_root, path) == PathRefusal(f"Path must start with /memories, got: {path}")


@pytest.mark.parametrize("path", ["/memoriesfoo", "/memories.txt", "/memories-2/a"])
def test_m2_lookalike_prefix_refused(cmd_root: Path, path: str) -> None:
    assert check_path(cmd_root, path) == PathRefusal(f"Path must start with /memories, got: {path}")


@pytest.mark.parametrize(
    "path",
    [
        "/memories_x/../a.txt",
        "/memories\\..\\y",
        "\\memories\\..",
        "memories/../",
        "/memories%2f..",
        "../memories/a",
    ],
)
def test_bad_prefix_shaped_like_traversal_is_flagged_as_traversal(
    cmd_root: Path, path: str
) -> None:
    assert check_path(cmd_root, path) == PathRefusal(
        f"Path must start with /memories, got: {path}", FLAG_TRAVERSAL
    )


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/etc/passwd", None),
        ("/memories\\..\\y", FLAG_TRAVERSAL),
        ("/memories/../x", FLAG_TRAVERSAL),
        ("/memories/a\x00b", None),
        ("/memories/a\udc80", None),
        ("/memories/.memtui", FLAG_RESERVED),
    ],
)
def test_every_refusal_is_flagged_refused_then_its_kind(
    cmd_root: Path, path: str, kind: str | None
) -> None:
    refusal = check_path(cmd_root, path)
    assert isinstance(refusal, PathRefusal)
    assert refusal.flags == ((FLAG_REFUSED, kind) if kind else (FLAG_REFUSED,))


@pytest.mark.parametrize(
    "path",
    [
        "/memories/..",
        "/memories/../secret",
        "/memories/a/../../x",
        "/memories/a/../b.txt",
        "/memories/../memories/a.txt",
        "/memories/x/..",
        "/memories/..\\secret",
        "/memories/a\\b",
        "/memories/%2e%2e/x",
        "/memories/%2E%2e%2Fx",
        "/memories/a%2fb",
        "/memories/a%5Cb",
        "/memories/%2e",
    ],
)
def test_m3_traversal_refused_before_resolving(cmd_root: Path, path: str) -> None:
    assert check_path(cmd_root, path) == PathRefusal(
        f"Path {path} would escape /memories directory", FLAG_TRAVERSAL
    )


@pytest.mark.parametrize(
    "path", ["/memories/...", "/memories/..a", "/memories/a..", "/memories/%2", "/memories/%25"]
)
def test_dot_lookalikes_are_ordinary_names(cmd_root: Path, path: str) -> None:
    resolved = check_path(cmd_root, path)
    assert resolved == ResolvedPath(cmd_root / path[10:], path)


def test_p7_nul_refused_with_clear_message(cmd_root: Path) -> None:
    assert check_path(cmd_root, "/memories/a\x00b") == PathRefusal(
        "Path must not contain NUL characters"
    )


def test_lone_surrogate_in_path_refused(cmd_root: Path) -> None:
    assert check_path(cmd_root, "/memories/a\udc80") == PathRefusal(
        "Path /memories/a\udc80 is not valid Unicode"
    )


def test_order_prefix_before_traversal_before_nul(cmd_root: Path) -> None:
    assert check_path(cmd_root, "/memoriesX/..\x00").message.startswith("Path must start")
    assert check_path(cmd_root, "/memories/../\x00").flag == FLAG_TRAVERSAL


def test_p3_symlink_escaping_root_refused_as_outside(tmp_path: Path, cmd_root: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (cmd_root / "link").symlink_to(outside)
    (cmd_root / "abs").symlink_to("/etc")
    for path in ("/memories/link", "/memories/link/x.txt", "/memories/abs/passwd"):
        assert check_path(cmd_root, path) == PathRefusal(
            f"Path {path} would escape /memories directory", FLAG_OUTSIDE
        )


def test_p8_in_root_symlink_is_transparent(cmd_root: Path) -> None:
    (cmd_root / "real").mkdir()
    (cmd_root / "alias").symlink_to("real")
    assert check_path(cmd_root, "/memories/alias/n.md") == ResolvedPath(
        cmd_root / "real" / "n.md", "/memories/real/n.md"
    )


@pytest.mark.parametrize(
    "path",
    [
        "/memories/.memtui",
        "/memories/.memtui/",
        "/memories/.memtui/history.db",
        "/memories//.memtui/x/y",
    ],
)
def test_m1_reserved_history_folder(cmd_root: Path, path: str) -> None:
    assert check_path(cmd_root, path) == PathRefusal(
        f"The path {path} is reserved for memtui's history", FLAG_RESERVED
    )


def test_m1_symlink_into_reserved_folder_refused(cmd_root: Path) -> None:
    (cmd_root / ".memtui").mkdir()
    (cmd_root / "h").symlink_to(".memtui")
    assert check_path(cmd_root, "/memories/h/history.db") == PathRefusal(
        "The path /memories/h/history.db is reserved for memtui's history", FLAG_RESERVED
    )


def test_similar_names_are_not_reserved(cmd_root: Path) -> None:
    for name in (".memtui2", "memtui", ".memtu", "x/.memtui"):
        assert isinstance(check_path(cmd_root, f"/memories/{name}"), ResolvedPath)


def test_root_given_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real-root"
    real.mkdir()
    link = tmp_path / "root-link"
    link.symlink_to(real)
    assert check_path(link, "/memories/a.md") == ResolvedPath(real / "a.md", "/memories/a.md")


def test_p6_refusals_change_nothing_on_disk(
    cmd_root: Path, cmd_run: Callable[..., Any], cmd_snapshot: Callable[..., Any]
) -> None:
    (cmd_root / "keep.txt").write_bytes(b"keep\n")
    before = cmd_snapshot(cmd_root)
    for command in (
        {"command": "create", "path": "/memories/%2e%2e/x", "file_text": "x"},
        {"command": "delete", "path": "/memories/.."},
        {"command": "rename", "old_path": "/memories/keep.txt", "new_path": "/memories/.memtui/k"},
        {"command": "create", "path": "/memoriesx", "file_text": "x"},
        {"command": "create", "path": "/memories/n\x00", "file_text": "x"},
    ):
        assert cmd_run(command).is_error
    assert cmd_snapshot(cmd_root) == before
    assert sorted(os.listdir(cmd_root.parent)) == ["memories"]


def test_refusal_outcomes_carry_flags(cmd_run: Callable[..., Any]) -> None:
    outcome = cmd_run({"command": "view", "path": "/memories/../etc"})
    assert (outcome.content, outcome.is_error, outcome.flags) == (
        "Path /memories/../etc would escape /memories directory",
        True,
        ("security:refused", "security:traversal"),
    )
    outcome = cmd_run({"command": "view", "path": "/memories/.memtui"})
    assert outcome.flags == ("security:refused", "security:reserved")
    outcome = cmd_run({"command": "view", "path": "/etc/passwd"})
    assert (outcome.content, outcome.flags) == (
        "Path must start with /memories, got: /etc/passwd",
        ("security:refused",),
    )
