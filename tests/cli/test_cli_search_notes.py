"""`memtui search` on the demo notes: short words, one entry per note, no `:0` for a title."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.demo.bundled import DEMO_NOTES_DIR


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the bundled demo notes."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO_NOTES_DIR, root)
    return root


def test_a_two_letter_word_is_found_in_lines_and_tags(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(demo), "go"]) == 0
    out = capsys.readouterr().out
    assert "projects/billing-service.md\n      5  frontmatter tags: project, billing, go\n" in out
    assert (
        "     15  observation - [stack] Go 1.23, Postgres 16, NATS for usage events #tech\n" in out
    )
    assert "user/profile.md\n" in out
    assert main(["search", str(demo), "go", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"path": "projects/billing-service.md", "line": 15} in [
        {"path": record["path"], "line": record["line"]} for record in records
    ]
    assert {record["kind"] for record in records} >= {"frontmatter", "body", "observation"}


def test_each_note_is_listed_once_with_its_best_lines(
    demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run` matches 8 lines of the runbook and both its title and path: one entry, three
    lines, the title without a line number."""
    assert main(["search", str(demo), "run"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows.count("projects/data-pipeline/runbook.md") == 1
    at = rows.index("projects/data-pipeline/runbook.md")
    assert rows[at + 1 : at + 4] == [
        "         title       Data Pipeline Runbook",
        "      3  frontmatter type: runbook",
        "      5  frontmatter tags: pipeline, ops, runbook",
    ]
    assert not any(row.startswith("  ") for row in rows[at + 4 : at + 5])
    notes = [row for row in rows if not row.startswith(" ")]
    assert not any(":" in row for row in notes)
    assert len(notes) == len(set(notes))
    assert main(["search", str(demo), "run", "--limit", "2"]) == 0
    assert [row for row in capsys.readouterr().out.splitlines() if not row.startswith(" ")] == (
        notes[:2]
    )


def test_a_title_and_path_match_is_one_line(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(demo), "runbook", "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    runbook = [
        (record["line"], record["kind"])
        for record in records
        if record["path"] == "projects/data-pipeline/runbook.md"
    ]
    assert runbook == [(0, "title"), (3, "frontmatter"), (5, "frontmatter")]
