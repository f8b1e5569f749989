"""Index rows another program wrote (a planted title, a link target with escape bytes, a row for
a file that is not there) are read again from the files; an index that came with the store is
rebuilt; an index left as memtui left it is not checked row by row."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import INDEX_NAME
from memtui.notes.index_seal import LINK_COLUMNS, SEALED_COLUMNS, STATE_FOLDER, seal, seal_key
from memtui.notes.search import Searcher
from tests.notes.reads import count_reads


def make_store(root: Path) -> Path:
    """Two linked notes and a text file."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "a.md").write_text(
        "---\ntitle: Alpha\ntags: [fruit]\n---\n\n- [fact] kiwi #green\n- likes [[Beta]]\n"
    )
    (root / "b.md").write_text("---\ntitle: Beta\n---\n\n- [fact] mango\n")
    (root / "c.txt").write_text("# Gamma\nplain text\n")
    return root


def view(root: Path) -> dict[str, object]:
    """What a newly opened index tells a user."""
    index = NoteIndex.load(root)
    try:
        return {
            "titles": index.titles(),
            "outgoing": index.outgoing("a.md"),
            "backlinks": index.backlinks("b.md"),
            "unresolved": index.unresolved(),
            "tags": index.tag_counts(),
            "categories": index.category_counts(),
            "search": [(h.path, h.line, h.text) for h in Searcher(index).search("alpha")],
        }
    finally:
        index.close()


def tamper(root: Path, *statements: str) -> None:
    """Change the index's rows as another program would, with SQL."""
    conn = sqlite3.connect(root / ".memtui" / INDEX_NAME)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    "statements",
    [
        ["UPDATE files SET title = 'Alpha' || char(27) || '[2J' WHERE path = 'a.md'"],
        ["UPDATE links SET target = char(27) || ']0;pwned' || char(7)"],
        ["UPDATE files SET title = 'Planted', permalink = 'planted' WHERE path = 'c.txt'"],
        ["INSERT INTO tags (file, tag) SELECT id, 'planted' FROM files WHERE path = 'b.md'"],
        ["UPDATE categories SET category = 'planted'"],
        ["UPDATE files SET size = size + 1 WHERE path = 'b.md'"],
    ],
)
def test_rows_another_program_wrote_are_read_again(tmp_path: Path, statements: list[str]) -> None:
    root = make_store(tmp_path / "store")
    expected = view(root)
    tamper(root, *statements)
    assert view(root) == expected


def test_a_planted_row_for_a_missing_file_goes(tmp_path: Path) -> None:
    root = make_store(tmp_path / "store")
    expected = view(root)
    tamper(
        root,
        "INSERT INTO files (path, kind, size, mtime_ns, ctime_ns, inode, title) "
        "SELECT 'ghost.md', kind, size, mtime_ns, ctime_ns, inode, 'Ghost' FROM files "
        "WHERE path = 'b.md'",
    )
    assert view(root) == expected


def test_the_cli_shows_what_the_files_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_store(tmp_path / "store")
    view(root)
    tamper(root, "UPDATE files SET title = 'kiwi' || char(27) || '[2J' WHERE path = 'c.txt'")
    assert main(["search", str(root), "kiwi"]) == 0
    assert capsys.readouterr() == ("a.md:6  observation - [fact] kiwi #green\n", "")


def forge(root: Path, path: str, title: str) -> None:
    """Give a row a new title and the seal that goes with it, as a program knowing the index's
    key would (an index made elsewhere and brought along with the store)."""
    conn = sqlite3.connect(root / ".memtui" / INDEX_NAME)
    conn.execute("UPDATE files SET title = ? WHERE path = ?", (title, path))
    key = seal_key(conn)
    file_id, *columns = conn.execute(
        f"SELECT id, {SEALED_COLUMNS} FROM files WHERE path = ?", (path,)
    ).fetchone()
    links = conn.execute(
        f"SELECT {LINK_COLUMNS} FROM links WHERE source = ? ORDER BY ord", (file_id,)
    ).fetchall()
    tags = [row[0] for row in conn.execute("SELECT tag FROM tags WHERE file = ?", (file_id,))]
    categories = conn.execute(
        "SELECT category, count FROM categories WHERE file = ?", (file_id,)
    ).fetchall()
    forged = seal(key, columns, links, tags, categories)
    conn.execute("UPDATE files SET seal = ? WHERE id = ?", (forged, file_id))
    conn.commit()
    conn.close()


def test_an_index_that_came_with_the_store_is_rebuilt(tmp_path: Path) -> None:
    root = make_store(tmp_path / "store")
    expected = view(root)
    forge(root, "a.md", "Planted")
    state = Path(os.environ["XDG_CACHE_HOME"]) / "memtui" / STATE_FOLDER
    for kept in state.iterdir():
        kept.unlink()
    assert view(root) == expected


def test_an_index_left_as_memtui_left_it_is_not_checked_row_by_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_store(tmp_path / "store")
    view(root)
    reads = count_reads(monkeypatch)
    index = NoteIndex.load(root)
    assert "reseal" not in index.timings
    index.close()
    tamper(root, "UPDATE files SET title = 'Planted' WHERE path = 'a.md'")
    index = NoteIndex.load(root)
    assert "reseal" in index.timings
    assert index.titles()["a.md"] == "Alpha"
    index.close()
    assert reads == ["a.md"]
