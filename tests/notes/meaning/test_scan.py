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
    _leading_rows,
    dot,
    leading_share,
    load_sqlite_vec,
    product,
    sql_nearest,
)
from memtui.notes.meaning.sync import sync_vectors
from tests.notes.meaning.conftest import CONCEPTS, make_model, write
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


def test_vectors_read_one_at_a_time_are_held_as_those_read_at_once(
    store: tuple[Path, NoteIndex], model_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _root, index = store
    whole = VectorScan(index.db)
    whole.refresh()
    monkeypatch.setattr(scan_module, "LOAD_BATCH", 1)
    single = VectorScan(index.db)
    single.refresh()
    assert single._ids.tolist() == whole._ids.tolist()
    assert single._row_file.tolist() == whole._row_file.tolist()
    assert np.array_equal(single._head, whole._head)
    assert np.array_equal(single._rest, whole._rest)
    assert single._head.flags.writeable and single._head.flags.c_contiguous
    for text in ("car", "typeface", "kitten"):
        vector = query(model_folder, text)
        assert single.nearest(vector, 3) == whole.nearest(vector, 3)


def test_a_held_scan_follows_the_index_to_a_model_of_other_dimensions(
    store: tuple[Path, NoteIndex], model_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    root, index = store
    scan = VectorScan(index.db)
    assert scan.nearest(query(model_folder, "car"), 1)[0].path == "garage.txt"
    wider = make_model(tmp_path_factory.mktemp("wider"), {**CONCEPTS, "music": ("piano", "song")})
    sync_vectors(index.db, root, load_embedder(str(wider)))
    [best] = scan.nearest(query(wider, "automobile"), 1)
    assert (best.path, best.score) == ("garage.txt", pytest.approx(1.0))
    assert scan._head.shape[1] + scan._rest.shape[1] == 6
    assert len(scan) == 4


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
    first = np.array([1.0, 0.9, 0.0, 0.5], dtype=np.float32)
    assert _leading_rows(first, 2).tolist() == [0, 1]
    assert _leading_rows(first, 9).tolist() == [0, 1, 2, 3]
    excluded = np.where([True, False, True, True], first, -np.inf).astype(np.float32)
    assert _leading_rows(excluded, 2).tolist() == [0, 3]
    assert _leading_rows(excluded, 9).tolist() == [0, 2, 3]
    assert _leading_rows(np.full(3, -np.inf, dtype=np.float32), 2).tolist() == []


def test_a_large_matrix_goes_through_blas_and_agrees_with_the_own_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(300, 8)).astype(np.float32)
    vector = rng.normal(size=8).astype(np.float32)
    own = product(matrix, vector)
    monkeypatch.setattr(scan_module, "BLAS_ELEMENTS", matrix.size)
    through_blas = product(matrix, vector)
    assert through_blas.dtype == np.float32
    assert through_blas == pytest.approx(own, rel=1e-5, abs=1e-5)
    assert own == pytest.approx(dot(matrix, vector))


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
