"""The review queue's memory-health reasons (lines never seen, over the always-loaded budget,
contradicting statements), shared by `memtui stale` and the app, and "keep both" remembered."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.recording.history import History
from memtui.core.store import MemoryStore
from memtui.notes.health_review import health_review
from memtui.notes.index import NoteIndex
from memtui.notes.operations.resolving import keep_both, undo_keep_both
from memtui.notes.workspace import Workspace
from tests.notes.test_budget import POINTERS, _write

NOW = 1_800_000_000.0
DAY = 86400.0
HEALTH = ("unseen", "over-budget", "contradicts")


def _reasons(root: Path, history: History | None = None) -> dict[str, list[tuple[str, str]]]:
    """path -> (kind, text) of every health reason of the queue, at NOW."""
    index = NoteIndex.load(root, use_cache=False)
    found = health_review(index, history, now=NOW)
    reasons = {
        c.path: [(r.kind, r.text) for r in c.reasons if r.kind in HEALTH] for c in found.candidates
    }
    return {path: kinds for path, kinds in reasons.items() if kinds}


def test_lines_past_200_of_memory_md_are_never_seen(tmp_path: Path) -> None:
    _write(tmp_path, {"MEMORY.md": "\n".join(POINTERS) + "\n", "topic_1.md": "# T\n\nUse pnpm.\n"})
    assert _reasons(tmp_path) == {
        "MEMORY.md": [("unseen", "140 lines never seen by the agent (past line 200 of MEMORY.md)")]
    }


def test_a_letta_system_folder_over_its_limit_is_over_the_budget(tmp_path: Path) -> None:
    persona = "---\ndescription: who I am\n---\n" + "I keep answers short.\n" * 1000
    human = "---\ndescription: the user\n---\n" + "Dana prefers tabs and dark themes.\n" * 1800
    _write(
        tmp_path,
        {
            "system/persona.md": persona,
            "system/human/prefs.md": human,
            "reference/project.md": "# Project\n\nDeep notes.\n",
        },
    )
    reasons = _reasons(tmp_path)
    assert reasons == {
        "system/human/prefs.md": [
            (
                "over-budget",
                "over the always-loaded budget (21,266 of 20,000 tokens loaded every session, "
                "15,758 of them from this file)",
            )
        ],
        "system/persona.md": [
            (
                "over-budget",
                "over the always-loaded budget (21,266 of 20,000 tokens loaded every session, "
                "5,508 of them from this file)",
            )
        ],
    }


def _prefs_store(root: Path) -> MemoryStore:
    """A store whose prefs note says tabs on day 0 and spaces a day later (by an agent)."""
    clock = [NOW - 2 * DAY]
    agent = MemoryStore(root, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    agent.create("/memories/prefs.md", "# Prefs\n\n- [preference] Prefers tabs\n")
    clock[0] = NOW - DAY
    agent.insert("/memories/prefs.md", 3, "- [preference] Prefers spaces")
    return agent


def test_a_contradicted_statement_is_a_reason_with_its_pair(tmp_path: Path) -> None:
    agent = _prefs_store(tmp_path)
    index = NoteIndex.load(tmp_path, use_cache=False)
    [candidate] = health_review(index, agent.history, now=NOW).candidates
    [reason] = [r for r in candidate.reasons if r.kind == "contradicts"]
    assert reason.text == (
        'line 3 "- [preference] Prefers tabs" contradicts newer line 4 '
        '"- [preference] Prefers spaces"'
    )
    assert reason.pair is not None
    assert (reason.pair.older.time, reason.pair.newer.time) == (NOW - 2 * DAY, NOW - DAY)


def test_memtui_stale_json_carries_both_statements(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = _prefs_store(tmp_path)
    agent.close()
    assert main(["stale", str(tmp_path), "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["path"] == "prefs.md"
    [reason] = [r for r in row["reasons"] if r["kind"] == "contradicts"]
    assert reason["older"] == {
        "path": "prefs.md",
        "line": 3,
        "text": "- [preference] Prefers tabs",
        "time": NOW - 2 * DAY,
    }
    assert reason["newer"] == {
        "path": "prefs.md",
        "line": 4,
        "text": "- [preference] Prefers spaces",
        "time": NOW - DAY,
    }
    assert reason["weight"] == 2.0 and reason["rule"] == "value"


def test_keep_both_is_remembered_in_the_history_and_undone(tmp_path: Path) -> None:
    agent = _prefs_store(tmp_path)
    workspace = Workspace(lambda: MemoryStore(tmp_path, settings=Settings()), root=tmp_path)
    index = workspace.load_index(None)
    [pair] = health_review(index, workspace.history, now=NOW).pairs
    before = (tmp_path / "prefs.md").read_bytes()
    result = keep_both(workspace, pair)
    assert (result.is_error, result.content) == (
        False,
        "Kept both: line 3 of /memories/prefs.md and line 4 of /memories/prefs.md will not be "
        "proposed again",
    )
    assert (tmp_path / "prefs.md").read_bytes() == before
    again = History(tmp_path)
    assert again.kept_pair_keys() == {pair.key}
    [kept] = list(again.kept_pairs.all())
    assert (kept.actor, kept.texts) == (workspace.store.actor, (pair.older.text, pair.newer.text))
    assert health_review(index, again, now=NOW).pairs == []
    assert _reasons(tmp_path, again) == {}
    assert undo_keep_both(workspace, pair) is True
    assert [p.key for p in health_review(index, History(tmp_path), now=NOW).pairs] == [pair.key]
    agent.close()


def test_memtui_stale_lists_three_contradictions_of_a_file_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clock = [NOW - 2 * DAY]
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    choices = {
        "editor": ("vim", "emacs"),
        "shell": ("zsh", "fish"),
        "browser": ("firefox", "safari"),
    }
    choices |= {"packager": ("pnpm", "yarn"), "indent": ("tabs", "spaces")}
    agent.create(
        "/memories/prefs.md",
        "# Prefs\n\n" + "".join(f"- [{kind}] Prefers {a}\n" for kind, (a, _b) in choices.items()),
    )
    clock[0] = NOW - DAY
    for number, (kind, (_a, b)) in enumerate(choices.items()):
        agent.insert("/memories/prefs.md", 3 + 2 * number, f"- [{kind}] Prefers {b}")
    agent.close()
    assert main(["stale", str(tmp_path), "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    pairs = len([r for r in row["reasons"] if r["kind"] == "contradicts"])
    assert pairs >= 5
    assert main(["stale", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("  prefs.md")
    assert len([line for line in lines if "contradicts newer" in line]) == 3
    assert lines[-1] == (
        f"       - and {pairs - 3} more statements a newer one contradicts (--json lists them all)"
    )
