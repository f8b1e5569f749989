"""Concurrent writers on one store: two MCP servers, two `memtui tool` loops and a human writer."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SHARED = tuple(f"/memories/shared/f{number}.md" for number in range(4))
BATCH = 20
"""Commands per `memtui tool` process."""
MIN_ROUNDS = 3
"""Rounds every writer does even if it started after the deadline (slow server start-up)."""
HUMAN_PAUSE = 0.02
"""Seconds between the human's saves."""


@dataclass
class Writer:
    """One writer's calls and what it expects to find in the files at the end."""

    actor: str
    calls: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    expected: dict[str, str] = field(default_factory=dict)
    """Token -> the exact text that must be in the token's file at the end."""
    files: dict[str, str] = field(default_factory=dict)
    """Token -> its file."""


def agent_steps(name: str, number: int) -> list[dict[str, Any]]:
    """Insert a new token line, then edit the previous token in place (both on shared files)."""
    steps: list[dict[str, Any]] = [
        {
            "command": "insert",
            "path": SHARED[number % 4],
            "insert_line": 1,
            "insert_text": f"- [note] <{name}-{number}>",
        }
    ]
    if number > 0:
        previous = f"<{name}-{number - 1}>"
        steps.append(
            {
                "command": "str_replace",
                "path": SHARED[(number - 1) % 4],
                "old_str": previous,
                "new_str": f"<{name}-{number - 1}:edited>",
            }
        )
    return steps


def note_result(writer: Writer, step: dict[str, Any], text: str, is_error: bool) -> None:
    """Update what `writer` expects after one call's result."""
    writer.calls += 1
    if is_error:
        kind = "not verbatim" if "did not appear verbatim" in text else text[:80]
        writer.errors[kind] += 1
        return
    if step["command"] == "insert":
        token = step["insert_text"].split("<", 1)[1].rstrip(">")
        writer.expected[token] = f"<{token}>"
        writer.files[token] = step["path"]
    else:
        token = step["old_str"].strip("<>")
        if token in writer.expected:
            writer.expected[token] = step["new_str"]


async def mcp_agent(root: Path, writer: Writer, deadline: float) -> None:
    """An agent with its own `memtui mcp` server process, calling until the deadline."""
    from tests.agents.mcp_client import call_memory, mcp_session

    name = writer.actor.split(":", 1)[1]
    async with mcp_session(root, "--actor", name) as session:
        number = 0
        while time.monotonic() < deadline or number < MIN_ROUNDS:
            for step in agent_steps(name, number):
                text, is_error = await call_memory(session, step)
                note_result(writer, step, text, is_error)
            number += 1


async def tool_agent(root: Path, writer: Writer, deadline: float) -> None:
    """An agent running `memtui tool` batches one after another until the deadline."""
    name = writer.actor.split(":", 1)[1]
    number = 0
    while time.monotonic() < deadline or number < MIN_ROUNDS:
        steps: list[dict[str, Any]] = []
        while len(steps) < BATCH:
            steps += agent_steps(name, number)
            number += 1
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "memtui",
            "tool",
            str(root),
            "--actor",
            name,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        batch = "".join(json.dumps(step) + "\n" for step in steps).encode()
        out, err = await process.communicate(batch)
        assert process.returncode == 0, err.decode("utf-8", "replace")
        lines = out.decode("utf-8").splitlines()
        assert len(lines) == len(steps), err.decode("utf-8", "replace")
        for step, line in zip(steps, lines, strict=True):
            result = json.loads(line)
            note_result(writer, step, result["content"], result["is_error"])


def human_writer(root: Path, writer: Writer, deadline: float) -> None:
    """A person saving whole files from the editor: read, add a line, write with the revision."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(root, actor=writer.actor)
    number = 0
    while time.monotonic() < deadline or number < MIN_ROUNDS:
        time.sleep(HUMAN_PAUSE)
        path = SHARED[number % 4]
        text, revision = store.read(path)
        token = f"human-{number}"
        result = store.write(path, text + f"- [note] <{token}>\n", revision)
        writer.calls += 1
        if result.is_error:
            writer.errors[
                "conflict" if result.content.startswith("Conflict:") else result.content
            ] += 1
        else:
            writer.expected[token] = f"<{token}>"
            writer.files[token] = path
        number += 1


def seed(root: Path) -> None:
    """The shared files, created by a human so the history knows them."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(root, actor="human:seed")
    for path in SHARED:
        assert not store.create(path, f"# {path}\n").is_error


def run_soak(root: Path, seconds: float) -> list[Writer]:
    """Run all five writers on `root` for `seconds`; returns each writer's record."""
    seed(root)
    writers = [
        Writer("agent:mcp-a"),
        Writer("agent:mcp-b"),
        Writer("agent:tool-a"),
        Writer("agent:tool-b"),
        Writer("human:soak"),
    ]

    async def agents() -> None:
        deadline = time.monotonic() + seconds
        human = threading.Thread(target=human_writer, args=(root, writers[4], deadline))
        human.start()
        try:
            await asyncio.gather(
                mcp_agent(root, writers[0], deadline),
                mcp_agent(root, writers[1], deadline),
                tool_agent(root, writers[2], deadline),
                tool_agent(root, writers[3], deadline),
            )
        finally:
            await asyncio.to_thread(human.join)

    asyncio.run(agents())
    return writers


def lost_updates(root: Path, writer: Writer) -> list[str]:
    """Tokens whose expected text is not in its file at the end (an edit was lost)."""
    contents = {path: (root / path.removeprefix("/memories/")).read_text() for path in SHARED}
    lost = []
    for token, text in writer.expected.items():
        if text not in contents[writer.files[token]]:
            lost.append(f"{writer.actor}: {text} missing from {writer.files[token]}")
    return lost
