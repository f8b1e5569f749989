"""MemoryStore.read_head: a file's first bytes as text, costing only what is read."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from memtui.core.store import MemoryStore, StoreError


def test_a_small_file_is_read_whole(tmp_path: Path) -> None:
    """Under the limit: the whole text and its size."""
    (tmp_path / "a.md").write_text("héllo\n", encoding="utf-8")
    head = MemoryStore(tmp_path).read_head("/memories/a.md", 100)
    assert (head.text, head.size, head.cut) == ("héllo\n", 7, False)


def test_a_character_cut_by_the_limit_is_left_out(tmp_path: Path) -> None:
    """A read that stops inside a UTF-8 character drops that character, not the whole read."""
    (tmp_path / "a.md").write_text("ab€cd", encoding="utf-8")
    store = MemoryStore(tmp_path)
    for limit, text in ((3, "ab"), (4, "ab"), (5, "ab€")):
        head = store.read_head("/memories/a.md", limit)
        assert (head.text, head.size, head.cut) == (text, 7, True)


def test_a_sparse_gigabyte_costs_only_the_limit(tmp_path: Path) -> None:
    """A 1 GiB sparse file: a MiB is read and allocated, the size is the whole file's."""
    with (tmp_path / "huge.md").open("wb") as handle:
        handle.write(b"# Huge\n")
        handle.truncate(1 << 30)
    store = MemoryStore(tmp_path)
    tracemalloc.start()
    try:
        head = store.read_head("/memories/huge.md", 1 << 20)
        text, size = head.text, head.size
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size == 1 << 30
    assert len(text) == 1 << 20 and text.startswith("# Huge\n\x00")
    assert peak < 8 << 20


def test_bad_input_is_one_line_like_read(tmp_path: Path) -> None:
    """Missing, a folder, invalid UTF-8, a path outside: StoreError with read's messages."""
    (tmp_path / "folder").mkdir()
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe")
    store = MemoryStore(tmp_path)
    for path, message in (
        ("/memories/none.md", "The path /memories/none.md does not exist"),
        ("/memories/folder", "The path /memories/folder is a folder, not a file"),
        ("/memories/bad.md", "The file /memories/bad.md is not valid UTF-8 text"),
    ):
        with pytest.raises(StoreError) as error:
            store.read_head(path, 10)
        assert str(error.value) == message
    with pytest.raises(StoreError, match="escape"):
        store.read_head("/memories/../x", 10)
