"""The Workspace holds search by meaning when a model is configured: it embeds what the index
holds once, keeps the vectors in step with every change it applies, and answers each query mode;
without the extra or a model it searches as before and says how to turn meaning on."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.notes import meaning as meaning_package
from memtui.notes.meaning import TURN_ON
from memtui.notes.meaning.vectors import counts
from memtui.notes.query import QueryError, SearchFilters, parse_query
from memtui.notes.search import SearchHit
from memtui.notes.search_modes import READYING
from memtui.notes.workspace import Workspace
from tests.notes.meaning.conftest import write

FILES = {
    "garage.md": "# Garage\n\nThe volvo is serviced each spring.\n\n## Dinner\nPasta on fridays.\n",
    "prefs/look.md": "---\ntags: [ui]\n---\n# Look\n\nWants a dark palette.\n",
    "pets.txt": "A beagle puppy named Rex.\n",
}


def opened(root: Path, model: str | None) -> Workspace:
    """A workspace on `root` with its index, searcher and (with `model`) search by meaning."""
    workspace = Workspace(root=root, history=lambda: None, search_model=model)
    workspace.load_index()
    workspace.install_searcher()
    workspace.open_meaning()
    return workspace


def found(workspace: Workspace, query: str) -> list[tuple[str, int, str, str]]:
    """(path, line, kind, text) of each hit of a query written in the app's syntax."""
    words, filters = parse_query(query)
    return [(h.path, h.line, h.kind, h.text) for h in workspace.search(words, filters).hits]


def test_the_mode_is_part_of_the_query_syntax() -> None:
    assert parse_query("car mode:meaning tag:ui") == (
        "car",
        SearchFilters(tag="ui", mode="meaning"),
    )
    assert parse_query("car mode:Hybrid")[1].mode == "hybrid"
    assert parse_query("car mode:mea") == ("car", SearchFilters())
    assert not parse_query("mode:text")[1].any()
    with pytest.raises(QueryError) as refused:
        parse_query("car mode:fast")
    assert str(refused.value) == (
        "mode:fast is not a search mode (mode:text, mode:meaning, mode:hybrid)"
    )


def test_a_query_sharing_no_word_finds_the_note_at_its_section(
    tmp_path: Path, model_folder: Path
) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(model_folder))
    assert found(workspace, "automobile mode:meaning") == [("garage.md", 1, "meaning", "Garage")]
    assert found(workspace, "meal mode:meaning") == [("garage.md", 5, "meaning", "Dinner")]
    assert found(workspace, "automobile mode:text") == []
    assert found(workspace, "automobile") == [("garage.md", 1, "meaning", "Garage")]
    workspace.close()


def test_hybrid_keeps_typo_tolerance_highlights_and_filters(
    tmp_path: Path, model_folder: Path
) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(model_folder))
    words, filters = parse_query("volvoo palette")
    result = workspace.search(words, filters)
    assert result.mode == "hybrid"
    assert result.note is None
    assert [(h.path, h.kind, h.spans) for h in result.hits] == [
        ("prefs/look.md", "body", ((13, 20),)),
        ("garage.md", "body", ((4, 9),)),
    ]
    assert found(workspace, "kitten folder:prefs mode:meaning") == []
    assert found(workspace, "theme tag:ui mode:meaning") == [
        ("prefs/look.md", 4, "meaning", "Look")
    ]
    assert found(workspace, "kitten mode:hybrid") == [("pets.txt", 1, "meaning", "pets.txt")]
    workspace.close()


def test_every_change_applied_reaches_the_vectors_at_once(
    tmp_path: Path, model_folder: Path
) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(model_folder))
    index = workspace.index
    assert index is not None
    assert counts(index.db.connection()) == (3, 4)
    (tmp_path / "pets.txt").unlink()
    (tmp_path / "fonts.md").write_text("# Fonts\n\nA monospace typeface.\n")
    workspace.apply(["pets.txt", "fonts.md"])
    assert counts(index.db.connection()) == (3, 4)
    assert found(workspace, "lettering mode:meaning") == [("fonts.md", 1, "meaning", "Fonts")]
    assert found(workspace, "kitten mode:meaning") == []
    (tmp_path / "prefs").rename(tmp_path / "settings")
    workspace.apply(["prefs", "settings"])
    assert found(workspace, "theme mode:meaning") == [("settings/look.md", 4, "meaning", "Look")]
    workspace.close()


