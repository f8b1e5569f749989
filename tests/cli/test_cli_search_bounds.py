"""`memtui search` with a query no store can answer by brute force, and numbers past SQLite's:
bounded memory and time, one-line answers."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memtui.cli import main
from tests.notes.search_flood import BEST_LINE, FLOOD_QUERY, limited_command, write_flood_store


def test_a_500_word_query_finishes_in_bounded_memory(tmp_path: Path) -> None:
    root = write_flood_store(tmp_path / "store")
    done = subprocess.run(
        limited_command("search", str(root), FLOOD_QUERY, "--limit", "3"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"best.md:3  body        {BEST_LINE}\n"
        "n00.md:3  observation - [fact] about zq000\n"
        "n00.md:4  observation - [fact] about zq001\n"
    )


def test_an_age_past_every_date_finds_every_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text("# A\n\nkiwi\n")
    for query, extra in (
        ("kiwi age:99999999999999999999d", []),
        ("kiwi age:1e300", []),
        ("kiwi", ["--max-age", "1e300"]),
    ):
        assert main(["search", str(tmp_path), query, *extra]) == 0, query
        assert capsys.readouterr() == ("a.md:3  body        kiwi\n", ""), query


@pytest.mark.parametrize(
    "args",
    [
        ["search", "kiwi", "--limit", "99999999999999999999"],
        ["log", "--limit", "99999999999999999999"],
        ["undo", "99999999999999999999"],
        ["approve", "99999999999999999999"],
        ["undo", "--", "-99999999999999999999"],
    ],
)
def test_a_number_past_what_sqlite_stores_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    command, *rest = args
    with pytest.raises(SystemExit) as exit_info:
        main([command, str(tmp_path), *rest])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    number = rest[-1]
    name = "EVENT_ID" if command in ("undo", "approve") else "--limit"
    assert (out, err) == (
        "",
        f"memtui {command}: {name}: '{number}' is too large (at most 9,223,372,036,854,775,807)\n",
    )
