"""The memory prompts shipped with memtui, loaded from package data so every adapter shares them."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True)
class PromptInfo:
    """A named prompt: what MCP clients list and what agents read."""

    name: str
    title: str
    description: str


PROMPTS: tuple[PromptInfo, ...] = (
    PromptInfo(
        name="memory_guide",
        title="Memory guide",
        description=(
            "How to organise memories: the user/, projects/, sessions/ and patterns/ folders, "
            "the observation and relation format, and keeping notes up to date."
        ),
    ),
    PromptInfo(
        name="memory_protocol",
        title="Memory protocol",
        description=(
            "The memory protocol for the system prompt: check /memories first, record progress "
            "as you go, assume your context may be reset at any moment."
        ),
    ),
)
"""Every prompt memtui offers, in listing order."""

PROMPT_NAMES: frozenset[str] = frozenset(prompt.name for prompt in PROMPTS)


def load_prompt(name: str) -> str:
    """Return the text of the prompt `name` (raises KeyError for an unknown name)."""
    if name not in PROMPT_NAMES:
        raise KeyError(name)
    resource = resources.files("memtui.agents").joinpath("prompts", f"{name}.md")
    return resource.read_text(encoding="utf-8")


def memory_protocol() -> str:
    """The memory protocol text, ready to append to an agent's system prompt."""
    return load_prompt("memory_protocol")


def memory_guide() -> str:
    """The guide on organising memories in Basic Memory's structured format."""
    return load_prompt("memory_guide")
