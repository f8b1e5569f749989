"""Time the note parser: reading bytes vs the markdown-it reference path vs the fast path.

Usage: python benchmarks/parse_bench.py [--notes 2000] [--runs 5] [--corpus DIR ...]
       [--index DIR ...] [--index-only] [--no-shared] [--dates N] [--dates-unbounded]

Generates a Basic Memory-style corpus with benchmarks/gen_corpus.py into a temporary folder,
adds the shared corpus when it is present, and prints for each: the median of `--runs` runs of
(a) reading every file's bytes, (b) read + parse_note on the reference path, (c) read +
parse_note with the fast path, (d)/(e) the block scan alone on each path, (f)/(g) the
frontmatter alone through PyYAML and through the simple-YAML shortcut; plus the fast path's
fallback rate. With `--index DIR` it also times a cold `NoteIndex.load(DIR, use_cache=False)`
against walking DIR and reading every note's bytes, alternating the two in one process, and
prints the medians, their ratio and the index's own phase timings. With `--dates N` it times a
note of N observations each opening with a distinct free-form date (`@occurred:"June 10, 2026"`):
parsing it, and a first index of a store holding only it, against the same note without the
qualifiers; with `--dates-unbounded` also the parse without the per-note budget (every date read
by dateparser). Uses only time.perf_counter, statistics and subprocess.
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

from memtui.notes import temporal
from memtui.notes._md_fast import fast_blocks
from memtui.notes._md_reference import reference_blocks
from memtui.notes.frontmatter_norm import read_frontmatter
from memtui.notes.index import NoteIndex
from memtui.notes.parser import parse_note
from memtui.notes.scan import scan_files

HERE = Path(__file__).parent
SHARED_CORPUS = HERE.parents[1] / "shared" / "corpus" / "basic-memory-notes"


def _median_seconds(action: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `runs` calls, the garbage collector paused as in bulk loads.

    CPU time (time.process_time) is printed too because the machine is shared: other processes
    stretch wall time but not the CPU time this process spends.
    """
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        cpu_started = time.process_time()
        started = time.perf_counter()
        action()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu_started)
        gc.enable()
    return statistics.median(walls), statistics.median(cpus)


def _row(label: str, timing: tuple[float, float], base: tuple[float, float]) -> str:
    """One table row: wall ms, ratio to base, CPU ms, ratio to base."""
    wall, cpu = timing
    return (
        f"  {label:<28}{wall * 1e3:9.1f} ms {wall / base[0]:6.1f}x"
        f"   {cpu * 1e3:9.1f} ms {cpu / base[1]:6.1f}x"
    )


def bench_folder(label: str, root: Path, runs: int) -> None:  # noqa: C901
    """Print the timings for every .md file under root."""
    paths = sorted(root.rglob("*.md"))
    relpaths = [path.relative_to(root).as_posix() for path in paths]
    total_bytes = sum(path.stat().st_size for path in paths)

    def read_all() -> list[bytes]:
        return [path.read_bytes() for path in paths]

    def parse_all(fast: bool) -> None:
        for path, relpath in zip(paths, relpaths, strict=True):
            parse_note(path.read_bytes(), relpath, use_fast_path=fast)

    texts: list[tuple[str, str]] = []
    for path in paths:
        try:
            texts.append((path.read_bytes().decode("utf-8"), path.stem))
        except UnicodeDecodeError:
            continue
    bodies = [read_frontmatter(text, stem).body for text, stem in texts]
    fallbacks = sum(fast_blocks(body) is None for body in bodies)

    def scan_reference() -> None:
        for body in bodies:
            reference_blocks(body)

    def scan_fast() -> None:
        for body in bodies:
            if fast_blocks(body) is None:
                reference_blocks(body)

    def frontmatter_all(fast: bool) -> None:
        for text, stem in texts:
            read_frontmatter(text, stem, fast=fast)

    read = _median_seconds(read_all, runs)
    front_yaml = _median_seconds(lambda: frontmatter_all(False), runs)
    front_fast = _median_seconds(lambda: frontmatter_all(True), runs)
    reference = _median_seconds(lambda: parse_all(False), runs)
    fast = _median_seconds(lambda: parse_all(True), runs)
    scan_ref = _median_seconds(scan_reference, runs)
    scan_fast_time = _median_seconds(scan_fast, runs)
    print(f"\n{label}: {len(paths)} notes, {total_bytes / 1e6:.1f} MB, medians of {runs} runs")
    print(f"  {'':<28}{'wall':>12} {'ratio':>7}   {'CPU':>12} {'ratio':>7}")
    print(_row("read bytes", read, read))
    print(_row("read + parse (reference)", reference, read))
    print(_row("read + parse (fast path)", fast, read))
    print(_row("block scan only, reference", scan_ref, read))
    print(_row("block scan only, fast path", scan_fast_time, read))
    print(_row("frontmatter only, PyYAML", front_yaml, read))
    print(_row("frontmatter only, simple YAML", front_fast, read))
    print(
        f"  fast path fallback rate     {fallbacks}/{len(bodies)} = "
        f"{fallbacks / max(1, len(bodies)):.1%}"
    )


