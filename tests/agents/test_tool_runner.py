"""The full SDK tool runner with MemtuiMemoryTool against a scripted fake API (no network)."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic.lib.tools import BetaToolRunner

from memtui.agents import example
from memtui.agents.anthropic import AsyncMemtuiMemoryTool
from memtui.agents.example import BETAS, CONTEXT_MANAGEMENT, build_runner
from memtui.core.store import MemoryStore
from tests.agents.sequences import reference_results

TOOL_CALLS: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "create", "path": "/memories/user/prefs.md", "file_text": "- [preference] tea\n"},
    {"command": "create", "path": "/memories/user/prefs.md", "file_text": "- [preference] tea\n"},
    {
        "command": "str_replace",
        "path": "/memories/user/prefs.md",
        "old_str": "tea",
        "new_str": "coffee",
    },
    {"command": "insert", "path": "/memories/user/prefs.md", "insert_line": 7, "insert_text": "x"},
    {"command": "rename", "old_path": "/memories/nope.md", "new_path": "/memories/b.md"},
]


class FakeMessagesAPI:
    """Answers /v1/messages with scripted assistant turns and records every request."""

    def __init__(self, turns: list[list[dict[str, Any]]]) -> None:
        self.turns = turns
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append((dict(request.headers), body))
        number = len(self.requests)
        content = self.turns[number - 1]
        uses_tools = any(block["type"] == "tool_use" for block in content)
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{number}",
                "type": "message",
                "role": "assistant",
                "model": "claude-sonnet-5-5",
                "content": content,
                "stop_reason": "tool_use" if uses_tools else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 100, "output_tokens": 20},
            },
        )


def scripted_turns() -> list[list[dict[str, Any]]]:
    """Two turns of memory tool calls, then a final text answer."""
    first = [
        {"type": "tool_use", "id": f"toolu_{index}", "name": "memory", "input": tool_input}
        for index, tool_input in enumerate(TOOL_CALLS[:3])
    ]
    second = [
        {"type": "tool_use", "id": f"toolu_{index}", "name": "memory", "input": tool_input}
        for index, tool_input in enumerate(TOOL_CALLS[3:], start=3)
    ]
    return [first, second, [{"type": "text", "text": "Saved your preference."}]]


def sent_tool_results(api: FakeMessagesAPI) -> list[dict[str, Any]]:
    """Every tool_result block the runner sent back, in order."""
    results = []
    for _, body in api.requests:
        for message in body["messages"]:
            if message["role"] == "user" and isinstance(message["content"], list):
                results += [block for block in message["content"] if block["type"] == "tool_result"]
    return results


def test_tool_runner_round_trip(tmp_path: Path) -> None:
    api = FakeMessagesAPI(scripted_turns())
    client = anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api))
    )
    runner = build_runner(client, tmp_path / "store", "Remember that I like coffee.")
    messages = list(runner)

    assert messages[-1].content[0].text == "Saved your preference."
    assert len(api.requests) == 3
    first_body = api.requests[0][1]
    assert first_body["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    assert first_body["context_management"] == CONTEXT_MANAGEMENT
    assert [edit["type"] for edit in first_body["context_management"]["edits"]] == [
        "clear_tool_uses_20250919"
    ]
    assert first_body["system"].startswith("IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY")
    for request_headers, body in api.requests:
        betas = request_headers["anthropic-beta"].split(",")
        assert "context-management-2025-06-27" in betas
        assert set(BETAS) <= set(betas)
        assert body["context_management"] == CONTEXT_MANAGEMENT

    expected = reference_results(tmp_path / "reference", TOOL_CALLS)
    results = sent_tool_results(api)
    assert [block["tool_use_id"] for block in results] == [f"toolu_{i}" for i in range(6)]
    assert [(block["content"], block.get("is_error", False)) for block in results] == expected
    assert [(block["content"], block.get("is_error", False)) for block in results][1:] == [
        ("File created successfully at: /memories/user/prefs.md", False),
        ("Error: File /memories/user/prefs.md already exists", True),
        (
            "The memory file has been edited. Here is the snippet showing the change "
            "(with line numbers):\n     1\t- [preference] coffee\n     2\t",
            False,
        ),
        (
            "Error: Invalid `insert_line` parameter: 7. It should be within the range of lines "
            "of the file: [0, 1]",
            True,
        ),
        ("Error: The path /memories/nope.md does not exist", True),
    ]

    assert (tmp_path / "store/user/prefs.md").read_bytes() == b"- [preference] coffee\n"
    events = MemoryStore(tmp_path / "store").history.events(newest_first=False)
    assert [(event.actor, event.command, event.is_error) for event in events] == [
        ("agent:example", tool_input["command"], is_error)
        for tool_input, (_, is_error) in zip(TOOL_CALLS, expected, strict=True)
    ]


def test_example_main_runs_the_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeMessagesAPI(
        [
            [
                {
                    "type": "tool_use",
                    "id": "toolu_a",
                    "name": "memory",
                    "input": {
                        "command": "create",
                        "path": "/memories/projects/memtui.md",
                        "file_text": "# memtui\n- [status] Example ran\n",
                    },
                }
            ],
            [{"type": "text", "text": "Noted the project."}],
        ]
    )
    real_client = anthropic.Anthropic

    def fake_client() -> anthropic.Anthropic:
        return real_client(
            api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api))
        )

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test")
    monkeypatch.setattr(anthropic, "Anthropic", fake_client)
    assert example.main([str(tmp_path), "--task", "Remember the project."]) == 0
    captured = capsys.readouterr()
    assert captured.out == "Noted the project.\n"
    assert api.requests[0][1]["messages"] == [{"role": "user", "content": "Remember the project."}]
    assert (tmp_path / "projects/memtui.md").read_bytes() == b"# memtui\n- [status] Example ran\n"
    (event,) = MemoryStore(tmp_path).history.events()
    assert (event.actor, event.command, event.is_error) == ("agent:example", "create", False)


async def test_async_tool_runner_round_trip(tmp_path: Path) -> None:
    api = FakeMessagesAPI(scripted_turns())
    client = anthropic.AsyncAnthropic(
        api_key="test", http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(api))
    )
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        messages=[{"role": "user", "content": "Remember that I like coffee."}],
        tools=[AsyncMemtuiMemoryTool(root=tmp_path / "store", actor="agent:async-runner")],
        betas=["context-management-2025-06-27"],
    )
    messages = [message async for message in runner]
    assert getattr(messages[-1].content[0], "text", None) == "Saved your preference."
    expected = reference_results(tmp_path / "reference", TOOL_CALLS)
    results = sent_tool_results(api)
    assert [(block["content"], block.get("is_error", False)) for block in results] == expected
    assert (tmp_path / "store/user/prefs.md").read_bytes() == b"- [preference] coffee\n"
    events = MemoryStore(tmp_path / "store").history.events()
    assert {event.actor for event in events} == {"agent:async-runner"}
    assert len(events) == len(TOOL_CALLS)


class UsageScriptedAPI(FakeMessagesAPI):
    """FakeMessagesAPI whose first reply reports a big context, and whose second is a compaction."""

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(super().__call__(request).content)
        number = len(self.requests)
        body["usage"]["input_tokens"] = example.COMPACT_AT_INPUT_TOKENS if number == 1 else 100
        if number == 2:
            body["stop_reason"] = "compaction"
        return httpx2.Response(200, json=body)


def test_saved_memory_survives_compaction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = UsageScriptedAPI(
        [
            [
                {
                    "type": "tool_use",
                    "id": "toolu_p",
                    "name": "memory",
                    "input": {
                        "command": "create",
                        "path": "/memories/sessions/progress.md",
                        "file_text": "- [status] step 1 done\n",
                    },
                }
            ],
            [{"type": "compaction", "content": "Progress: /memories/sessions/progress.md"}],
            [{"type": "text", "text": "Continuing from step 2."}],
        ]
    )
    client = anthropic.Anthropic(
        api_key="test", http_client=httpx2.Client(transport=httpx2.MockTransport(api))
    )
    runner = build_runner(client, tmp_path, "Do the three steps.")
    assert example.run_agent(runner) == "Continuing from step 2."
    assert capsys.readouterr().out == "Continuing from step 2.\n"

    compaction_request = api.requests[1][1]
    assert compaction_request["compaction"] == example.COMPACTION
    assert "context_management" not in compaction_request
    after = api.requests[2][1]
    assert after["messages"] == [
        {
            "role": "assistant",
            "content": [
                {"type": "compaction", "content": "Progress: /memories/sessions/progress.md"}
            ],
        }
    ]
    assert after["context_management"] == CONTEXT_MANAGEMENT
    assert (tmp_path / "sessions/progress.md").read_bytes() == b"- [status] step 1 done\n"


def test_the_runner_compacts_through_compact_before_next_turn() -> None:
    """`compaction_control` is not a tool_runner parameter here, so the example cannot use it."""
    client = anthropic.Anthropic(api_key="test")
    parameters = inspect.signature(client.beta.messages.tool_runner).parameters
    assert "compaction_control" not in parameters
    assert callable(BetaToolRunner.compact_before_next_turn)
    assert "compact-2026-09-04" in BETAS
