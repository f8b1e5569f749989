"""memtui's own files are its owner's only, whatever the umask: `.memtui` and its temp folder
0700; the history, the index, their -wal and -shm, the lock files, temp files and the config file
memtui writes 0600. An index made 0644 by an older memtui is narrowed when opened."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.core.applying.atomic import TempArea
from memtui.core.config import Settings
from memtui.core.config_edit import save_setting
from memtui.core.resolving.fd_paths import StoreRoot
from memtui.core.store import MemoryStore
from memtui.notes.index import NoteIndex


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    """Run with umask 022, so anything not made private on purpose is world-readable."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    """The permission bits of `path` itself."""
    return stat.S_IMODE(path.lstat().st_mode)


def test_every_file_memtui_keeps_in_a_store_is_private(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    assert not store.create("/memories/b.md", "key AKIA in warn mode\n").is_error
    index = NoteIndex.load(tmp_path)
    assert index.notes["b.md"] is not None
    with StoreRoot(tmp_path) as root:
        temps = TempArea(root)
        temp = temps.write_temp(temps.fd(), b"half", 0o600)
        meta = tmp_path / ".memtui"
        found = {name: mode(meta / name) for name in sorted(os.listdir(meta))}
        found[f"tmp/{temp}"] = mode(meta / "tmp" / temp)
        temps.close()
    assert mode(meta) == 0o700
    assert found == {
        "history.db": 0o600,
        "history.db-shm": 0o600,
        "history.db-wal": 0o600,
        "index.db": 0o600,
        "index.db-shm": 0o600,
        "index.db-wal": 0o600,
        "index.lock": 0o600,
        "lock": 0o600,
        "tmp": 0o700,
        f"tmp/{temp}": 0o600,
    }
    index.close()
    store.close()


def test_an_index_made_readable_by_others_is_narrowed_when_opened(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    NoteIndex.load(tmp_path).close()
    index_file = tmp_path / ".memtui" / "index.db"
    os.chmod(index_file, 0o644)
    index = NoteIndex.load(tmp_path)
    assert mode(index_file) == 0o600
    assert index.notes["a.md"] is not None
    index.close()


def test_the_config_file_memtui_writes_is_private(tmp_path: Path) -> None:
    written = save_setting("theme", "light", {"MEMTUI_CONFIG_FILE": str(tmp_path / "c.toml")})
    assert written.read_text() == 'theme = "light"\n'
    assert mode(written) == 0o600
