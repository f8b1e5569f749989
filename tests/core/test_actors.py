"""Actor names: agents are `agent:<name>`, people `human:<name>`; other kinds and empty names
refused."""

from __future__ import annotations

import os

import pytest

from memtui.core.actors import ActorError, agent_actor, human_actor
from memtui.core.config import ConfigError, load_settings


def test_agent_names() -> None:
    assert agent_actor("claude-code") == "agent:claude-code"
    assert agent_actor("  Claude  Desktop ") == "agent:Claude-Desktop"
    assert agent_actor("agent:bob") == "agent:bob"
    assert agent_actor("agent:bob:2") == "agent:bob:2"


@pytest.mark.parametrize("name", ["", "  ", "agent:", "agent:  "])
def test_an_empty_agent_name_is_refused(name: str) -> None:
    with pytest.raises(ActorError, match="the agent name is empty"):
        agent_actor(name)


@pytest.mark.parametrize(
    "name", ["human:mallory", "external", "external:sync", "x:y", ":z", "agent:human:x"]
)
def test_an_agent_cannot_pass_as_another_kind(name: str) -> None:
    with pytest.raises(ActorError, match="is not an agent name"):
        agent_actor(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "external",
            "'external' is not a human name: 'external' names another kind of actor; "
            "give a plain name such as 'dana'",
        ),
        (
            "human:agent:x",
            "'human:agent:x' is not a human name: 'agent' names another kind of actor; "
            "give a plain name such as 'dana'",
        ),
        (
            "dana\x1b]0;owned\x07",
            "'dana␛]0;owned␇' holds control characters or bytes that are not UTF-8: "
            "give a plain name such as 'dana'",
        ),
        (
            "dana\udcff",
            "'dana\\\\xff' holds control characters or bytes that are not UTF-8: "
            "give a plain name such as 'dana'",
        ),
        (
            "d" * 201,
            "the human name is 201 characters long, more than 200: give a plain name such as "
            "'dana'",
        ),
    ],
)
def test_a_human_name_that_is_another_kind_or_unsafe_is_refused(name: str, message: str) -> None:
    with pytest.raises(ActorError) as refused:
        human_actor(name)
    assert str(refused.value) == message


@pytest.mark.parametrize("name", ["bot\x07", "bot\u202e", "bot\ud800", "bot\x9b"])
def test_an_agent_name_with_control_characters_or_bad_bytes_is_refused(name: str) -> None:
    with pytest.raises(ActorError, match="holds control characters or bytes that are not UTF-8"):
        agent_actor(name)


def test_human_names() -> None:
    assert human_actor("dana") == "human:dana"
    assert human_actor(" human:dana ") == "human:dana"
    assert human_actor("Dana Scully") == "human:Dana Scully"


@pytest.mark.parametrize("name", ["agent:bot", "external:x", "x:y", ":dana"])
def test_a_human_cannot_pass_as_another_kind(name: str) -> None:
    with pytest.raises(ActorError, match="is not a human name"):
        human_actor(name)


@pytest.mark.parametrize("name", ["", " ", "human:", "human: "])
def test_an_empty_human_name_is_refused(name: str) -> None:
    with pytest.raises(ActorError, match="the human name is empty"):
        human_actor(name)


def test_the_configured_actor_must_name_a_person() -> None:
    missing = {"MEMTUI_CONFIG_FILE": os.devnull}
    with pytest.raises(ConfigError, match=r"^MEMTUI_ACTOR: 'agent:bot' is not a human name"):
        load_settings({**missing, "MEMTUI_ACTOR": "agent:bot"})
    assert load_settings({**missing, "MEMTUI_ACTOR": "human:ann"}).actor == "human:ann"
