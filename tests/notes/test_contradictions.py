"""Contradiction candidates: the labelled set's targets, the rules' verdicts, which lines are
statements, subjects (one file, one title, a linked entity), the older/newer order (from line
order, file times and the history), "keep both" identities, and that a big subject is not
compared pair by pair."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes import contradiction_blocks
from memtui.notes.contradiction_rules import Verdict, judge
from memtui.notes.contradictions import MemoryFile, find_contradictions, pair_key
from memtui.notes.index import NoteIndex
from memtui.notes.statement_words import stem
from memtui.notes.statements import statement_lines
from memtui.notes.store_contradictions import store_contradictions
from tests.notes.contradiction_eval import DATA, SPLITS, all_pairs, score

T0 = 1_800_000_000.0


def test_the_labelled_set_has_over_100_pairs_half_contradicting() -> None:
    rows = all_pairs()
    assert len(rows) >= 100
    assert sum(row["contradicts"] for row in rows) * 2 == len(rows)
    assert {row["split"] for row in rows} == set(SPLITS)
    assert len({row["id"] for row in rows}) == len(rows)


@pytest.mark.parametrize("name", ["make_contradiction_pairs", "make_contradiction_pairs_fresh"])
def test_the_data_files_are_what_their_scripts_write(name: str) -> None:
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = "contradiction_pairs" + ("_fresh" if name.endswith("fresh") else "") + ".jsonl"
    written = [json.loads(line) for line in (DATA / target).read_text().splitlines()]
    assert written == module.rows()


@pytest.mark.parametrize("split", SPLITS)
def test_precision_and_recall_meet_their_targets(split: str) -> None:
    result = score([row for row in all_pairs() if row["split"] == split])
    assert result.precision >= 0.8
    assert result.recall >= 0.6


@pytest.mark.parametrize(
    ("older", "newer", "verdict"),
    [
        (
            "- [stack] Database is MySQL 8",
            "- [stack] Database is PostgreSQL 16",
            Verdict("value", "mysql 8 -> postgresql 16"),
        ),
        (
            "- [preference] Prefers tabs for indentation",
            "- [preference] Prefers spaces for indentation",
            Verdict("value", "tabs -> spaces"),
        ),
        (
            "- [owner] Owned by the payments team",
            "- [ownership] Owned by the platform team",
            Verdict("value", "payments -> platform"),
        ),
        (
            "- [role] Tech lead of the mobile app",
            "- [people] No longer tech lead of the mobile app",
            Verdict("change", "tech lead mobile -> gone"),
        ),
        (
            "Timezone: Europe/Berlin",
            "Timezone: America/New_York",
            Verdict("value", "europe/berlin -> america/new_york"),
        ),
        (
            "- The staging database is shared with QA",
            "- The staging database is not shared with QA",
            Verdict("negation", "the newer line is negative"),
        ),
        (
            "- [personal] Lives in Berlin",
            "- [personal] Moved to Lisbon in March 2025",
            Verdict("change", "-> lisbon march 2025"),
        ),
        (
            "- CI runs on Jenkins",
            "- Switched CI from Jenkins to GitHub Actions",
            Verdict("change", "jenkins -> github actions"),
        ),
    ],
)
def test_rules_give_their_reason_and_what_differs(older: str, newer: str, verdict: Verdict) -> None:
    assert judge(older, newer) == verdict


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("- Uses pytest for unit tests", "- Uses hypothesis for property tests"),
        ("- [event] Deployed v2.3 on 2025-03-02", "- [event] Deployed v2.4 on 2025-03-16"),
        ("- [personal] Speaks German", "- [personal] Speaks Portuguese"),
        ("- [deadline] Launch in April", "- [deadline] Launch on 2025-04-15"),
        ("- Moved to Lisbon in 2023", "- Lives in Lisbon"),
        (
            "- Migrated CI from Jenkins to GitHub Actions",
            "- CI moved from Jenkins to GitHub Actions",
        ),
        ('<tool name="formatter">black</tool>', '<tool name="linter">ruff</tool>'),
        ("- The app has a graph view", "- The app does not have a web interface"),
        ("- [editor] Prefers vim", "- [shell] Prefers fish"),
    ],
)
def test_rules_leave_consistent_lines_alone(older: str, newer: str) -> None:
    assert judge(older, newer) is None


def test_a_shared_key_under_different_headings_is_two_things() -> None:
    assert judge("- Deploy: Fly.io", "- Deploy: Heroku", same_section=True) is not None
    assert judge("- Deploy: Fly.io", "- Deploy: Heroku", same_section=False) is None


def test_stems_agree_across_forms() -> None:
    assert {stem(word) for word in ("has", "have", "had", "having")} == {"hav"}
    assert {stem(word) for word in ("use", "uses", "used", "using")} == {"us"}
    assert stem("planned") == stem("plan")


def test_statement_lines_are_the_lines_that_say_one_thing() -> None:
    text = (
        "---\ntitle: Prefs\n---\n# Prefs\n\n## Observations\n"
        "- [preference] Prefers tabs #style\n"
        "- [tool] Editor is Zed, with vim keys and a long wrapped description that runs\n"
        "  on into a second line\n"
        "- relates_to [[Toolbox]]\n"
        "- [Setup](#setup)\n"
        "Things to remember:\n"
        "```\nnot = a statement\n```\n"
        "user likes tea\n"
        "<preferences>\n<editor>Zed</editor>\n</preferences>\n"
    )
    assert statement_lines("prefs.md", text) == [
        (7, "- [preference] Prefers tabs #style", 6),
        (16, "user likes tea", 6),
        (18, "<editor>Zed</editor>", 6),
    ]


def _note(
    path: str, title: str, lines: list[str], mtime: float = T0, links: tuple[str, ...] = ()
) -> MemoryFile:
    """A note with observation lines."""
    text = f"---\ntitle: {title}\n---\n\n# {title}\n\n" + "\n".join(lines) + "\n"
    return MemoryFile(path, title, text, mtime, links)


def test_in_one_file_the_later_line_is_the_newer() -> None:
    [pair] = find_contradictions(
        [
            _note(
                "prefs.md",
                "Prefs",
                ["- [preference] Prefers spaces", "- [x] Likes tea", "- [preference] Prefers tabs"],
            )
        ]
    )
    assert (pair.older.line, pair.older.text) == (7, "- [preference] Prefers spaces")
    assert (pair.newer.line, pair.newer.text) == (9, "- [preference] Prefers tabs")
    assert pair.key == pair_key(pair.newer.text, pair.older.text)


def test_notes_with_one_title_are_one_subject_ordered_by_time() -> None:
    older = _note("archive/billing.md", "Billing Service", ["- [stack] Runs on Python 3.11"], T0)
    newer = _note(
        "projects/billing.md", "billing service", ["- [stack] Runs on Python 3.12"], T0 + 60
    )
    [pair] = find_contradictions([newer, older])
    assert (pair.older.path, pair.newer.path) == ("archive/billing.md", "projects/billing.md")
    crowd = [
        _note(f"n{i}/readme.md", "Readme", [f"- [stack] Runs on Python 3.1{i}"]) for i in range(9)
    ]
    assert find_contradictions(crowd) == []


def test_a_note_that_links_to_an_entity_and_names_it_is_about_it() -> None:
    entity = _note("people/alice.md", "Alice Chen", ["- [role] Tech lead of the mobile app"], T0)
    team = _note(
        "team.md",
        "Team",
        [
            "- works_with [[Alice Chen]]",
            "- [people] Alice Chen is no longer tech lead of the mobile app",
        ],
        T0 + 60,
        links=("people/alice.md",),
    )
    [pair] = find_contradictions([entity, team])
    assert (pair.older.path, pair.newer.path, pair.reason, pair.subject) == (
        "people/alice.md",
        "team.md",
        "change",
        "Alice Chen",
    )
    unlinked = _note("other.md", "Other", team.text.splitlines()[-1:], T0 + 60)
    assert find_contradictions([entity, unlinked]) == []


def test_a_pair_kept_both_is_not_proposed_again() -> None:
    note = _note(
        "prefs.md", "Prefs", ["- [preference] Prefers spaces", "- [preference] Prefers tabs"]
    )
    [pair] = find_contradictions([note])
    assert find_contradictions([note], kept={pair.key}) == []
    moved = _note(
        "elsewhere.md", "Else", ["* [preference]  PREFERS TABS", "- [preference] Prefers spaces"]
    )
    assert find_contradictions([moved], kept={pair.key}) == []


def _word(number: int) -> str:
    """A made-up word (four syllables), one per number below 4096."""
    syllables = ("ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo")
    return "".join(syllables[(number >> shift) % 8] for shift in (0, 3, 6, 9))


def test_a_long_note_is_not_compared_pair_by_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        f"- [fact] The {_word(3 * i)} {_word(3 * i + 1)} uses {_word(3 * i + 2)}"
        for i in range(400)
    ]
    lines.insert(150, "- [fact] Billing API timeout is 30 seconds")
    lines.append("- [fact] Billing API timeout is 10 seconds")
    judged: list[tuple[int, int]] = []
    real = contradiction_blocks.candidates

    def counting(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        for pair in real(*args, **kwargs):  # type: ignore[arg-type]
            judged.append(pair)
            yield pair

    monkeypatch.setattr("memtui.notes.contradictions.candidates", counting)
    found = find_contradictions([_note("ops.md", "Ops", lines)])
    assert [(c.older.text, c.newer.text) for c in found] == [
        ("- [fact] Billing API timeout is 30 seconds", "- [fact] Billing API timeout is 10 seconds")
    ]
    assert len(judged) < 402 * 401 // 2 // 100


def test_the_history_decides_which_line_is_newer(tmp_path: Path) -> None:
    clock = [T0]
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/prefs.md", "# Prefs\n\n- [preference] Prefers tabs\n")
    clock[0] = T0 + 86400
    agent.insert("/memories/prefs.md", 2, "- [preference] Prefers spaces")
    index = NoteIndex.load(tmp_path, use_cache=False)
    assert [(c.older.line, c.newer.line) for c in store_contradictions(index)] == [(3, 4)]
    [pair] = store_contradictions(index, agent.history)
    assert (pair.older.text, pair.older.time) == ("- [preference] Prefers tabs", T0)
    assert (pair.newer.text, pair.newer.time) == ("- [preference] Prefers spaces", T0 + 86400)
