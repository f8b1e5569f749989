"""The ways one tool input reaches the core: directly, through MemoryStore, through the SDK classes.

Every way answers with a CommandOutcome, so the core's command tests run unchanged over each.
Through the store and the SDK classes the outcome's flags are the ones recorded in the history,
and each call is checked to be recorded once, as the agent, with the same text and error flag.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memtui.core.applying.dispatch import apply_command
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.tool_input import parse_command
from memtui.core.resolving.lock import META_DIR_NAME
from memtui.core.store import MemoryStore

VIAS = ("core", "store", "sdk", "sdk-async")
ACTOR = "agent:core-tests"
Runner = Callable[[object], CommandOutcome]


def cmd_execute(root: Path, tool_input: object) -> CommandOutcome:
    """Parse and apply one tool input the way the store does (minus lock and history)."""
    parsed = parse_command(root, tool_input)
    if isinstance(parsed, CommandOutcome):
        return parsed
    return apply_command(root, parsed)


def recorded(store: MemoryStore, content: str, is_error: bool, before: int) -> CommandOutcome:
    """The call's outcome with the flags of its history event; checks it was recorded once (a
    long view's text as the history rebuilds it)."""
    history = store.history
    assert history.count_events() == before + 1
    event = history.events(limit=1)[0]
    kept = history.texts(event)[1] if event.command == "view" else None
    assert (kept or event.result, event.is_error, event.actor) == (content, is_error, ACTOR)
    return CommandOutcome(content, is_error, event.flags)


def store_runner(root: Path) -> Runner:
    """`MemoryStore.execute`, as `memtui tool` and the MCP server call it."""
    store = MemoryStore(root, actor=ACTOR, session="core-tests")

    def run(tool_input: object) -> CommandOutcome:
        before = store.history.count_events()
        result = store.execute(tool_input)
        return recorded(store, result.content, result.is_error, before)

    return run


def sdk_runner(root: Path, call: Callable[[object], object], store: MemoryStore) -> Runner:
    """A tool's `call` as the SDK's runner uses it: a string back, or ToolError with is_error."""
    from anthropic.lib.tools import ToolError

    def run(tool_input: object) -> CommandOutcome:
        before = store.history.count_events()
        try:
            content = call(tool_input)
            is_error = False
        except ToolError as error:
            content, is_error = error.content, True
        assert isinstance(content, str)
        return recorded(store, content, is_error, before)

    return run


@contextmanager
def runner_for(via: str, root: Path) -> Iterator[Runner]:
    """A runner for `via` on `root`, closed again (worker thread, event loop) afterwards."""
    if via == "core":
        yield lambda tool_input: cmd_execute(root, tool_input)
    elif via == "store":
        yield store_runner(root)
    elif via == "sdk":
        from memtui.agents.anthropic import MemtuiMemoryTool

        tool = MemtuiMemoryTool(root=root, actor=ACTOR)
        yield sdk_runner(root, tool.call, tool.store)
    elif via == "sdk-async":
        from memtui.agents.anthropic import AsyncMemtuiMemoryTool

        async_tool = AsyncMemtuiMemoryTool(root=root, actor=ACTOR)
        loop = asyncio.new_event_loop()
        try:
            yield sdk_runner(
                root,
                lambda tool_input: loop.run_until_complete(async_tool.call(tool_input)),
                async_tool.store,
            )
        finally:
            async_tool._worker.close()
            loop.close()
    else:
        raise ValueError(f"unknown via {via!r}")


def entries(root: Path) -> list[str]:
    """`os.listdir(root)` without memtui's history folder, which the store and SDK vias create."""
    return [name for name in os.listdir(root) if name != META_DIR_NAME]
