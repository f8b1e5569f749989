"""Two `memtui mcp` servers and a `memtui tool` batch inserting into the same files at once."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path

from memtui.core.store import MemoryStore
from tests.agents.mcp_client import call_memory, mcp_session

SHARED = ("/memories/shared/one.md", "/memories/shared/two.md")
INSERTS_PER_WRITER = 12


class Starter:
    """Lets every writer start its inserts at the same moment, once all are connected."""

    def __init__(self, writers: int) -> None:
        self.waiting = writers
        self.go = asyncio.Event()

    async def ready_and_wait(self) -> None:
        """Report ready and wait for the others."""
        self.waiting -= 1
        if self.waiting == 0:
            self.go.set()
        await self.go.wait()


def insert_input(writer: str, number: int) -> dict[str, object]:
    """An insert of a unique line into one of the shared files."""
    return {
        "command": "insert",
        "path": SHARED[number % 2],
        "insert_line": 0,
        "insert_text": f"- [note] {writer} wrote line {number}",
    }


async def mcp_writer(root: Path, name: str, go: Starter) -> list[tuple[str, bool]]:
    """One agent: a server process of its own, inserting its lines one call at a time."""
    async with mcp_session(root, "--actor", name) as session:
        await go.ready_and_wait()
        return [
            await call_memory(session, insert_input(name, number))
            for number in range(INSERTS_PER_WRITER)
        ]


async def tool_batch_writer(root: Path, go: Starter) -> tuple[int, bytes]:
    """`memtui tool` with a batch of inserts on stdin (JSON lines), sent once everyone is ready."""
    batch = "".join(
        json.dumps(insert_input("batch", number)) + "\n" for number in range(INSERTS_PER_WRITER)
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "memtui",
        "tool",
        str(root),
        "--actor",
        "batch",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    await go.ready_and_wait()
    stdout, _ = await process.communicate(batch.encode())
    return process.returncode or 0, stdout


def test_no_lost_update(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:setup")
    for path in SHARED:
        assert not store.execute(
            {"command": "create", "path": path, "file_text": "# shared\n"}
        ).is_error

    async def run_all() -> tuple[list[tuple[str, bool]], list[tuple[str, bool]], tuple[int, bytes]]:
        go = Starter(3)
        return await asyncio.gather(
            mcp_writer(tmp_path, "alpha", go),
            mcp_writer(tmp_path, "beta", go),
            tool_batch_writer(tmp_path, go),
        )

    alpha, beta, (batch_code, _) = asyncio.run(run_all())

    assert batch_code == 0
    for path in SHARED:
        text = (tmp_path / path.removeprefix("/memories/")).read_text()
        assert text.endswith("# shared\n")
    lines = set()
    for path in SHARED:
        lines |= set((tmp_path / path.removeprefix("/memories/")).read_text().splitlines())
    for writer in ("alpha", "beta", "batch"):
        for number in range(INSERTS_PER_WRITER):
            assert f"- [note] {writer} wrote line {number}" in lines, (writer, number)
    assert len(lines) == 1 + 3 * INSERTS_PER_WRITER
    for results in (alpha, beta):
        assert set(results) == {(f"The file {path} has been edited.", False) for path in SHARED}

    events = MemoryStore(tmp_path).history.events(command="insert", newest_first=False)
    actor_changes = sum(1 for a, b in itertools.pairwise(events) if a.actor != b.actor)
    assert actor_changes > 2, "the writers did not overlap, so the test proved nothing"
    counts = {writer: 0 for writer in ("agent:alpha", "agent:beta", "agent:batch")}
    for event in events:
        counts[event.actor] += 1
        assert not event.is_error
    assert counts == {writer: INSERTS_PER_WRITER for writer in counts}
