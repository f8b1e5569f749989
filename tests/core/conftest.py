"""Fixtures for the command-core tests: a fresh memory root and a one-call command runner."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from memtui.core.commands import CommandOutcome, apply_command, parse_command
from memtui.core.sizes import format_size

Runner = Callable[[object], CommandOutcome]


def cmd_execute(root: Path, tool_input: object) -> CommandOutcome:
    """Parse and apply one tool input the way the store does (minus lock and history)."""
    parsed = parse_command(root, tool_input)
    if isinstance(parsed, CommandOutcome):
        return parsed
    return apply_command(root, parsed)


def snapshot_tree(root: Path) -> dict[str, object]:
    """Every entry below `root`: file bytes and mode, dirs, symlink targets (for 'nothing changed')."""
    tree: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            relative = full.relative_to(root).as_posix()
            info = full.lstat()
            if stat.S_ISLNK(info.st_mode):
                tree[relative] = ("link", os.readlink(full))
            elif stat.S_ISDIR(info.st_mode):
                tree[relative] = ("dir", stat.S_IMODE(info.st_mode))
            elif stat.S_ISREG(info.st_mode):
                tree[relative] = ("file", full.read_bytes(), stat.S_IMODE(info.st_mode))
            else:
                tree[relative] = ("other",)
    return tree


def listing_dir_size(path: Path) -> str:
    """A directory's listing size as the filesystem reports it (4K on ext4)."""
    return format_size(os.stat(path).st_size)


@pytest.fixture
def cmd_root(tmp_path: Path) -> Path:
    """An empty memory root, `<tmp>/memories`, mode 0700."""
    root = tmp_path / "memories"
    root.mkdir(mode=0o700)
    return root


@pytest.fixture
def cmd_run(cmd_root: Path) -> Runner:
    """Run one raw tool input against `cmd_root`."""

    def run(tool_input: object) -> CommandOutcome:
        return cmd_execute(cmd_root, tool_input)

    return run


@pytest.fixture
def cmd_snapshot() -> Callable[[Path], dict[str, object]]:
    """The tree-snapshot helper, for asserting that nothing on disk changed."""
    return snapshot_tree


@pytest.fixture
def cmd_dir_size() -> Callable[[Path], str]:
    """The directory-size helper for expected listing lines."""
    return listing_dir_size
