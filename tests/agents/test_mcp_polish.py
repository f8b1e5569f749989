"""`memtui mcp` over a real MCP client session: server version, tool titles, search output."""

from __future__ import annotations

import os
from pathlib import Path

import jsonschema
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp.types import Implementation

from memtui import installed_version
from tests.agents.mcp_client import result_text, server_command

TITLED = "projects/memtui.md"
TITLED_TEXT = "---\ntitle: Kestrel\n---\n- [fact] A terminal app\n- [fact] A command core\n"


def write_notes(root: Path) -> None:
    """A note found only by its title, and twelve notes that each match `falcon` twice."""
    (root / "projects").mkdir(parents=True)
    (root / TITLED).write_text(TITLED_TEXT, encoding="utf-8")
    for number in range(12):
        (root / f"birds/b{number:02}.md").parent.mkdir(exist_ok=True)
        (root / f"birds/b{number:02}.md").write_text(
            f"- [seen] falcon over the bay {number}\n- [seen] falcon again\n", encoding="utf-8"
        )


async def test_server_info_titles_and_search_output(tmp_path: Path) -> None:
    write_notes(tmp_path)
    params = server_command(tmp_path)
    params.env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, client_info=Implementation(name="t", version="1")) as session,
    ):
        started = await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        by_title = await session.call_tool("search_memories", {"query": "kestrel"})
        cut = await session.call_tool("search_memories", {"query": "falcon", "limit": 3})
        all_shown = await session.call_tool("search_memories", {"query": "falcon", "limit": 200})
        null_filters = await session.call_tool(
            "search_memories", {"query": "kestrel", "filters": None}
        )

    assert started.server_info.name == "memtui"
    assert started.server_info.version == installed_version() != ""
    assert {name: tool.title for name, tool in tools.items()} == {
        "memory": "Memory",
        "search_memories": "Search memories",
        "build_context": "Build context",
        "recent_activity": "Recent activity",
        "move_note": "Move note",
    }
    assert tools["move_note"].annotations is not None
    assert tools["move_note"].annotations.destructive_hint is True
    assert set(tools["move_note"].input_schema["properties"]) == {
        "old_path",
        "new_path",
        "rewrite_links",
    }
    filters_schema = tools["search_memories"].input_schema["properties"]["filters"]
    jsonschema.validate(filters_schema["default"], filters_schema)
    jsonschema.validate({"folder": "birds"}, filters_schema)

    assert result_text(by_title) == (
        '1 match in 1 note for "kestrel":\n\n/memories/projects/memtui.md (Kestrel)\n  title: '
        "Kestrel"
    )
    assert result_text(null_filters) == result_text(by_title)
    text = result_text(cut)
    assert text.splitlines()[0] == (
        '3 matches in 2 notes for "falcon" (the best 3; 12 notes match in all, raise limit for '
        "more):"
    )
    shown = [line for line in text.splitlines() if line.startswith("  ")]
    assert len(shown) == 3 and all("falcon" in line for line in shown)
    every = result_text(all_shown)
    assert every.splitlines()[0] == '24 matches in 12 notes for "falcon":'
