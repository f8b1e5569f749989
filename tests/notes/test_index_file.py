"""The index file as an attacker or a crash leaves it: foreign, tampered, damaged, newer, linked
away, or cut off mid-update; every case ends with an index that answers like a fresh build."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import APPLICATION_ID, INDEX_NAME, SCHEMA_VERSION, NewerIndex
from memtui.notes.search import Searcher

ROOT = Path(__file__).resolve().parents[2]


def make_store(root: Path, count: int = 30) -> Path:
    """A store of linked notes, a text file and a binary file."""
    root.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (root / f"n{i:04}.md").write_text(
            f"---\ntitle: Note {i}\ntags: [t{i % 3}]\n---\n\n"
            f"- [fact] kiwi number {i} #fruit\n- relates_to [[Note {(i + 1) % count}]]\n"
            f"- needs [[Ghost {i % 4}]]\n",
            encoding="utf-8",
        )
    (root / "decisions.txt").write_text("# Decisions\nWe use NATS for events.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    return root


def snapshot(index: NoteIndex) -> dict[str, object]:
    """What a user sees of an index: notes, links, problems and a few searches."""
    searcher = Searcher(index)
    return {
        "notes": list(index.notes),
        "titles": index.titles(),
        "unresolved": index.unresolved(),
        "hubs": index.hubs(),
        "orphans": index.orphans(),
        "problems": index.problems,
        "search": [searcher.search(q) for q in ("kiwi", "nats", "note 7", "frut")],
    }


def fresh(root: Path) -> dict[str, object]:
    """The answers of a private index built from scratch."""
    index = NoteIndex.load(root, use_cache=False)
    try:
        return snapshot(index)
    finally:
        index.close()


def index_path(root: Path) -> Path:
    """Where the store's index file lives."""
    return root / ".memtui" / INDEX_NAME


def build(root: Path) -> None:
    """Build the store's shared index and close it."""
    NoteIndex.load(root).close()


def plant(root: Path, maker: str, outside: Path) -> None:
    """Put something foreign where the index file goes."""
    target = index_path(root)
    target.parent.mkdir(exist_ok=True)
    target.unlink(missing_ok=True)
    if maker == "garbage":
        target.write_bytes(b"not sqlite at all\n" * 100)
    elif maker == "empty":
        target.write_bytes(b"")
    elif maker == "other app":
        conn = sqlite3.connect(target)
        conn.execute("CREATE TABLE files (path TEXT)")
        conn.execute("INSERT INTO files VALUES ('../../etc/passwd')")
        conn.commit()
        conn.close()
    elif maker == "folder":
        target.mkdir()
        (target / "x").write_text("x")
    elif maker == "symlink":
        os.symlink(outside, target)
    else:
        raise AssertionError(maker)


@pytest.mark.parametrize("maker", ["garbage", "empty", "other app", "folder", "symlink"])
def test_a_foreign_file_in_place_of_the_index_is_replaced_never_trusted(
    tmp_path: Path, maker: str
) -> None:
    root = make_store(tmp_path / "store")
    outside = tmp_path / "outside.db"
    outside.write_bytes(b"precious bytes, not an index\n")
    expected = fresh(root)
    plant(root, maker, outside)
    index = NoteIndex.load(root)
    assert snapshot(index) == expected
    index.close()
    assert outside.read_bytes() == b"precious bytes, not an index\n"
    assert index_path(root).is_file() and not index_path(root).is_symlink()
    conn = sqlite3.connect(index_path(root))
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()


@pytest.mark.parametrize(
    "tamper",
    [
        "CREATE TRIGGER evil AFTER INSERT ON files BEGIN DELETE FROM links; END",
        "CREATE VIEW extra AS SELECT 1",
        "DROP INDEX links_resolved",
        "PRAGMA application_id = 7",
        "PRAGMA user_version = 0",
    ],
)
def test_a_tampered_index_is_replaced(tmp_path: Path, tamper: str) -> None:
    root = make_store(tmp_path / "store")
    build(root)
    conn = sqlite3.connect(index_path(root))
    conn.execute(tamper)
    conn.execute("UPDATE files SET title = 'planted'")
    conn.commit()
    conn.close()
    index = NoteIndex.load(root)
    assert snapshot(index) == fresh(root)
    assert "planted" not in index.titles().values()
    index.close()


