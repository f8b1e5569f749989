"""`memtui tool`: run memory-tool inputs from stdin through the core, one JSON result per line."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from memtui.cli.terminal import json_safe
from memtui.core.reporting import fail, open_failure

_DESCRIPTION = """\
Run memory-tool commands (the memory_20250818 tool's inputs) against the folder PATH, which is
what /memories maps to (created if missing). stdin holds either one JSON array of tool inputs or
one JSON object per line, for example:

  {"command": "view", "path": "/memories"}
  {"command": "create", "path": "/memories/notes.md", "file_text": "hello\\n"}

Each input goes through memtui's command core in order (same validation, lock and history as the
app) and one line {"is_error": false, "content": "..."} is printed per input, flushed at once.
Malformed JSON (or JSON nested too deeply to decode) is reported on stderr with its line and
column and exits 2 before anything runs.
The exit status is 0 even when some commands returned is_error.
"""


JSON_WHITESPACE = " \t\r\n"


class InputError(Exception):
    """stdin is not a JSON array nor JSON lines; the message says where."""


def register(subparsers: Any) -> None:
    """Add the `tool` subcommand."""
    parser = subparsers.add_parser(
        "tool",
        help="run memory-tool JSON inputs from stdin against a memory folder",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the real folder /memories maps to")
    parser.add_argument(
        "--actor",
        default="cli",
        metavar="NAME",
        help='who is acting, recorded as "agent:NAME" (default: cli; other kinds are refused)',
    )
    parser.add_argument(
        "--session", metavar="ID", default=None, help="a session id to record with every event"
    )


def _decode(text: str, where: str) -> object:
    """One JSON value; any failure to decode it is an InputError starting with `where`.

    `where` is `line N` (the error's column is added) or empty for the whole of stdin
    (the error's line and column are used).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        place = where or f"line {error.lineno}"
        raise InputError(f"{place}, column {error.colno}: {error.msg}") from error
    except RecursionError:
        reason = "nested too deeply"
    except ValueError as error:
        reason = str(error).split("\n", 1)[0]
        if "integer string conversion" in reason:
            reason = f"a number has more than {sys.get_int_max_str_digits()} digits"
    raise InputError(f"{where}: {reason}" if where else reason)


def parse_inputs(text: str) -> list[object]:
    """The tool inputs in `text`: a JSON array, or one JSON value per non-blank line.

    Lines end at LF only (a CR before it is JSON whitespace), so U+2028, U+0085 and the
    other characters that `str.splitlines` splits on stay inside a line.
    """
    stripped = text.lstrip(JSON_WHITESPACE)
    if stripped.startswith("["):
        value = _decode(text, "")
        if not isinstance(value, list):
            raise InputError("line 1, column 1: expected a JSON array of tool inputs")
        return value
    inputs: list[object] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip(JSON_WHITESPACE):
            inputs.append(_decode(line, f"line {number}"))
    return inputs


def where_in_bytes(data: bytes, offset: int) -> str:
    """`line L, column C (byte B)` of a byte offset; the column counts characters."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return f"line {line}, column {column} (byte {offset})"


def layout_hint(text: str) -> str:
    """A hint when stdin is one JSON object spread over several lines, else ""."""
    if not text.lstrip(JSON_WHITESPACE).startswith("{"):
        return ""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return ""
    return (
        "; stdin must be a JSON array of tool inputs or one JSON object per line"
        " (this is one object spread over several lines)"
    )


def run(args: argparse.Namespace) -> int:
    """Run `memtui tool`: parse all of stdin first, then execute and print each result."""
    from memtui.core.actors import ActorError, agent_actor
    from memtui.core.config import ConfigError, load_settings
    from memtui.core.recording.database import HistoryCorrupt
    from memtui.core.result import CommandResult
    from memtui.core.store import MemoryStore

    try:
        actor = agent_actor(args.actor)
    except ActorError as error:
        return fail("tool", f"--actor: {error}")
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return fail("tool", f"stdin is not UTF-8: {where_in_bytes(data, error.start)}")
    try:
        inputs = parse_inputs(text)
    except InputError as error:
        return fail("tool", f"malformed JSON on stdin: {error}{layout_hint(text)}")
    try:
        settings = load_settings()
        store = MemoryStore(args.path, actor=actor, session=args.session, settings=settings)
        store.history  # noqa: B018 - open now so a broken history is reported before any command
    except (ConfigError, HistoryCorrupt, OSError) as error:
        return open_failure("tool", args.path, error)
    out = sys.stdout.buffer
    for tool_input in inputs:
        try:
            result = store.execute(tool_input)
        except Exception as error:
            content = f"memtui could not run the command: {type(error).__name__}: {error}"
            result = CommandResult(content, True)
        line = json_safe(
            json.dumps({"is_error": result.is_error, "content": result.content}, ensure_ascii=False)
        )
        out.write(line.encode("utf-8") + b"\n")
        out.flush()
    return 0
