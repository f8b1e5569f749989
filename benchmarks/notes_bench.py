"""Benchmark the notes layer: cold and warm index, search latency while typing, resident memory.

Usage: python benchmarks/notes_bench.py [--sizes 1000,10000,50000] [--repeat 3]
                                      [--parts index,search,memory]

Corpora are generated (deterministically) under benchmarks/corpora/. Prints medians and the
ratios against baselines measured in the same run (warm index and its baseline interleaved).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_corpus import generate  # noqa: E402

from memtui.notes import cache as note_cache  # noqa: E402
from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.scan import scan_notes  # noqa: E402
from memtui.notes.search import Searcher  # noqa: E402

QUERIES = (
    "deploy",
    "pyhton",
    "memory tool",
    "render api database",
    "elanthru",
    "schema migration",
    "retry timeout",
    "cache latency",
    "typescript worker",
    "keybord",
)
KEYSTROKE_SECONDS = 0.08
"""A fast typist: 12.5 characters per second."""


def corpus(count: int) -> Path:
    """The generated corpus of `count` notes (made once, reused by later runs)."""
    root = HERE / "corpora" / f"notes-{count}"
    marker = root / ".complete"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        generate(count, root, seed=1)
        marker.write_text("ok\n")
    return root


def corpus_bytes(root: Path) -> int:
    """Total size of the corpus's note files."""
    return sum(f.size for f in scan_notes(root).files)


def median_of(repeat: int, func: object) -> float:
    """Median wall time of `func()` over `repeat` runs."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()  # type: ignore[operator]
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def read_all_bytes(root: Path) -> None:
    """Baseline for a cold index: walk the store and read every note's bytes."""
    for file in scan_notes(root).files:
        with open(root / file.relpath, "rb") as handle:
            handle.read()


def stat_all_and_load_cache(root: Path) -> None:
    """Baseline for a warm index: stat every file once (the walk does) and load the cache file."""
    scan_notes(root)
    note_cache.load_cache(root)


def interleaved_medians(repeat: int, first: object, second: object) -> list[float]:
    """Median wall and CPU times of `first()` and `second()`, run alternately `repeat` times each.

    Returns [first wall, second wall, first CPU, second CPU].
    """
    times: list[list[float]] = [[], [], [], []]
    for _ in range(repeat):
        for i, func in enumerate((first, second)):
            started, cpu = time.perf_counter(), time.process_time()
            func()  # type: ignore[operator]
            times[i].append(time.perf_counter() - started)
            times[i + 2].append(time.process_time() - cpu)
    return [statistics.median(t) for t in times]


def typing_latencies(searcher: Searcher, query: str) -> float:
    """Type `query` one char at a time, each keystroke cancelling the search before it.

    Returns the seconds from the last keystroke to the last search's top-50 results.
    """
    results: dict[int, float] = {}
    current = {"generation": 0}
    lock = threading.Lock()
    pending: list[tuple[int, str, float]] = []
    wake = threading.Event()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            wake.wait(0.01)
            with lock:
                job = pending.pop() if pending else None
                pending.clear()
                wake.clear()
            if job is None:
                continue
            generation, text, typed_at = job
            hits = searcher.search(
                text, limit=50, cancelled=lambda g=generation: current["generation"] != g
            )
            if current["generation"] == generation:
                results[generation] = time.perf_counter() - typed_at
                del hits

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    for i in range(1, len(query) + 1):
        with lock:
            current["generation"] = i
            pending.append((i, query[:i], time.perf_counter()))
            wake.set()
        if i < len(query):
            time.sleep(KEYSTROKE_SECONDS)
    while len(query) not in results:
        time.sleep(0.001)
    stop.set()
    thread.join()
    return results[len(query)]


_PEAK_KB = (
    "import resource, sys\n"
    "def peak_kb():\n"
    "    try:\n"
    "        with open('/proc/self/status') as status:\n"
    "            for line in status:\n"
    "                if line.startswith('VmHWM:'):\n"
    "                    return int(line.split()[1])\n"
    "    except OSError:\n"
    "        pass\n"
    "    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
)
"""Child-process code defining `peak_kb()`: the process's own VmHWM in KiB."""


def _child_peak_mb(code: str, root: Path) -> float:
    """Peak resident memory in MB (10^6 bytes, the unit of the corpus size) of a child running `code`.

    The peak is the child's own VmHWM: Linux carries ru_maxrss over fork and exec, so a child of
    this (large) process would report the parent's size.
    """
    command = [sys.executable, "-c", _PEAK_KB + code + "print(peak_kb())\n", str(root)]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) * 1024 / 1e6


def child_rss_mb(root: Path, with_searcher: bool) -> float:
    """Peak resident memory (MB) of a fresh process that loads the index (warm cache).

    With `with_searcher`, it also builds the search index, as the app and the MCP server do.
    A first child run makes sure the cache is valid (it is rebuilt if the parser changed).
    """
    code = "from memtui.notes.index import NoteIndex\nindex = NoteIndex.load(sys.argv[1])\n" + (
        "from memtui.notes.search import Searcher\nSearcher(index)\n" if with_searcher else ""
    )
    _child_peak_mb(code, root)
    return _child_peak_mb(code, root)


