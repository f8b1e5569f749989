"""What an attacker plants where the index lock goes (a symlink, a folder, a FIFO) is replaced
as a foreign index file is: search goes on, nothing outside the store is touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import INDEX_NAME, LOCK_NAME


def plant(lock: Path, maker: str, outside: Path) -> None:
    """Put something that is not a lock file where the index lock goes."""
    lock.unlink(missing_ok=True)
    if maker == "symlink":
        lock.symlink_to(outside)
    elif maker == "dangling symlink":
        lock.symlink_to(outside.parent / "nowhere" / "lock")
    elif maker == "folder":
        lock.mkdir()
        (lock / "x").write_text("x")
    elif maker == "fifo":
        os.mkfifo(lock)
    else:
        raise AssertionError(maker)


@pytest.mark.parametrize("maker", ["symlink", "dangling symlink", "folder", "fifo"])
def test_a_planted_index_lock_is_replaced_and_search_goes_on(
    tmp_path: Path, maker: str, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nkiwi one\n")
    NoteIndex.load(root).close()
    outside = tmp_path / "outside.lock"
    outside.write_bytes(b"precious\n")
    lock = root / ".memtui" / LOCK_NAME
    plant(lock, maker, outside)
    (root / "b.md").write_text("# B\n\nkiwi two\n")
    assert main(["search", str(root), "kiwi"]) == 0
    assert capsys.readouterr() == (
        "a.md:3  body        kiwi one\nb.md:3  body        kiwi two\n",
        "",
    )
    assert lock.is_file() and not lock.is_symlink()
    assert outside.read_bytes() == b"precious\n"
    assert (root / ".memtui" / INDEX_NAME).is_file()
    if maker == "folder":
        aside = [p.name for p in (root / ".memtui").iterdir() if p.name.startswith(LOCK_NAME + ".")]
        assert len(aside) == 1 and aside[0].startswith(f"{LOCK_NAME}.replaced-")
