"""Agents are recorded as `agent:<name>` the same way by the SDK classes and by `memtui mcp`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from memtui.agents.anthropic import AsyncMemtuiMemoryTool, MemtuiMemoryTool
from memtui.agents.mcp_server import MemoryService
from memtui.core.actors import UnsafeActorName, agent_actor
from memtui.core.config import ConfigError, load_settings
from memtui.core.store import MemoryStore
from tests.agents.mcp_client import call_memory, mcp_session

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


UNSAFE = ["bot\x1b]0;owned\x07", "bot\udcff", "bot\u202e", "b" * 201]


@pytest.mark.parametrize("tool_class", [MemtuiMemoryTool, AsyncMemtuiMemoryTool])
@pytest.mark.parametrize("name", UNSAFE)
def test_sdk_tool_refuses_an_unsafe_actor_name(tmp_path: Path, tool_class: type, name: str) -> None:
    with pytest.raises(ValueError, match=r"holds control characters|characters long"):
        tool_class(tmp_path / "memories", actor=name)
    assert not (tmp_path / "memories").exists()


@pytest.mark.parametrize("name", UNSAFE)
def test_mcp_service_refuses_an_unsafe_client_name(tmp_path: Path, name: str) -> None:
    with pytest.raises(UnsafeActorName):
        MemoryService(tmp_path).actor_for(name)


async def test_an_unsafe_client_name_gets_one_line_and_records_nothing(tmp_path: Path) -> None:
    async with mcp_session(tmp_path, client_name="evil\x1b]52;c;ZWNobyBvd25lZA==\x07") as session:
        text, is_error = await call_memory(
            session, {"command": "create", "path": "/memories/a.md", "file_text": "a"}
        )
    assert (text, is_error) == (
        "Refused: the client's name (clientInfo.name): 'evil␛]52;c;ZWNobyBvd25lZA==␇' holds "
        "control characters or bytes that are not UTF-8: give a plain name such as 'claude'",
        True,
    )
    assert not (tmp_path / "a.md").exists()


@pytest.mark.parametrize(
    ("where", "env", "config"),
    [
        ("MEMTUI_ACTOR", {"MEMTUI_ACTOR": "dana\x1b[2J"}, ""),
        ('key "actor"', {}, 'actor = "dana\\u001b[2J"\n'),
    ],
)
def test_a_configured_human_name_with_control_characters_is_a_config_error(
    tmp_path: Path, where: str, env: dict[str, str], config: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"{where}: 'dana␛\\[2J' holds control characters"):
        load_settings({"MEMTUI_CONFIG_FILE": str(path), **env})
