"""Stale review: every signal with its exact reason text, the proposal threshold, ranking, and
duplicate blocking."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memtui.notes import duplicates as duplicates_module
from memtui.notes.index import NoteIndex
from memtui.notes.review_facts import is_path_link
from memtui.notes.stale import StaleReason, near_duplicates, parse_date, review

NOW = datetime(2026, 6, 1, tzinfo=UTC).timestamp()
DAY = 86400
BODY = (
    "The deploy pipeline runs tests first, then builds the image and pushes it to the registry.\n"
)


def write(root: Path, relpath: str, text: str, age_days: float = 1) -> None:
    """Write a file whose mtime is `age_days` before NOW."""
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    when = NOW - age_days * DAY
    os.utime(path, (when, when))


class FakeHistory:
    """Only the queries `review` uses."""

    def __init__(self, reads: dict[str, float], since: float = 0.0) -> None:
        self.reads = reads
        self.since = since

    def last_agent_reads(self) -> dict[str, float]:
        return self.reads

    def recording_since(self) -> float:
        return self.since


def reasons_of(root: Path, history: FakeHistory | None = None, **kwargs: float) -> dict:
    """path -> reasons of every proposed file."""
    return {c.path: c.reasons for c in review(NoteIndex.load(root), history, now=NOW, **kwargs)}


def test_each_signal_has_a_reason(tmp_path: Path) -> None:
    write(
        tmp_path,
        "old.md",
        "---\ntitle: Old\nexpires: 2026-01-15\nlast_verified: 2025-01-01\n---\n\n"
        "- uses [[Fresh]]\n- uses [[Ghost]]\n- see [[projects/gone]]\n",
        age_days=200,
    )
    write(tmp_path, "fresh.md", "---\ntitle: Fresh\n---\n\nRecently read.\n")
    write(tmp_path, "big.md", "---\ntitle: Big\n---\n\n" + "word " * 5000, age_days=40)
    history = FakeHistory({"/memories/fresh.md": NOW - 2 * DAY, "/memories/old.md": NOW - 45 * DAY})
    result = reasons_of(tmp_path, history)
    assert result["old.md"] == (
        StaleReason("unread", "not read by an agent for 45 days", 0.75),
        StaleReason("unchanged", "unchanged for 200 days", 200 / 180),
        StaleReason("expired", "expired on 2026-01-15", 3.0),
        StaleReason("unverified", "last verified 516 days ago (2025-01-01)", 1.0 + 516 / 365),
        StaleReason("broken-link", "1 broken link (nothing at that path): projects/gone", 1.0),
        StaleReason("unresolved", "links to 1 note not written yet: Ghost", 0.25),
    )
    assert result["big.md"] == (
        StaleReason("never-read", "written 40 days ago, never read back by an agent", 0.667),
        StaleReason("orphan", "no links in or out, in a store where most notes link", 0.5),
        StaleReason("large", "very large (25 KB, about 6k tokens per view)", 25020 / 20000 / 2),
    )
    assert "fresh.md" not in result


def test_agent_reads_count_from_the_last_change(tmp_path: Path) -> None:
    """A file read after its last change counts from that read; one changed since it was read,
    or never read, counts from the change (or from when the history began, if later)."""
    write(tmp_path, "read-then-changed.md", "# A\n\nchanged after the read\n", age_days=70)
    write(tmp_path, "never-read.txt", "a log line\n", age_days=90)
    write(tmp_path, "older-than-history.txt", "a log line, older\n", age_days=400)
    write(tmp_path, "read-lately.xml", "<prefs>tabs</prefs>\n", age_days=300)
    write(tmp_path, "read-long-ago.json", '{"a": 1}\n', age_days=300)
    history = FakeHistory(
        {
            "/memories/read-then-changed.md": NOW - 80 * DAY,
            "/memories/read-lately.xml": NOW - 3 * DAY,
            "/memories/read-long-ago.json": NOW - 120 * DAY,
        },
        since=NOW - 150 * DAY,
    )
    result = reasons_of(tmp_path, history)
    assert result["read-then-changed.md"] == (
        StaleReason("unread", "changed 70 days ago, not read back by an agent since", 1.167),
    )
    assert result["never-read.txt"] == (
        StaleReason("never-read", "written 90 days ago, never read back by an agent", 1.5),
        StaleReason("unchanged", "unchanged for 90 days", 0.5),
    )
    assert result["older-than-history.txt"][0] == StaleReason(
        "never-read", "never read by an agent in 150 days of history", 2.0
    )
    assert result["read-long-ago.json"][0] == StaleReason(
        "unread", "not read by an agent for 120 days", 2.0
    )
    assert [r.kind for r in result["read-lately.xml"]] == ["unchanged"]


def test_reads_count_only_once_the_history_is_a_month_old(tmp_path: Path) -> None:
    """No agent read in a history that began last week is no signal; without a history there
    are no read reasons at all."""
    write(tmp_path, "old.md", "# Old\n\nnot read\n", age_days=60)
    assert reasons_of(tmp_path, FakeHistory({}, since=NOW - 7 * DAY)) == {}
    assert reasons_of(tmp_path, None, min_score=0) == {}
    assert reasons_of(tmp_path, FakeHistory({}, since=NOW - 90 * DAY)) == {
        "old.md": (
            StaleReason("never-read", "written 60 days ago, never read back by an agent", 1.0),
        )
    }


def test_weak_reasons_alone_are_not_proposed(tmp_path: Path) -> None:
    """Unchanged for 90 days, a link to a note not written yet, 20 KB: each is shown with a
    proposed file, but none of them proposes a file alone."""
    write(tmp_path, "aged.md", "# Aged\n\nold but fine\n", age_days=100)
    write(tmp_path, "forward.md", "# Forward\n\n- relates_to [[Not Yet]]\n")
    write(tmp_path, "sizeable.txt", "x" * 21_000 + "\n")
    assert reasons_of(tmp_path) == {}
    weak = {c.path: c.score for c in review(NoteIndex.load(tmp_path), None, now=NOW, min_score=0)}
    assert weak == {"aged.md": 0.556, "sizeable.txt": 0.525, "forward.md": 0.25}


def test_order_is_score_then_path_and_nothing_is_deleted(tmp_path: Path) -> None:
    for name in ("b.md", "a.md", "c.md"):
        write(tmp_path, name, f"---\ntitle: {name}\n---\n\nalone\n", age_days=200)
    write(tmp_path, "d.md", "---\ntitle: D\nexpires: 2020-01-01\n---\n\nalone\n")
    candidates = review(NoteIndex.load(tmp_path), None, now=NOW)
    assert [(c.path, c.score) for c in candidates] == [
        ("d.md", 3.0),
        ("a.md", 1.111),
        ("b.md", 1.111),
        ("c.md", 1.111),
    ]
    assert sorted(os.listdir(tmp_path)) == [".memtui", "a.md", "b.md", "c.md", "d.md"]


def test_near_duplicates_by_title_by_opening_and_by_same_body(tmp_path: Path) -> None:
    write(tmp_path, "a.md", f"---\ntitle: Deploy pipeline notes\n---\n\n{BODY}")
    write(tmp_path, "b.md", f"---\ntitle: Deploy pipeline note\n---\n\n{BODY}Also staging.\n")
    write(tmp_path, "c.md", f"---\ntitle: Something else\n---\n\n{BODY}")
    write(tmp_path, "d.md", "---\ntitle: Deploy pipeline notes\n---\n\nTotally different text.\n")
    opening = "# Context\n\n" + "The billing service issues invoices and charges cards. " * 4
    write(tmp_path, "ctx/billing_context.md", opening + "\nPhase 1 of 3.\n")
    write(tmp_path, "ctx/project_context.md", opening + "\nPhase 2 of 3, and a deploy freeze.\n")
    duplicates = near_duplicates(NoteIndex.load(tmp_path))
    assert duplicates["a.md"] == [
        ("b.md", "92% similar content"),
        ("c.md", "same content"),
    ]
    assert duplicates["c.md"] == [("a.md", "same content"), ("b.md", "92% similar content")]
    assert duplicates["ctx/billing_context.md"] == [
        ("ctx/project_context.md", "95% similar content")
    ]
    assert "d.md" not in duplicates


def test_a_newer_near_duplicate_supersedes_an_older_one_and_twins_are_both_proposed(
    tmp_path: Path,
) -> None:
    write(tmp_path, "notes/deploy.md", f"# Deploy\n\n{BODY}", age_days=40)
    write(tmp_path, "notes/deploy_v2.md", f"# Deploy\n\n{BODY}Now with staging.\n", age_days=5)
    write(tmp_path, "twin-a.txt", f"Twin\n{BODY}", age_days=3)
    write(tmp_path, "twin-b.txt", f"Twin\n{BODY}", age_days=3)
    result = reasons_of(tmp_path)
    assert result == {
        "notes/deploy.md": (
            StaleReason(
                "superseded",
                "superseded by notes/deploy_v2.md, changed 35 days later (91% similar content)",
                2.0,
            ),
        ),
        "twin-a.txt": (
            StaleReason("duplicate", "near-duplicate of twin-b.txt (same content)", 2.0),
        ),
        "twin-b.txt": (
            StaleReason("duplicate", "near-duplicate of twin-a.txt (same content)", 2.0),
        ),
    }


def test_orphans_count_only_in_a_store_where_most_notes_link(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "# A\n\n- uses [[B]]\n", age_days=100)
    write(tmp_path, "b.md", "# B\n\n- uses [[A]]\n", age_days=100)
    write(tmp_path, "alone.md", "# Alone\n\nno links\n", age_days=100)
    orphan = StaleReason("orphan", "no links in or out, in a store where most notes link", 0.5)
    assert reasons_of(tmp_path)["alone.md"] == (
        StaleReason("unchanged", "unchanged for 100 days", 100 / 180),
        orphan,
    )
    for name in ("c.md", "d.md"):
        write(tmp_path, name, f"# {name}\n\nno links either\n", age_days=100)
    assert reasons_of(tmp_path) == {}


def test_a_path_link_is_broken_only_when_nothing_is_there(tmp_path: Path) -> None:
    """Links by path to a folder or a non-note file are fine; to nothing, or out of the store,
    they are broken; a link by name to a note not written yet is only a weak reason."""
    write(
        tmp_path, "docs/guide.md", "# Guide\n\nSee the [skills](../skills), [licence](./LICENSE),"
    )
    with (tmp_path / "docs/guide.md").open("a", encoding="utf-8") as out:
        out.write(" [old](./old%20name.md), [spec](../../specs/x.md) and [[TCP/IP]].\n")
    write(tmp_path, "skills/README.md", "# Skills\n\nlist\n")
    write(tmp_path, "docs/LICENSE", "MIT\n")
    result = reasons_of(tmp_path, min_score=0)
    assert result["docs/guide.md"] == (
        StaleReason(
            "broken-link",
            "2 broken links (nothing at that path): ./old name.md, ../../specs/x.md",
            2.0,
        ),
        StaleReason("unresolved", "links to 1 note not written yet: TCP/IP", 0.25),
    )
    write(tmp_path, "docs/old name.md", "# Old name\n\nback again\n")
    assert result != reasons_of(tmp_path, min_score=0)
    assert [r.kind for r in reasons_of(tmp_path, min_score=0)["docs/guide.md"]] == [
        "broken-link",
        "unresolved",
    ]


@pytest.mark.parametrize(
    ("target", "is_path"),
    [
        ("./docs/Note Editing.md", True),
        ("../LICENSE", True),
        ("/abs/x", True),
        ("projects/billing", True),
        ("notes.md", True),
        ("TCP/IP", False),
        ("Node.js", False),
        ("Basic Memory", False),
        ("https://example.com/a.md", False),
        ("mailto:a@b.c", False),
    ],
)
def test_path_links_are_told_from_names(target: str, is_path: bool) -> None:
    assert is_path_link(target) is is_path


def test_notes_under_the_top_level_archive_are_never_proposed(tmp_path: Path) -> None:
    old = "---\ntitle: Old plan\nexpires: 2020-01-01\n---\n\n" + BODY
    write(tmp_path, "archive/projects/old.md", old, age_days=400)
    write(tmp_path, "archive/deep/archive/x.md", "---\ntitle: X\n---\n\nalone\n", age_days=400)
    write(tmp_path, "projects/copy.md", "---\ntitle: Copy\n---\n\n" + BODY, age_days=40)
    write(tmp_path, "projects/archive/kept.md", "---\ntitle: Kept\n---\n\nalone\n", age_days=400)
    index = NoteIndex.load(tmp_path)
    candidates = {c.path: c for c in review(index, FakeHistory({}), now=NOW)}
    assert sorted(candidates) == ["projects/archive/kept.md"]
    assert near_duplicates(index) == {}
    assert (tmp_path / "archive/projects/old.md").exists()


def test_a_later_review_follows_changed_and_deleted_notes(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "---\ntitle: A\n---\n\n" + BODY)
    write(tmp_path, "b.md", "---\ntitle: B\n---\n\n" + BODY)
    index = NoteIndex.load(tmp_path)
    first = {c.path: [r.kind for r in c.reasons] for c in review(index, None, now=NOW)}
    assert first == {"a.md": ["duplicate"], "b.md": ["duplicate"]}
    write(tmp_path, "a.md", "---\ntitle: A\nexpires: 2020-01-01\n---\n\nNew text.\n" + "x" * 25_000)
    (tmp_path / "b.md").unlink()
    index.update_paths(["a.md", "b.md"])
    reasons = {c.path: c.reasons for c in review(index, None, now=NOW)}
    assert list(reasons) == ["a.md"]
    assert [r.text for r in reasons["a.md"]] == [
        "expired on 2020-01-01",
        "very large (25 KB, about 6k tokens per view)",
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
    real = duplicates_module.fuzz.token_sort_ratio

    def counting(a: str, b: str, **kwargs: float) -> float:
        calls.append((a, b))
        return real(a, b, **kwargs)

    monkeypatch.setattr(duplicates_module.fuzz, "token_sort_ratio", counting)
    assert near_duplicates(NoteIndex.load(tmp_path)) == {}
    assert calls == []
