"""What agents talk to: the Anthropic SDK tool class, the MCP server and memory prompts.

The SDK classes load on first use, so this package imports without `anthropic` or `mcp`.
"""

from __future__ import annotations

from typing import Any

from memtui.agents.prompts import load_prompt, memory_guide, memory_protocol

__all__ = [
    "AsyncMemtuiMemoryTool",
    "MemtuiMemoryTool",
    "load_prompt",
    "memory_guide",
    "memory_protocol",
]

_LAZY = {"MemtuiMemoryTool", "AsyncMemtuiMemoryTool"}


def __getattr__(name: str) -> Any:
    """Import the Anthropic tool classes only when asked for (they need the `anthropic` extra)."""
    if name in _LAZY:
        from memtui.agents import anthropic

        return getattr(anthropic, name)
    raise AttributeError(f"module 'memtui.agents' has no attribute {name!r}")
