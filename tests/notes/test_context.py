"""Agent context: primary note resolution, related notes by depth and timeframe, recent activity."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from memtui.core.recording.history import History
from memtui.notes.agent_context import build_context, parse_timeframe, recent_activity
from memtui.notes.index import NoteIndex

NOW = datetime(2026, 6, 10, 12, 0).timestamp()
DAY = 86400


def write(root: Path, relpath: str, text: str, age_days: float = 1) -> None:
    """Write a note whose mtime is `age_days` before NOW."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = NOW - age_days * DAY
    os.utime(path, (when, when))


@pytest.fixture
def store(tmp_path: Path) -> Path:
    write(
        tmp_path,
        "projects/memtui.md",
        "---\ntitle: Memtui\npermalink: proj/memtui\n---\n\n"
        "- [decision] Use Textual #ui (chosen in May)\n- depends_on [[Textual]]\n- uses "
        "[[Ghost]]\n",
    )
    write(tmp_path, "tech/textual.md", "---\ntitle: Textual\n---\n\n- built_on [[Rich]]\n", 2)
    write(tmp_path, "tech/rich.md", "---\ntitle: Rich\n---\n\nTerminal rendering.\n", 3)
    write(tmp_path, "people/ann.md", "---\ntitle: Ann\n---\n\n- maintains [[Memtui]]\n", 30)
    return tmp_path


def test_context_by_permalink_title_or_path(store: Path) -> None:
    index = NoteIndex.load(store)
    for target in ("proj/memtui", "Memtui", "projects/memtui.md", "memory://proj/memtui"):
        assert build_context(index, target, now=NOW).path == "projects/memtui.md"
    with pytest.raises(LookupError, match="no note matches 'Nobody'"):
        build_context(index, "Nobody", now=NOW)
    with pytest.raises(ValueError, match="depth must be 1, 2 or 3, not 4"):
        build_context(index, "Memtui", depth=4, now=NOW)


def test_related_notes_by_depth_and_timeframe(store: Path) -> None:
    index = NoteIndex.load(store)
    one = build_context(index, "Memtui", depth=1, timeframe="7d", now=NOW)
    assert [(r.path, r.relation_type, r.direction, r.depth) for r in one.related] == [
        ("tech/textual.md", "depends_on", "outgoing", 1)
    ]
    everything = build_context(index, "Memtui", depth=2, timeframe="60d", now=NOW)
    assert [(r.path, r.relation_type, r.direction, r.via, r.depth) for r in everything.related] == [
        ("tech/textual.md", "depends_on", "outgoing", "projects/memtui.md", 1),
        ("people/ann.md", "maintains", "incoming", "projects/memtui.md", 1),
        ("tech/rich.md", "built_on", "outgoing", "tech/textual.md", 2),
    ]
    assert one.unresolved == (("uses", "Ghost"),)


def test_depth_three_reaches_three_links_away_and_no_further(store: Path) -> None:
    write(store, "tech/terminal.md", "---\ntitle: Terminal\n---\n\n- [fact] a tty\n")
    write(store, "tech/rich.md", "---\ntitle: Rich\n---\n\n- draws_on [[Terminal]]\n", 3)
    write(store, "tech/pty.md", "---\ntitle: Pty\n---\n\n- part_of [[Terminal]]\n")
    index = NoteIndex.load(store)
    two = build_context(index, "Memtui", depth=2, now=NOW)
    assert "tech/terminal.md" not in [r.path for r in two.related]
    three = build_context(index, "Memtui", depth=3, now=NOW)
    assert [(r.path, r.relation_type, r.direction, r.via, r.depth) for r in three.related] == [
        ("tech/textual.md", "depends_on", "outgoing", "projects/memtui.md", 1),
        ("people/ann.md", "maintains", "incoming", "projects/memtui.md", 1),
        ("tech/rich.md", "built_on", "outgoing", "tech/textual.md", 2),
        ("tech/terminal.md", "draws_on", "outgoing", "tech/rich.md", 3),
    ]
    assert "\n## Related (depth 3)\n" in three.to_text()


def test_no_timeframe_keeps_related_notes_of_any_age(store: Path) -> None:
    """Without a timeframe a month-old backlink is still related, and the header says no window."""
    context = build_context(NoteIndex.load(store), "Memtui", depth=1, now=NOW)
    assert [(r.path, r.direction) for r in context.related] == [
        ("tech/textual.md", "outgoing"),
        ("people/ann.md", "incoming"),
    ]
    assert context.hidden == 0
    assert "\n## Related (depth 1)\n- depends_on -> Textual" in context.to_text()
    assert "- maintains <- Ann (/memories/people/ann.md)\n" in context.to_text()


def test_context_text(store: Path) -> None:
    context = build_context(NoteIndex.load(store), "Memtui", depth=2, timeframe="7d", now=NOW)
    changed = datetime.fromtimestamp(NOW - DAY).strftime("%Y-%m-%d %H:%M")
    assert context.to_text() == (
        "# Memtui (/memories/projects/memtui.md)\n"
        f"permalink: proj/memtui | type: note | changed: {changed}\n"
        "\n## Observations\n"
        "- [decision] Use Textual #ui (chosen in May)\n"
        "\n## Related (depth 2, changed within 7d)\n"
        "- depends_on -> Textual (/memories/tech/textual.md)\n"
        "- tech/textual.md -> built_on -> Rich (/memories/tech/rich.md)\n"
        "- (1 more changed before 7d; widen or drop the timeframe to see them)\n"
        "\n## Unresolved links\n"
        "- uses -> Ghost\n"
    )


