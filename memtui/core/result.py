"""The result every command returns, shaped like a memory-tool `tool_result`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command returns: the tool_result text, its error flag and its history event id."""

    content: str
    is_error: bool
    event_id: int | None = None
