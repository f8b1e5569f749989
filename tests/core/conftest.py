"""Fixtures for the command-core tests: a fresh memory root and a one-call command runner."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memtui.core.applying.sizes import format_size
from memtui.core.recording.database import DB_NAME
from memtui.core.resolving.lock import META_DIR_NAME
from tests.core.vias import VIAS, Runner, runner_for

STORE_FILES = frozenset(
    {META_DIR_NAME}
    | {
        f"{META_DIR_NAME}/{name}"
        for name in (
            "lock",
            "tmp",
            DB_NAME,
            f"{DB_NAME}-wal",
            f"{DB_NAME}-shm",
            f"{DB_NAME}-journal",
        )
    }
)
"""The history, lock and temp folder the store keeps in `<root>/.memtui` (anything else there is
compared)."""


def snapshot_tree(root: Path) -> dict[str, object]:
    """Every entry below `root` but the store's files: file bytes and mode, dirs, link targets."""
    tree: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            relative = full.relative_to(root).as_posix()
            if relative in STORE_FILES:
                continue
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


@pytest.fixture(params=VIAS)
def cmd_run(
    request: pytest.FixtureRequest, cmd_root: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Runner]:
    """Run one raw tool input against `cmd_root`: through the core, the store or an SDK class."""
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    for name in ("MEMTUI_SECRETS", "MEMTUI_MAX_FILE_SIZE"):
        monkeypatch.delenv(name, raising=False)
    with runner_for(request.param, cmd_root) as run:
        yield run


@pytest.fixture
def cmd_snapshot() -> Callable[[Path], dict[str, object]]:
    """The tree-snapshot helper, for asserting that nothing on disk changed."""
    return snapshot_tree


@pytest.fixture
def cmd_dir_size() -> Callable[[Path], str]:
    """The directory-size helper for expected listing lines."""
    return listing_dir_size
