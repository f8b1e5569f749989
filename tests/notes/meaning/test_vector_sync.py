"""The vectors follow the text index: made once per file version, kept for unchanged sections,
dropped with the file or the model, written in the index file memtui trusts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memtui.notes.index import NoteIndex
from memtui.notes.index_db import IndexFile
from memtui.notes.meaning import sync as sync_module
from memtui.notes.meaning.embedder import StaticEmbedder, load_embedder
from memtui.notes.meaning.sync import sync_vectors
from memtui.notes.meaning.vectors import MODEL_KEY, counts, meta_value
from tests.notes.meaning.conftest import make_model, write

FILES = {
    "prefs/editor.md": "---\ntitle: Editor look\ntags: [ui]\n---\n# Editor look\n\n"
    "Wants a dark palette.\n\n## Fonts\nLarge monospace lettering.\n",
    "garage.txt": "Vehicle: an automobile, serviced each spring.\n",
    "food.md": "# Food\n\nLoves pasta.\n",
}


def chunk_rows(index: NoteIndex) -> list[tuple[str, int, str]]:
    """(path, line, heading) of every stored chunk, in path and line order."""
    rows = index.db.connection().execute(
        "SELECT path, line, heading FROM vec_chunks ORDER BY path, line"
    )
    return [tuple(row) for row in rows]


@pytest.fixture
def indexed(tmp_path: Path, model_folder: Path) -> tuple[NoteIndex, StaticEmbedder]:
    """The FILES store's text index (no vectors yet) and the test-made model."""
    write(tmp_path, FILES)
    return NoteIndex.load(tmp_path), load_embedder(str(model_folder))


def test_every_section_gets_a_vector_once(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    first = sync_vectors(index.db, tmp_path, embedder)
    assert (first.files, first.embedded, first.removed, first.skipped) == (3, 4, 0, [])
    assert chunk_rows(index) == [
        ("food.md", 1, "Food"),
        ("garage.txt", 1, "garage.txt"),
        ("prefs/editor.md", 5, "Editor look"),
        ("prefs/editor.md", 9, "Fonts"),
    ]
    again = sync_vectors(index.db, tmp_path, embedder)
    assert (again.files, again.embedded) == (0, 0)
    assert meta_value(index.db.connection(), MODEL_KEY) == embedder.identity


def test_a_changed_file_is_embedded_again_keeping_its_unchanged_sections(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    sync_vectors(index.db, tmp_path, embedder)
    (tmp_path / "prefs/editor.md").write_text(
        FILES["prefs/editor.md"] + "\n## Colours\nA dark theme.\n"
    )
    index.update_paths(["prefs/editor.md"])
    outcome = sync_vectors(index.db, tmp_path, embedder, ["prefs/editor.md"])
    assert (outcome.files, outcome.embedded) == (1, 1)
    assert chunk_rows(index)[2:] == [
        ("prefs/editor.md", 5, "Editor look"),
        ("prefs/editor.md", 9, "Fonts"),
        ("prefs/editor.md", 12, "Colours"),
    ]


def test_a_deleted_or_renamed_file_takes_its_vectors_along(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    sync_vectors(index.db, tmp_path, embedder)
    (tmp_path / "food.md").unlink()
    os.rename(tmp_path / "garage.txt", tmp_path / "car.txt")
    index.update_paths(["food.md", "garage.txt", "car.txt"])
    outcome = sync_vectors(index.db, tmp_path, embedder, ["food.md", "garage.txt", "car.txt"])
    assert (outcome.files, outcome.removed, outcome.embedded) == (1, 2, 1)
    assert [row[0] for row in chunk_rows(index)] == ["car.txt", *["prefs/editor.md"] * 2]
    assert counts(index.db.connection()) == (2, 3)


def test_a_file_changed_since_the_text_index_read_it_waits_for_the_next_catch_up(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    (tmp_path / "food.md").write_text("# Food\n\nLoves pasta and dinner parties.\n")
    outcome = sync_vectors(index.db, tmp_path, embedder)
    assert (outcome.files, outcome.skipped) == (2, ["food.md"])
    index.update_paths(["food.md"])
    later = sync_vectors(index.db, tmp_path, embedder)
    assert (later.files, later.skipped) == (1, [])


def test_an_edit_keeping_size_and_mtime_is_embedded_again_as_the_text_index_reads_it(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    sync_vectors(index.db, tmp_path, embedder)
    food = tmp_path / "food.md"
    before = food.stat()
    food.write_text("# Cars\n\nLoves volvo.\n")
    os.utime(food, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert food.stat().st_size == before.st_size
    index.update_paths(["food.md"])
    outcome = sync_vectors(index.db, tmp_path, embedder)
    assert (outcome.files, outcome.embedded, outcome.skipped) == (1, 1, [])
    assert ("food.md", 1, "Cars") in chunk_rows(index)


def test_another_model_replaces_every_vector(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    sync_vectors(index.db, tmp_path, embedder)
    other = load_embedder(
        str(make_model(tmp_path.parent / f"{tmp_path.name}-other", {"a": ("car",)}))
    )
    outcome = sync_vectors(index.db, tmp_path, other)
    assert (outcome.files, outcome.embedded) == (3, 4)
    assert meta_value(index.db.connection(), MODEL_KEY) == other.identity
    assert counts(index.db.connection()) == (3, 4)


def test_an_index_holding_vectors_is_trusted_when_opened_again(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder]
) -> None:
    index, embedder = indexed
    sync_vectors(index.db, tmp_path, embedder)
    index.close()
    reopened = IndexFile.open(tmp_path)
    assert reopened.connection().execute("SELECT count(*) FROM vec_chunks").fetchone() == (4,)
    reopened.close()


def test_a_paced_catch_up_rests_after_each_file_and_each_slice_embedded(
    tmp_path: Path, indexed: tuple[NoteIndex, StaticEmbedder], monkeypatch: pytest.MonkeyPatch
) -> None:
    index, embedder = indexed
    monkeypatch.setattr(sync_module, "EMBED_SLICE", 3)
    rests: list[int] = []
    outcome = sync_vectors(
        index.db, tmp_path, embedder, pace=lambda: rests.append(counts(index.db.connection())[1])
    )
    assert (outcome.files, outcome.embedded) == (3, 4)
    assert rests == [0, 0, 0, 0, 0]
    assert counts(index.db.connection()) == (3, 4)