def search_cli_peak_mb(root: Path) -> tuple[float, float]:
    """Peak resident memory (MB) of `memtui search` run first on the store, then again.

    The first run finds no parse cache and no search snapshot: it builds and writes both.
    """
    code = (
        "import contextlib, io\n"
        "from memtui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['search', sys.argv[1], 'deploy', '--limit', '5'])\n"
    )
    shutil.rmtree(root / ".memtui", ignore_errors=True)
    return _child_peak_mb(code, root), _child_peak_mb(code, root)


def bench_size(count: int, repeat: int, parts: set[str]) -> None:
    """The chosen measurements (`index`, `search`, `memory`) at one corpus size."""
    root = corpus(count)
    size_mb = corpus_bytes(root) / 1e6
    print(f"\n== {count} notes, {size_mb:.1f} MB on disk ==")
    if "index" in parts:
        bench_index(root, count, repeat)
    if "search" in parts:
        bench_search(root, repeat)
    if "memory" in parts:
        bench_memory(root, size_mb)


def bench_index(root: Path, count: int, repeat: int) -> None:
    """Cold and warm index against their baselines; materialising notes and titles."""
    cold_repeat = repeat if count <= 10_000 else 1
    cold_times, cold_no_parse = [], []
    for _ in range(cold_repeat):
        shutil.rmtree(root / ".memtui", ignore_errors=True)
        started = time.perf_counter()
        index = NoteIndex.load(root)
        elapsed = time.perf_counter() - started
        cold_times.append(elapsed)
        cold_no_parse.append(elapsed - index.timings["parse"])
    read_base = median_of(repeat, lambda: read_all_bytes(root))
    cold = statistics.median(cold_times)
    print(
        f"cold index      median {cold:8.3f} s  (n={cold_repeat}); read every file "
        f"{read_base:.3f} s; ratio {cold / read_base:6.1f}x (goal <= 20x)"
    )
    no_parse = statistics.median(cold_no_parse)
    print(
        f"cold excl parse median {no_parse:8.3f} s; ratio {no_parse / read_base:6.1f}x "
        f"(parsing is the parser's share)"
    )
    phases = ", ".join(f"{name} {seconds:.3f} s" for name, seconds in index.timings.items())
    print(f"cold phases     {phases} (the last run)")
    NoteIndex.load(root)
    warm, warm_base, warm_cpu, base_cpu = interleaved_medians(
        max(repeat, 5), lambda: NoteIndex.load(root), lambda: stat_all_and_load_cache(root)
    )
    print(
        f"warm index      median {warm:8.3f} s; walk and stat every file + load cache "
        f"{warm_base:.3f} s; ratio {warm / warm_base:5.2f}x (goal <= 3x); CPU time "
        f"{warm_cpu:.3f} s vs {base_cpu:.3f} s, ratio {warm_cpu / base_cpu:5.2f}x"
    )
    index = NoteIndex.load(root)
    phases = ", ".join(f"{name} {seconds:.3f} s" for name, seconds in index.timings.items())
    print(f"warm phases     {phases}")
    every = median_of(repeat, lambda: sum(1 for _ in index.notes.values()))
    titles = median_of(repeat, index.titles)
    print(
        f"every note      materialise all (notes are packed) median {every:6.3f} s; "
        f"titles only {titles * 1000:6.1f} ms"
    )


def bench_search(root: Path, repeat: int) -> None:
    """Searcher build and search latency while typing."""
    index = NoteIndex.load(root)
    started = time.perf_counter()
    searcher = Searcher(index)
    print(f"searcher build  {time.perf_counter() - started:8.3f} s (once per process)")
    latencies = []
    for _ in range(repeat):
        for query in QUERIES:
            latencies.append(typing_latencies(searcher, query))
    latencies.sort()
    p50 = statistics.median(latencies) * 1000
    p95 = latencies[max(0, round(0.95 * len(latencies)) - 1)] * 1000
    print(
        f"search typing   last keystroke -> top 50: p50 {p50:6.1f} ms, p95 {p95:6.1f} ms "
        f"(n={len(latencies)}; goal at 10k p50 <= 50, p95 <= 150; at 50k p50 <= 150)"
    )
    for query in QUERIES:
        one = median_of(repeat, lambda q=query: searcher.search(q, limit=50))
        print(f"  search {query!r:24} median {one * 1000:7.1f} ms")


def bench_memory(root: Path, size_mb: float) -> None:
    """Peak resident memory of a fresh process with a warm cache, against the corpus size."""
    rss = child_rss_mb(root, with_searcher=False)
    rss_search = child_rss_mb(root, with_searcher=True)
    print(
        f"memory          index + search index {rss_search:7.1f} MB = "
        f"{rss_search / size_mb:4.2f}x corpus (goal <= 2.5x: the app and the MCP server hold "
        f"both); index only {rss:7.1f} MB = {rss / size_mb:4.2f}x"
    )
    first, again = search_cli_peak_mb(root)
    print(
        f"memory          `memtui search` peak: first run {first:7.1f} MB = "
        f"{first / size_mb:4.2f}x (builds and writes the parse cache and the search snapshot); "
        f"later runs {again:7.1f} MB = {again / size_mb:4.2f}x"
    )


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000", help="comma-separated note counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per median (default 3)")
    parser.add_argument(
        "--parts", default="index,search,memory", help="comma-separated: index, search, memory"
    )
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average {load:.1f}")
    for count in (int(x) for x in args.sizes.split(",")):
        bench_size(count, args.repeat, parts)


if __name__ == "__main__":
    main()
