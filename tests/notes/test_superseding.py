"""Keeping the newer statement: the older line removed or marked superseded (exact bytes), the
change made through the core as one operation that undo takes back, and a file changed
meanwhile left alone; plus each line's date from the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.contradictions import Contradiction, Line
from memtui.notes.line_dates import line_times
from memtui.notes.operations.resolving import KEEP_NEWER_KIND, keep_newer
from memtui.notes.parser import parse_note
from memtui.notes.superseding import LineMoved, find_line, mark_superseded, remove_line
from memtui.notes.workspace import Workspace

T0 = 1_800_000_000.0
DAY = 86400.0


def test_remove_line_keeps_every_other_byte() -> None:
    assert remove_line("a\r\nb\r\nc", 2, "b") == "a\r\nc"
    assert remove_line("a\nb\n", 2, "b") == "a\n"
    assert remove_line("only\n", 1, "only") == ""
    assert remove_line("x\ny\nb\n", 1, "b") == "x\ny\n"


def test_a_line_gone_or_doubled_is_not_guessed() -> None:
    with pytest.raises(LineMoved, match="is no longer in the file"):
        find_line("a\nc\n", 2, "b")
    with pytest.raises(LineMoved, match="is in the file more than once"):
        find_line("b\nx\nb\n", 2, "b")


@pytest.mark.parametrize(
    ("line", "marked"),
    [
        (
            "- [preference] Prefers tabs #style (since 2020)",
            "- [preference] @valid[,2026-07-27) Prefers tabs #style (since 2020)",
        ),
        (
            "- [role] @2024-01-05 Tech lead",
            "- [role] @valid[2024-01-05,2026-07-27) Tech lead",
        ),
        (
            "- [role] @effective[2024-01-05,) Tech lead",
            "- [role] @valid[2024-01-05,2026-07-27) Tech lead",
        ),
        ("<editor>Emacs</editor>", "<editor>Emacs</editor> (superseded 2026-07-27)"),
        ("- Use pnpm, not npm", "- Use pnpm, not npm (superseded 2026-07-27)"),
    ],
)
def test_marking_follows_the_kind_of_line(line: str, marked: str) -> None:
    text = f"# Notes\n{line}\r\nnext\n"
    assert mark_superseded(text, 2, line, "2026-07-27") == f"# Notes\n{marked}\r\nnext\n"


def test_a_marked_observation_is_still_an_observation_basic_memory_reads() -> None:
    text = mark_superseded(
        "# P\n\n- [preference] Prefers tabs #style\n",
        3,
        "- [preference] Prefers tabs #style",
        "2026-07-27",
    )
    [observation] = parse_note(text, "p.md").observations
    assert (observation.category, observation.content, observation.tags) == (
        "preference",
        "Prefers tabs #style",
        ["style"],
    )


NOTE = (
    "# Prefs\n\n- [preference] Prefers tabs\n- [tool] Editor is Zed\n"
    "- [preference] Prefers spaces\n"
)


def _pair(line: int = 3) -> Contradiction:
    """The tabs/spaces pair of NOTE."""
    return Contradiction(
        Line("prefs.md", line, "- [preference] Prefers tabs"),
        Line("prefs.md", 5, "- [preference] Prefers spaces"),
        "value",
        "tabs -> spaces",
        "key",
    )


def test_keep_newer_removes_the_older_line_as_one_undoable_operation(tmp_path: Path) -> None:
    (tmp_path / "prefs.md").write_text(NOTE)
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings(), clock=lambda: T0)
    result = keep_newer(Workspace(person), _pair())
    assert not result.is_error
    assert (tmp_path / "prefs.md").read_text() == (
        "# Prefs\n\n- [tool] Editor is Zed\n- [preference] Prefers spaces\n"
    )
    event = person.history.event(result.event_id or 0)
    assert event is not None and event.group_id is not None
    group = person.history.group(event.group_id)
    assert group is not None and group.kind == KEEP_NEWER_KIND
    assert not person.revert_group(event.group_id).is_error
    assert (tmp_path / "prefs.md").read_text() == NOTE


def test_keep_newer_marks_the_older_line_superseded_today(tmp_path: Path) -> None:
    (tmp_path / "prefs.md").write_text(NOTE)
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    result = keep_newer(Workspace(person), _pair(), "mark", now=1_785_110_400.0)
    assert not result.is_error
    assert (tmp_path / "prefs.md").read_text() == NOTE.replace(
        "- [preference] Prefers tabs", "- [preference] @valid[,2026-07-27) Prefers tabs"
    )


def test_keep_newer_finds_a_moved_line_and_leaves_a_changed_file_alone(tmp_path: Path) -> None:
    (tmp_path / "prefs.md").write_text("# Moved\n" + NOTE)
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    assert not keep_newer(Workspace(person), _pair()).is_error
    assert "Prefers tabs" not in (tmp_path / "prefs.md").read_text()
    before = (tmp_path / "prefs.md").read_bytes()
    result = keep_newer(Workspace(person), _pair())
    assert (result.kind, result.content) == (
        "conflict",
        "Conflict: /memories/prefs.md changed: the line '- [preference] Prefers tabs' is no longer "
        "in the file",
    )
    assert (tmp_path / "prefs.md").read_bytes() == before
    missing = keep_newer(
        Workspace(person),
        Contradiction(Line("gone.md", 1, "x"), Line("gone.md", 2, "y"), "value", "", "k"),
    )
    assert missing.is_error and missing.kind == "not_found"


def test_each_line_is_dated_by_the_change_that_wrote_it(tmp_path: Path) -> None:
    clock = [T0]
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/prefs.md", "# Prefs\n- tabs\n")
    clock[0] = T0 + DAY
    agent.insert("/memories/prefs.md", 2, "- spaces")
    clock[0] = T0 + 2 * DAY
    agent.rename("/memories/prefs.md", "/memories/people/prefs.md")
    clock[0] = T0 + 3 * DAY
    agent.str_replace("/memories/people/prefs.md", "- tabs", "- tabs, width 4")
    text = (tmp_path / "people/prefs.md").read_text()
    assert text == "# Prefs\n- tabs, width 4\n- spaces\n"
    assert line_times(agent.history, "people/prefs.md", text) == {
        1: T0,
        2: T0 + 3 * DAY,
        3: T0 + DAY,
        4: T0,
    }
    assert line_times(agent.history, "people/prefs.md", text + "- tea\n") == {
        1: T0,
        2: T0 + 3 * DAY,
        3: T0 + DAY,
        5: T0,
    }
