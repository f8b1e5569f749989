"""MCP over stdio that answers a request it cannot parse (such as JSON nested too deeply)."""

from __future__ import annotations

import json
from types import TracebackType
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError


def top_level_members(text: str) -> dict[str, Any] | None:  # noqa: C901
    """A JSON object's top-level members with nested arrays and objects read as null.

    Scans without recursion, so it works on a line too deeply nested to parse; None if
    `text` is not a JSON object.
    """
    kept: list[str] = []
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if depth <= 1:
                kept.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            if depth <= 1:
                kept.append(char)
        elif char in "[{":
            depth += 1
            if depth == 1:
                kept.append(char)
            elif depth == 2:
                kept.append("null")
        elif char in "]}":
            depth -= 1
            if depth == 0:
                kept.append(char)
        elif depth <= 1:
            kept.append(char)
    try:
        value = json.loads("".join(kept))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def reply_to_unparsable(error: Exception) -> JSONRPCError | None:
    """The error answer for a request line the transport could not parse, if it has an id."""
    if not isinstance(error, ValidationError):
        return None
    problems = error.errors(include_url=False)
    if not problems or problems[0]["type"] != "json_invalid":
        return None
    line = problems[0].get("input")
    members = top_level_members(line) if isinstance(line, str) else None
    if members is None or not isinstance(members.get("method"), str):
        return None
    request_id = members.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, int | str):
        return None
    reason = str(problems[0]["msg"]).split("\n", 1)[0]
    if "recursion limit exceeded" in reason:
        reason = "JSON nested too deeply to parse"
    message = f"Invalid request: {reason}"
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=PARSE_ERROR, message=message)
    )


class AnsweringReadStream:
    """The transport's read stream; unparsable requests are answered instead of dropped."""

    def __init__(self, inner: Any, write_stream: Any) -> None:
        """Wrap `inner`, answering on `write_stream`."""
        self._inner = inner
        self._write_stream = write_stream

    @property
    def last_context(self) -> Any:
        """The sender's context of the last item, as the inner stream tracks it."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message or unanswerable error; answerable errors are answered and skipped."""
        while True:
            item = await self._inner.receive()
            reply = reply_to_unparsable(item) if isinstance(item, Exception) else None
            if reply is None:
                return item
            await self._write_stream.send(SessionMessage(reply))

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self._inner.aclose()

    def __aiter__(self) -> AnsweringReadStream:
        """Iterate over received items."""
        return self

    async def __anext__(self) -> Any:
        """The next item; stops at the end of the stream."""
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AnsweringReadStream:
        """Use as an async context manager."""
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        """Close on exit."""
        await self.aclose()
        return None


async def run_stdio(server: MCPServer) -> None:
    """Serve `server` over stdin and stdout until the client disconnects."""
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(
            AnsweringReadStream(read_stream, write_stream),
            write_stream,
            lowlevel.create_initialization_options(),
        )
