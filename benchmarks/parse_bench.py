"""Time the note parser: reading bytes vs the markdown-it reference path vs the fast path.

Usage: python benchmarks/parse_bench.py [--notes 2000] [--runs 5] [--corpus DIR ...] [--index DIR ...]

Generates a Basic Memory-style corpus with benchmarks/gen_corpus.py into a temporary folder,
adds the shared corpus when it is present, and prints for each: the median of `--runs` runs of
(a) reading every file's bytes, (b) read + parse_note on the reference path, (c) read +
parse_note with the fast path, (d)/(e) the block scan alone on each path; plus the fast path's
fallback rate. With `--index DIR` it also times a cold `NoteIndex.load(DIR, use_cache=False)`
against walking DIR and reading every note's bytes, alternating the two in one process, and
prints the medians, their ratio and the index's own phase timings. Uses only time.perf_counter,
statistics and subprocess.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memtui.notes._md_fast import fast_blocks
from memtui.notes._md_reference import reference_blocks
from memtui.notes.frontmatter_norm import read_frontmatter
from memtui.notes.index import NoteIndex
from memtui.notes.parser import parse_note
from memtui.notes.scan import scan_notes

HERE = Path(__file__).parent
SHARED_CORPUS = HERE.parents[1] / "shared" / "corpus" / "basic-memory-notes"


def _median_seconds(action: Callable[[], object], runs: int) -> float:
    """Median wall time of `runs` calls, with the garbage collector paused as in bulk loads."""
    times: list[float] = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
        gc.enable()
    return statistics.median(times)


def bench_folder(label: str, root: Path, runs: int) -> None:
    """Print the timings for every .md file under root."""
    paths = sorted(root.rglob("*.md"))
    relpaths = [path.relative_to(root).as_posix() for path in paths]
    total_bytes = sum(path.stat().st_size for path in paths)

    def read_all() -> list[bytes]:
        return [path.read_bytes() for path in paths]

    def parse_all(fast: bool) -> None:
        for path, relpath in zip(paths, relpaths, strict=True):
            parse_note(path.read_bytes(), relpath, use_fast_path=fast)

    bodies = []
    for path in paths:
        try:
            bodies.append(read_frontmatter(path.read_bytes().decode("utf-8"), path.stem).body)
        except UnicodeDecodeError:
            continue
    fallbacks = sum(fast_blocks(body) is None for body in bodies)

    def scan_reference() -> None:
        for body in bodies:
            reference_blocks(body)

    def scan_fast() -> None:
        for body in bodies:
            if fast_blocks(body) is None:
                reference_blocks(body)

    read = _median_seconds(read_all, runs)
    reference = _median_seconds(lambda: parse_all(False), runs)
    fast = _median_seconds(lambda: parse_all(True), runs)
    scan_ref = _median_seconds(scan_reference, runs)
    scan_fast_time = _median_seconds(scan_fast, runs)
    print(f"\n{label}: {len(paths)} notes, {total_bytes / 1e6:.1f} MB, medians of {runs} runs")
    print(f"  read bytes                  {read * 1e3:9.1f} ms   1.0x")
    print(f"  read + parse (reference)    {reference * 1e3:9.1f} ms  {reference / read:5.1f}x")
    print(f"  read + parse (fast path)    {fast * 1e3:9.1f} ms  {fast / read:5.1f}x")
    print(f"  block scan only, reference  {scan_ref * 1e3:9.1f} ms  {scan_ref / read:5.1f}x")
    print(
        f"  block scan only, fast path  {scan_fast_time * 1e3:9.1f} ms  {scan_fast_time / read:5.1f}x"
    )
    print(
        f"  fast path fallback rate     {fallbacks}/{len(bodies)} = {fallbacks / max(1, len(bodies)):.1%}"
    )


def bench_index(root: Path, runs: int) -> None:
    """Print cold index load vs reading the bytes of the same notes, medians of `runs` runs."""
    read_times: list[float] = []
    load_times: list[float] = []
    phases: list[dict[str, float]] = []
    notes = 0
    for _ in range(runs):
        gc.collect()
        started = time.perf_counter()
        for file in scan_notes(root).files:
            with open(root / file.relpath, "rb") as handle:
                handle.read()
        read_times.append(time.perf_counter() - started)
        gc.collect()
        started = time.perf_counter()
        index = NoteIndex.load(root, use_cache=False)
        load_times.append(time.perf_counter() - started)
        phases.append(index.timings)
        notes = len(index.notes)
        del index
    read = statistics.median(read_times)
    load = statistics.median(load_times)
    print(f"\ncold index of {root}: {notes} notes, medians of {runs} runs")
    print(f"  walk + read bytes           {read * 1e3:9.1f} ms   1.0x")
    print(f"  NoteIndex.load (no cache)   {load * 1e3:9.1f} ms  {load / read:5.1f}x")
    for phase in phases[0]:
        value = statistics.median(timing[phase] for timing in phases)
        print(f"    {phase:<25} {value * 1e3:9.1f} ms")


def main() -> int:
    """Generate the corpus, run the timings, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000, help="generated notes (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="runs per measurement (default 5)")
    parser.add_argument("--corpus", type=Path, action="append", default=[], help="extra folder")
    parser.add_argument(
        "--index", type=Path, action="append", default=[], help="folder to time a cold index of"
    )
    parser.add_argument(
        "--index-only", action="store_true", help="skip the parse timings, run only --index"
    )
    args = parser.parse_args()
    for folder in args.index:
        bench_index(folder, args.runs)
    if args.index_only:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generated = Path(tmp) / "generated"
        subprocess.run(
            [sys.executable, str(HERE / "gen_corpus.py"), str(args.notes), str(generated)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        bench_folder("generated Basic Memory-style notes", generated, args.runs)
        if SHARED_CORPUS.exists():
            bench_folder("shared corpus (Basic Memory's own docs)", SHARED_CORPUS, args.runs)
        for folder in args.corpus:
            bench_folder(str(folder), folder, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
