"""`memtui search` as a whole process (warm index) against `rg -i -F` over the store and, when
installed, `fzf --filter` over every line; wall time and peak memory of each process.

Usage: python benchmarks/search_cli_bench.py [--sizes 10000,50000,100000] [--repeat 5]
                                             [--corpora DIR] [--plain]

memtui runs as an installed command would (`python -m memtui search STORE QUERY --json`, its
modules compiled first); it walks and stats the store, checks the index against it and searches.
rg reads every file of the store each time (`rg -i -F QUERY STORE`); fzf reads a prepared file
of `path:line:text` lines, the cheapest input it can get. The three run in turn for each query,
`--repeat` times; medians per query, then the median over queries. Peak memory is each process's
own maximum resident size, as GNU time reports it. Public tools only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import QUERIES, corpus  # noqa: E402

from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.scan import scan_files  # noqa: E402

FLOORS = (("python -c pass", "pass"), ("+ import sqlite3, rapidfuzz", "import sqlite3, rapidfuzz"))
"""What any Python search process pays before it reads anything: the interpreter, and the two
libraries memtui's search needs."""
TIME = shutil.which("time") or "/usr/bin/time"
"""GNU time reports a process's own peak memory (a child forked from this large process would
count this one's pages too)."""


def run(cmd: Sequence[str], stdin_path: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one run of `cmd`, output discarded."""
    with contextlib.ExitStack() as stack:
        stdin = (
            stack.enter_context(open(stdin_path, "rb"))
            if stdin_path is not None
            else subprocess.DEVNULL
        )
        started = time.perf_counter()
        done = subprocess.run(
            [TIME, "-f", "%M", *cmd],
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - started
    peak_kb = int(done.stderr.strip().splitlines()[-1])
    return wall, peak_kb * 1024 / 1e6


def lines_file(root: Path) -> Path:
    """Every line of every file as `path:line:text`, written once beside the corpus."""
    target = root.parent / f"{root.name}.lines.txt"
    if not target.exists():
        with open(target, "w", encoding="utf-8") as out:
            for file in scan_files(root).files:
                text = (root / file.relpath).read_text(encoding="utf-8", errors="replace")
                for number, line in enumerate(text.split("\n"), 1):
                    out.write(f"{file.relpath}:{number}:{line}\n")
    return target


def compile_memtui() -> None:
    """Compile memtui's modules once, as an install does."""
    import memtui

    package = Path(memtui.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def bench_size(count: int, repeat: int, base: Path | None, plain: bool, with_fzf: bool) -> None:
    """Medians of memtui, rg and fzf per query at one corpus size."""
    root = corpus(count, base)
    NoteIndex.load(root).close()
    memtui = [sys.executable, "-m", "memtui", "search", str(root)]
    tail = ["--limit", "20"] if plain else ["--limit", "20", "--json"]
    rg, fzf = shutil.which("rg"), shutil.which("fzf") if with_fzf else None
    lines = lines_file(root) if fzf else None
    run([*memtui, "warm", *tail])
    print(f"\n== {count} notes ==")
    print(f"{'query':24} {'memtui':>9} {'rg':>9} {'ratio':>7} {'fzf':>9}   peak MB memtui/rg")
    ours_all, rg_all, fzf_all, ratios, peaks, rg_peaks = [], [], [], [], [], []
    for query in QUERIES:
        ours, theirs, fuzzy = [], [], []
        for _ in range(repeat):
            ours.append(run([*memtui, query, *tail]))
            if rg:
                theirs.append(run([rg, "-i", "-F", query, str(root)]))
            if fzf and lines is not None:
                fuzzy.append(run([fzf, "--filter", query], lines))
        ours_wall = statistics.median(wall for wall, _ in ours)
        peaks.append(max(peak for _, peak in ours))
        ours_all.append(ours_wall)
        row = f"{query!r:24} {ours_wall * 1000:7.0f}ms"
        if theirs:
            rg_wall = statistics.median(wall for wall, _ in theirs)
            rg_peaks.append(max(peak for _, peak in theirs))
            rg_all.append(rg_wall)
            ratios.append(ours_wall / rg_wall)
            row += f" {rg_wall * 1000:7.0f}ms {ours_wall / rg_wall:6.2f}x"
        if fuzzy:
            fzf_wall = statistics.median(wall for wall, _ in fuzzy)
            fzf_all.append(fzf_wall)
            row += f" {fzf_wall * 1000:7.0f}ms"
        row += f"   {peaks[-1]:5.1f} / {rg_peaks[-1] if rg_peaks else 0:5.1f}"
        print(row)
    summary = f"median over queries: memtui {statistics.median(ours_all) * 1000:.0f} ms"
    if rg_all:
        summary += (
            f", rg {statistics.median(rg_all) * 1000:.0f} ms, "
            f"ratio {statistics.median(ratios):.2f}x (goal: <= 1.0x at 50k and 100k, 1.5x at 10k)"
        )
    if fzf_all:
        summary += f", fzf {statistics.median(fzf_all) * 1000:.0f} ms"
    print(summary)
    print(f"peak memory of memtui search: max {max(peaks):.1f} MB (goal < 100 MB at 100k)")
    floors = {
        name: statistics.median(run([sys.executable, "-c", code])[0] for _ in range(repeat))
        for name, code in FLOORS
    }
    print(
        "floor: "
        + ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in floors.items())
        + f" (memtui search needs both; rg {statistics.median(rg_all) * 1000:.0f} ms)"
        if rg_all
        else ""
    )
    print(f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000", help="comma-separated counts")
    parser.add_argument("--repeat", type=int, default=5, help="runs per median (default 5)")
    parser.add_argument("--corpora", type=Path, help="where generated corpora are kept")
    parser.add_argument("--plain", action="store_true", help="memtui's plain output, not --json")
    parser.add_argument("--no-fzf", action="store_true", help="leave fzf out (it is slow)")
    args = parser.parse_args()
    if not Path(TIME).exists():
        sys.exit("search_cli_bench needs GNU time (apt-get install -y time)")
    if shutil.which("rg") is None:
        print("rg is not installed (apt-get install -y ripgrep): no baseline to compare against.")
    compile_memtui()
    for count in (int(x) for x in args.sizes.split(",")):
        bench_size(count, args.repeat, args.corpora, args.plain, not args.no_fzf)


if __name__ == "__main__":
    main()
