"""`memtui mcp` over stdio spoken to line by line: odd requests get an answer, never a traceback."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memtui.agents.stdio_input import fold_line

INITIALIZE: list[dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
]


def exchange(
    root: Path, requests: list[dict[str, Any]], timeout: float = 30
) -> tuple[dict[Any, Any], str]:
    """Send INITIALIZE and `requests` to a fresh `memtui mcp ROOT`; the answers by id and stderr.

    Waits for an answer to every request (or `timeout`), then closes stdin.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp", str(root), "--actor", "raw"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(
        target=lambda: [lines.put(line) for line in process.stdout], daemon=True
    ).start()
    for message in INITIALIZE + requests:
        process.stdin.write(json.dumps(message).encode("ascii") + b"\n")
        process.stdin.flush()
    wanted = {message["id"] for message in INITIALIZE + requests if "id" in message}
    answers: dict[Any, Any] = {}
    deadline = time.monotonic() + timeout
    while not wanted <= answers.keys() and time.monotonic() < deadline:
        try:
            answer = json.loads(lines.get(timeout=0.2))
        except queue.Empty:
            continue
        answers[answer.get("id")] = answer
    process.stdin.close()
    process.wait(timeout=30)
    return answers, process.stderr.read().decode("utf-8", "replace")


def test_unknown_prompt_is_an_error_answer_without_a_traceback(tmp_path: Path) -> None:
    answers, stderr = exchange(
        tmp_path / "store",
        [
            {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "nope"}},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "prompts/get",
                "params": {"name": "memory_guide", "arguments": {"topic": "x"}},
            },
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "prompts/get",
                "params": {"name": "memory_guide"},
            },
        ],
    )
    assert answers[2]["error"] == {"code": -32602, "message": "Unknown prompt: nope"}
    assert answers[3]["error"] == {
        "code": -32602,
        "message": "The prompt memory_guide takes no arguments",
    }
    assert answers[4]["result"]["messages"][0]["content"]["text"].startswith("#")
    assert "Traceback" not in stderr
    assert stderr == ""


def test_lone_surrogate_is_read_as_replacement_character(tmp_path: Path) -> None:
    """The SDK's JSON reader refuses a lone surrogate and drops the request; memtui answers it."""
    answers, stderr = exchange(
        tmp_path / "store",
        [
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "memory",
                    "arguments": {
                        "command": "create",
                        "path": "/memories/s.md",
                        "file_text": "\ud800x \U0001f600 \\ud800",
                    },
                },
            },
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "tools/call",
                "params": {
                    "name": "memory",
                    "arguments": {"command": "view", "path": "/memories/\udc00"},
                },
            },
        ],
    )
    assert answers[2]["result"] == {
        "content": [{"type": "text", "text": "File created successfully at: /memories/s.md"}],
        "isError": False,
    }
    assert (tmp_path / "store" / "s.md").read_text(encoding="utf-8") == "\ufffdx \U0001f600 \\ud800"
    assert answers[3]["result"]["isError"] is True
    assert answers[3]["result"]["content"][0]["text"] == (
        "The path /memories/\ufffd does not exist. Please provide a valid path."
    )
    assert stderr == ""


@pytest.mark.parametrize(
    "line",
    [
        b'{"a": "plain"}\n',
        b'{"a": "pair \\ud83d\\ude00"}\n',
        b'{"a": "escaped backslash \\\\ud800"}\n',
        b'{"a": "\\ud800" broken\n',
        b"",
    ],
)
def test_fold_line_keeps_lines_the_sdk_reads(line: bytes) -> None:
    assert fold_line(line) is line


@pytest.mark.parametrize(
    ("line", "value"),
    [
        (b'{"a": "x\\ud800y"}\n', {"a": "x\ufffdy"}),
        (b'{"a": ["\\udc00", 1.5, null]}', {"a": ["\ufffd", 1.5, None]}),
        (b'{"\\uDBFF": "\\ud83d\\ude00\\ud83d"}\n', {"\ufffd": "\U0001f600\ufffd"}),
    ],
)
def test_fold_line_reads_lone_surrogates_as_replacement(line: bytes, value: object) -> None:
    folded = fold_line(line)
    assert json.loads(folded) == value
    assert folded.endswith(b"\n") == line.endswith(b"\n")
