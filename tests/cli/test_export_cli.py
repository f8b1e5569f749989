"""`memtui export` as a user runs it: files found, order, formats, errors, help."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.cli import main


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    code = main(["export", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _store(tmp_path: Path) -> Path:
    """A small store with nested, hidden, non-markdown and problem files."""
    root = tmp_path / "store"
    (root / "b").mkdir(parents=True)
    (root / ".memtui").mkdir()
    (root / ".hidden").mkdir()
    (root / "b" / "z.md").write_bytes(b"- [fact] zed #z\n")
    (root / "a.md").write_bytes(b"---\ntitle: Alpha\ntags: x, y\n---\n- rel [[b/z]] (why)\n")
    (root / "B.md").write_bytes(b"# Issue #7\n")
    (root / ".memtui" / "cache.md").write_bytes(b"- [no] hidden\n")
    (root / ".hidden" / "h.md").write_bytes(b"- [no] hidden\n")
    (root / "notes.txt").write_bytes(b"- [no] not markdown\n")
    (root / "bad.md").write_bytes(b"- [x] \xff\n")
    (root / "keys.md").write_bytes(b"---\n2024: year\n---\ntext\n")
    return root


def test_jsonl_records_sorted_with_exact_values(tmp_path: Path, capsys) -> None:
    code, out, err = _run([str(_store(tmp_path))], capsys)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        '{"path": "B.md", "title": "B", "frontmatter": {"title": "B", "type": "note"}, '
        '"observations": [{"category": null, "content": "Issue #7", "tags": ["7"], '
        '"context": null}], "relations": []}',
        '{"path": "a.md", "title": "Alpha", "frontmatter": {"title": "Alpha", "tags": ["x", "y"], '
        '"type": "note"}, "observations": [], "relations": [{"relation_type": "rel", '
        '"target": "b/z", "context": "why"}]}',
        '{"path": "b/z.md", "title": "z", "frontmatter": {"title": "z", "type": "note"}, '
        '"observations": [{"category": "fact", "content": "zed #z", "tags": ["z"], '
        '"context": null}], "relations": []}',
        '{"path": "bad.md", "error": "not valid UTF-8 (byte 6); '
        'Basic Memory does not index this file"}',
        '{"path": "keys.md", "error": "frontmatter key 2024 is not a string; '
        'Basic Memory refuses to index this file"}',
        '{"path": "notes.txt", "kind": "text", "title": "notes.txt", '
        '"text": "- [no] not markdown\\n"}',
    ]


def test_warnings_flag_adds_warnings(tmp_path: Path, capsys) -> None:
    code, out, _ = _run([str(_store(tmp_path)), "--warnings"], capsys)
    assert code == 0
    records = {record["path"]: record for record in map(json.loads, out.splitlines())}
    assert records["B.md"]["warnings"] == [
        "line 1: this heading became an observation without a category "
        "only because it contains a #word"
    ]
    assert "warnings" not in records["a.md"]


def test_warnings_flag_reports_unresolved_links(tmp_path: Path, capsys) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "a.md").write_text("# A\n\n- uses [[Nowhere]]\n- uses [[B]]\n- [fact] x #\n")
    (root / "b.md").write_text("# B\n")
    code, out, _ = _run([str(root), "--warnings"], capsys)
    assert code == 0
    records = {record["path"]: record for record in map(json.loads, out.splitlines())}
    assert records["a.md"]["warnings"][-1] == "unresolved link: Nowhere"
    assert len(records["a.md"]["warnings"]) >= 2
    assert "warnings" not in records["b.md"]
    code, plain, _ = _run([str(root)], capsys)
    assert "warnings" not in plain
    assert not (root / ".memtui").exists()


def test_json_format_is_one_array(tmp_path: Path, capsys) -> None:
    root = _store(tmp_path)
    _, lines, _ = _run([str(root)], capsys)
    code, out, _ = _run([str(root), "--format", "json"], capsys)
    assert code == 0
    assert json.loads(out) == [json.loads(line) for line in lines.splitlines()]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _run([str(empty), "--format", "json"], capsys)[1] == "[]\n"


def test_symlinks_out_of_the_folder_are_not_followed(tmp_path: Path, capsys) -> None:
    root = _store(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(b"- [s] outside\n")
    os.symlink(outside, root / "linkdir")
    os.symlink(outside / "secret.md", root / "linkfile.md")
    os.symlink(root / "b" / "z.md", root / "inside.md")
    _, out, _ = _run([str(root)], capsys)
    paths = [json.loads(line)["path"] for line in out.splitlines()]
    assert paths == ["B.md", "a.md", "b/z.md", "bad.md", "inside.md", "keys.md", "notes.txt"]


def test_missing_folder_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    code, out, err = _run([str(tmp_path / "nope")], capsys)
    assert code == 2 and out == ""
    assert err == f"memtui export: {tmp_path / 'nope'} is not a folder\n"


def test_help_describes_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "export", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert " ".join(done.stdout.split("\n\n")[0].split()) == (
        "usage: memtui export [-h] [--format {jsonl,json}] [--warnings] [--as-of WHEN] "
        "[--to DIR] PATH"
    )
    assert "Basic Memory 0.24.1" in done.stdout
    assert "hidden folders" in done.stdout
