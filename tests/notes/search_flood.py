"""A store where every word of a 500-word query occurs, and the query: the search's worst case
before its work was bounded (every combination of the words' matches was enumerated)."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FLOOD_WORDS = [f"zq{i:03d}" for i in range(500)]
"""500 distinct words; each is a close spelling of many others, so each has two tiers."""
FLOOD_QUERY = " ".join(FLOOD_WORDS)
BEST_LINE = " ".join(FLOOD_WORDS[:8])
"""The line holding the query's first eight words in order: its best hit."""


def write_flood_store(root: Path) -> Path:
    """Fifty notes of ten lines, one query word each, and `best.md` whose third line is
    BEST_LINE; returns `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for note in range(50):
        words = FLOOD_WORDS[note * 10 : note * 10 + 10]
        body = "\n".join(f"- [fact] about {word}" for word in words)
        (root / f"n{note:02d}.md").write_text(f"# Note {note}\n\n{body}\n", encoding="utf-8")
    (root / "best.md").write_text(f"# Best\n\n{BEST_LINE}\n", encoding="utf-8")
    return root


CEILING = 512 << 20
"""Address space a bounded search may add to a process (it needs under 20 MiB); an unbounded one
reaches it in seconds and fails with MemoryError instead of taking the machine's memory."""


def address_space() -> int:
    """This process's address space now, in bytes."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


@contextmanager
def memory_ceiling(extra: int = CEILING) -> Iterator[None]:
    """Let this process's address space grow by at most `extra` bytes meanwhile."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = address_space() + extra
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


CHILD_CEILING = 1 << 30
"""Address space a `memtui` process searching the flood store may use (the CLI needs about
60 MiB, the MCP server a few hundred with its threads' reservations)."""


def limited_command(*args: str) -> list[str]:
    """`python -m memtui ARGS` with its address space capped at CHILD_CEILING."""
    script = f'ulimit -v {CHILD_CEILING // 1024}; exec "$@"'
    return ["sh", "-c", script, "sh", sys.executable, "-m", "memtui", *args]
