"""The parser agrees with Basic Memory 0.24.1 on every edge-case fixture (recorded expectations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.notes.export import note_record
from memtui.notes.parser import parse_note

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED = [
    json.loads(line)
    for line in (FIXTURES / "expected.jsonl").read_text(encoding="utf-8").splitlines()
]


@pytest.mark.parametrize("expected", EXPECTED, ids=[record["path"] for record in EXPECTED])
@pytest.mark.parametrize("fast", [False, True], ids=["reference", "fast"])
def test_fixture_matches_basic_memory(expected: dict, fast: bool) -> None:
    data = (FIXTURES / "notes" / expected["path"]).read_bytes()
    got = note_record(parse_note(data, expected["path"], use_fast_path=fast))
    if "error" in expected:
        assert list(got) == ["path", "error"]
        assert got["path"] == expected["path"]
        return
    assert got == expected
    assert list(got) == list(expected)
    assert list(got["frontmatter"]) == list(expected["frontmatter"])


def test_export_cli_matches_basic_memory(capsys: pytest.CaptureFixture[str]) -> None:
    """`memtui export` over the fixture folder gives Basic Memory's records (errors by path)."""
    assert main(["export", str(FIXTURES / "notes")]) == 0
    got = {
        record["path"]: record for record in map(json.loads, capsys.readouterr().out.splitlines())
    }
    for expected in EXPECTED:
        record = got[expected["path"]]
        if "error" in expected:
            assert list(record) == ["path", "error"], expected["path"]
        else:
            assert record == expected


def test_document_extraction_fixtures_are_recorded() -> None:
    """The recorded expectations cover a valid, a missing and an invalid `source` block."""
    by_path = {record["path"]: record for record in EXPECTED}
    assert {
        "relation_type": "derived_from",
        "target": "3f2b6c1e-8a4d-4b7e-9c1a-2d5e6f7a8b9c",
        "context": None,
    } in by_path["doc_extraction.md"]["relations"]
    assert "error" in by_path["doc_extraction_no_source.md"]
    assert "error" in by_path["doc_extraction_bad_source.md"]
