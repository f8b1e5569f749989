"""The parser agrees with Basic Memory 0.24.1 on every edge-case fixture (recorded expectations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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
