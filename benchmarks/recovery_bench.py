"""Benchmark start-up recovery: what opening a store costs before its first command.

Usage: python benchmarks/recovery_bench.py [--sizes 1000,10000] [--runs 5] [--views 50000]

For each size a store of N small notes (40 observation lines each, 100 folders) is written to a
temporary folder. It prints the median wall and CPU time of `--runs` fresh processes for: the
first open (the history records one baseline event listing every existing note, with its content),
with the
events it recorded and the size of `history.db` after a checkpoint, a reopen with nothing changed
(temp-file sweep and a stat of every file compared with file_state), the same reopen after
`--views` more agent `view` events were added to the history (the history's length must not
matter), a reopen after 10 notes were edited outside memtui (10 hashes and events), and, as the
baseline from the same run, the same history open with recovery switched off in-process.
The notes are left to age 2.1 s before the first open: a file recorded less than 2 s after its
last change is hashed again at the next open (see the README, "Security and reliability", Limits).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OPEN = (
    "import sys, time; from memtui.core.store import MemoryStore; "
    "started = time.perf_counter(); cpu = time.process_time(); MemoryStore(sys.argv[1]).history; "
    "print(time.perf_counter() - started, time.process_time() - cpu)"
)
SETTLE_SECONDS = 2.1
"""Pause after writing the notes, so they are older than the racy window, as in a real folder."""
ADD_VIEWS = (
    "import sys; from memtui.core.recording.history import History, PendingEvent; "
    "from pathlib import Path; h = History(Path(sys.argv[1])); "
    "h.record_many(PendingEvent(time=0.0, actor='agent:bench', session=None, command='view', "
    "path='/memories/folder0', result='listing', is_error=False) for _ in range(int(sys.argv[2])))"
)
WITHOUT_RECOVERY = (
    "import sys, time; import memtui.core.opening.recovery as r; "
    "r.recover = lambda store: r.RecoveryReport(); "
    "from memtui.core.store import MemoryStore; "
    "started = time.perf_counter(); cpu = time.process_time(); MemoryStore(sys.argv[1]).history; "
    "print(time.perf_counter() - started, time.process_time() - cpu)"
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


def timed(code: str, root: Path) -> tuple[float, float]:
    """(wall, CPU) seconds the snippet reports for one fresh process."""
    output = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True
    ).stdout
    wall, cpu = output.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def edit_outside(root: Path, round_number: int) -> None:
    """Append a line to 10 notes, as an editor would while memtui is closed."""
    for number in range(10):
        path = root / f"folder{number}" / f"note{number}.md"
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"- [fact] edited outside, round {round_number}\n")


def history_figures(root: Path) -> tuple[int, int]:
    """(events, bytes of history.db and its WAL after a checkpoint) of a store's history."""
    database = root / ".memtui" / "history.db"
    conn = sqlite3.connect(database)
    try:
        events = int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    size = sum(path.stat().st_size for path in database.parent.glob("history.db*"))
    return events, size


def median_ms(values: list[tuple[float, float]]) -> str:
    """Median wall and CPU milliseconds (the machine is shared, so CPU is the steadier one)."""
    wall = statistics.median(value[0] for value in values) * 1000
    cpu = statistics.median(value[1] for value in values) * 1000
    return f"{wall:.0f} ms (CPU {cpu:.0f} ms)"


def main() -> None:
    """Print medians per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--views", type=int, default=50_000)
    args = parser.parse_args()
    for size in (int(value) for value in args.sizes.split(",")):
        firsts: list[tuple[float, float]] = []
        recorded = (0, 0)
        for _ in range(max(1, args.runs // 2)):
            base = Path(tempfile.mkdtemp(prefix="memtui-recovery-"))
            write_notes(base / "store", size)
            firsts.append(timed(OPEN, base / "store"))
            recorded = history_figures(base / "store")
            shutil.rmtree(base)
        base = Path(tempfile.mkdtemp(prefix="memtui-recovery-"))
        store = base / "store"
        write_notes(store, size)
        time.sleep(SETTLE_SECONDS)
        timed(OPEN, store)
        reopen = [timed(OPEN, store) for _ in range(args.runs)]
        baseline = [timed(WITHOUT_RECOVERY, store) for _ in range(args.runs)]
        long_history = reopen
        if args.views:
            add_views = [sys.executable, "-c", ADD_VIEWS, str(store), str(args.views)]
            subprocess.run(add_views, check=True)
            long_history = [timed(OPEN, store) for _ in range(args.runs)]
        edited: list[tuple[float, float]] = []
        for round_number in range(args.runs):
            edit_outside(store, round_number)
            edited.append(timed(OPEN, store))
        shutil.rmtree(base)
        print(
            f"{size:>6} notes (medians): first open {median_ms(firsts)} "
            f"({recorded[0]:,} events, history.db {recorded[1] // 1024:,} KiB) | "
            f"reopen {median_ms(reopen)} | reopen after {args.views} more events "
            f"{median_ms(long_history)} | reopen after 10 outside edits {median_ms(edited)} | "
            f"history open without recovery {median_ms(baseline)}",
            flush=True,
        )


if __name__ == "__main__":
    main()
