"""`memtui search` as a whole process (warm cache) against `fzf --filter` over the same lines.

Usage: python benchmarks/search_vs_fzf.py [--notes 10000] [--repeat 5]

fzf reads a prepared file with every line of every note as `path:line:text` (the cheapest input
it can get); memtui walks and stats the folder, checks its snapshot and searches. Prints medians.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import QUERIES, corpus  # noqa: E402

from memtui.notes.scan import scan_notes  # noqa: E402


def lines_file(root: Path) -> Path:
    """Every line of every note as `path:line:text`, written once next to the corpus."""
    target = root.parent / f"{root.name}.lines.txt"
    if not target.exists():
        with open(target, "w", encoding="utf-8") as out:
            for file in scan_notes(root).files:
                text = (root / file.relpath).read_text(encoding="utf-8", errors="replace")
                for number, line in enumerate(text.split("\n"), 1):
                    out.write(f"{file.relpath}:{number}:{line}\n")
    return target


def timed(cmd: list[str], stdin_path: Path | None = None) -> float:
    """Wall seconds of one run of `cmd`, output discarded."""
    started = time.perf_counter()
    if stdin_path is None:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    else:
        with open(stdin_path, "rb") as stdin:
            subprocess.run(
                cmd, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
            )
    return time.perf_counter() - started


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000, help="corpus size (default 10000)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per median (default 5)")
    args = parser.parse_args()
    fzf = shutil.which("fzf")
    if fzf is None:
        print("fzf is not installed (apt-get install -y fzf); nothing to compare against.")
        sys.exit(1)
    version = subprocess.run([fzf, "--version"], capture_output=True, text=True).stdout.strip()
    root = corpus(args.notes)
    lines = lines_file(root)
    memtui = [sys.executable, "-m", "memtui", "search", str(root)]
    warm_up = timed([*memtui, "warm", "--limit", "50", "--json"])
    print(f"{args.notes} notes; fzf {version}; first memtui run (builds caches) {warm_up:.2f} s")
    print(f"{'query':24} {'memtui':>10} {'fzf':>10} {'ratio':>7}")
    ratios, memtui_all, fzf_all = [], [], []
    for query in QUERIES:
        ours = statistics.median(
            timed([*memtui, query, "--limit", "50", "--json"]) for _ in range(args.repeat)
        )
        theirs = statistics.median(
            timed([fzf, "--filter", query], lines) for _ in range(args.repeat)
        )
        ratios.append(ours / theirs)
        memtui_all.append(ours)
        fzf_all.append(theirs)
        print(f"{query!r:24} {ours * 1000:8.0f}ms {theirs * 1000:8.0f}ms {ours / theirs:6.2f}x")
    print(
        f"median over queries: memtui {statistics.median(memtui_all) * 1000:.0f} ms, "
        f"fzf {statistics.median(fzf_all) * 1000:.0f} ms, "
        f"ratio {statistics.median(ratios):.2f}x (goal <= 1.0x)"
    )


if __name__ == "__main__":
    main()
