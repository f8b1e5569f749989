"""Bad input everywhere: malformed JSON, wrong argument types, a corrupt history, a broken
config."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.hostile import snapshot

REPO = Path(__file__).resolve().parents[2]
CORRUPT = b"this is not a SQLite database, it was overwritten by something else\n" * 64


def memtui(
    *args: str, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run the `memtui` CLI with this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "memtui", *args],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def one_line(stream: bytes) -> str:
    """A stream that must be exactly one line, without a traceback; the line."""
    text = stream.decode("utf-8")
    assert "Traceback" not in text
    assert text.count("\n") == 1 and text.endswith("\n"), text
    return text.rstrip("\n")


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A store with one note written through memtui."""
    from memtui.core.store import MemoryStore

    root = tmp_path / "store"
    store = MemoryStore(root, actor="human:t")
    assert not store.create("/memories/a.md", "keep me\n").is_error
    store.history.close()
    return root


def event_count(root: Path) -> int:
    """How many events the store's history holds."""
    from memtui.core.recording.history import History

    return len(History(root).events())


def test_tool_refuses_malformed_json_before_running_anything(store: Path) -> None:
    before = snapshot(store)
    events = event_count(store)
    batch = (
        b'{"command": "create", "path": "/memories/b.md", "file_text": "x"}\n{"command": "view"\n'
    )
    process = memtui("tool", str(store), stdin=batch)
    assert process.returncode == 2
    assert process.stdout == b""
    assert one_line(process.stderr) == (
        "memtui tool: malformed JSON on stdin: line 2, column 19: Expecting ',' delimiter"
    )
    assert snapshot(store) == before
    assert event_count(store) == events


def test_tool_refuses_stdin_that_is_not_utf8(store: Path) -> None:
    before = snapshot(store)
    process = memtui("tool", str(store), stdin=b'{"command": "view", "path": "/memories/\xff"}\n')
    assert process.returncode == 2
    assert one_line(process.stderr) == (
        "memtui tool: stdin is not UTF-8: line 1, column 40 (byte 39)"
    )
    assert snapshot(store) == before


def test_tool_answers_every_wrongly_shaped_input_and_records_it(store: Path) -> None:
    before = snapshot(store)
    events = event_count(store)
    batch = b'[3, "view", null, [], {"command": 5}, {"command": "view", "path": 7},' + (
        b' {"command": "insert", "path": "/memories/a.md", "insert_line": "two",'
        b' "insert_text": "x"}, {"command": "view", "path": "/memories/a.md",'
        b' "view_range": "12"}]'
    )
    process = memtui("tool", str(store), stdin=batch)
    assert process.returncode == 0
    assert process.stdout.decode("utf-8").splitlines() == [
        '{"is_error": true, "content": "Unknown command: None. Expected one of: view, create, '
        'str_replace, insert, delete, rename"}',
        '{"is_error": true, "content": "Unknown command: None. Expected one of: view, create, '
        'str_replace, insert, delete, rename"}',
        '{"is_error": true, "content": "Unknown command: None. Expected one of: view, create, '
        'str_replace, insert, delete, rename"}',
        '{"is_error": true, "content": "Unknown command: None. Expected one of: view, create, '
        'str_replace, insert, delete, rename"}',
        '{"is_error": true, "content": "Unknown command: 5. Expected one of: view, create, '
        'str_replace, insert, delete, rename"}',
        '{"is_error": true, "content": "Invalid input for view: `path` must be a string"}',
        '{"is_error": true, "content": "Invalid input for insert: `insert_line` must be an '
        'integer"}',
        '{"is_error": true, "content": "Invalid input for view: `view_range` must be a list of '
        'two integers"}',
    ]
    assert snapshot(store) == before
    assert event_count(store) == events + 8


