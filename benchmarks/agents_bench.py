"""Benchmark `memtui mcp` over stdio: start-up, memory-tool calls and search, against the core.

Usage: python benchmarks/agents_bench.py [--sizes 1000,10000] [--calls 30]

Each size copies the generated corpus (see notes_bench.py --corpora) to a temporary folder, starts
`memtui mcp` as a subprocess with the MCP SDK's stdio client, and prints medians. Baselines from
the same run: the same commands through MemoryStore.execute in-process, and the stat walk that
keeps the server's note index current before each search.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.types import Implementation  # noqa: E402
from notes_bench import QUERIES, corpus  # noqa: E402

from memtui.agents.notes_access import NotesAccess  # noqa: E402
from memtui.core.store import MemoryStore  # noqa: E402
from memtui.notes.scan import scan_files  # noqa: E402

NOTE = "/memories/bench/agent.md"


def ms(seconds: float) -> str:
    """Milliseconds with one decimal."""
    return f"{seconds * 1000:.1f} ms"


def median_sync(repeat: int, func: Callable[[int], object]) -> float:
    """Median wall time of `func(i)` over `repeat` runs."""
    times = []
    for number in range(repeat):
        started = time.perf_counter()
        func(number)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


async def median_async(repeat: int, func: Callable[[int], Awaitable[object]]) -> float:
    """Median wall time of `await func(i)` over `repeat` runs."""
    times = []
    for number in range(repeat):
        started = time.perf_counter()
        await func(number)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def insert_input(number: int) -> dict[str, Any]:
    """An insert of a unique observation at the top of the benchmark note."""
    return {
        "command": "insert",
        "path": NOTE,
        "insert_line": 0,
        "insert_text": f"- [bench] line {number}",
    }


async def measure_server(root: Path, calls: int) -> dict[str, float]:
    """Start-up, memory calls and searches through a real `memtui mcp` subprocess."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "memtui", "mcp", str(root)])
    results: dict[str, float] = {}
    started = time.perf_counter()
    async with (
        stdio_client(params) as (read, write),
        ClientSession(
            read, write, client_info=Implementation(name="bench", version="1")
        ) as session,
    ):
        await session.initialize()
        results["start + initialize"] = time.perf_counter() - started
        await session.call_tool(
            "memory", {"command": "create", "path": NOTE, "file_text": "# bench\n"}
        )
        results["mcp view file"] = await median_async(
            calls, lambda _: session.call_tool("memory", {"command": "view", "path": NOTE})
        )
        results["mcp insert"] = await median_async(
            calls, lambda n: session.call_tool("memory", insert_input(n))
        )
        first = time.perf_counter()
        await session.call_tool("search_memories", {"query": QUERIES[0]})
        results["first search"] = time.perf_counter() - first
        results["mcp search (median of queries)"] = await median_async(
            len(QUERIES),
            lambda n: session.call_tool("search_memories", {"query": QUERIES[n]}),
        )
        results["mcp insert, index loaded"] = await median_async(
            calls, lambda n: session.call_tool("memory", insert_input(calls + n))
        )
    return results


def measure_core(root: Path, calls: int) -> dict[str, float]:
    """The same memory commands in-process: the floor the server adds its overhead to."""
    store = MemoryStore(root, actor="agent:bench-core")
    store.execute({"command": "create", "path": NOTE, "file_text": "# bench\n"})
    return {
        "core view file": median_sync(
            calls, lambda _: store.execute({"command": "view", "path": NOTE})
        ),
        "core insert": median_sync(calls, lambda n: store.execute(insert_input(n))),
        "stat walk (index refresh)": median_sync(5, lambda _: scan_files(root)),
    }


def measure_watcher(root: Path, changes: int = 10) -> float:
    """Median time from an outside write to the server's index seeing it (file watcher path)."""
    notes = NotesAccess(root, MemoryStore(root, actor="agent:bench-watch"))
    notes.start_loading(watch=True)
    notes.index()
    while not notes.watching:
        time.sleep(0.01)
    notes.refresh()
    times = []
    for number in range(changes):
        relpath = f"bench/outside-{number}.md"
        (root / "bench").mkdir(exist_ok=True)
        started = time.perf_counter()
        (root / relpath).write_text(f"# outside {number}\n")
        while relpath not in notes.refresh():
            time.sleep(0.002)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_size(count: int, calls: int) -> None:
    """Measure one corpus size and print the medians and ratios."""
    source = corpus(count)
    with tempfile.TemporaryDirectory() as scratch:
        server_root = Path(scratch) / "server"
        core_root = Path(scratch) / "core"
        shutil.copytree(source, server_root, ignore=shutil.ignore_patterns(".*"))
        shutil.copytree(source, core_root, ignore=shutil.ignore_patterns(".*"))
        server = asyncio.run(measure_server(server_root, calls))
        core = measure_core(core_root, calls)
        core["outside write seen by index"] = measure_watcher(core_root)
    print(f"\n{count} notes, {calls} calls per median")
    for name, seconds in {**server, **core}.items():
        print(f"  {name:34} {ms(seconds)}")
    print(f"  {'mcp/core view ratio':34} {server['mcp view file'] / core['core view file']:.1f}x")
    print(f"  {'mcp/core insert ratio':34} {server['mcp insert'] / core['core insert']:.1f}x")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated corpus sizes")
    parser.add_argument("--calls", type=int, default=30, help="calls per median (default 30)")
    args = parser.parse_args()
    for size in (int(part) for part in args.sizes.split(",")):
        run_size(size, args.calls)


if __name__ == "__main__":
    main()
