"""`memtui mcp` over stdio with the MCP SDK's own client: tools, results, prompts, history."""

from __future__ import annotations

from pathlib import Path

from mcp.types import TextContent

from memtui.agents.mcp_server import MEMORY_TOOL_SCHEMA
from memtui.agents.prompts import load_prompt
from memtui.core.store import MemoryStore
from tests.agents.mcp_client import call_memory, mcp_session, result_text
from tests.agents.sequences import (
    EXPECTED_FINAL_NOTE,
    EXPECTED_TEXTS,
    SEQUENCE,
    fresh_search,
    reference_results,
)


async def test_memory_tool_session(tmp_path: Path) -> None:
    root = tmp_path / "store"
    expected = reference_results(tmp_path / "reference", SEQUENCE)
    async with mcp_session(root) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert sorted(tools) == [
            "build_context",
            "memory",
            "move_note",
            "recent_activity",
            "search_memories",
        ]
        memory = tools["memory"]
        assert memory.input_schema == MEMORY_TOOL_SCHEMA
        assert memory.input_schema["required"] == ["command"]
        assert memory.input_schema["properties"]["command"]["enum"] == [
            "view",
            "create",
            "str_replace",
            "insert",
            "delete",
            "rename",
        ]
        properties = memory.input_schema["properties"]
        assert {name: spec["type"] for name, spec in properties.items()} == {
            "command": "string",
            "path": "string",
            "file_text": "string",
            "view_range": "array",
            "old_str": "string",
            "new_str": "string",
            "insert_line": "integer",
            "insert_text": "string",
            "old_path": "string",
            "new_path": "string",
        }
        view_range = properties["view_range"]
        assert (view_range["items"], view_range["minItems"], view_range["maxItems"]) == (
            {"type": "integer"},
            2,
            2,
        )
        assert "/memories" in (memory.description or "")
        assert "Basic Memory" in (memory.description or "")

        results = [await call_memory(session, tool_input) for tool_input in SEQUENCE]
        searched = await session.call_tool("search_memories", {"query": "command core"})
        context = await session.call_tool("build_context", {"target": "projects/memtui.md"})

        prompts = (await session.list_prompts()).prompts
        assert [prompt.name for prompt in prompts] == ["memory_guide", "memory_protocol"]
        for name in ("memory_guide", "memory_protocol"):
            rendered = await session.get_prompt(name)
            (message,) = rendered.messages
            assert message.role == "user"
            assert isinstance(message.content, TextContent)
            assert message.content.text == load_prompt(name)

    assert results == expected
    for step, text_and_flag in EXPECTED_TEXTS.items():
        assert results[step] == text_and_flag, step
    assert (root / "projects/memtui.md").read_bytes() == EXPECTED_FINAL_NOTE

    assert searched.is_error is False
    assert result_text(searched) == (
        '1 match in 1 note for "command core":\n\n'
        "/memories/projects/memtui.md (memtui)\n"
        "  3: - [fact] A command core"
    )
    assert result_text(searched) == fresh_search(root, "command core")
    assert context.is_error is False
    assert result_text(context).startswith("# memtui (/memories/projects/memtui.md)\n")
    assert "- [status] Tested" in result_text(context)

    events = MemoryStore(root).history.events(newest_first=False)
    assert len(events) == len(SEQUENCE)
    assert {event.actor for event in events} == {"agent:pytest-agent"}
    assert len({event.session for event in events}) == 1
    assert [event.is_error for event in events] == [is_error for _, is_error in expected]


async def test_actor_flag_wins_over_client_name(tmp_path: Path) -> None:
    async with mcp_session(tmp_path, "--actor", "reviewer") as session:
        text, is_error = await call_memory(
            session, {"command": "create", "path": "/memories/a.md", "file_text": "a\n"}
        )
        assert (text, is_error) == ("File created successfully at: /memories/a.md", False)
        result = await session.call_tool("memory", {"command": "delete", "path": "/memories"})
        assert result.is_error is True
        assert result_text(result) == "Cannot delete the /memories directory itself"
    events = MemoryStore(tmp_path).history.events(newest_first=False)
    assert [(event.actor, event.command) for event in events] == [
        ("agent:reviewer", "create"),
        ("agent:reviewer", "delete"),
    ]