MCP_BAD_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory", {}),
    ("memory", {"command": ["view"]}),
    ("memory", {"command": "view", "path": 7}),
    ("memory", {"command": "view", "path": "/memories/a.md", "view_range": {"a": 1, "b": 2}}),
    ("memory", {"command": "create", "path": "/memories/n.md", "file_text": 12}),
    ("memory", {"command": "str_replace", "path": "/memories/a.md", "old_str": None}),
    ("memory", {"command": "insert", "path": "/memories/a.md", "insert_line": 1.5}),
    ("memory", {"command": "rename", "old_path": "/memories/a.md", "new_path": False}),
    ("memory", {"command": "delete", "path": {"path": "/memories/a.md"}}),
    ("search_memories", {}),
    ("search_memories", {"query": 5}),
    ("search_memories", {"query": "x", "limit": "many"}),
    ("search_memories", {"query": "x", "limit": 0}),
    ("search_memories", {"query": "x", "filters": "folder=a"}),
    ("search_memories", {"query": "x", "filters": {"max_age_days": "old"}}),
    ("build_context", {}),
    ("build_context", {"target": ["a.md"]}),
    ("build_context", {"target": "a.md", "depth": 99}),
    ("build_context", {"target": "a.md", "depth": "deep"}),
    ("build_context", {"target": "a.md", "timeframe": "since forever"}),
    ("recent_activity", {"timeframe": 7}),
    ("recent_activity", {"timeframe": "soon"}),
    ("recent_activity", {"limit": -1}),
    ("recent_activity", {"limit": "x"}),
]


def test_every_mcp_tool_answers_wrong_argument_types_with_a_clear_error(store: Path) -> None:
    from mcp import Client

    from memtui.agents.mcp_server import MemoryService, build_server

    before = snapshot(store)
    answers: list[tuple[str, bool, str]] = []

    async def drive() -> None:
        service = MemoryService(store, actor="bad-input")
        async with Client(build_server(service)) as client:
            for name, arguments in MCP_BAD_CALLS:
                result = await client.call_tool(name, arguments)
                text = "".join(getattr(block, "text", "") for block in result.content)
                answers.append((name, bool(result.is_error), text))
            check = await client.call_tool("memory", {"command": "view", "path": "/memories/a.md"})
            answers.append(("after", bool(check.is_error), check.content[0].text))

    asyncio.run(drive())
    for (name, arguments), (_, is_error, text) in zip(MCP_BAD_CALLS, answers, strict=False):
        assert is_error, (name, arguments, text)
        assert "Traceback" not in text and text.strip(), (name, arguments)
        assert len(text) < 300 and "\n" not in text, (name, arguments, text)
    assert answers[MCP_BAD_CALLS.index(("search_memories", {"query": "x", "limit": "many"}))] == (
        "search_memories",
        True,
        "Invalid arguments for search_memories: limit: Input should be a valid integer, "
        "unable to parse string as an integer",
    )
    assert answers[MCP_BAD_CALLS.index(("recent_activity", {"limit": "x"}))] == (
        "recent_activity",
        True,
        "Invalid arguments for recent_activity: limit: Input should be a valid integer, "
        "unable to parse string as an integer",
    )
    assert answers[MCP_BAD_CALLS.index(("build_context", {"target": "a.md", "depth": "deep"}))] == (
        "build_context",
        True,
        "Invalid arguments for build_context: depth: Input should be a valid integer, "
        "unable to parse string as an integer",
    )
    assert answers[-1] == (
        "after",
        False,
        "Here's the content of /memories/a.md with line numbers:\n     1\tkeep me\n     2\t",
    )
    assert snapshot(store) == before


def corrupt_history(root: Path) -> Path:
    """Overwrite the store's history database with garbage; returns its path."""
    database = root / ".memtui" / "history.db"
    for companion in (Path(f"{database}-wal"), Path(f"{database}-shm")):
        companion.unlink(missing_ok=True)
    database.write_bytes(CORRUPT)
    return database


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("tool",), b'{"command": "create", "path": "/memories/b.md", "file_text": "x"}\n'),
        (("log",), b""),
        (("undo",), b""),
        (("stale",), b""),
        (("mcp",), b""),
    ],
)
def test_commands_refuse_a_corrupt_history_and_keep_it(
    store: Path, args: tuple[str, ...], stdin: bytes
) -> None:
    database = corrupt_history(store)
    before = snapshot(store)
    extra = ("1",) if args == ("undo",) else ()
    process = memtui(*args, str(store), *extra, stdin=stdin)
    assert process.returncode == 2
    message = one_line(process.stderr)
    assert message.startswith(f"memtui {args[0]}: ")
    assert "history.db" in message
    assert snapshot(store) == before
    assert database.read_bytes() == CORRUPT


CONFIG_COMMANDS = [
    ("tool", b'{"command": "view", "path": "/memories"}\n'),
    ("log", b""),
    ("stale", b""),
    ("search", b""),
    ("mcp", b""),
]


