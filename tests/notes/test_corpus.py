"""`memtui export` over Basic Memory's own notes gives exactly what Basic Memory 0.24.1 parses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpus"
NOTES = CORPUS / "basic-memory-notes"
EXPECTED = CORPUS / "basic-memory-notes.expected.jsonl"

pytestmark = pytest.mark.skipif(not EXPECTED.exists(), reason="shared corpus not present")


def _export(*extra: str) -> str:
    """Run `memtui export` on the corpus as a user would and return stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "export", str(NOTES), *extra],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    return done.stdout


def _first_difference(expected: dict, got: dict) -> str:
    """A readable description of the first key where two records differ."""
    if list(expected) != list(got):
        return f"keys {list(expected)} != {list(got)}"
    for key in expected:
        if expected[key] == got[key]:
            continue
        if isinstance(expected[key], list) and isinstance(got[key], list):
            for index, (left, right) in enumerate(zip(expected[key], got[key], strict=False)):
                if left != right:
                    return f"{key}[{index}]:\n  expected {left}\n  got      {right}"
            return f"{key}: {len(expected[key])} items expected, {len(got[key])} got"
        return f"{key}:\n  expected {expected[key]!r}\n  got      {got[key]!r}"
    return "key order differs"


def test_export_matches_basic_memory_record_by_record() -> None:
    expected = [json.loads(line) for line in EXPECTED.read_text(encoding="utf-8").splitlines()]
    got = [json.loads(line) for line in _export().splitlines()]
    assert [record["path"] for record in got] == [record["path"] for record in expected]
    for want, have in zip(expected, got, strict=True):
        assert want == have and list(want) == list(have), (
            f"{want['path']}: {_first_difference(want, have)}"
        )


def test_export_is_byte_identical_to_expected_file() -> None:
    assert _export() == EXPECTED.read_text(encoding="utf-8")


def test_warnings_flag_only_adds_warnings_key() -> None:
    expected = [json.loads(line) for line in EXPECTED.read_text(encoding="utf-8").splitlines()]
    got = [json.loads(line) for line in _export("--warnings").splitlines()]
    with_warnings = [record for record in got if "warnings" in record]
    assert with_warnings, "the corpus has paragraphs that became observations via #word"
    for want, have in zip(expected, got, strict=True):
        have.pop("warnings", None)
        assert want == have
