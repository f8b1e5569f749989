"""Benchmark an agent's search through MCP: memtui's `search_memories` against Basic Memory's
`search_notes`, each server a real subprocess spoken to over stdio by the MCP SDK's client, on
copies of the same generated notes (gen_corpus.py), in the same run.

Usage: python benchmarks/mcp_search_bench.py [--sizes 1000,100000] [--bm-sizes 1000]
                                             [--rounds 5] [--bm /work/bm-venv/bin/basic-memory]

Both servers are started, warmed with every query once, then asked the queries of
notes_bench.QUERIES `rounds` times, one call to each server in turn, so both see the same load
on the machine; the figures are the wall time of each `call_tool` as the client sees it (p50,
p95, max). memtui's calls are also timed in-process (`NotesAccess.search_text` on a Workspace:
what the app's or the LangGraph store's own search pays, without JSON-RPC).

memtui: `python -m memtui mcp ROOT` on its own copy, its index built first (Workspace.load_index),
so the server opens it, starts its watcher and answers from it; limit 10.

Basic Memory is installed from PyPI into a virtual environment of its own, outside the
repository (it needs Python 3.12 or later):

    python3.12 -m venv /work/bm-venv && /work/bm-venv/bin/pip install basic-memory==0.24.1

It runs text search only and never fetches an embedding model: its state lives in a temporary
BASIC_MEMORY_CONFIG_DIR whose config.json holds one project (`bench`, its copy of the notes) and
`"default_search_type": "text"`; every call passes `search_type="text"`, `page_size=10`; and
HF_HUB_OFFLINE=1 is set (0.24 keeps semantic search on and falls back to keyword search when
no model loads). Its index is built before its server starts (`basic-memory reindex --search -p
bench`), so the calls timed are searches, not its first sync. Sizes not in --bm-sizes run memtui
alone (Basic Memory's first index of 100k notes takes hours here).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
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
from memtui.notes.workspace import Workspace  # noqa: E402

BM_DEFAULT = "/work/bm-venv/bin/basic-memory"
LIMIT = 10
Call = Callable[[str], Awaitable[Any]]


def figures(times: list[float]) -> str:
    """p50 / p95 / max in milliseconds."""
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  "
        f"max {ordered[-1] * 1000:6.1f} ms"
    )


def copy_notes(source: Path, dest: Path) -> Path:
    """The corpus's notes alone (no index or history) at `dest`."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".*"))
    return dest


