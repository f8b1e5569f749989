"""`memtui search` and `memtui stale` as a user runs them: output, JSON lines, errors, help."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from memtui.cli import main


@pytest.fixture
def store(tmp_path: Path) -> Path:
    (tmp_path / "projects").mkdir()
    (tmp_path / "projects" / "memtui.md").write_text(
        "---\ntitle: Memtui\ntype: project\n---\n\n- [decision] Write it in Python #lang\n"
    )
    (tmp_path / "old.md").write_text(
        "---\ntitle: Old plan\nexpires: 2020-01-01\n---\n\nA python script, see [[Nowhere]].\n"
    )
    past = time.time() - 400 * 86400
    os.utime(tmp_path / "old.md", (past, past))
    return tmp_path


def test_search_prints_hits(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(store), "python"]) == 0
    assert capsys.readouterr().out == (
        "old.md\n"
        "      6  relation    A python script, see [[Nowhere]].\n"
        "projects/memtui.md\n"
        "      6  observation - [decision] Write it in Python #lang\n"
    )


def test_search_json_lines_and_filters(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(store), "pyhton", "--json", "--folder", "projects"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == [
        {
            "path": "projects/memtui.md",
            "line": 6,
            "kind": "observation",
            "text": "- [decision] Write it in Python #lang",
            "score": 71.83,
            "spans": [[25, 31]],
        }
    ]
    assert (
        main(["search", str(store), "python", "--json", "--type", "project", "--limit", "1"]) == 0
    )
    assert [json.loads(x)["path"] for x in capsys.readouterr().out.splitlines()] == [
        "projects/memtui.md"
    ]
    assert main(["search", str(store), "python", "--json", "--max-age", "30"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1


def test_search_without_matches_and_errors(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", str(store), "zzyzx"]) == 1
    assert capsys.readouterr() == ("", "memtui search: no matches\n")
    assert main(["search", str(store / "missing"), "x"]) == 2
    assert capsys.readouterr().err == f"memtui search: {store / 'missing'} is not a folder\n"
    assert main(["search", str(store), "x", "--limit", "0"]) == 2
    assert capsys.readouterr().err == "memtui search: --limit must be at least 1\n"


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "-0.5"])
def test_search_refuses_a_max_age_that_is_not_a_number_of_days(
    store: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert main(["search", str(store), "python", "--max-age", value]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("memtui search: --max-age must be a number of days, 0 or more")
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", ["search", "stale", "export", "log"])
def test_an_unknown_flag_is_one_line_naming_the_subcommand(
    store: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    args = [command, str(store), *(["python"] if command == "search" else []), "--bogus"]
    with pytest.raises(SystemExit) as exited:
        main(args)
    assert exited.value.code == 2
    assert capsys.readouterr().err == f"memtui {command}: unrecognized arguments: --bogus\n"


def test_stale_lists_reasons(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stale", str(store), "--limit", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "  5.2  old.md",
        "       - unchanged for 400 days",
        "       - expired on 2020-01-01",
        "       - links to 1 note not written yet: Nowhere",
    ]
    assert main(["stale", str(store), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["path"], r["score"]) for r in rows] == [("old.md", 5.25)]
    assert rows[0]["reasons"][2] == {
        "kind": "unresolved",
        "text": "links to 1 note not written yet: Nowhere",
        "weight": 0.25,
    }
    assert sorted(os.listdir(store)) == [".memtui", "old.md", "projects"]


def test_stale_says_when_nothing_is_proposed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fresh.md").write_text("# Fresh\n\nwritten today\n", encoding="utf-8")
    assert main(["stale", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "nothing to review\n"


def test_help_for_both_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("search", "stale"):
        with pytest.raises(SystemExit) as exit_info:
            main([command, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: memtui {command} [-h]" in capsys.readouterr().out


def test_search_reuses_the_index_until_a_file_changes(
    store: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtui.notes import parse_pool

    assert main(["search", str(store), "python", "--json"]) == 0
    first = capsys.readouterr().out
    assert (store / ".memtui" / "index.db").is_file()

    def no_reading(*args: object, **kwargs: object) -> object:
        raise AssertionError("a file was read although none changed")

    with monkeypatch.context() as patch:
        patch.setattr(parse_pool, "read_store_head", no_reading)
        assert main(["search", str(store), "python", "--json"]) == 0
        assert capsys.readouterr().out == first
        assert main(["search", str(store), "python", "--json", "--tag", "lang"]) == 0
        assert [json.loads(x)["path"] for x in capsys.readouterr().out.splitlines()] == [
            "projects/memtui.md"
        ]
    (store / "new.md").write_text("---\ntitle: New\n---\n\nmore python\n")
    assert main(["search", str(store), "python", "--json"]) == 0
    assert "new.md" in {json.loads(x)["path"] for x in capsys.readouterr().out.splitlines()}


def test_a_query_of_filters_alone_lists_notes_newest_first(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(store), "type:project", "--json"]) == 0
    assert [json.loads(x) for x in capsys.readouterr().out.splitlines()] == [
        {
            "path": "projects/memtui.md",
            "line": 0,
            "kind": "note",
            "text": "Memtui",
            "score": 0.0,
            "spans": [],
        }
    ]
    assert main(["search", str(store), "--max-age", "1000"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "projects/memtui.md",
        "         note        Memtui",
        "old.md",
        "         note        Old plan",
    ]
    assert main(["search", str(store), "python folder:projects/"]) == 0
    assert capsys.readouterr().out.startswith("projects/memtui.md\n      6  ")


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("python age:abc", "age:abc is not a number of days (e.g. age:7 or age:7d)"),
        ("age:-3", "age:-3 is not a number of days (e.g. age:7 or age:7d)"),
        ("", "give words to look for, filters, or both"),
    ],
)
def test_a_filter_that_cannot_be_used_is_one_line(
    store: Path, capsys: pytest.CaptureFixture[str], query: str, message: str
) -> None:
    assert main(["search", str(store), query]) == 2
    assert capsys.readouterr() == ("", f"memtui search: {message}\n")
    if not query:
        assert main(["search", str(store)]) == 2
        assert capsys.readouterr() == ("", f"memtui search: {message}\n")


def test_search_tag_and_category_filters(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (store / "tagged.md").write_text(
        "---\ntitle: Tagged\ntags: [snakes]\n---\n\n- [fact] python is also a snake\n"
    )

    def paths(*flags: str) -> list[str]:
        assert main(["search", str(store), "python", "--json", *flags]) in (0, 1)
        return sorted(json.loads(line)["path"] for line in capsys.readouterr().out.splitlines())

    assert paths() == ["old.md", "projects/memtui.md", "tagged.md"]
    assert paths("--tag", "lang") == ["projects/memtui.md"]
    assert paths("--tag", "#lang") == ["projects/memtui.md"]
    assert paths("--tag", "snakes") == ["tagged.md"]
    assert paths("--tag", "nothing") == []
    assert paths("--category", "decision") == ["projects/memtui.md"]
    assert paths("--category", "fact") == ["tagged.md"]
    assert paths("--category", "fact", "--tag", "lang") == []
    assert main(["search", str(store), "python", "--tag", "snakes"]) == 0
    assert capsys.readouterr().out.startswith("tagged.md\n")
