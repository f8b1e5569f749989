"""The README's SDK snippet runs as printed against a fake API: no error, no deprecation warning."""

from __future__ import annotations

import json
import os
import re
import textwrap
import warnings
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import pytest

from memtui.core.store import MemoryStore

README = Path(__file__).resolve().parents[2] / "README.md"
MARKER = "<!-- tested: sdk-tool-runner -->"


def readme_snippet() -> str:
    """The python block right after MARKER in README.md, dedented."""
    text = README.read_text(encoding="utf-8")
    assert text.count(MARKER) == 1
    after = text[text.index(MARKER) + len(MARKER) :]
    match = re.match(r"\s*```python\n(.*?)\n\s*```", after, re.DOTALL)
    assert match is not None, "no python block after the marker"
    return textwrap.dedent(match.group(1))


class ScriptedAPI:
    """One turn that views /memories and creates a note, then a text answer."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        self.requests.append((dict(request.headers), body))
        if len(self.requests) == 1:
            content: list[dict[str, Any]] = [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "memory",
                    "input": {"command": "view", "path": "/memories/none.md"},
                },
                {
                    "type": "tool_use",
                    "id": "toolu_2",
                    "name": "memory",
                    "input": {"command": "create", "path": "/memories/a.md", "file_text": "a\n"},
                },
            ]
            stop_reason = "tool_use"
        else:
            content, stop_reason = [{"type": "text", "text": "Nothing yet."}], "end_turn"
        return httpx2.Response(
            200,
            json={
                "id": f"msg_{len(self.requests)}",
                "type": "message",
                "role": "assistant",
                "model": body["model"],
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        )


def test_readme_sdk_snippet_runs_without_warnings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = ScriptedAPI()
    real_client = anthropic.Anthropic

    def fake_client(**kwargs: Any) -> anthropic.Anthropic:
        transport = httpx2.MockTransport(api)
        return real_client(api_key="test", http_client=httpx2.Client(transport=transport))

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    monkeypatch.setattr(anthropic, "Anthropic", fake_client)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(readme_snippet(), str(README), "exec"), {"__name__": "readme"})
    assert [str(warning.message) for warning in caught] == []
    assert "Nothing yet." in capsys.readouterr().out

    headers, first = api.requests[0]
    assert first["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    assert "context-management-2025-06-27" in headers["anthropic-beta"].split(",")
    results = [
        block
        for message in api.requests[1][1]["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
    ]
    assert [(block["content"], block.get("is_error", False)) for block in results] == [
        ("The path /memories/none.md does not exist. Please provide a valid path.", True),
        ("File created successfully at: /memories/a.md", False),
    ]
    assert (tmp_path / "memories" / "a.md").read_bytes() == b"a\n"
    (_, created) = MemoryStore(tmp_path / "memories").history.events(newest_first=False)
    assert created.actor.startswith("agent:")
