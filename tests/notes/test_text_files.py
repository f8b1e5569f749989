"""Every text file the memory tool can write is indexed and searched like a note's lines: `.txt`,
`.xml`, `.json`, markdown full of XML-style tags; binaries are skipped with a reason; frontmatter
tags and type are searchable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.agents.notes_access import NotesAccess
from memtui.cli import main
from memtui.core.store import MemoryStore
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher
from memtui.notes.workspace import Workspace


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store written the way Claude's memory tool writes, beside one Basic Memory note."""
    root = tmp_path / "memories"
    root.mkdir()
    (root / "decisions.txt").write_text(
        "2026-05-02 chose NATS over Kafka for events\n#ops reviewed\n", encoding="utf-8"
    )
    (root / "context.xml").write_text(
        "<user_preferences>\n  <theme>prefers dark mode everywhere</theme>\n</user_preferences>\n",
        encoding="utf-8",
    )
    (root / "prefs.json").write_text('{"editor": "helix", "tabs": 4}\n', encoding="utf-8")
    (root / "project.md").write_text(
        "# Launch plan\n\n<important>\nAlways keep a rollback script ready.\n</important>\n",
        encoding="utf-8",
    )
    (root / "log.txt").write_text("# Session log\nfirst line\n", encoding="utf-8")
    (root / "tagged.md").write_text(
        "---\ntitle: Tooling\ntype: reference\ntags: [python, cli]\n---\n\nNothing else here.\n",
        encoding="utf-8",
    )
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (root / "latin1.txt").write_bytes(b"caf\xe9 " * 5000)
    return root


def json_hits(
    capsys: pytest.CaptureFixture[str], root: Path, query: str
) -> list[dict[str, object]]:
    """The hits `memtui search --json` prints for `query`."""
    main(["search", str(root), query, "--json", "--limit", "50"])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_text_files_of_any_kind_are_searched_line_by_line(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = json_hits(capsys, store, "NATS")
    assert [(h["path"], h["line"], h["kind"], h["text"]) for h in found] == [
        ("decisions.txt", 1, "body", "2026-05-02 chose NATS over Kafka for events")
    ]
    assert found[0]["spans"] == [[17, 21]]
    assert [(h["path"], h["line"]) for h in json_hits(capsys, store, "dark mode")] == [
        ("context.xml", 2)
    ]
    assert [(h["path"], h["line"]) for h in json_hits(capsys, store, "rollback")] == [
        ("project.md", 4)
    ]
    assert [(h["path"], h["line"]) for h in json_hits(capsys, store, "helix")] == [
        ("prefs.json", 1)
    ]
    assert [h["path"] for h in json_hits(capsys, store, "PNG")] == []


def test_binaries_are_skipped_with_a_reason_and_bad_bytes_later_are_searched(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(store), "helix"]) == 0
    assert capsys.readouterr().err == (
        "memtui search: skipped latin1.txt: binary file (not UTF-8 at byte 3), skipped\n"
        "memtui search: skipped photo.png: binary file (a NUL byte at 8), skipped\n"
    )
    (store / "late.txt").write_bytes(b"plain words\n" * 1000 + b"then \xff byte\n")
    found = json_hits(capsys, store, "byte")
    assert [(h["path"], h["line"], h["text"]) for h in found] == [
        ("late.txt", 1001, "then \ufffd byte")
    ]
    index = NoteIndex.load(store)
    assert index.warnings("late.txt") == [
        "not valid UTF-8 (byte 12005); those bytes are searched as �"
    ]
    index.close()


def test_titles_come_from_the_first_heading_or_the_file_name(store: Path) -> None:
    index = NoteIndex.load(store)
    assert index.titles() == {
        "context.xml": "context.xml",
        "decisions.txt": "decisions.txt",
        "log.txt": "Session log",
        "prefs.json": "prefs.json",
        "project.md": "project",
        "tagged.md": "Tooling",
    }
    assert sorted(index.notes) == ["project.md", "tagged.md"]
    assert index.warnings("decisions.txt") == []
    index.close()


def test_export_gives_text_files_a_record_without_note_warnings(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(store), "--warnings"]) == 0
    out, err = capsys.readouterr()
    records = {record["path"]: record for record in map(json.loads, out.splitlines())}
    assert records["decisions.txt"] == {
        "path": "decisions.txt",
        "kind": "text",
        "title": "decisions.txt",
        "text": "2026-05-02 chose NATS over Kafka for events\n#ops reviewed\n",
    }
    assert records["log.txt"]["title"] == "Session log"
    assert "photo.png" not in records and "latin1.txt" not in records
    assert err == (
        "memtui export: skipped latin1.txt: binary file (not UTF-8 at byte 3), skipped\n"
        "memtui export: skipped photo.png: binary file (a NUL byte at 8), skipped\n"
    )


def test_frontmatter_tags_and_type_are_searchable_even_misspelt(store: Path) -> None:
    index = NoteIndex.load(store)
    searcher = Searcher(index)
    for query in ("python", "pyhton"):
        found = [(h.path, h.line, h.kind, h.text) for h in searcher.search(query)]
        assert found == [("tagged.md", 4, "frontmatter", "tags: python, cli")], query
    best = searcher.search("reference")[0]
    assert (best.path, best.line, best.kind, best.text) == (
        "tagged.md",
        3,
        "frontmatter",
        "type: reference",
    )
    index.close()


def test_mcp_search_finds_text_in_txt_and_xml_files(store: Path) -> None:
    notes = NotesAccess(Workspace(MemoryStore(store, actor="agent:test")))
    text = notes.search_text("NATS")
    assert text.splitlines()[:3] == [
        '1 match in 1 note for "NATS":',
        "",
        "/memories/decisions.txt (decisions.txt)",
    ]
    assert "/memories/context.xml (context.xml)" in notes.search_text("dark mode")