def test_an_index_written_by_a_newer_memtui_is_refused_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_store(tmp_path / "store")
    build(root)
    conn = sqlite3.connect(index_path(root))
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = index_path(root).read_bytes()
    with pytest.raises(NewerIndex) as refused:
        NoteIndex.load(root)
    assert f"newer memtui (index format 99; this one reads {SCHEMA_VERSION})" in str(refused.value)
    assert main(["search", str(root), "kiwi"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert re.fullmatch(
        r"memtui search: .*index\.db was written by a newer memtui \(index format 99; this one "
        rf"reads {SCHEMA_VERSION}\): upgrade memtui, or delete the file to rebuild it\n",
        err,
    )
    assert index_path(root).read_bytes() == before


def test_a_damaged_index_is_detected_and_rebuilt(tmp_path: Path) -> None:
    root = make_store(tmp_path / "store", 200)
    build(root)
    data = bytearray(index_path(root).read_bytes())
    page = 4096
    for start in range(page, len(data), page):
        data[start : start + page] = os.urandom(page)
    index_path(root).write_bytes(bytes(data))
    index = NoteIndex.load(root)
    assert snapshot(index) == fresh(root)
    index.close()


def test_a_linked_meta_folder_gets_a_private_index_and_nothing_written_through_it(
    tmp_path: Path,
) -> None:
    root = make_store(tmp_path / "store")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, root / ".memtui")
    index = NoteIndex.load(root)
    assert index.db.private
    assert snapshot(index) == fresh(root)
    index.close()
    assert list(elsewhere.iterdir()) == []


def test_no_pickle_is_written_read_or_imported_by_memtui(tmp_path: Path) -> None:
    """memtui's own code never uses pickle, and files planted where the old caches lived are never
    opened: a FIFO there would block whoever opened it."""
    for path in (ROOT / "memtui").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(pickle|cPickle|shelve|marshal)\b", source), path
    root = make_store(tmp_path / "store")
    (root / ".memtui").mkdir()
    for name in ("notes-cache.pickle", "search-snapshot.pickle"):
        os.mkfifo(root / ".memtui" / name)
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "search", str(root), "kiwi", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert '"path": "n0000.md"' in done.stdout
    assert {"notes-cache.pickle", "search-snapshot.pickle"} <= set(os.listdir(root / ".memtui"))


CHILD = """
import sys
from pathlib import Path
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import IndexFile
root = Path(sys.argv[1])
index = NoteIndex(root, IndexFile.open(root))
changed = index.refresh(lambda done, total: print(f"{done}", flush=True))
print(f"changed {len(changed)}", flush=True)
"""


def run_child(root: Path) -> subprocess.Popen[str]:
    """A process that brings the store's index up to date, printing its progress."""
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def rewrite(root: Path, count: int, word: str) -> None:
    """Give the first `count` notes a new observation (and a new stat)."""
    for i in range(count):
        path = root / f"n{i:04}.md"
        path.write_text(path.read_text() + f"- [idea] {word} {i}\n", encoding="utf-8")


def kill_during(root: Path, after_lines: int) -> int:
    """Start an index update, SIGKILL it after it reported `after_lines` progress lines; the number
    of lines it printed."""
    child = run_child(root)
    assert child.stdout is not None
    seen = 0
    for _ in range(after_lines):
        if not child.stdout.readline():
            break
        seen += 1
    child.send_signal(signal.SIGKILL)
    child.wait()
    return seen


@pytest.mark.parametrize("stage", [1, 4, 5])
def test_a_crash_during_a_first_build_leaves_an_index_that_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: int
) -> None:
    root = make_store(tmp_path / "store", 2500)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    assert kill_during(root, stage) == stage
    index = NoteIndex.load(root)
    assert snapshot(index) == fresh(root)
    index.close()


@pytest.mark.parametrize("stage", [1, 3])
def test_a_crash_during_an_update_leaves_the_old_index_or_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: int
) -> None:
    root = make_store(tmp_path / "store", 1500)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    build(root)
    time.sleep(0.01)
    rewrite(root, 1200, "papaya")
    kill_during(root, stage)
    conn = sqlite3.connect(index_path(root))
    indexed = conn.execute("SELECT count(*) FROM files").fetchone()[0]
    updated = conn.execute("SELECT count(*) FROM fts WHERE fts MATCH 'papaya'").fetchone()[0]
    conn.close()
    assert indexed == 1502
    assert updated in {1: (500, 1000), 3: (1000, 1200)}[stage], "whole batches only"
    index = NoteIndex.load(root)
    assert snapshot(index) == fresh(root)
    assert len(Searcher(index).search("papaya", limit=5000)) == 1200
    index.close()


def test_two_processes_opening_a_new_store_build_its_index_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_store(tmp_path / "store", 2500)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    children = [run_child(root) for _ in range(2)]
    changed = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        changed.append(int(out.strip().splitlines()[-1].split()[1]))
    assert sorted(changed) == [0, 2502]
    index = NoteIndex.load(root)
    assert snapshot(index) == fresh(root)
    index.close()


def test_connections_of_finished_threads_are_closed(tmp_path: Path) -> None:
    """A thread per search (as app workers are) never piles up open connections."""
    import threading

    root = make_store(tmp_path / "store", 5)
    index = NoteIndex.load(root)
    for _ in range(50):
        worker = threading.Thread(target=lambda: Searcher(index).search("kiwi"))
        worker.start()
        worker.join()
    assert len(index.db._connections) <= 2
    index.close()
