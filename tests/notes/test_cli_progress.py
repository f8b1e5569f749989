"""Indexing progress on stderr: drawn on a terminal while files are read, silent on a pipe."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from memtui.cli import export_cmd, main
from memtui.cli.shared import progress_printer
from memtui.notes import index_sync


class TerminalStream(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        """Always a terminal."""
        return True


def test_progress_draws_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    report = progress_printer("indexing")
    assert report is not None
    report(0, 0)
    report(500, 1200)
    report(1200, 1200)
    assert stderr.getvalue() == "\rindexing 500/1200 files\rindexing 1200/1200 files\n"


def test_no_progress_on_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert progress_printer() is None


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(index_sync, "PROGRESS_EVERY", 2)
    for i in range(5):
        (tmp_path / f"n{i}.md").write_text(f"# Note {i}\n\nhello {i}\n")
    return tmp_path


def test_a_first_search_shows_its_indexing_and_a_second_nothing(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["search", str(store), "hello", "--json"]) == 0
    assert stderr.getvalue() == ("\rindexing 2/5 files\rindexing 4/5 files\rindexing 5/5 files\n")
    stderr.seek(0)
    stderr.truncate()
    assert main(["search", str(store), "hello", "--json"]) == 0
    assert stderr.getvalue() == ""


def test_a_search_on_a_pipe_shows_no_progress(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", str(store), "hello", "--json"]) == 0
    assert capsys.readouterr().err == ""


def test_export_with_warnings_shows_the_index_progress_on_a_terminal(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["export", str(store), "--warnings"]) == 0
    assert stderr.getvalue() == "\rindexing 2/5 files\rindexing 4/5 files\rindexing 5/5 files\n"
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_a_long_export_shows_its_progress_on_a_terminal(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export_cmd, "PROGRESS_MIN_NOTES", 3)
    monkeypatch.setattr(export_cmd, "PROGRESS_EVERY", 2)
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["export", str(store)]) == 0
    assert stderr.getvalue() == ("\rexport: 2/5 files\rexport: 4/5 files\rexport: 5/5 files\n")


def test_an_export_on_a_pipe_shows_no_progress(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export_cmd, "PROGRESS_MIN_NOTES", 0)
    assert main(["export", str(store), "--warnings"]) == 0
    assert capsys.readouterr().err == ""
