"""Traversal fuzzing through `memtui tool`, the SDK class and the MCP tool (the core has its own).

Every entry point gets the same hostile paths on every command; nothing outside the store may be
read into a result, created, changed or deleted, and each refusal must be a history event that
the app's history screen shows as refused.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.fuzz import (
    Caller,
    FuzzFigures,
    Sandbox,
    build_sandbox,
    not_shown_as_refused,
    outside_state,
    refused_in_history,
    run_fuzz,
    tool_inputs,
)
from tests.reliability.hostile_paths import hostile_paths
from tests.tui.settle import wait_idle

REPO = Path(__file__).resolve().parents[2]
NORMAL_PATHS = 1000
SLOW_PATHS = 100_000


def sdk_caller(sandbox: Sandbox) -> Caller:
    """The Anthropic SDK class: a ToolError is the error channel."""
    from anthropic.lib.tools import ToolError

    from memtui.agents.anthropic import MemtuiMemoryTool

    tool = MemtuiMemoryTool(root=sandbox.root, actor="agent:fuzz-sdk")

    def call(tool_input: dict[str, Any]) -> tuple[str, bool]:
        try:
            return str(tool.call(tool_input)), False
        except ToolError as error:
            return str(error.content), True

    return call


def mcp_direct_caller(sandbox: Sandbox) -> Caller:
    """The MCP server's memory tool function, called without the protocol (for volume)."""
    from memtui.agents.mcp_server import MemoryService

    service = MemoryService(sandbox.root, actor="fuzz-mcp")

    def call(tool_input: dict[str, Any]) -> tuple[str, bool]:
        result = service.memory(tool_input, service.actor_for(None), service.session)
        (block,) = result.content
        return block.text, bool(result.is_error)

    return call


def run_mcp_protocol(sandbox: Sandbox, inputs: list[dict[str, Any]]) -> FuzzFigures:
    """The MCP tool through a real client session (in-process transport)."""
    from mcp import Client

    from memtui.agents.mcp_server import MemoryService, build_server

    results: list[tuple[str, bool]] = []

    async def drive() -> None:
        service = MemoryService(sandbox.root, actor="fuzz-mcp-protocol")
        async with Client(build_server(service)) as client:
            for tool_input in inputs:
                result = await client.call_tool("memory", tool_input)
                (block,) = result.content
                results.append((block.text, bool(result.is_error)))

    asyncio.run(drive())
    replies = iter(results)
    return run_fuzz(lambda _input: next(replies), inputs)


def run_tool_cli(sandbox: Sandbox, inputs: list[dict[str, Any]]) -> FuzzFigures:
    """`memtui tool` in one batch: JSON lines in, one JSON result line out per input."""
    stdin = "".join(json.dumps(tool_input) + "\n" for tool_input in inputs)
    process = subprocess.run(
        [sys.executable, "-m", "memtui", "tool", str(sandbox.root), "--actor", "fuzz-cli"],
        input=stdin.encode("utf-8"),
        capture_output=True,
        cwd=REPO,
        timeout=900,
    )
    assert process.returncode == 0, process.stderr.decode("utf-8", "replace")
    lines = process.stdout.decode("utf-8").splitlines()
    assert len(lines) == len(inputs)
    replies = iter(json.loads(line) for line in lines)

    def reply(_input: dict[str, Any]) -> tuple[str, bool]:
        result = next(replies)
        return result["content"], result["is_error"]

    return run_fuzz(reply, inputs)


ENTRY_POINTS: dict[str, Callable[[Sandbox, list[dict[str, Any]]], FuzzFigures]] = {
    "memtui tool": run_tool_cli,
    "SDK class": lambda sandbox, inputs: run_fuzz(sdk_caller(sandbox), inputs),
    "MCP tool (direct)": lambda sandbox, inputs: run_fuzz(mcp_direct_caller(sandbox), inputs),
    "MCP tool (protocol)": run_mcp_protocol,
}


def fuzz_entry_point(base: Path, name: str, count: int) -> tuple[FuzzFigures, float]:
    """Run `count` hostile paths through one entry point in a fresh sandbox and check it."""
    sandbox = build_sandbox(base)
    before = outside_state(sandbox)
    inputs = list(tool_inputs(hostile_paths(count)))
    started = time.perf_counter()
    figures = ENTRY_POINTS[name](sandbox, inputs)
    seconds = time.perf_counter() - started
    assert figures.calls == count
    assert figures.leaks == []
    assert outside_state(sandbox) == before
    assert sum(figures.refused.values()) > count * 0.9
    recorded = refused_in_history(sandbox.root)
    missing = figures.refused - recorded
    assert missing == Counter(), list(missing.items())[:5]
    assert not_shown_as_refused(sandbox.root) == []
    return figures, seconds


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_hostile_paths_never_escape(tmp_path: Path, name: str) -> None:
    fuzz_entry_point(tmp_path, name, NORMAL_PATHS)


async def test_the_history_screen_lists_every_fuzzed_refusal_as_refused(tmp_path: Path) -> None:
    from memtui.core.parsing.paths import FLAG_REFUSED
    from memtui.tui.app import MemtuiApp
    from memtui.tui.screens.history import HistoryScreen
    from memtui.tui.widgets.history_events import EventTable

    sandbox = build_sandbox(tmp_path)
    inputs = list(tool_inputs(hostile_paths(NORMAL_PATHS)))
    figures = run_fuzz(sdk_caller(sandbox), inputs)
    app = MemtuiApp(sandbox.root, actor="human:t", watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_idle(pilot)
        app.push_screen(HistoryScreen())
        await wait_idle(pilot)
        screen = app.screen
        assert isinstance(screen, HistoryScreen)
        while len(screen.events) < screen.total:
            screen.load_more()
            await wait_idle(pilot)
        table = screen.query_one(EventTable)
        shown = {
            event.id: str(table.get_row(str(event.id))[-1])
            for event in screen.events
            if FLAG_REFUSED in event.flags
        }
    assert len(shown) == sum(figures.refused.values())
    wrong = {
        event_id: flags for event_id, flags in shown.items() if not flags.startswith("refused")
    }
    assert wrong == {}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_hundred_thousand_hostile_paths_never_escape(tmp_path: Path, name: str) -> None:
    figures, seconds = fuzz_entry_point(tmp_path, name, SLOW_PATHS)
    print(
        f"\ntraversal fuzz via {name}: {figures.calls} hostile paths in {seconds:.0f} s, "
        f"{sum(figures.refused.values())} refused, all in the history and shown as refused "
        f"by the history screen, "
        f"0 outside reads, 0 outside changes"
    )
