"""Benchmark search latency alone: typing simulation p50/p95 and one-shot medians per query.

Usage: python benchmarks/search_bench.py [--sizes 10000,50000] [--repeat 3] [--compare OLD.py]

Uses the corpora and the typing simulation of notes_bench.py. `--compare` loads another version
of memtui/notes/search.py (e.g. `git show REV:memtui/notes/search.py > /tmp/old_search.py`) and
measures it on the same index in the same process, so both runs see the same machine load.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import QUERIES, corpus, typing_latencies  # noqa: E402

from memtui.notes import search as current_search  # noqa: E402
from memtui.notes.index import NoteIndex  # noqa: E402


def load_module(path: Path) -> ModuleType:
    """Import a search.py from `path` under a private name."""
    spec = importlib.util.spec_from_file_location("memtui_search_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def measure(label: str, module: ModuleType, index: NoteIndex, repeat: int) -> None:
    """Build a searcher from `module` and print its typing and one-shot latencies."""
    started = time.perf_counter()
    searcher = module.Searcher(index)
    print(f"[{label}] searcher build {time.perf_counter() - started:7.2f} s")
    latencies: dict[str, list[float]] = {query: [] for query in QUERIES}
    for _ in range(repeat):
        for query in QUERIES:
            latencies[query].append(typing_latencies(searcher, query))
    every = sorted(t for times in latencies.values() for t in times)
    p50 = statistics.median(every) * 1000
    p95 = every[max(0, round(0.95 * len(every)) - 1)] * 1000
    print(
        f"[{label}] typing, last keystroke -> top 50: p50 {p50:6.1f} ms, p95 {p95:6.1f} ms "
        f"(n={len(every)})"
    )
    for query in QUERIES:
        typed = statistics.median(latencies[query]) * 1000
        one_shot = []
        for _ in range(repeat):
            remembered_scans = getattr(searcher, "_phrase_checks", None)
            if remembered_scans is not None:
                remembered_scans.clear()
            started = time.perf_counter()
            searcher.search(query, limit=50)
            one_shot.append(time.perf_counter() - started)
        print(
            f"[{label}]   {query!r:24} typed median {typed:7.1f} ms; "
            f"one-shot median {statistics.median(one_shot) * 1000:7.1f} ms"
        )
    del searcher
    gc.collect()


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000", help="comma-separated note counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per median (default 3)")
    parser.add_argument("--compare", type=Path, help="an older search.py to measure first")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}")
    old = load_module(args.compare) if args.compare else None
    for count in (int(x) for x in args.sizes.split(",")):
        index = NoteIndex.load(corpus(count))
        print(f"\n== {count} notes ==")
        if old is not None:
            measure("before", old, index, args.repeat)
        measure("after", current_search, index, args.repeat)
        print(f"load average now {os.getloadavg()[0]:.1f}")
        del index
        gc.collect()


if __name__ == "__main__":
    main()
