"""`memtui mcp` over stdio with the SDK's client: the protocol details a strict client checks."""

from __future__ import annotations

import shutil
from pathlib import Path

import jsonschema
import pytest
from mcp.shared.exceptions import MCPError

from memtui.demo.bundled import DEMO_NOTES_DIR
from tests.agents.mcp_client import call_memory, mcp_session, result_text

BIRD = "---\ntitle: Falcon\n---\n- [seen] falcon over the bay\n"


def write_birds(root: Path) -> None:
    """Two notes in `birds/`, and one in `other/` that also says falcon."""
    (root / "birds").mkdir(parents=True)
    (root / "other").mkdir()
    (root / "birds/falcon.md").write_text(BIRD, encoding="utf-8")
    (root / "birds/kestrel.md").write_text("# Kestrel\nno falcon here\n", encoding="utf-8")
    (root / "other/n.md").write_text("# Other\nfalcon elsewhere\n", encoding="utf-8")


async def test_unknown_tool_is_an_invalid_params_error(tmp_path: Path) -> None:
    async with mcp_session(tmp_path) as session:
        with pytest.raises(MCPError) as raised:
            await session.call_tool("no_such_tool", {})
        with pytest.raises(MCPError) as long_name:
            await session.call_tool("x" * 500, {})
        still_answers = await session.call_tool("search_memories", {"query": "anything"})
    assert (raised.value.code, raised.value.message) == (-32602, "Unknown tool: no_such_tool")
    assert long_name.value.code == -32602
    assert long_name.value.message == "Unknown tool: " + "x" * 100 + "…"
    assert result_text(still_answers) == 'No notes match "anything".'


async def test_capabilities_are_what_the_server_serves(tmp_path: Path) -> None:
    async with mcp_session(tmp_path) as session:
        started = session.initialize_result
        prompts = await session.list_prompts()
        with pytest.raises(MCPError) as resources:
            await session.list_resources()
    assert started is not None
    capabilities = started.capabilities
    assert capabilities.resources is None
    assert capabilities.tools is not None and capabilities.prompts is not None
    assert prompts.prompts
    assert resources.value.code == -32601


async def test_filters_schema_is_any_of_and_a_json_string_is_accepted(tmp_path: Path) -> None:
    write_birds(tmp_path)
    async with mcp_session(tmp_path) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        as_object = await session.call_tool(
            "search_memories", {"query": "falcon", "filters": {"folder": "birds"}}
        )
        as_text = await session.call_tool(
            "search_memories", {"query": "falcon", "filters": '{"folder": "birds"}'}
        )
        blank = await session.call_tool("search_memories", {"query": "falcon", "filters": ""})
        unfiltered = await session.call_tool("search_memories", {"query": "falcon"})
        bad = await session.call_tool("search_memories", {"query": "falcon", "filters": "{folder"})
        unknown = await session.call_tool(
            "search_memories", {"query": "falcon", "filters": '{"colour": "red"}'}
        )
    schema = tools["search_memories"].input_schema["properties"]["filters"]
    assert "type" not in schema
    assert [option.get("type") for option in schema["anyOf"]] == ["object", "null"]
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate({"folder": "birds", "max_age_days": 3}, schema)
    jsonschema.validate(None, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"colour": "red"}, schema)

    assert as_object.is_error is False
    assert result_text(as_object).splitlines()[0].endswith(' in 2 notes for "falcon":')
    assert "/memories/other/n.md" not in result_text(as_object)
    assert (result_text(as_text), as_text.is_error) == (result_text(as_object), False)
    assert (result_text(blank), blank.is_error) == (result_text(unfiltered), False)
    assert "/memories/other/n.md" in result_text(unfiltered)
    assert (result_text(bad), bad.is_error) == (
        'filters must be an object, e.g. {"folder": "projects"}',
        True,
    )
    assert unknown.is_error is True
    assert result_text(unknown).startswith("Unknown filter colour. Expected some of: folder")


async def test_recent_activity_after_a_folder_move_names_the_folder(tmp_path: Path) -> None:
    write_birds(tmp_path)
    async with mcp_session(tmp_path) as session:
        moved = await call_memory(
            session,
            {"command": "rename", "old_path": "/memories/birds", "new_path": "/memories/raptors"},
        )
        activity = await session.call_tool("recent_activity", {"timeframe": "1d"})
    assert moved == ("Successfully renamed /memories/birds to /memories/raptors", False)
    text = result_text(activity)
    assert "no longer there" not in text
    (line,) = [line for line in text.splitlines() if "rename" in line]
    assert line.endswith(
        " agent:pytest-agent rename (folder of 2 notes) (/memories/raptors), not reviewed yet"
    )


async def test_move_note_says_how_many_links_it_rewrote(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools/textual.md").write_text("# Textual\n", encoding="utf-8")
    (tmp_path / "lone.md").write_text("# Lone\n", encoding="utf-8")
    (tmp_path / "p.md").write_text(
        "- uses [[tools/textual]]\n- see [[tools/textual|Textual]]\n", encoding="utf-8"
    )
    (tmp_path / "q.md").write_text("- uses [[tools/textual]]\n", encoding="utf-8")
    async with mcp_session(tmp_path) as session:
        rewritten = await session.call_tool(
            "move_note",
            {"old_path": "/memories/tools/textual.md", "new_path": "/memories/libs/textual.md"},
        )
        alone = await session.call_tool(
            "move_note", {"old_path": "/memories/lone.md", "new_path": "/memories/solo.md"}
        )
        kept = await session.call_tool(
            "move_note",
            {
                "old_path": "/memories/libs/textual.md",
                "new_path": "/memories/tools/textual.md",
                "rewrite_links": False,
            },
        )
    assert (result_text(rewritten), rewritten.is_error) == (
        "Moved tools/textual.md to libs/textual.md; rewrote 3 links in 2 notes",
        False,
    )
    assert (tmp_path / "p.md").read_text(encoding="utf-8") == (
        "- uses [[libs/textual]]\n- see [[libs/textual|Textual]]\n"
    )
    assert (result_text(alone), alone.is_error) == (
        "Moved lone.md to solo.md; no links needed rewriting",
        False,
    )
    assert result_text(kept).startswith("Moved libs/textual.md to tools/textual.md; 2 notes still")


async def test_search_memories_finds_a_two_letter_word_and_names_a_note_once(
    tmp_path: Path,
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO_NOTES_DIR, root)
    async with mcp_session(root) as session:
        short = await session.call_tool("search_memories", {"query": "go", "limit": 50})
        named = await session.call_tool("search_memories", {"query": "runbook"})
    text = result_text(short)
    assert short.is_error is False
    assert (
        "/memories/projects/billing-service.md (Billing Service)\n"
        "  5: tags: project, billing, go\n"
        "  12: Go service that turns usage events into invoices. Postgres ledger, nightly "
        "reconciliation.\n"
        "  15: - [stack] Go 1.23, Postgres 16, NATS for usage events #tech\n"
    ) in text
    runbook = result_text(named).split("/memories/projects/data-pipeline/runbook.md")[1]
    assert runbook.split("\n\n")[0].splitlines()[1:] == [
        "  title: Data Pipeline Runbook",
        "  3: type: runbook",
        "  5: tags: pipeline, ops, runbook",
        "  9: # Data Pipeline Runbook",
    ]