def test_a_process_opening_it_later_takes_in_what_changed_meanwhile(
    tmp_path: Path, model_folder: Path
) -> None:
    write(tmp_path, FILES)
    opened(tmp_path, str(model_folder)).close()
    (tmp_path / "garage.md").write_text("# Garage\n\nA kitten sleeps on the car.\n")
    workspace = opened(tmp_path, str(model_folder))
    assert found(workspace, "puppy mode:meaning") == [
        ("pets.txt", 1, "meaning", "pets.txt"),
        ("garage.md", 1, "meaning", "Garage"),
    ]
    workspace.close()


def test_without_a_model_search_is_by_text_and_says_how_to_turn_meaning_on(
    tmp_path: Path,
) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, None)
    assert workspace.meaning is None
    assert workspace.meaning_off == TURN_ON
    for query in ("volvo", "volvo mode:text"):
        result = workspace.search(*parse_query(query))
        assert (result.mode, result.note) == ("text", None)
        assert [(h.path, h.line) for h in result.hits] == [("garage.md", 3)]
    result = workspace.search(*parse_query("volvo mode:meaning"))
    assert (result.mode, result.note) == ("text", TURN_ON)
    assert [(h.path, h.line) for h in result.hits] == [("garage.md", 3)]
    index = workspace.index
    assert index is not None
    (tmp_path / "pets.txt").write_text("A kitten.\n")
    workspace.apply(["pets.txt"])
    assert counts(index.db.connection()) == (0, 0)
    workspace.close()


def test_without_the_extra_a_configured_model_is_not_loaded(
    tmp_path: Path, model_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(meaning_package, "missing_packages", lambda: ["model2vec"])
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(model_folder))
    assert (workspace.meaning, workspace.meaning_wanted) == (None, False)
    result = workspace.search(*parse_query("automobile mode:hybrid"))
    assert (result.hits, result.note) == ([], TURN_ON)
    workspace.close()


def test_a_model_that_cannot_load_is_one_line_and_search_stays_by_text(tmp_path: Path) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(tmp_path / "no-model"))
    assert workspace.meaning is None
    assert workspace.meaning_off == f"[search] model: {tmp_path / 'no-model'} is not a folder"
    result = workspace.search(*parse_query("volvo mode:meaning"))
    assert result.note == workspace.meaning_off
    assert result.hits == [
        SearchHit("garage.md", 3, "body", "The volvo is serviced each spring.", 100.0, ((4, 9),))
    ]
    workspace.close()


def test_before_the_vectors_are_caught_up_a_meaning_query_says_so(
    tmp_path: Path, model_folder: Path
) -> None:
    write(tmp_path, FILES)
    workspace = Workspace(root=tmp_path, history=lambda: None, search_model=str(model_folder))
    workspace.load_index()
    workspace.install_searcher()
    result = workspace.search(*parse_query("automobile mode:meaning"))
    assert (result.hits, result.mode, result.note) == ([], "text", READYING)
    assert workspace.search(*parse_query("volvo")).mode == "text"
    workspace.close()


@pytest.mark.parametrize("mode", ["meaning", "hybrid", "text"])
def test_a_file_the_reader_may_not_see_is_never_found_in_any_mode(
    tmp_path: Path, model_folder: Path, mode: str
) -> None:
    write(tmp_path, FILES)
    workspace = opened(tmp_path, str(model_folder))
    try:
        hidden = "garage.md"
        everything = workspace.search("car volvo dinner meal", limit=10, mode=mode).hits
        assert hidden in {hit.path for hit in everything}
        seen = workspace.search(
            "car volvo dinner meal", limit=10, mode=mode, visible=lambda path: path != hidden
        ).hits
        assert hidden not in {hit.path for hit in seen}
    finally:
        workspace.close()
