"""The review queue on the two kinds of store, exactly: Basic Memory's own 195 notes (a store
where few notes link) and a store written only through the memory tool (the demo's `claude/`
folder with its replayed history)."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.store import MemoryStore
from memtui.demo import DEMO_NOW, create_demo_store
from memtui.notes.index import NoteIndex
from memtui.notes.stale import StaleReason, review


def _corpus() -> Path | None:
    """Basic Memory's notes in the shared corpus, found from this checkout upwards."""
    for folder in Path(__file__).resolve().parents:
        notes = folder / "shared" / "corpus" / "basic-memory-notes"
        if notes.is_dir():
            return notes
    return None


CORPUS = _corpus()

BASIC_MEMORY_QUEUE = [
    ("CHANGELOG.md", ["broken-link", "large"]),
    ("plugins/claude-code/DESIGN.md", ["broken-link", "large"]),
    ("README.md", ["broken-link", "large"]),
    ("test-int/fixtures/schema/inference/people/grace-hopper.md", ["duplicate", "unresolved"]),
    ("test-int/fixtures/schema/valid/explicit-ref-note.md", ["duplicate", "unresolved"]),
    ("docs/ai-assistant-guide-extended.md", ["unresolved", "large"]),
    ("AGENTS.md", ["broken-link", "unresolved", "large"]),
    ("NOTE-FORMAT.md", ["duplicate"]),
    ("docs/NOTE-FORMAT.md", ["duplicate"]),
    ("plugins/claude-code/schemas/coding-session.md", ["duplicate"]),
    ("plugins/claude-code/skills/bm-decide/SKILL.md", ["duplicate"]),
    ("plugins/claude-code/skills/bm-writing/SKILL.md", ["duplicate"]),
    ("plugins/codex/schemas/coding-session.md", ["duplicate"]),
    ("plugins/codex/skills/bm-decide/SKILL.md", ["duplicate"]),
    ("plugins/codex/skills/bm-writing/SKILL.md", ["duplicate"]),
    ("integrations/hermes/README.md", ["broken-link"]),
    ("plugins/claude-code/README.md", ["broken-link"]),
    ("plugins/claude-code/docs/getting-started.md", ["broken-link"]),
]
"""18 of 195: copies, links to files that are not there, very large notes; no orphans, since
only a fifth of these notes link to another. (These are documentation, not memories: their
changelogs and release notes also give contradiction candidates, counted at most 3.0 a file;
see docs/performance.md.)"""


@pytest.mark.skipif(CORPUS is None, reason="shared corpus not present")
def test_basic_memory_notes_get_a_short_queue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CORPUS is not None
    root = tmp_path / "notes"
    shutil.copytree(CORPUS, root)
    yesterday = time.time() - 86400
    for path in root.rglob("*.md"):
        path.chmod(0o600)
        os.utime(path, (yesterday, yesterday))
    assert len(list(root.rglob("*.md"))) == 195
    assert main(["stale", str(root), "--json", "--limit", "0"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    signals = []
    for row in rows:
        kept = [x for x in row["reasons"] if x["kind"] != "contradicts"]
        score = round(sum(x["weight"] for x in kept), 3)
        if score >= 1.0:
            signals.append((-score, row["path"], [x["kind"] for x in kept]))
    assert [(path, kinds) for _score, path, kinds in sorted(signals)] == BASIC_MEMORY_QUEUE
    for row in rows:
        weights = [x["weight"] for x in row["reasons"] if x["kind"] == "contradicts"]
        assert sum(weights) <= 3.0
    changelog = next(r for r in rows if r["path"] == "CHANGELOG.md")
    assert changelog["reasons"][0]["text"] == (
        "4 broken links (nothing at that path): ./docs/Project Management.md, "
        "./docs/Note Editing.md, ./CLAUDE.md, ..."
    )
    grace = next(r for r in rows if r["path"] == BASIC_MEMORY_QUEUE[3][0])
    assert grace["reasons"][1]["text"] == (
        "links to 3 notes not written yet: United States Navy, COBOL, UNIVAC"
    )


def test_a_memory_tool_store_gets_a_short_queue(tmp_path: Path) -> None:
    """Of the six files the agent wrote, the old context superseded by the newer one and the
    settings file never read back in 70 days; the rest is fresh or read lately."""
    root = create_demo_store(tmp_path / "memories", basic_memory=False)
    index = NoteIndex.load(root)
    candidates = review(index, MemoryStore(root, actor="human:tester").history, now=DEMO_NOW)
    assert [(c.path, c.score, c.reasons) for c in candidates] == [
        (
            "claude/billing_context.md",
            2.75,
            (
                StaleReason("never-read", "written 45 days ago, never read back by an agent", 0.75),
                StaleReason(
                    "superseded",
                    "superseded by claude/project_context.md, changed 42 days later "
                    "(83% similar content)",
                    2.0,
                ),
            ),
        ),
        (
            "claude/prefs.json",
            1.167,
            (StaleReason("never-read", "written 70 days ago, never read back by an agent", 1.167),),
        ),
    ]
    assert len(index.texts) == 6
