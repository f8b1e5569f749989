"""Queries of many words: time, groups of candidates opened, candidates taken and peak traced
memory per query, against a one-word query measured in the same run (the baseline); with
`--exact`, also the searcher without a group budget (every combination of the words' tiers, as
every search ran before the budget) for the queries it finishes within a few seconds.

Usage: python benchmarks/long_query_bench.py [--sizes 10000,100000] [--repeat 5] [--exact]
                                             [--corpora DIR]

Corpora come from notes_bench.py (generated once into --corpora, outside the repository). The
words are drawn from the index's own vocabulary with a fixed seed, so each is in some note:
random draws rarely meet on a line (the worst case for the groups), the common words often do.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import corpora_dir, corpus  # noqa: E402

from memtui.notes import search_groups  # noqa: E402
from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.search import Searcher  # noqa: E402

COMMON = [
    "api",
    "render",
    "database",
    "cache",
    "latency",
    "memory",
    "tool",
    "schema",
    "deploy",
    "python",
    "agent",
    "design",
]
RANDOM_SIZES = (2, 3, 4, 6, 8, 14, 500)
EXACT_MOST_WORDS = 4
"""Random queries longer than this are not run without the budget (minutes to hours each)."""


def queries(searcher: Searcher) -> list[tuple[str, str]]:
    """(label, query): random vocabulary draws of each size, then runs of common words."""
    assert searcher.index is not None
    with searcher.index.db.snapshot() as conn:
        vocab = [row[0] for row in conn.execute("SELECT term FROM terms ORDER BY term")]
    draw = random.Random(29)
    found = [(f"random {n}", " ".join(draw.choices(vocab, k=n))) for n in RANDOM_SIZES]
    found += [(f"common {n}", " ".join(COMMON[:n])) for n in (4, 8, 12)]
    return found


def measure(searcher: Searcher, query: str, repeat: int) -> tuple[float, int, int, int]:
    """(median ms, groups, candidates, peak traced KiB) of searching `query` (limit 50), after
    one search that reads the files it visits."""
    searcher.search(query, limit=50)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        searcher.search(query, limit=50)
        times.append((time.perf_counter() - started) * 1000)
    tracemalloc.start()
    searcher.search(query, limit=50)
    peak = tracemalloc.get_traced_memory()[1] // 1024
    tracemalloc.stop()
    work = searcher.work
    return statistics.median(times), work.groups, work.candidates, peak


def bench(root: Path, repeat: int, exact: bool) -> None:
    """Every query with the budget (and without it, where it finishes), and the baseline."""
    index = NoteIndex.load(root)
    searcher = Searcher(index)
    base_ms, *_ = measure(searcher, "deploy", repeat)
    print(f"baseline `deploy`: median {base_ms:.1f} ms")
    print(f"{'query':<11} {'ms':>8} {'x base':>7} {'groups':>7} {'cands':>7} {'peak KiB':>9}")
    budget = search_groups.MAX_GROUPS
    for label, query in queries(searcher):
        ms, groups, candidates, peak = measure(searcher, query, repeat)
        line = f"{label:<11} {ms:8.1f} {ms / base_ms:7.1f} {groups:7} {candidates:7} {peak:9}"
        words = int(label.split()[1])
        if exact and (label.startswith("common") or words <= EXACT_MOST_WORDS):
            search_groups.MAX_GROUPS = 10**9
            try:
                ms_all, groups_all, _c, peak_all = measure(Searcher(index), query, 1)
            finally:
                search_groups.MAX_GROUPS = budget
            line += f"   no budget: {ms_all:8.1f} ms, {groups_all} groups, {peak_all} KiB"
        print(line)
    index.close()


def main() -> None:
    """Run the benchmark over the requested corpus sizes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--corpora", type=Path, default=None)
    args = parser.parse_args()
    for size in (int(text) for text in args.sizes.split(",")):
        root = corpus(size, corpora_dir(args.corpora))
        print(f"== {size:,} notes ({root})")
        bench(root, args.repeat, args.exact)


if __name__ == "__main__":
    main()
