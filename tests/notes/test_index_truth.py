"""The index tells the truth: an edit that keeps the size and puts the mtime back, or a file
swapped for another of the same size and mtime, is read again (the inode's ctime, which no user
process can set back, and its number are compared too)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import INDEX_NAME, SCHEMA_VERSION
from memtui.notes.search import Searcher


def found(root: Path, word: str) -> list[tuple[str, int, str]]:
    """(path, line, text) of what a newly opened index finds for `word`."""
    index = NoteIndex.load(root)
    try:
        return [(hit.path, hit.line, hit.text) for hit in Searcher(index).search(word)]
    finally:
        index.close()


def edit_keeping_size_and_mtime(path: Path, text: str) -> None:
    """Write `text` (as long as what is there) and put the mtime back as it was."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nalpha here\n", encoding="utf-8")
    (root / "b.md").write_text("# B\n\nsomething else\n", encoding="utf-8")
    assert found(root, "alpha") == [("a.md", 3, "alpha here")]
    return root


def test_an_edit_that_keeps_size_and_mtime_is_found(store: Path) -> None:
    edit_keeping_size_and_mtime(store / "a.md", "# A\n\nbravo here\n")
    assert found(store, "bravo") == [("a.md", 3, "bravo here")]
    assert found(store, "alpha") == []


def test_a_file_swapped_for_one_of_the_same_size_and_mtime_is_found(store: Path) -> None:
    before = (store / "a.md").stat()
    other = store / "swap.tmp"
    other.write_text("# A\n\ncarol here\n", encoding="utf-8")
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, store / "a.md")
    assert (store / "a.md").stat().st_ino != before.st_ino
    assert found(store, "carol") == [("a.md", 3, "carol here")]


def test_an_open_index_updating_a_path_reads_the_edit(store: Path) -> None:
    index = NoteIndex.load(store)
    try:
        edit_keeping_size_and_mtime(store / "a.md", "# A\n\nbravo here\n")
        assert index.update_paths(["a.md"]) == {"a.md"}
        assert [(h.path, h.line) for h in Searcher(index).search("bravo")] == [("a.md", 3)]
    finally:
        index.close()


def test_the_cli_finds_the_new_word(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit_keeping_size_and_mtime(store / "a.md", "# A\n\nbravo here\n")
    assert main(["search", str(store), "bravo"]) == 0
    assert capsys.readouterr() == ("a.md:3  body        bravo here\n", "")


def test_an_index_of_the_format_before_is_rebuilt(store: Path) -> None:
    conn = sqlite3.connect(store / ".memtui" / INDEX_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION - 1}")
    conn.execute("UPDATE files SET title = 'planted'")
    conn.commit()
    conn.close()
    index = NoteIndex.load(store)
    try:
        assert index.titles() == {"a.md": "a", "b.md": "b"}
    finally:
        index.close()