def test_timeframes() -> None:
    assert parse_timeframe("7d", NOW) == NOW - 7 * DAY
    assert parse_timeframe("24h", NOW) == NOW - DAY
    assert parse_timeframe("30m", NOW) == NOW - 1800
    assert parse_timeframe("1w", NOW) == NOW - 7 * DAY
    assert parse_timeframe("2 days", NOW) == NOW - 2 * DAY
    assert parse_timeframe("today", NOW) == datetime(2026, 6, 10).timestamp()
    assert parse_timeframe("yesterday", NOW) == datetime(2026, 6, 9).timestamp()
    with pytest.raises(ValueError, match="unknown timeframe 'soon'"):
        parse_timeframe("soon", NOW)


@pytest.mark.parametrize(
    ("timeframe", "start"),
    [
        ("1 month", datetime(2026, 5, 10, 12, 0)),
        ("2 months", datetime(2026, 4, 10, 12, 0)),
        ("1mo", datetime(2026, 5, 10, 12, 0)),
        ("1y", datetime(2025, 6, 10, 12, 0)),
        ("1 year", datetime(2025, 6, 10, 12, 0)),
        ("2 years ago", datetime(2024, 6, 10, 12, 0)),
        ("1 week", datetime(2026, 6, 3, 12, 0)),
        ("3 weeks ago", datetime(2026, 5, 20, 12, 0)),
        ("  7  Days ", datetime(2026, 6, 3, 12, 0)),
        ("Today", datetime(2026, 6, 10)),
        ("YESTERDAY", datetime(2026, 6, 9)),
    ],
)
def test_timeframes_basic_memory_examples(timeframe: str, start: datetime) -> None:
    assert parse_timeframe(timeframe, NOW) == start.timestamp()


def test_calendar_months_end_on_the_shorter_months_last_day() -> None:
    march_31 = datetime(2026, 3, 31, 9, 0).timestamp()
    assert parse_timeframe("1 month", march_31) == datetime(2026, 2, 28, 9, 0).timestamp()
    leap_day = datetime(2028, 2, 29, 9, 0).timestamp()
    assert parse_timeframe("1y", leap_day) == datetime(2027, 2, 28, 9, 0).timestamp()


@pytest.mark.parametrize(
    "nonsense", ["soon", "", "7", "d7", "1 fortnight", "-1d", "1.5.2 days", "7d7d", ".5d", "1ms"]
)
def test_nonsense_timeframes_get_one_clear_line(nonsense: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_timeframe(nonsense, NOW)
    assert str(error.value) == (
        f"unknown timeframe {nonsense!r}: use e.g. 30m, 24h, 7d, 2 weeks, 1 month, 1y, "
        "today or yesterday"
    )


@pytest.mark.parametrize(
    ("timeframe", "seconds"),
    [("45s", 45), ("10 seconds", 10), ("1.5d", 1.5 * DAY), ("0.5 h", 1800), ("2.5w", 17.5 * DAY)],
)
def test_timeframes_in_seconds_and_decimals(timeframe: str, seconds: float) -> None:
    assert parse_timeframe(timeframe, NOW) == NOW - seconds


def test_months_and_years_are_whole() -> None:
    with pytest.raises(ValueError, match="months and years are whole numbers"):
        parse_timeframe("1.5 months", NOW)


def test_a_timeframe_before_the_year_1_is_refused() -> None:
    with pytest.raises(ValueError, match="reaches back before the year 1"):
        parse_timeframe("3000 years", NOW)
    with pytest.raises(ValueError, match="reaches back before the year 1"):
        parse_timeframe("99999999999999999999 months", NOW)
    with pytest.raises(ValueError, match="reaches back before the year 1"):
        parse_timeframe("9" * 400 + "d", NOW)


def test_recent_activity_merges_history_and_file_changes(store: Path) -> None:
    history = History(store)
    history.record(
        time=NOW - DAY + 1,
        actor="agent:claude",
        session=None,
        command="str_replace",
        path="/memories/projects/memtui.md",
        result="The memory file has been edited.",
        is_error=False,
        before=("file", "a" * 64),
        after=("file", "b" * 64),
    )
    history.record(
        time=NOW - 3600,
        actor="agent:claude",
        session=None,
        command="view",
        path="/memories/tech/rich.md",
        result="...",
        is_error=False,
    )
    activity = recent_activity(NoteIndex.load(store), history, timeframe="7d", now=NOW)
    assert [(i.path, i.actor, i.command) for i in activity.items] == [
        ("projects/memtui.md", "agent:claude", "str_replace"),
        ("tech/textual.md", "unknown", "modified"),
        ("tech/rich.md", "unknown", "modified"),
    ]
    first = datetime.fromtimestamp(NOW - DAY + 1).strftime("%Y-%m-%d %H:%M")
    assert activity.to_text().splitlines()[:2] == [
        "# Recent activity (within 7d)",
        f"- {first} agent:claude str_replace Memtui (/memories/projects/memtui.md),"
        " not reviewed yet",
    ]
    history.mark_reviewed([1], "human:dana", NOW)
    again = recent_activity(NoteIndex.load(store), history, timeframe="7d", now=NOW)
    assert again.to_text().splitlines()[1] == (
        f"- {first} agent:claude str_replace Memtui (/memories/projects/memtui.md),"
        " reviewed by human:dana"
    )
    assert again.to_text().splitlines()[2].endswith("(/memories/tech/textual.md)")
    assert len(recent_activity(NoteIndex.load(store), None, "7d", limit=1, now=NOW).items) == 1
    history.close()
