"""Stale review: every signal with its exact reason text, ranking, and duplicate blocking."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memtui.notes import stale as stale_module
from memtui.notes.index import NoteIndex
from memtui.notes.stale import StaleReason, near_duplicates, parse_date, review

NOW = datetime(2026, 6, 1, tzinfo=UTC).timestamp()
DAY = 86400


def write(root: Path, relpath: str, text: str, age_days: float = 1) -> None:
    """Write a note whose mtime is `age_days` before NOW."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = NOW - age_days * DAY
    os.utime(path, (when, when))


class FakeHistory:
    """Only the query `review` uses."""

    def __init__(self, reads: dict[str, float], since: float = 0.0) -> None:
        self.reads = reads
        self.since = since

    def last_agent_reads(self) -> dict[str, float]:
        return self.reads

    def recording_since(self) -> float:
        return self.since


def test_each_signal_has_a_reason(tmp_path: Path) -> None:
    write(
        tmp_path,
        "old.md",
        "---\ntitle: Old\nexpires: 2026-01-15\nlast_verified: 2025-01-01\n---\n\n- uses [[Fresh]]\n- uses [[Ghost]]\n",
        age_days=200,
    )
    write(tmp_path, "fresh.md", "---\ntitle: Fresh\n---\n\nRecently read.\n")
    write(tmp_path, "big.md", "---\ntitle: Big\n---\n\n" + "word " * 5000, age_days=40)
    history = FakeHistory({"/memories/fresh.md": NOW - 2 * DAY, "/memories/old.md": NOW - 45 * DAY})
    result = {c.path: c for c in review(NoteIndex.load(tmp_path), history, now=NOW)}
    assert result["old.md"].reasons == (
        StaleReason("unread", "not read by an agent for 45 days", 1.5),
        StaleReason("unchanged", "unchanged for 200 days", 200 / 180),
        StaleReason("expired", "expired on 2026-01-15", 3.0),
        StaleReason("unverified", "last verified 516 days ago (2025-01-01)", 1.0 + 516 / 365),
        StaleReason("unresolved", "1 unresolved link: Ghost", 0.5),
    )
    assert result["big.md"].reasons == (
        StaleReason("never-read", "never read by an agent", 1.0),
        StaleReason("orphan", "no links in or out", 0.5),
        StaleReason("large", "very large (25 KB)", 25020 / 20000 / 2),
    )
    assert "fresh.md" not in result


def test_never_read_counts_only_after_the_note_and_the_history_are_a_month_old(
    tmp_path: Path,
) -> None:
    """No agent read of a day-old note, or in a history that began last week, is no signal."""
    write(tmp_path, "new.md", "---\ntitle: New\n---\n\n- uses [[Old]]\n", age_days=1)
    write(tmp_path, "old.md", "---\ntitle: Old\n---\n\n- uses [[New]]\n", age_days=60)
    index = NoteIndex.load(tmp_path)

    def kinds(recording_days: float) -> dict[str, list[str]]:
        history = FakeHistory({}, since=NOW - recording_days * DAY)
        return {c.path: [r.kind for r in c.reasons] for c in review(index, history, now=NOW)}

    assert kinds(recording_days=7) == {}
    assert kinds(recording_days=45) == {"old.md": ["never-read"]}


def test_order_is_score_then_path_and_nothing_is_deleted(tmp_path: Path) -> None:
    for name in ("b.md", "a.md", "c.md"):
        write(tmp_path, name, f"---\ntitle: {name}\n---\n\nalone\n")
    write(tmp_path, "d.md", "---\ntitle: D\nexpires: 2020-01-01\n---\n\nalone\n")
    candidates = review(NoteIndex.load(tmp_path), None, now=NOW)
    assert [(c.path, c.score) for c in candidates] == [
        ("d.md", 3.5),
        ("a.md", 0.5),
        ("b.md", 0.5),
        ("c.md", 0.5),
    ]
    assert sorted(os.listdir(tmp_path)) == [".memtui", "a.md", "b.md", "c.md", "d.md"]


