"""Indexing progress on stderr: drawn on a terminal for work that takes a while, cleared when
done, silent on a pipe and with a warm index."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from memtui.cli import export_cmd, main, shared
from memtui.cli.shared import ProgressLine, progress_printer
from memtui.notes import index_sync


class TerminalStream(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        """Always a terminal."""
        return True


def test_progress_draws_after_the_delay_and_clears_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = TerminalStream()
    now = [100.0]
    report = ProgressLine("building the search index", stderr, clock=lambda: now[0])
    report(500, 1200)
    assert stderr.getvalue() == ""
    now[0] += shared.PROGRESS_DELAY
    report(1000, 1200)
    report(1100, 1200)
    report(1200, 1200)
    assert stderr.getvalue() == (
        "\rbuilding the search index 1000/1200 notes\x1b[K"
        "\rbuilding the search index 1100/1200 notes\x1b[K"
        "\r\x1b[K"
    )


def test_quick_work_draws_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", TerminalStream())
    report = progress_printer()
    assert report is not None
    report(3, 5)
    report(5, 5)
    assert report.stream.getvalue() == ""  # type: ignore[attr-defined]


def test_no_progress_on_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert progress_printer() is None


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(index_sync, "PROGRESS_EVERY", 2)
    monkeypatch.setattr(shared, "PROGRESS_DELAY", 0.0)
    for i in range(5):
        (tmp_path / f"n{i}.md").write_text(f"# Note {i}\n\nhello {i}\n")
    return tmp_path


def test_a_first_search_shows_both_phases_on_a_terminal(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["search", str(store), "hello", "--json"]) == 0
    assert stderr.getvalue() == "\rindexing 2/5 notes\x1b[K\rindexing 4/5 notes\x1b[K\r\x1b[K"
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
    assert stderr.getvalue() == "\rindexing 2/5 notes\x1b[K\rindexing 4/5 notes\x1b[K\r\x1b[K"
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_a_long_export_shows_its_progress_on_a_terminal(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export_cmd, "PROGRESS_MIN_NOTES", 3)
    monkeypatch.setattr(export_cmd, "PROGRESS_EVERY", 2)
    stderr = TerminalStream()
    monkeypatch.setattr("sys.stderr", stderr)
    assert main(["export", str(store)]) == 0
    assert stderr.getvalue() == "\rexport: 2/5 notes\x1b[K\rexport: 4/5 notes\x1b[K\r\x1b[K"


def test_an_export_on_a_pipe_shows_no_progress(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(export_cmd, "PROGRESS_MIN_NOTES", 0)
    assert main(["export", str(store), "--warnings"]) == 0
    assert capsys.readouterr().err == ""