def bench_index(root: Path, runs: int) -> None:
    """Print cold index load vs reading the bytes of the same notes, medians of `runs` runs."""
    reads: list[tuple[float, float]] = []
    loads: list[tuple[float, float]] = []
    phases: list[dict[str, float]] = []
    notes = 0

    def read_all() -> None:
        for file in scan_files(root).files:
            with open(root / file.relpath, "rb") as handle:
                handle.read()

    def load() -> None:
        nonlocal notes
        index = NoteIndex.load(root, use_cache=False)
        phases.append(index.timings)
        notes = len(index.notes)

    for _ in range(runs):
        reads.append(_median_seconds(read_all, 1))
        loads.append(_median_seconds(load, 1))
    read = (statistics.median(t[0] for t in reads), statistics.median(t[1] for t in reads))
    loaded = (statistics.median(t[0] for t in loads), statistics.median(t[1] for t in loads))
    print(f"\ncold index of {root}: {notes} notes, medians of {runs} runs")
    print(f"  {'':<28}{'wall':>12} {'ratio':>7}   {'CPU':>12} {'ratio':>7}")
    print(_row("walk + read bytes", read, read))
    print(_row("NoteIndex.load (no cache)", loaded, read))
    for phase in phases[0]:
        value = statistics.median(timing[phase] for timing in phases)
        print(f"    {phase:<26}{value * 1e3:9.1f} ms (wall)")


MONTHS = "January February March April May June July August September October November December"


def dated_note(count: int, qualified: bool, junk: bool = False) -> str:
    """A note of `count` observations, each opening with a distinct date in words if
    `qualified` (with `junk`, a quoted string no language reads as a date)."""
    months = MONTHS.split()
    lines = []
    for i in range(count):
        date = f"{months[i % 12]} {1 + (i // 12) % 28}, {2000 + i // 336}"
        quoted = f"zq{i} thing" if junk else date
        qualifier = f'@occurred:"{quoted}" ' if qualified else ""
        lines.append(f"- [event] {qualifier}event {i} on {date}")
    return "# Dates\n\n" + "\n".join(lines) + "\n"


def bench_dates(count: int, runs: int, unbounded: bool) -> None:
    """A note of `count` free-form dates: parse and first index, against the note without them."""
    temporal._read_by_dateparser(  # dateparser's import and language data, once
        "June 10, 2026", temporal.PROBE_BASES[0]
    )

    def parse(text: str) -> Callable[[], object]:
        def run() -> object:
            temporal._read_by_dateparser.cache_clear()
            return parse_note(text, "dates.md")

        return run

    def index(text: str) -> Callable[[], object]:
        def run() -> object:
            temporal._read_by_dateparser.cache_clear()
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "dates.md").write_text(text, encoding="utf-8")
                return NoteIndex.load(Path(tmp), use_cache=False).close()

        return run

    plain, dated = dated_note(count, False), dated_note(count, True)
    print(
        f"\na note of {count} free-form dates ({len(dated) / 1e3:.0f} KB), medians of {runs} runs"
    )
    print(f"  {'':<28}{'wall':>12} {'ratio':>7}   {'CPU':>12} {'ratio':>7}")
    base = _median_seconds(parse(plain), runs)
    print(_row("parse, no qualifiers", base, base))
    print(_row("parse, every line dated", _median_seconds(parse(dated), runs), base))
    junk = dated_note(count, True, junk=True)
    print(_row("parse, every line a non-date", _median_seconds(parse(junk), runs), base))
    index_base = _median_seconds(index(plain), runs)
    print(_row("first index, no qualifiers", index_base, base))
    print(_row("first index, every line dated", _median_seconds(index(dated), runs), base))
    if unbounded:
        budget = temporal.FREE_FORM_BUDGET
        temporal.FREE_FORM_BUDGET = 10**9
        try:
            print(_row("parse, no budget", _median_seconds(parse(dated), 1), base))
        finally:
            temporal.FREE_FORM_BUDGET = budget


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
    parser.add_argument(
        "--no-shared", action="store_true", help="skip the shared corpus of Basic Memory's docs"
    )
    parser.add_argument("--dates", type=int, default=0, help="time a note of N free-form dates")
    parser.add_argument(
        "--dates-unbounded", action="store_true", help="with --dates, also without the budget"
    )
    args = parser.parse_args()
    if args.dates:
        bench_dates(args.dates, args.runs, args.dates_unbounded)
        return 0
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
        if SHARED_CORPUS.exists() and not args.no_shared:
            bench_folder("shared corpus (Basic Memory's own docs)", SHARED_CORPUS, args.runs)
        for folder in args.corpus:
            bench_folder(str(folder), folder, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
