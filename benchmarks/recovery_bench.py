"""Benchmark start-up recovery: what opening a store costs before its first command.

Usage: python benchmarks/recovery_bench.py [--sizes 1000,10000] [--runs 5]

For each size a store of N small notes (40 observation lines each, 100 folders) is written to a
temporary folder. It prints the median of `--runs` fresh processes for: the first open (the
history records every existing note as an outside creation), a reopen with nothing changed
(temp-file sweep, disk hashes vs. the replayed history), and, as the baseline from the same
run, the same history open with recovery switched off in-process.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

OPEN = (
    "import sys, time; from memtui.core.store import MemoryStore; "
    "started = time.perf_counter(); MemoryStore(sys.argv[1]).history; "
    "print(time.perf_counter() - started)"
)
WITHOUT_RECOVERY = (
    "import sys, time; import memtui.core.recovery as r; "
    "r.recover = lambda store: r.RecoveryReport(); "
    "from memtui.core.store import MemoryStore; "
    "started = time.perf_counter(); MemoryStore(sys.argv[1]).history; "
    "print(time.perf_counter() - started)"
)


def write_notes(root: Path, count: int) -> None:
    """`count` notes of about 1 KB in 100 folders."""
    for number in range(count):
        folder = root / f"folder{number % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{number}.md").write_text(
            "".join(f"- [fact] note {number} line {line}\n" for line in range(40)),
            encoding="utf-8",
        )


def timed(code: str, root: Path) -> float:
    """Seconds the snippet reports for one fresh process."""
    output = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True
    ).stdout
    return float(output.strip().splitlines()[-1])


def main() -> None:
    """Print medians per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in (int(value) for value in args.sizes.split(",")):
        firsts: list[float] = []
        for _ in range(max(1, args.runs // 2)):
            base = Path(tempfile.mkdtemp(prefix="memtui-recovery-"))
            write_notes(base / "store", size)
            firsts.append(timed(OPEN, base / "store"))
            shutil.rmtree(base)
        base = Path(tempfile.mkdtemp(prefix="memtui-recovery-"))
        write_notes(base / "store", size)
        timed(OPEN, base / "store")
        reopen = [timed(OPEN, base / "store") for _ in range(args.runs)]
        baseline = [timed(WITHOUT_RECOVERY, base / "store") for _ in range(args.runs)]
        shutil.rmtree(base)
        print(
            f"{size:>6} notes: first open {statistics.median(firsts) * 1000:8.0f} ms | "
            f"reopen with recovery {statistics.median(reopen) * 1000:6.0f} ms | "
            f"history open without recovery {statistics.median(baseline) * 1000:5.0f} ms "
            f"(medians)"
        )


if __name__ == "__main__":
    main()