@pytest.mark.parametrize(("command", "stdin"), CONFIG_COMMANDS)
def test_commands_refuse_a_broken_config_with_one_clear_line(
    store: Path, tmp_path: Path, command: str, stdin: bytes
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('secrets = "block"\nmax_file_size = \n', encoding="utf-8")
    before = snapshot(store)
    extra = ("query",) if command == "search" else ()
    process = memtui(
        command, str(store), *extra, stdin=stdin, env={"MEMTUI_CONFIG_FILE": str(config)}
    )
    assert process.returncode == 2
    message = one_line(process.stderr)
    assert message.startswith(f"memtui {command}: {config}: invalid TOML")
    assert process.stdout == b""
    assert snapshot(store) == before
    assert config.read_text(encoding="utf-8") == 'secrets = "block"\nmax_file_size = \n'


BAD_VALUES = [
    ('secrets = "maybe"\n', 'key "secrets" must be "warn" or "block", got "maybe"'),
    (
        'max_file_size = "huge"\n',
        'key "max_file_size" must be a number of bytes (like 10485760 or "10MiB"), got \'huge\'',
    ),
]


@pytest.mark.parametrize(("command", "stdin"), CONFIG_COMMANDS)
@pytest.mark.parametrize(("text", "reason"), BAD_VALUES)
def test_commands_refuse_a_bad_config_value_naming_key_and_value(
    store: Path, tmp_path: Path, command: str, stdin: bytes, text: str, reason: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    before = snapshot(store)
    extra = ("query",) if command == "search" else ()
    process = memtui(
        command, str(store), *extra, stdin=stdin, env={"MEMTUI_CONFIG_FILE": str(config)}
    )
    assert process.returncode == 2
    assert one_line(process.stderr) == f"memtui {command}: {config}: {reason}"
    assert process.stdout == b""
    assert snapshot(store) == before


@pytest.mark.parametrize(("text", "reason"), BAD_VALUES)
def test_the_app_refuses_a_bad_config_value(
    store: Path, tmp_path: Path, text: str, reason: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    process = memtui(str(store), env={"MEMTUI_CONFIG_FILE": str(config)})
    assert process.returncode == 2
    assert one_line(process.stderr) == f"memtui: {config}: {reason}"
    assert process.stdout == b""


def test_the_app_refuses_a_broken_config_before_taking_the_terminal(
    store: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("theme = [\n", encoding="utf-8")
    process = memtui(str(store), env={"MEMTUI_CONFIG_FILE": str(config)})
    assert process.returncode == 2
    assert one_line(process.stderr).startswith(f"memtui: {config}: invalid TOML")
    assert process.stdout == b""


def test_tool_answers_names_too_long_for_the_filesystem(store: Path) -> None:
    before = snapshot(store)
    long = "/memories/" + "x" * 300
    commands = [
        {"command": "view", "path": long},
        {"command": "create", "path": long, "file_text": "a"},
        {"command": "str_replace", "path": long, "old_str": "a", "new_str": "b"},
        {"command": "insert", "path": long, "insert_line": 0, "insert_text": "a"},
        {"command": "delete", "path": long},
        {"command": "rename", "old_path": long, "new_path": "/memories/y.md"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": long},
    ]
    batch = "".join(json.dumps(command) + "\n" for command in commands).encode()
    process = memtui("tool", str(store), stdin=batch)
    assert process.returncode == 0, process.stderr
    results = [json.loads(line) for line in process.stdout.decode().splitlines()]
    assert [result["is_error"] for result in results] == [True] * 7
    assert all(result["content"].endswith(": File name too long") for result in results)
    assert snapshot(store) == before


def nested(levels: int) -> str:
    """A JSON array nested `levels` deep."""
    return "[" * levels + "]" * levels


def deeply_nested(levels: int) -> list[Any]:
    """A Python list nested `levels` deep, built without recursion."""
    value: list[Any] = []
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("batch", "reason"),
    [
        (
            '{"command": "create", "path": "/memories/b.md", "file_text": "x"}\n'
            f'{{"command": "view", "path": "/memories", "x": {nested(2000)}}}\n',
            "line 2: nested too deeply",
        ),
        (
            '[{"command": "create", "path": "/memories/b.md", "file_text": "x"},'
            f' {{"command": "view", "path": "/memories", "x": {nested(2000)}}}]',
            "nested too deeply",
        ),
        (
            f'{{"command": "view", "path": "/memories", "x": {"7" * 5000}}}\n',
            f"line 1: a number has more than {sys.get_int_max_str_digits()} digits",
        ),
    ],
    ids=["deep-json-lines", "deep-json-array", "huge-number"],
)
def test_tool_refuses_json_it_cannot_decode_before_running_anything(
    store: Path, batch: str, reason: str
) -> None:
    before = snapshot(store)
    events = event_count(store)
    process = memtui("tool", str(store), stdin=batch.encode())
    assert process.returncode == 2
    assert process.stdout == b""
    assert one_line(process.stderr) == f"memtui tool: malformed JSON on stdin: {reason}"
    assert snapshot(store) == before
    assert event_count(store) == events


def test_tool_runs_and_records_a_command_with_a_deep_extra_argument(store: Path) -> None:
    events = event_count(store)
    batch = f'{{"command": "view", "path": "/memories/a.md", "x": {nested(900)}}}\n'
    process = memtui("tool", str(store), stdin=batch.encode())
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout) == {
        "is_error": False,
        "content": "Here's the content of /memories/a.md with line numbers:\n"
        "     1\tkeep me\n     2\t",
    }
    assert event_count(store) == events + 1


def test_every_mcp_tool_answers_a_deeply_nested_argument_with_one_line(store: Path) -> None:
    from mcp import Client

    from memtui.agents.mcp_server import MemoryService, build_server

    deep = deeply_nested(100)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory", {"command": "view", "path": "/memories/a.md", "x": deep}),
        ("memory", {"command": deep}),
        ("search_memories", {"query": "keep", "filters": {"tag": deep}}),
        ("search_memories", {"query": deep}),
        ("build_context", {"target": deep}),
        ("recent_activity", {"timeframe": deep}),
    ]
    answers: list[tuple[bool, str]] = []

    async def drive() -> None:
        service = MemoryService(store, actor="deep")
        async with Client(build_server(service)) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                text = "".join(getattr(block, "text", "") for block in result.content)
                answers.append((bool(result.is_error), text))

    asyncio.run(drive())
    assert answers[0] == (
        False,
        "Here's the content of /memories/a.md with line numbers:\n     1\tkeep me\n     2\t",
    )
    for (name, _arguments), (is_error, text) in zip(calls[1:], answers[1:], strict=True):
        assert is_error, (name, text)
        assert "Traceback" not in text and "\n" not in text and len(text) < 300, (name, text)


def test_the_core_answers_and_records_inputs_nested_too_deeply(tmp_path: Path) -> None:
    from memtui.core.store import MemoryStore

    store = MemoryStore(tmp_path / "store", actor="agent:t")
    deep = deeply_nested(5000)
    results = [
        store.execute({"command": "view", "path": "/memories", "x": deep}),
        store.execute({"command": "view", "path": "/memories", "view_range": deep}),
        store.execute({"command": deep}),
        store.execute(deep),
    ]
    assert [(result.is_error, result.content.split("\n")[0]) for result in results] == [
        (
            False,
            "Here're the files and directories up to 2 levels deep in /memories, "
            "excluding hidden items and node_modules:",
        ),
        (False, results[0].content.split("\n")[0]),
        (
            True,
            "Unknown command: <a list nested too deeply to show>. "
            "Expected one of: view, create, str_replace, insert, delete, rename",
        ),
        (
            True,
            "Unknown command: None. "
            "Expected one of: view, create, str_replace, insert, delete, rename",
        ),
    ]
    recorded = store.history.events(newest_first=False)
    assert [event.id for event in recorded] == [result.event_id for result in results]
    assert recorded[0].args["x"] == [[[[[[[[[["<nested too deeply to record>"]]]]]]]]]]
    assert recorded[3].args == {"input": "<a list nested too deeply to record>"}


class RawMcp:
    """`memtui mcp` over stdio driven with raw JSON-RPC lines, so any line can be sent."""

    def __init__(self, root: Path) -> None:
        """Start the server and initialise a session."""
        import queue
        import threading

        self.process = subprocess.Popen(
            [sys.executable, "-m", "memtui", "mcp", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        assert self.process.stdout is not None
        stdout = self.process.stdout
        threading.Thread(target=lambda: [*map(self.lines.put, stdout)], daemon=True).start()
        self.send(
            '{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion":'
            ' "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}'
        )
        assert self.answer()["id"] == 1
        self.send('{"jsonrpc": "2.0", "method": "notifications/initialized"}')

    def send(self, line: str) -> None:
        """Write one line to the server."""
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def answer(self, timeout: float = 20.0) -> dict[str, Any]:
        """The next message from the server; fails the test if none comes within `timeout`."""
        import queue

        try:
            return dict(json.loads(self.lines.get(timeout=timeout)))
        except queue.Empty:
            pytest.fail(f"memtui mcp gave no answer within {timeout} s")

    def close(self) -> str:
        """Stop the server; its stderr."""
        assert self.process.stdin is not None and self.process.stderr is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        return self.process.stderr.read().decode("utf-8", "replace")


MCP_DEEP_CALLS = [
    ("memory", f'{{"command": "view", "path": "/memories", "x": {nested(2000)}}}'),
    ("memory", f'{{"command": "create", "path": "/memories/b.md", "file_text": {nested(300)}}}'),
    ("search_memories", f'{{"query": "keep", "filters": {{"tag": {nested(300)}}}}}'),
    ("build_context", f'{{"target": {nested(300)}}}'),
    ("recent_activity", f'{{"timeframe": {nested(300)}}}'),
]


def test_mcp_over_stdio_answers_a_request_nested_too_deeply_with_one_line(store: Path) -> None:
    before = snapshot(store)
    events = event_count(store)
    server = RawMcp(store)
    answers = []
    for number, (name, arguments) in enumerate(MCP_DEEP_CALLS, start=2):
        server.send(
            f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call",'
            f' "params": {{"name": "{name}", "arguments": {arguments}}}}}'
        )
        answers.append(server.answer())
    server.send(
        '{"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "memory",'
        ' "arguments": {"command": "view", "path": "/memories/a.md"}}}'
    )
    after = server.answer()
    err = server.close()
    assert [answer["id"] for answer in answers] == list(range(2, 2 + len(MCP_DEEP_CALLS)))
    for answer in answers:
        message = answer["error"]["message"]
        assert message.startswith("Invalid request: JSON nested too deeply"), answer
        assert "\n" not in message and len(message) < 200, message
    assert after["result"]["content"][0]["text"].endswith("1\tkeep me\n     2\t")
    assert "Traceback" not in err
    assert snapshot(store) == before
    assert event_count(store) == events + 1


FOREIGN_DATABASES = {
    "unrelated-table": (
        "CREATE TABLE recipes (name TEXT); INSERT INTO recipes VALUES ('soup');",
        "not a memtui history (it holds tables memtui did not create: recipes)",
    ),
    "wrong-events-table": (
        "CREATE TABLE events (what TEXT); CREATE TABLE blobs (hash TEXT); PRAGMA user_version = 3;",
        "not a memtui history (its events table has no column id)",
    ),
}


def foreign_database(root: Path, script: str) -> Path:
    """Put a valid SQLite database made by `script` in place of the history."""
    import sqlite3

    database = root / ".memtui" / "history.db"
    for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
        path.unlink(missing_ok=True)
    conn = sqlite3.connect(database)
    conn.executescript(script)
    conn.close()
    return database


@pytest.mark.parametrize("kind", sorted(FOREIGN_DATABASES))
@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("tool",), b'{"command": "create", "path": "/memories/b.md", "file_text": "x"}\n'),
        (("log",), b""),
        (("undo",), b""),
        (("stale",), b""),
        (("mcp",), b""),
    ],
    ids=["tool", "log", "undo", "stale", "mcp"],
)
def test_commands_refuse_a_foreign_sqlite_database_and_keep_it_byte_for_byte(
    store: Path, args: tuple[str, ...], stdin: bytes, kind: str
) -> None:
    script, reason = FOREIGN_DATABASES[kind]
    database = foreign_database(store, script)
    kept = database.read_bytes()
    before = snapshot(store, skip=())
    extra = ("1",) if args == ("undo",) else ()
    process = memtui(*args, str(store), *extra, stdin=stdin)
    assert process.returncode == 2
    assert process.stdout == b""
    assert one_line(process.stderr) == f"memtui {args[0]}: {database}: {reason}"
    assert database.read_bytes() == kept
    lock = b".memtui/lock"
    assert {path: state for path, state in snapshot(store, skip=()).items() if path != lock} == {
        path: state for path, state in before.items() if path != lock
    }
