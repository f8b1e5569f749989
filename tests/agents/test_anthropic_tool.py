"""MemtuiMemoryTool driven the way the SDK's tool runner drives it: `tool.call(input)`."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool, ToolError

from memtui.agents.anthropic import AsyncMemtuiMemoryTool, MemtuiMemoryTool
from memtui.core.config import ConfigError
from memtui.core.result import CommandResult
from memtui.core.store import MemoryStore
from tests.agents.sequences import (
    EXPECTED_FINAL_NOTE,
    EXPECTED_TEXTS,
    SEQUENCE,
    reference_results,
)


def call_tool(tool: MemtuiMemoryTool, tool_input: object) -> tuple[str, bool]:
    """One call as the runner makes it: a return value, or a ToolError with is_error."""
    try:
        content = tool.call(tool_input)
    except ToolError as exc:
        assert isinstance(exc.content, str)
        return exc.content, True
    assert isinstance(content, str)
    return content, False


def test_is_the_sdk_memory_tool(tmp_path: Path) -> None:
    tool = MemtuiMemoryTool(root=tmp_path)
    assert isinstance(tool, BetaAbstractMemoryTool)
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}
    assert tool.name == "memory"
    assert isinstance(AsyncMemtuiMemoryTool(root=tmp_path), BetaAsyncAbstractMemoryTool)


def test_sequence_matches_the_core_exactly(tmp_path: Path) -> None:
    expected = reference_results(tmp_path / "reference", SEQUENCE)
    tool = MemtuiMemoryTool(root=tmp_path / "store", actor="agent:tester", session="s1")
    results = [call_tool(tool, tool_input) for tool_input in SEQUENCE]
    assert results == expected
    for step, text_and_flag in EXPECTED_TEXTS.items():
        assert results[step] == text_and_flag, step
    assert (tmp_path / "store/projects/memtui.md").read_bytes() == EXPECTED_FINAL_NOTE
    assert (tmp_path / "store/user/new.md").read_bytes() == b"old\n"
    assert not (tmp_path / "store/scratch.md").exists()


def test_every_call_is_recorded_with_the_agent_actor(tmp_path: Path) -> None:
    tool = MemtuiMemoryTool(root=tmp_path, actor="agent:tester", session="s1")
    for tool_input in SEQUENCE:
        call_tool(tool, tool_input)
    events = MemoryStore(tmp_path).history.events(newest_first=False)
    assert len(events) == len(SEQUENCE)
    assert {event.actor for event in events} == {"agent:tester"}
    assert {event.session for event in events} == {"s1"}
    assert [event.is_error for event in events] == [
        is_error for _, is_error in reference_results(tmp_path.parent / "ref2", SEQUENCE)
    ]


def test_root_expands_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    tool = MemtuiMemoryTool(root="~/memories")
    assert tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a"}) == (
        "File created successfully at: /memories/a.md"
    )
    assert (tmp_path / "memories/a.md").read_bytes() == b"a"


def test_default_actor_is_claude_with_a_session(tmp_path: Path) -> None:
    tool = MemtuiMemoryTool(root=tmp_path)
    tool.call({"command": "view", "path": "/memories"})
    (event,) = MemoryStore(tmp_path).history.events()
    assert event.actor == "agent:claude"
    assert event.session


def test_typed_commands_take_the_same_path(tmp_path: Path) -> None:
    from anthropic.types.beta import BetaMemoryTool20250818CreateCommand

    tool = MemtuiMemoryTool(root=tmp_path)
    command = BetaMemoryTool20250818CreateCommand(
        command="create", path="/memories/t.md", file_text="typed\n"
    )
    assert tool.execute(command) == "File created successfully at: /memories/t.md"
    with pytest.raises(ToolError) as raised:
        tool.create(command)
    assert raised.value.content == "Error: File /memories/t.md already exists"
    assert (tmp_path / "t.md").read_bytes() == b"typed\n"


def test_unexpected_failure_becomes_a_tool_error(tmp_path: Path) -> None:
    tool = MemtuiMemoryTool(root=tmp_path)

    def explode(tool_input: object) -> CommandResult:
        raise OSError(28, "No space left on device")

    tool.store.execute = explode  # type: ignore[method-assign]
    with pytest.raises(ToolError) as raised:
        tool.call({"command": "view", "path": "/memories"})
    assert raised.value.content == (
        "memtui could not run the command: OSError: [Errno 28] No space left on device"
    )


def test_async_tool_matches_the_core(tmp_path: Path) -> None:
    expected = reference_results(tmp_path / "reference", SEQUENCE)
    tool = AsyncMemtuiMemoryTool(root=tmp_path / "store", actor="agent:async")

    async def run_all() -> list[tuple[object, bool]]:
        results: list[tuple[object, bool]] = []
        for tool_input in SEQUENCE:
            try:
                results.append((await tool.call(tool_input), False))
            except ToolError as exc:
                results.append((exc.content, True))
        return results

    assert asyncio.run(run_all()) == expected
    events = MemoryStore(tmp_path / "store").history.events()
    assert len(events) == len(SEQUENCE)
    assert {event.actor for event in events} == {"agent:async"}


def test_agents_package_imports_without_the_sdks() -> None:
    code = (
        "import sys\n"
        "sys.modules['anthropic'] = None\n"
        "sys.modules['mcp'] = None\n"
        "import memtui.agents\n"
        "print(memtui.agents.memory_protocol().splitlines()[0])\n"
        "try:\n"
        "    import memtui.agents.anthropic\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
        "print('textual' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.splitlines() == [
        "IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE.",
        "memtui.agents.anthropic needs the Anthropic SDK: install it with "
        "`pip install 'memtui[anthropic]'`",
        "False",
    ]


@pytest.mark.parametrize("tool_class", [MemtuiMemoryTool, AsyncMemtuiMemoryTool])
def test_a_bad_config_stops_construction_with_the_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool_class: type
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('secrets = "block"\ncolour = "red"\n', encoding="utf-8")
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", str(config))
    with pytest.raises(ConfigError) as raised:
        tool_class(tmp_path / "memories")
    assert str(raised.value) == f'{config}: unknown key "colour"'
    assert not (tmp_path / "memories").exists()


def test_call_answers_an_unreadable_file_as_a_tool_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memtui.core.applying import snapshots

    tool = MemtuiMemoryTool(root=tmp_path, actor="agent:t")
    tool.call({"command": "create", "path": "/memories/a.md", "file_text": "a\n"})

    def refuse(path: object, *args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(snapshots, "read_limited", refuse)
    with pytest.raises(ToolError) as raised:
        tool.call({"command": "delete", "path": "/memories/a.md"})
    assert raised.value.content == "Cannot delete /memories/a.md: Permission denied"
    assert (tmp_path / "a.md").read_bytes() == b"a\n"
