"""Agents are recorded as `agent:<name>` the same way by the SDK classes and by `memtui mcp`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memtui.agents.anthropic import AsyncMemtuiMemoryTool, MemtuiMemoryTool
from memtui.agents.mcp_server import MemoryService
from memtui.core.actors import agent_actor
from memtui.core.store import MemoryStore

REFUSED = ["", "   ", "agent:", "agent: ", "human:ana", "human:", "external:x", "tools:v2"]
VIEW = {"command": "view", "path": "/memories"}


@pytest.mark.parametrize(
    ("name", "actor"),
    [
        ("claude-code", "agent:claude-code"),
        ("  Claude  Desktop ", "agent:Claude-Desktop"),
        ("agent:bob", "agent:bob"),
        ("my-bot", "agent:my-bot"),
        ("humans", "agent:humans"),
    ],
)
def test_agent_actor_names(name: str, actor: str) -> None:
    assert agent_actor(name) == actor


@pytest.mark.parametrize("name", REFUSED)
def test_agent_actor_refuses_empty_and_non_agent_names(name: str) -> None:
    with pytest.raises(ValueError):
        agent_actor(name)


def test_refusals_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match=r"^the agent name is empty"):
        agent_actor("agent:")
    with pytest.raises(ValueError, match=r"^'human:ana' is not an agent name"):
        agent_actor("human:ana")


def recorded_actor(root: Path) -> str:
    """The actor of the only event in `root`'s history."""
    (event,) = MemoryStore(root).history.events()
    return event.actor


@pytest.mark.parametrize(("name", "actor"), [("my-bot", "agent:my-bot"), ("agent:x", "agent:x")])
def test_sdk_tool_records_agent_actors(tmp_path: Path, name: str, actor: str) -> None:
    MemtuiMemoryTool(root=tmp_path / "s", actor=name).call(VIEW)
    asyncio.run(AsyncMemtuiMemoryTool(root=tmp_path / "a", actor=name).call(VIEW))
    assert recorded_actor(tmp_path / "s") == actor
    assert recorded_actor(tmp_path / "a") == actor


@pytest.mark.parametrize("tool_class", [MemtuiMemoryTool, AsyncMemtuiMemoryTool])
@pytest.mark.parametrize("name", REFUSED)
def test_sdk_tool_refuses_a_non_agent_actor_at_construction(
    tmp_path: Path, tool_class: type, name: str
) -> None:
    with pytest.raises(ValueError, match="agent"):
        tool_class(tmp_path / "memories", actor=name)
    assert not (tmp_path / "memories").exists()


def test_mcp_service_uses_the_same_names(tmp_path: Path) -> None:
    assert MemoryService(tmp_path, actor="my-bot").actor_for("cursor") == "agent:my-bot"
    with pytest.raises(ValueError):
        MemoryService(tmp_path, actor="agent:")
    service = MemoryService(tmp_path)
    assert service.actor_for(None) == "agent:mcp"
    assert service.actor_for(" ") == "agent:mcp"
    assert service.actor_for("cursor") == "agent:cursor"
    assert service.actor_for("human:ana") == "agent:mcp"