def bm_environment(config_dir: Path, notes: Path) -> dict[str, str]:
    """The environment of a Basic Memory process on `notes` alone, text search, offline."""
    config_dir.mkdir(parents=True, exist_ok=True)
    config = {
        "projects": {"bench": {"path": str(notes)}},
        "default_project": "bench",
        "default_search_type": "text",
    }
    (config_dir / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return {
        **os.environ,
        "BASIC_MEMORY_CONFIG_DIR": str(config_dir),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def bm_reindex(bm: str, env: dict[str, str], log: Path, attempts: int = 3) -> float:
    """Build Basic Memory's index of the project before its server starts; seconds taken by the
    first run. Its reindex can stop short on its own "database is locked" under load: the files
    it missed are indexed by a further run."""
    started = time.perf_counter()
    first: float | None = None
    for _ in range(attempts):
        with log.open("w") as out:
            done = subprocess.run(
                [bm, "reindex", "--search", "-p", "bench"],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
                timeout=3600,
            )
        first = time.perf_counter() - started if first is None else first
        if done.returncode == 0:
            return first
    tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
    raise SystemExit("basic-memory reindex failed:\n" + "\n".join(tail))


async def session_of(
    stack: AsyncExitStack, params: StdioServerParameters, name: str
) -> ClientSession:
    """An initialised MCP client session with a server subprocess (closed with `stack`)."""
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(
        ClientSession(read, write, client_info=Implementation(name=name, version="1"))
    )
    await session.initialize()
    return session


def checked(result: Any, server: str) -> Any:
    """A tool result, or an error naming the server when the call failed."""
    if result.is_error:
        raise RuntimeError(f"{server}: {result.content[0].text}")
    return result


async def measure(calls: dict[str, Call], rounds: int) -> dict[str, list[float]]:
    """Every server warmed with each query once, then each query `rounds` times, the servers
    taking turns call by call."""
    for query in QUERIES:
        for call in calls.values():
            await call(query)
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _round in range(rounds):
        for query in QUERIES:
            for name, call in calls.items():
                started = time.perf_counter()
                await call(query)
                times[name].append(time.perf_counter() - started)
    return times


def in_process(root: Path, rounds: int) -> list[float]:
    """`search_memories`'s text made in-process on a Workspace: the search without MCP."""
    workspace = Workspace(MemoryStore(root, actor="agent:bench"))
    workspace.start_loading(watch=True)
    notes = NotesAccess(workspace)
    for query in QUERIES:
        notes.search_text(query, LIMIT)
    deadline = time.monotonic() + 30
    while not workspace.watching and time.monotonic() < deadline:
        time.sleep(0.05)
    times = []
    for _round in range(rounds):
        for query in QUERIES:
            started = time.perf_counter()
            notes.search_text(query, LIMIT)
            times.append(time.perf_counter() - started)
    workspace.close()
    return times


async def run_servers(
    memtui_root: Path, bm: tuple[str, dict[str, str]] | None, rounds: int
) -> dict[str, list[float]]:
    """Both servers up at once, their searches timed in turns."""
    async with AsyncExitStack() as stack:
        memtui_params = StdioServerParameters(
            command=sys.executable, args=["-m", "memtui", "mcp", str(memtui_root)]
        )
        memtui = await session_of(stack, memtui_params, "bench")

        async def memtui_call(query: str) -> Any:
            result = await memtui.call_tool("search_memories", {"query": query, "limit": LIMIT})
            return checked(result, "memtui")

        calls: dict[str, Call] = {"memtui search_memories": memtui_call}
        if bm is not None:
            command, env = bm
            bm_params = StdioServerParameters(
                command=command, args=["mcp", "--project", "bench"], env=env
            )
            basic = await session_of(stack, bm_params, "bench")

            async def bm_call(query: str) -> Any:
                arguments = {
                    "query": query,
                    "project": "bench",
                    "page_size": LIMIT,
                    "search_type": "text",
                }
                return checked(await basic.call_tool("search_notes", arguments), "basic-memory")

            calls["basic-memory search_notes"] = bm_call
        return await measure(calls, rounds)


def run_size(count: int, rounds: int, bm: str | None) -> None:
    """Measure one corpus size and print the figures."""
    source = corpus(count)
    with tempfile.TemporaryDirectory(prefix="memtui-mcp-bench-") as scratch:
        memtui_root = copy_notes(source, Path(scratch) / "memtui")
        started = time.perf_counter()
        Workspace(root=memtui_root).load_index()
        built = time.perf_counter() - started
        bm_setup = None
        lines = [f"memtui index built in {built:.1f} s"]
        if bm is not None:
            notes = copy_notes(source, Path(scratch) / "basic-memory")
            env = bm_environment(Path(scratch) / "bm-config", notes)
            seconds = bm_reindex(bm, env, Path(scratch) / "bm-reindex.log")
            lines.append(f"Basic Memory index built in {seconds:.1f} s")
            bm_setup = (bm, env)
        times = asyncio.run(run_servers(memtui_root, bm_setup, rounds))
        times["memtui in-process (Workspace)"] = in_process(memtui_root, rounds)
    print(f"\n{count} notes: {len(QUERIES)} queries x {rounds} rounds, limit {LIMIT}")
    for line in lines:
        print(f"  {line}")
    for name, taken in times.items():
        print(f"  {name:32} {figures(taken)}")
    if "basic-memory search_notes" in times:
        ours = statistics.median(times["memtui search_memories"])
        theirs = statistics.median(times["basic-memory search_notes"])
        print(f"  {'memtui / Basic Memory, p50':32} {ours / theirs:.2f}x")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated corpus sizes")
    parser.add_argument(
        "--bm-sizes", default="1000", help="sizes Basic Memory runs at too (empty: none)"
    )
    parser.add_argument("--rounds", type=int, default=5, help="times each query is sent")
    parser.add_argument("--bm", default=BM_DEFAULT, help="the basic-memory command")
    args = parser.parse_args()
    bm_sizes = {int(part) for part in args.bm_sizes.split(",") if part}
    if bm_sizes and not Path(args.bm).exists():
        parser.error(f"{args.bm} not found: install Basic Memory as the docstring says")
    for size in (int(part) for part in args.sizes.split(",")):
        run_size(size, args.rounds, args.bm if size in bm_sizes else None)


if __name__ == "__main__":
    main()
