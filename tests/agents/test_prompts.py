"""The packaged memory prompts."""

from __future__ import annotations

import pytest

from memtui.agents.prompts import PROMPTS, load_prompt, memory_guide, memory_protocol


def test_protocol_keeps_anthropics_three_rules() -> None:
    text = memory_protocol()
    assert text.startswith(
        "IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE."
    )
    assert "1. Use the `view` command of your `memory` tool to check for earlier progress" in text
    assert "record status, progress and what you learned in your memory" in text
    assert "Assume interruption: your context window might be reset at any moment" in text
    assert "- [status] Parser done, tests pass #progress" in text
    assert "- part_of [[memtui]]" in text


def test_guide_covers_folders_and_format() -> None:
    text = memory_guide()
    for folder in (
        "/memories/user/",
        "/memories/projects/",
        "/memories/sessions/",
        "/memories/patterns/",
    ):
        assert folder in text
    assert "- [decision] Limit candidates with a token index" in text
    assert "- depends_on [[rapidfuzz]]" in text
    assert "update the existing note" in text


def test_prompt_listing_and_unknown_name() -> None:
    assert [prompt.name for prompt in PROMPTS] == ["memory_guide", "memory_protocol"]
    assert load_prompt("memory_guide") == memory_guide()
    with pytest.raises(KeyError):
        load_prompt("../README")
