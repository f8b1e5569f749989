"""Helpers to drive `memtui mcp` as a real MCP client would: a subprocess over stdio."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, Implementation, TextContent


def server_command(root: Path, *extra: str) -> StdioServerParameters:
    """The command line that starts `memtui mcp ROOT` with this interpreter."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memtui", "mcp", str(root), *extra]
    )


@asynccontextmanager
async def mcp_session(
    root: Path,
    *extra: str,
    client_name: str = "pytest-agent",
    command: list[str] | None = None,
) -> AsyncIterator[ClientSession]:
    """An initialised client session with a fresh `memtui mcp` server process (started by
    `command` when given, a whole command line, else by `server_command`)."""
    client_info = Implementation(name=client_name, version="1.0")
    params = (
        server_command(root, *extra)
        if command is None
        else StdioServerParameters(command=command[0], args=command[1:])
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, client_info=client_info) as session,
    ):
        await session.initialize()
        yield session


def result_text(result: CallToolResult) -> str:
    """The single text block of a tool result."""
    (block,) = result.content
    assert isinstance(block, TextContent)
    return block.text


async def call_memory(session: ClientSession, tool_input: dict[str, Any]) -> tuple[str, bool]:
    """One memory tool call: (text, isError)."""
    result = await session.call_tool("memory", tool_input)
    return result_text(result), bool(result.is_error)
