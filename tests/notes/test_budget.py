"""The budget on small stores of each kind: what loads at every session's start, what is never
seen, the total against the limit, and the tokens read from real `view` events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli import main
from memtui.core.config import Settings
from memtui.core.config_tables import BudgetSettings
from memtui.core.store import MemoryStore
from memtui.notes.budget import Budget, cut_part, store_budget
from memtui.notes.index import NoteIndex
from memtui.notes.store_kinds import PartLoad, glob_match
from memtui.notes.tokens import estimate_tokens, tokens_for_bytes

NOW = 1_800_000_000.0
DAY = 86400.0
POINTERS = [f"- [Topic {i}](topic_{i}.md) — what we learned about area {i}" for i in range(1, 341)]


def _write(root: Path, files: dict[str, str]) -> None:
    """Write files under `root`."""
    for relpath, text in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _budget(
    root: Path, settings: BudgetSettings | None = None, listing: str | None = None
) -> Budget:
    """The budget of a store without a history."""
    index = NoteIndex.load(root, use_cache=False)
    return store_budget(
        index, settings=settings, listing=(lambda: listing) if listing is not None else None
    )


def _rows(budget: Budget) -> list[tuple[str, str, int, int]]:
    """(path, loaded, unseen lines, loaded tokens) of every row."""
    return [(r.path, r.loaded, r.unseen_lines, r.loaded_tokens) for r in budget.rows]


def test_a_340_line_memory_md_has_140_lines_the_agent_never_sees(tmp_path: Path) -> None:
    text = "\n".join(POINTERS) + "\n"
    _write(tmp_path, {"MEMORY.md": text, "topic_1.md": "# Topic 1\n\nUse pnpm.\n"})
    budget = _budget(tmp_path)
    seen = "\n".join(POINTERS[:200])
    assert (budget.rules.kind, budget.rules.detected, budget.rules.limit) == (
        "claude-code",
        True,
        6250,
    )
    assert _rows(budget) == [
        ("MEMORY.md", "partly", 140, estimate_tokens(seen)),
        ("topic_1.md", "on demand", 0, 0),
    ]
    memory = budget.rows[0]
    assert memory.first_unseen_line == 201
    assert (memory.bytes, memory.tokens) == (
        len(text.encode()),
        tokens_for_bytes(len(text.encode())),
    )
    assert budget.loaded_tokens == estimate_tokens(seen)
    assert not budget.over_limit


def test_memory_md_is_cut_at_the_last_line_end_before_25000_characters() -> None:
    lines = ["x" * 200] * 150
    cut = cut_part("\n\n" + "\n".join(lines) + "\n", PartLoad(200, 25_000))
    assert (cut.lines, cut.unseen_lines, cut.first_unseen_line) == (124, 26, 127)
    assert cut.loaded == "\n".join(lines[:124])
    assert cut_part("   \n", PartLoad(200, 25_000)).unseen_lines == 0


def test_a_letta_system_folder_over_its_limit(tmp_path: Path) -> None:
    persona = "---\ndescription: who I am\n---\n" + "I keep answers short.\n" * 1000
    human = "---\ndescription: the user\n---\n" + "Dana prefers tabs and dark themes.\n" * 1800
    _write(
        tmp_path,
        {
            "system/persona.md": persona,
            "system/human/prefs.md": human,
            "system/notes.txt": "not markdown, not loaded by Letta\n",
            "reference/project.md": "# Project\n\nDeep notes.\n",
        },
    )
    budget = _budget(tmp_path)
    persona_tokens = tokens_for_bytes(len(persona.encode()))
    human_tokens = tokens_for_bytes(len(human.encode()))
    assert budget.rules.kind == "letta"
    assert _rows(budget) == [
        ("system/human/prefs.md", "always", 0, human_tokens),
        ("system/persona.md", "always", 0, persona_tokens),
        ("reference/project.md", "on demand", 0, 0),
        ("system/notes.txt", "on demand", 0, 0),
    ]
    assert budget.loaded_tokens == persona_tokens + human_tokens == 21_266
    assert budget.rules.limit == 20_000 and budget.over_limit


def test_the_memory_tool_loads_the_listing_of_its_folder(tmp_path: Path) -> None:
    _write(
        tmp_path, {"notes/progress.txt": "step 3 of 5 done\n", "user.xml": "<name>Dana</name>\n"}
    )
    store = MemoryStore(tmp_path, actor="agent:claude", settings=Settings())
    listing = store.render_view("/memories")
    budget = _budget(tmp_path, listing=listing)
    assert listing.startswith("Here're the files and directories up to 2 levels deep")
    assert budget.rules.kind == "memory-tool" and budget.rules.limit is None
    assert _rows(budget) == [
        ("/memories", "always", 0, estimate_tokens(listing)),
        ("notes/progress.txt", "on demand", 0, 0),
        ("user.xml", "on demand", 0, 0),
    ]


def test_basic_memory_loads_nothing_at_session_start(tmp_path: Path) -> None:
    note = "---\ntitle: {0}\ntype: note\npermalink: {0}\n---\n\n# {0}\n\n- [fact] x\n"
    _write(tmp_path, {f"{name}.md": note.format(name) for name in ("alpha", "beta", "gamma")})
    budget = _budget(tmp_path)
    assert budget.rules.kind == "basic-memory"
    assert [row.loaded for row in budget.rows] == ["on demand"] * 3
    assert budget.loaded_tokens == 0 and not budget.over_limit


def test_the_config_overrides_the_kind_the_always_loaded_files_and_the_limit(
    tmp_path: Path,
) -> None:
    _write(tmp_path, {"people/dana.md": "# Dana\n\nLikes tea.\n", "log.md": "# Log\n"})
    budget = _budget(tmp_path, BudgetSettings(always=("people/*.md",), limit=3))
    assert budget.rules.kind == "memory-tool" and budget.rules.detected
    assert _rows(budget)[0] == ("people/dana.md", "always", 0, tokens_for_bytes(20))
    assert budget.over_limit
    forced = _budget(tmp_path, BudgetSettings(kind="letta"))
    assert (forced.rules.kind, forced.rules.detected, forced.loaded_tokens) == ("letta", False, 0)


def test_globs() -> None:
    assert glob_match("system/**/*.md", "system/persona.md")
    assert glob_match("system/**/*.md", "system/human/prefs.md")
    assert not glob_match("system/**/*.md", "system/notes.txt")
    assert glob_match("people/*.md", "people/dana.md")
    assert not glob_match("people/*.md", "people/team/dana.md")
    assert glob_match("**", "a/b/c.md") and glob_match("a?.md", "ab.md")


def test_tokens_read_in_30_days_come_from_agent_views(tmp_path: Path) -> None:
    _write(tmp_path, {"MEMORY.md": "- [Build](build.md) — make test\n", "build.md": "# Build\n"})
    clock = [NOW - 40 * DAY]
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings(), clock=lambda: clock[0])
    person = agent.with_actor("human:dana")
    agent.view("/memories/build.md")
    clock[0] = NOW - 2 * DAY
    first = agent.view("/memories/build.md")
    second = agent.view("/memories/MEMORY.md", [1, 1])
    person.view("/memories/build.md")
    missing = agent.view("/memories/nothing.md")
    listing = agent.view("/memories")
    clock[0] = NOW - DAY
    agent.rename("/memories/build.md", "/memories/topics/build.md")
    assert missing.is_error and not first.is_error
    index = NoteIndex.load(tmp_path, use_cache=False)
    budget = store_budget(
        index,
        agent.history,
        settings=BudgetSettings(kind="memory-tool"),
        listing=lambda: agent.render_view("/memories"),
        now=NOW,
    )
    read = {row.path: row.read_tokens_30d for row in budget.rows}
    assert read == {
        "MEMORY.md": estimate_tokens(second.content),
        "topics/build.md": estimate_tokens(first.content),
        "/memories": estimate_tokens(listing.content),
    }


def test_memtui_budget_json_rows_and_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, {"MEMORY.md": "\n".join(POINTERS) + "\n"})
    assert main(["budget", str(tmp_path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    seen = estimate_tokens("\n".join(POINTERS[:200]))
    size = len(("\n".join(POINTERS) + "\n").encode())
    assert lines == [
        {
            "path": "MEMORY.md",
            "bytes": size,
            "tokens": tokens_for_bytes(size),
            "loaded": "partly",
            "unseen_lines": 140,
            "read_tokens_30d": 0,
            "loaded_tokens": seen,
            "first_unseen_line": 201,
        },
        {
            "total": {
                "kind": "claude-code",
                "kind_name": "Claude Code auto memory",
                "detected": True,
                "loaded_tokens": seen,
                "limit": 6250,
                "over_limit": False,
            }
        },
    ]


def test_memtui_budget_text_names_the_unseen_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path, {"MEMORY.md": "\n".join(POINTERS) + "\n"})
    assert main(["budget", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    seen = estimate_tokens("\n".join(POINTERS[:200]))
    assert out[0] == (
        f"Claude Code auto memory (detected): {seen:,} of 6,250 tokens loaded at the start of "
        "every session"
    )
    assert out[2].endswith("MEMORY.md  (140 lines never seen, from line 201)")
    assert main(["budget", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"memtui budget: {tmp_path / 'nope'} is not a folder\n"
