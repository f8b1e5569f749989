"""Nearest sections: the in-memory scan follows the index; sqlite-vec's scan agrees with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memtui.notes.index import NoteIndex
from memtui.notes.meaning import scan as scan_module
from memtui.notes.meaning.embedder import load_embedder
from memtui.notes.meaning.scan import (
    MeaningHit,
    VectorScan,
    _rescored,
    leading_share,
    load_sqlite_vec,
    sql_nearest,
)
from memtui.notes.meaning.sync import sync_vectors
from tests.notes.meaning.conftest import write
from tests.notes.meaning.test_vector_sync import FILES


@pytest.fixture
def store(tmp_path: Path, model_folder: Path) -> tuple[Path, NoteIndex]:
    """The FILES store, indexed with vectors."""
    write(tmp_path, FILES)
    index = NoteIndex.load(tmp_path)
    sync_vectors(index.db, tmp_path, load_embedder(str(model_folder)))
    return tmp_path, index


def query(model_folder: Path, text: str) -> np.ndarray:
    """The unit vector of a query."""
    return load_embedder(str(model_folder)).embed([text])[0]


def test_the_nearest_file_shares_no_word_and_names_its_section(
    store: tuple[Path, NoteIndex], model_folder: Path
) -> None:
    _root, index = store
    scan = VectorScan(index.db)
    [best, *_] = scan.nearest(query(model_folder, "car"), 3)
    assert best == MeaningHit("garage.txt", 1, "garage.txt", pytest.approx(1.0))
    [fonts] = scan.nearest(query(model_folder, "typeface"), 1)
    assert (fonts.path, fonts.line, fonts.heading) == ("prefs/editor.md", 9, "Fonts")
    assert len(scan) == 4


def test_each_file_comes_once_with_its_best_section(
    store: tuple[Path, NoteIndex], model_folder: Path
) -> None:
    _root, index = store
    hits = VectorScan(index.db).nearest(query(model_folder, "font palette"), 5)
    assert [hit.path for hit in hits][:1] == ["prefs/editor.md"]
    assert len({hit.path for hit in hits}) == len(hits) == 3


def test_only_the_given_paths_and_nothing_for_an_unknown_query(
    store: tuple[Path, NoteIndex], model_folder: Path
) -> None:
    _root, index = store
    scan = VectorScan(index.db)
    hits = scan.nearest(query(model_folder, "car"), 5, paths={"food.md"})
    assert [hit.path for hit in hits] == ["food.md"]
    assert scan.nearest(query(model_folder, "zebra crossing"), 5) == []


def test_the_scan_takes_in_changes_and_deletions(
    store: tuple[Path, NoteIndex], model_folder: Path
) -> None:
    root, index = store
    scan = VectorScan(index.db)
    assert scan.nearest(query(model_folder, "kitten"), 1)[0].score < 0.5
    (root / "food.md").unlink()
    write(root, {"pets.md": "# Pets\n\nA beagle and a cat.\n"})
    index.update_paths(["food.md", "pets.md"])
    sync_vectors(index.db, root, load_embedder(str(model_folder)), ["food.md", "pets.md"])
    [pets] = scan.nearest(query(model_folder, "kitten"), 1)
    assert (pets.path, pets.score) == ("pets.md", pytest.approx(1.0))
    assert len(scan) == 4
    assert "food.md" not in {hit.path for hit in scan.nearest(query(model_folder, "meal"), 5)}


def test_sqlite_vec_finds_what_the_memory_scan_finds(
    store: tuple[Path, NoteIndex], model_folder: Path
) -> None:
    _root, index = store
    conn = index.db.connection()
    if not load_sqlite_vec(conn):
        pytest.skip("this Python's SQLite cannot load extensions (the numpy scan is used)")
    scan = VectorScan(index.db)
    for text in ("car", "font palette", "dinner"):
        vector = query(model_folder, text)
        expected = [(h.path, h.line, h.heading) for h in scan.nearest(vector, 3)]
        found = sql_nearest(conn, vector, 3)
        assert [(h.path, h.line, h.heading) for h in found] == expected


def test_the_first_stage_keeps_the_best_rows_by_the_leading_dimensions() -> None:
    head = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.5, 0.5]], dtype=np.float32)
    rest = np.array([[0.0], [0.5], [0.0], [1.0]], dtype=np.float32)
    vector = np.array([1.0, 0.0, 1.0], dtype=np.float32)
    first = head @ vector[:2]
    scores = _rescored(first, head, rest, vector, 2)
    assert scores.tolist() == pytest.approx([1.0, 1.4, -np.inf, -np.inf])
    excluded = np.where([True, False, True, True], first, -np.inf).astype(np.float32)
    assert _rescored(excluded, head, rest, vector, 2).tolist() == [1.0, -np.inf, -np.inf, 1.5]


def test_the_leading_share_of_the_variance() -> None:
    rng = np.random.default_rng(7)
    head = rng.normal(0, 3, (1000, 4)).astype(np.float32)
    rest = rng.normal(0, 1, (1000, 4)).astype(np.float32)
    assert 0.85 < leading_share(head, rest) < 0.95
    assert 0.05 < leading_share(rest, head) < 0.15


def test_a_large_scan_of_a_variance_ordered_model_finds_what_the_exact_scan_finds(
    store: tuple[Path, NoteIndex], model_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _root, index = store
    exact = VectorScan(index.db)
    texts = ("car", "typeface", "font palette", "pasta dinner")
    expected = [exact.nearest(query(model_folder, text), 3) for text in texts]
    monkeypatch.setattr(scan_module, "TWO_STAGE_ROWS", 1)
    monkeypatch.setattr(scan_module, "HEAD_VARIANCE", 0.0)
    monkeypatch.setattr(scan_module, "TWO_STAGE_CANDIDATES", 2)
    staged = VectorScan(index.db)
    assert [staged.nearest(query(model_folder, text), 3) for text in texts] == expected
    assert staged._two_stage and not exact._two_stage
