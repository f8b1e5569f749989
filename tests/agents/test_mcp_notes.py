"""The notes tools of the MCP server: search, context and activity see the agent's own writes."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.types import Implementation

from memtui.agents.mcp_server import MemoryService, build_server
from memtui.agents.notes_access import NotesError, parse_filters, relpath_of
from memtui.core.store import MemoryStore
from memtui.notes.agent_context import build_context, recent_activity
from memtui.notes.index import NoteIndex
from memtui.notes.search import SearchFilters
from tests.agents.mcp_client import result_text
from tests.agents.sequences import fresh_search

SEARCH_NOTE = """---
title: Search refactor
type: project
tags: [memtui, search]
---

# Search refactor

## Observations
- [decision] Limit candidates with a token index #performance (10k notes)
- [status] Cancellation still missing

## Relations
- part_of [[memtui]]
"""
MEMTUI_NOTE = "---\ntitle: memtui\n---\n# memtui\n- [fact] A terminal app for agent memory\n"


@asynccontextmanager
async def in_process_client(root: Path) -> AsyncIterator[Client]:
    """A client connected in-process to a memtui server on `root`."""
    server = build_server(MemoryService(root))
    async with Client(
        server, client_info=Implementation(name="notes-agent", version="1")
    ) as client:
        yield client


async def call_text(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """Call a tool; its single text block and error flag."""
    result = await client.call_tool(tool, arguments)
    return result_text(result), bool(result.is_error)


async def create(client: Client, path: str, text: str) -> None:
    """Create a note through the memory tool."""
    assert await call_text(
        client, "memory", {"command": "create", "path": path, "file_text": text}
    ) == (f"File created successfully at: {path}", False)


async def test_search_sees_the_agents_own_writes(tmp_path: Path) -> None:
    async with in_process_client(tmp_path) as client:
        await create(client, "/memories/projects/memtui.md", MEMTUI_NOTE)
        assert await call_text(client, "search_memories", {"query": "token index"}) == (
            'No notes match "token index".',
            False,
        )
        await create(client, "/memories/projects/search.md", SEARCH_NOTE)
        found = await call_text(client, "search_memories", {"query": "token index"})
    assert found == (
        '1 match in 1 note for "token index":\n'
        "\n"
        "/memories/projects/search.md (Search refactor)\n"
        "  10: - [decision] Limit candidates with a token index #performance (10k notes)",
        False,
    )
    assert found[0] == fresh_search(tmp_path, "token index")


async def test_search_sees_outside_edits_renames_and_deletes(tmp_path: Path) -> None:
    async with in_process_client(tmp_path) as client:
        await create(client, "/memories/projects/search.md", SEARCH_NOTE)
        await call_text(client, "search_memories", {"query": "token"})
        (tmp_path / "outside.md").write_text("# Outside\n- [fact] edited by a token in vim\n")
        with_outside = await call_text(client, "search_memories", {"query": "token"})
        renamed = await call_text(
            client,
            "memory",
            {
                "command": "rename",
                "old_path": "/memories/projects",
                "new_path": "/memories/archive",
            },
        )
        assert renamed == ("Successfully renamed /memories/projects to /memories/archive", False)
        after_rename = await call_text(client, "search_memories", {"query": "token"})
        (tmp_path / "outside.md").unlink()
        after_delete = await call_text(client, "search_memories", {"query": "token"})
    assert (
        "/memories/outside.md (outside)\n  2: - [fact] edited by a token in vim" in with_outside[0]
    )
    assert "/memories/archive/search.md (Search refactor)" in after_rename[0]
    assert "/memories/projects/search.md" not in after_rename[0]
    assert after_delete == (
        '1 match in 1 note for "token":\n'
        "\n"
        "/memories/archive/search.md (Search refactor)\n"
        "  10: - [decision] Limit candidates with a token index #performance (10k notes)",
        False,
    )
    assert after_delete[0] == fresh_search(tmp_path, "token")


async def test_search_filters(tmp_path: Path) -> None:
    async with in_process_client(tmp_path) as client:
        await create(client, "/memories/projects/search.md", SEARCH_NOTE)
        await create(client, "/memories/user/tokens.md", "# tokens\n- [fact] token budget\n")
        in_projects = await call_text(
            client, "search_memories", {"query": "token", "filters": {"folder": "projects"}}
        )
        unknown = await call_text(
            client, "search_memories", {"query": "token", "filters": {"colour": "red"}}
        )
    assert in_projects[0].startswith('1 match in 1 note for "token":\n')
    assert "/memories/user/tokens.md" not in in_projects[0]
    assert unknown == (
        "Unknown filter colour. Expected some of: folder, tag, category, note_type, actor, "
        "max_age_days",
        True,
    )


async def test_build_context_and_recent_activity(tmp_path: Path) -> None:
    async with in_process_client(tmp_path) as client:
        await create(client, "/memories/projects/memtui.md", MEMTUI_NOTE)
        await create(client, "/memories/projects/search.md", SEARCH_NOTE)
        context = await call_text(client, "build_context", {"target": "Search refactor"})
        missing = await call_text(client, "build_context", {"target": "nothing"})
        bad_timeframe = await call_text(
            client, "build_context", {"target": "memtui", "depth": 3, "timeframe": "soon"}
        )
        activity = await call_text(client, "recent_activity", {"timeframe": "1d"})
    index = NoteIndex.load(tmp_path, use_cache=False)
    history = MemoryStore(tmp_path).history
    expected_context = build_context(index, "Search refactor", history=history).to_text()
    assert context == (expected_context, False)
    assert "- [decision] Limit candidates with a token index #performance (10k notes)" in context[0]
    assert "- part_of -> memtui (/memories/projects/memtui.md)" in context[0]
    assert missing == ("no note matches 'nothing' (by permalink, title or path)", True)
    assert bad_timeframe == (
        "unknown timeframe 'soon': use e.g. 30m, 24h, 7d, 2 weeks, 1 month, 1y, today or yesterday",
        True,
    )
    expected_activity = recent_activity(index, history, timeframe="1d").to_text()
    assert activity == (expected_activity, False)
    assert "agent:notes-agent create Search refactor (/memories/projects/search.md)" in activity[0]


def test_relpath_of() -> None:
    assert relpath_of("/memories") == ""
    assert relpath_of("/memories/") == ""
    assert relpath_of("/memories//a/./b.md") == "a/b.md"
    assert relpath_of("/memories/../x") is None
    assert relpath_of("/etc/passwd") is None
    assert relpath_of(5) is None


def test_parse_filters() -> None:
    assert parse_filters(None) is None
    assert parse_filters({}) is None
    assert parse_filters({"folder": "projects", "max_age_days": 3}) == SearchFilters(
        folder="projects", max_age_days=3.0
    )
    with pytest.raises(NotesError, match=r"^Filter tag must be a string$"):
        parse_filters({"tag": 5})
    with pytest.raises(NotesError, match=r"^Filter max_age_days must be a number of days"):
        parse_filters({"max_age_days": "old"})
    for bad in (-1, float("nan"), float("inf")):
        with pytest.raises(NotesError, match=r"^Filter max_age_days must be a number of days"):
            parse_filters({"max_age_days": bad})
    with pytest.raises(NotesError, match=r"^filters must be an object"):
        parse_filters(["folder"])


def test_background_load_then_writes_are_seen(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:loader")
    store.execute(
        {"command": "create", "path": "/memories/a.md", "file_text": "# a\nalpha token\n"}
    )
    service = MemoryService(tmp_path, actor="loader")
    service.notes.start_loading()
    service.memory(
        {"command": "create", "path": "/memories/b.md", "file_text": "# b\nbeta token\n"},
        "agent:loader",
        "s",
    )
    text = service.notes.search_text("token")
    assert text == fresh_search(tmp_path, "token")
    assert text.startswith('2 matches in 2 notes for "token":\n')


def test_watcher_refresh_sees_outside_changes(tmp_path: Path) -> None:
    (tmp_path / "projects").mkdir()
    (tmp_path / "projects/a.md").write_text("# a\nalpha token\n")
    service = MemoryService(tmp_path, actor="watcher")
    service.notes.start_loading(watch=True)
    deadline = time.monotonic() + 10
    while not service.notes.watching and time.monotonic() < deadline:
        time.sleep(0.02)
    assert service.notes.watching
    assert service.notes.search_text("token").startswith('1 match in 1 note for "token":\n')

    def wait_for(expected: str) -> str:
        deadline = time.monotonic() + 10
        while True:
            text = service.notes.search_text("token")
            if text == expected or time.monotonic() > deadline:
                return text
            time.sleep(0.05)

    (tmp_path / "projects/b.md").write_text("# b\nbeta token\n")
    (tmp_path / ".hidden.md").write_text("hidden token\n")
    expected = fresh_search(tmp_path, "token")
    assert "/memories/projects/b.md (b)\n  2: beta token" in expected
    assert wait_for(expected) == expected

    (tmp_path / "projects").rename(tmp_path / "archive")
    expected = fresh_search(tmp_path, "token")
    assert "/memories/archive/a.md (a)" in expected and "projects/" not in expected
    assert wait_for(expected) == expected
    assert set(service.notes.index().notes) == {"archive/a.md", "archive/b.md"}


def test_watcher_ignores_dot_folders(tmp_path: Path) -> None:
    from memtui.core.watcher import StoreWatcher, relative_paths

    changes = [
        (1, str(tmp_path / "a/b.md")),
        (1, str(tmp_path / ".memtui/history.db")),
        (1, str(tmp_path / "a/.tmp-1-x")),
        (1, str(tmp_path)),
        (1, str(tmp_path.parent / "other.md")),
    ]
    assert relative_paths(tmp_path, changes) == frozenset({"a/b.md"})
    assert StoreWatcher(tmp_path).take() is None


def test_failed_index_update_is_repaired_by_the_next_refresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = MemoryService(tmp_path, actor="repair")
    assert service.notes.search_text("token") == 'No notes match "token".'
    index = service.notes.index()
    real_update = index.update_paths
    calls: list[set[str]] = []

    def failing_once(relpaths: Iterable[str]) -> set[str]:
        calls.append(set(relpaths))
        if len(calls) == 1:
            raise OSError("disk hiccup")
        return real_update(relpaths)

    monkeypatch.setattr(index, "update_paths", failing_once)
    created = service.memory(
        {"command": "create", "path": "/memories/n.md", "file_text": "# n\nnew token\n"},
        "agent:repair",
        "s",
    )
    assert created.is_error is False
    assert service.notes.search_text("token") == fresh_search(tmp_path, "token")
    assert "n.md" in service.notes.search_text("token")
    assert calls == [{"n.md"}]


async def test_move_note_moves_and_rewrites_links_as_one_operation(tmp_path: Path) -> None:
    """`move_note` is the operation the app and `memtui mv` run: the move and the rewritten
    link are one history group, recorded as the client's agent."""
    root = tmp_path / "mem"
    async with in_process_client(root) as client:
        await create(client, "/memories/tools/textual.md", "# Textual\n")
        await create(client, "/memories/projects/p.md", "- uses [[tools/textual]]\n")
        text, is_error = await call_text(
            client,
            "move_note",
            {"old_path": "/memories/tools/textual.md", "new_path": "/memories/libs/textual.md"},
        )
        assert (text, is_error) == (
            "Moved tools/textual.md to libs/textual.md; rewrote links in 1 note",
            False,
        )
        assert (root / "projects" / "p.md").read_text() == "- uses [[libs/textual]]\n"
        refused = await call_text(
            client, "move_note", {"old_path": "/memories/../x", "new_path": "/memories/y"}
        )
        assert refused == (
            "Refused: old_path and new_path must be paths below /memories, such as "
            "/memories/projects/a.md",
            True,
        )
        missing = await call_text(
            client, "move_note", {"old_path": "/memories/nope.md", "new_path": "/memories/y.md"}
        )
        assert missing == ("Error: The path /memories/nope.md does not exist", True)
    history = MemoryStore(root, actor="human:ann").history
    rename = next(e for e in history.events(command="rename") if not e.is_error)
    assert rename.actor == "agent:notes-agent" and rename.group_id is not None
    parts = history.group_events(rename.group_id)
    assert [(e.actor, e.command, e.path) for e in parts] == [
        ("agent:notes-agent", "rename", "/memories/tools/textual.md"),
        ("agent:notes-agent", "write", "/memories/projects/p.md"),
    ]
