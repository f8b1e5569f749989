"""Benchmark the notes layer: cold and warm index, search latency per keystroke, resident memory.

Usage: python benchmarks/notes_bench.py [--sizes 10000,50000,100000] [--repeat 3]
                                      [--parts index,search,memory] [--corpora DIR]

Corpora are generated deterministically by gen_corpus.py into --corpora (default
$MEMTUI_BENCH_CORPORA or /tmp/memtui-corpora, outside the repository). Prints medians and the
ratios against baselines measured in the same run:
- cold index (a first `NoteIndex.load`, the index file removed) vs walking the store and reading
  every file's bytes, run alternately;
- warm open (the index on disk, nothing changed) vs walking the store (one stat per file);
- search per keystroke: every prefix of each typed query searched as the app searches it;
- peak resident memory of a process that opens the index and searches (as the app and the MCP
  server do), against the corpus's size on disk.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate  # noqa: E402

from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.scan import scan_files  # noqa: E402
from memtui.notes.search import Searcher  # noqa: E402

QUERIES = (
    "deploy",
    "pyhton",
    "memory tool",
    "render api database",
    "elanthru",
    "schema migraton",
    "retyr budget",
    "cache latency",
    "typescript worker",
    "keybord",
)
"""Typed queries: plain words, phrases, and typos that must still find their words."""


def corpora_dir(given: Path | None) -> Path:
    """Where generated corpora live: outside the repository."""
    if given is not None:
        return given
    return Path(os.environ.get("MEMTUI_BENCH_CORPORA", "/tmp/memtui-corpora"))


def corpus(count: int, base: Path | None = None) -> Path:
    """The generated corpus of `count` notes (made once, reused by later runs)."""
    root = corpora_dir(base) / f"notes-{count}"
    marker = root.parent / f"notes-{count}.complete"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        generate(count, root, seed=1)
        marker.write_text("ok\n")
    return root


def corpus_bytes(root: Path) -> int:
    """Total size of the corpus's files."""
    return sum(f.size for f in scan_files(root).files)


def remove_index(root: Path) -> None:
    """Take the store's index away, so the next load builds it from scratch."""
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (root / ".memtui" / name).unlink(missing_ok=True)


def read_all_bytes(root: Path) -> None:
    """Baseline for a cold index: walk the store and read every file's bytes."""
    for file in scan_files(root).files:
        with open(root / file.relpath, "rb") as handle:
            handle.read()


def timed(func: object) -> tuple[float, float]:
    """(wall, CPU) seconds of one call of `func()`, CPU including finished child processes."""
    children = os.times()
    started, cpu = time.perf_counter(), time.process_time()
    func()  # type: ignore[operator]
    after = os.times()
    child_cpu = (after.children_user - children.children_user) + (
        after.children_system - children.children_system
    )
    return time.perf_counter() - started, time.process_time() - cpu + child_cpu


def cold_load(root: Path) -> None:
    """Build the store's index from scratch (as a first open does) and close it."""
    remove_index(root)
    NoteIndex.load(root).close()


def warm_load(root: Path) -> None:
    """Open the store's built index and check it against the files (nothing changed)."""
    NoteIndex.load(root).close()


def bench_index(root: Path, count: int, repeat: int) -> None:
    """Cold index and warm open against their baselines, run alternately."""
    cold_repeat = repeat if count <= 10_000 else 2
    reads: list[float] = []
    colds: list[tuple[float, float]] = []
    for _ in range(cold_repeat):
        reads.append(timed(lambda: read_all_bytes(root))[0])
        colds.append(timed(lambda: cold_load(root)))
    read = statistics.median(reads)
    cold = statistics.median(wall for wall, _ in colds)
    cold_cpu = statistics.median(cpu for _, cpu in colds)
    print(
        f"cold index      median {cold:8.2f} s (n={cold_repeat}), CPU {cold_cpu:.2f} s with helper "
        f"processes; walk + read every file {read:.3f} s; ratio {cold / read:5.1f}x "
        f"(goal <= 15x); {cold / count * 1e6:.0f} us per file"
    )
    walks, warms = [], []
    for _ in range(max(repeat, 5)):
        walks.append(timed(lambda: scan_files(root))[0])
        warms.append(timed(lambda: warm_load(root))[0])
    walk, warm = statistics.median(walks), statistics.median(warms)
    print(
        f"warm open       median {warm:8.3f} s; walk and stat every file {walk:.3f} s; "
        f"ratio {warm / walk:4.2f}x (no file read)"
    )
    size = sum(
        (root / ".memtui" / name).stat().st_size
        for name in os.listdir(root / ".memtui")
        if name.startswith("index.db")
    )
    print(f"index on disk   {size / 1e6:8.1f} MB")