def test_near_duplicates_by_title_and_content_and_by_same_body(tmp_path: Path) -> None:
    body = "The deploy pipeline runs tests first, then builds the image and pushes it.\n"
    write(tmp_path, "a.md", f"---\ntitle: Deploy pipeline notes\n---\n\n{body}")
    write(tmp_path, "b.md", f"---\ntitle: Deploy pipeline note\n---\n\n{body}Also staging.\n")
    write(tmp_path, "c.md", f"---\ntitle: Something else\n---\n\n{body}")
    write(
        tmp_path, "d.md", "---\ntitle: Deploy pipeline notes\n---\n\nTotally different text here.\n"
    )
    duplicates = near_duplicates(NoteIndex.load(tmp_path))
    assert duplicates["a.md"] == [
        ("b.md", "similar title and content (91%)"),
        ("c.md", "same content"),
    ]
    assert duplicates["c.md"] == [("a.md", "same content")]
    assert "d.md" not in duplicates
    reasons = {c.path: c.reasons for c in review(NoteIndex.load(tmp_path), None, now=NOW)}
    assert StaleReason("duplicate", "near-duplicate of a.md (same content)", 2.0) in reasons["c.md"]


def test_notes_under_the_top_level_archive_are_never_proposed(tmp_path: Path) -> None:
    body = "The deploy pipeline runs tests first, then builds the image and pushes it.\n"
    old = "---\ntitle: Old plan\nexpires: 2020-01-01\n---\n\n" + body
    write(tmp_path, "archive/projects/old.md", old, age_days=400)
    write(tmp_path, "archive/deep/archive/x.md", "---\ntitle: X\n---\n\nalone\n")
    write(tmp_path, "projects/copy.md", "---\ntitle: Copy\n---\n\n" + body, age_days=40)
    write(tmp_path, "projects/archive/kept.md", "---\ntitle: Kept\n---\n\nalone\n")
    index = NoteIndex.load(tmp_path)
    candidates = {c.path: c for c in review(index, FakeHistory({}), now=NOW)}
    assert sorted(candidates) == ["projects/archive/kept.md", "projects/copy.md"]
    assert [r.kind for r in candidates["projects/copy.md"].reasons] == ["never-read", "orphan"]
    assert near_duplicates(index) == {}
    assert (tmp_path / "archive/projects/old.md").exists()


def test_a_later_review_follows_changed_and_deleted_notes(tmp_path: Path) -> None:
    body = "The deploy pipeline runs tests first, then builds the image and pushes it.\n"
    write(tmp_path, "a.md", "---\ntitle: A\n---\n\n" + body)
    write(tmp_path, "b.md", "---\ntitle: B\n---\n\n" + body)
    index = NoteIndex.load(tmp_path)
    first = {c.path: [r.kind for r in c.reasons] for c in review(index, None, now=NOW)}
    assert first == {"a.md": ["orphan", "duplicate"], "b.md": ["orphan", "duplicate"]}
    write(tmp_path, "a.md", "---\ntitle: A\nexpires: 2020-01-01\n---\n\nNew text.\n" + "x" * 25_000)
    (tmp_path / "b.md").unlink()
    index.update_paths(["a.md", "b.md"])
    reasons = {c.path: c.reasons for c in review(index, None, now=NOW)}
    assert list(reasons) == ["a.md"]
    assert [r.text for r in reasons["a.md"]] == [
        "expired on 2020-01-01",
        "no links in or out",
        "very large (25 KB)",
    ]


def test_parse_date_accepts_iso_dates_and_datetimes() -> None:
    assert parse_date("2026-06-01") == NOW
    assert parse_date("2026-06-01T00:00:00Z") == NOW
    assert parse_date("2026-06-01T02:00:00+02:00") == NOW
    assert parse_date("next week") is None
    assert parse_date(None) is None


def test_duplicate_check_skips_blocks_of_common_title_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(80):
        write(tmp_path, f"m{i:02}.md", f"---\ntitle: Meeting {i}\n---\n\nAgenda item {i * 7919}.\n")
    calls: list[tuple[str, str]] = []
    real = stale_module.fuzz.token_sort_ratio

    def counting(a: str, b: str, **kwargs: float) -> float:
        calls.append((a, b))
        return real(a, b, **kwargs)

    monkeypatch.setattr(stale_module.fuzz, "token_sort_ratio", counting)
    assert near_duplicates(NoteIndex.load(tmp_path)) == {}
    assert calls == []