def keystroke_latencies(searcher: Searcher, query: str) -> list[float]:
    """Seconds to search every prefix of `query`, as the app does after each typed key."""
    times = []
    for end in range(1, len(query) + 1):
        started = time.perf_counter()
        searcher.search(query[:end], limit=100)
        times.append(time.perf_counter() - started)
    return times


def percentile(values: list[float], share: float) -> float:
    """The `share` percentile of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def bench_search(root: Path, repeat: int) -> None:
    """Search latency per keystroke over the warm index, and one-shot medians per query."""
    index = NoteIndex.load(root)
    searcher = Searcher(index)
    started = time.perf_counter()
    searcher.search("warm up", limit=100)
    print(f"first search    {time.perf_counter() - started:8.3f} s (loads the vocabulary)")
    latencies: list[float] = []
    for _ in range(repeat):
        for query in QUERIES:
            latencies += keystroke_latencies(searcher, query)
    print(
        f"per keystroke   p50 {statistics.median(latencies) * 1000:6.1f} ms, "
        f"p95 {percentile(latencies, 0.95) * 1000:6.1f} ms, max {max(latencies) * 1000:6.1f} ms "
        f"(n={len(latencies)}; goal p95 <= 50 ms)"
    )
    for query in QUERIES:
        times = [timed(lambda q=query: searcher.search(q, limit=50))[0] for _ in range(repeat)]
        hits = searcher.search(query, limit=3)
        top = ", ".join(f"{hit.path}:{hit.line}" for hit in hits)
        print(f"  {query!r:24} median {statistics.median(times) * 1000:7.1f} ms  top: {top}")
    index.close()


PEAK = (
    "import sys\n"
    "from memtui.notes.index import NoteIndex\n"
    "from memtui.notes.search import Searcher\n"
    "index = NoteIndex.load(sys.argv[1])\n"
    "searcher = Searcher(index)\n"
    "for query in sys.argv[2:]:\n"
    "    searcher.search(query, limit=100)\n"
    "with open('/proc/self/status') as status:\n"
    "    print(next(int(l.split()[1]) for l in status if l.startswith('VmHWM:')))\n"
)
"""A child that opens the index and searches as the app and the MCP server do; prints VmHWM."""


def bench_memory(root: Path, size_mb: float) -> None:
    """Peak resident memory of a fresh process with the index open and searched."""
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(root), *QUERIES],
        capture_output=True,
        text=True,
        check=True,
    )
    peak = int(out.stdout.strip().splitlines()[-1]) * 1024 / 1e6
    print(
        f"memory          index open + 10 searches, peak {peak:7.1f} MB = {peak / size_mb:4.2f}x "
        f"the corpus on disk ({size_mb:.1f} MB)"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000", help="comma-separated counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per median (default 3)")
    parser.add_argument("--parts", default="index,search,memory", help="index, search, memory")
    parser.add_argument("--corpora", type=Path, help="where generated corpora are kept")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for count in (int(x) for x in args.sizes.split(",")):
        root = corpus(count, args.corpora)
        size_mb = corpus_bytes(root) / 1e6
        print(f"\n== {count} notes, {size_mb:.1f} MB on disk ==")
        if "index" in parts:
            bench_index(root, count, args.repeat)
        if "search" in parts:
            bench_search(root, args.repeat)
        if "memory" in parts:
            bench_memory(root, size_mb)
        print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
