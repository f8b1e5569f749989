"""Benchmark search per keystroke when one- and two-letter words fill the notes' lines.

Usage: python benchmarks/short_query_bench.py [--count 10000] [--repeat 3]
                                             [--baseline-code DIR] [--corpora DIR]

The generated corpus (gen_corpus.py) has no word shorter than three letters, so its short
queries only ever reach titles and paths. This copies it and appends English prose to every
note (`a`, `to`, `is`, `of`, `go`, `in` on every note's last lines: the worst case for a short
query, whose whole words are now found in lines), builds the index once, then times every prefix
of each typed query as the app searches it (the search screen's call: `search_notes` when the
code has it, else `search(limit=100)`), in child processes that import memtui from this checkout
and, with --baseline-code, from another (e.g. `git archive main memtui | tar -x -C DIR`), run
alternately on the same index. Prints p50, p95 and max per keystroke, all prefixes and the one-
and two-character ones alone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import QUERIES, corpora_dir, corpus, percentile  # noqa: E402

SHORT_QUERIES = ("go", "a", "is", "to", "of", "in db", "ui")
"""Typed queries whose words are short (every prefix of the others has one and two letters too)."""
PROSE = (
    "It is a plan to go over in a day or two, if the db is up.\n"
    "A note of what to do: go to the ui, look at it, and go on.\n"
)
"""Lines appended to every note: short words everywhere."""

CHILD = """
import json, sys, time
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher
try:
    from memtui.notes.search_results import search_notes
    from memtui.tui.screens.search import RESULT_LIMIT
    def app_search(searcher, query):
        return search_notes(searcher, query, notes=RESULT_LIMIT)
except ImportError:
    def app_search(searcher, query):
        return searcher.search(query, limit=100)
index = NoteIndex.load(sys.argv[1])
searcher = Searcher(index)
app_search(searcher, "warm up")
queries = json.loads(sys.argv[2])
times = []
for _ in range(int(sys.argv[3])):
    for query in queries:
        for end in range(1, len(query) + 1):
            started = time.perf_counter()
            app_search(searcher, query[:end])
            times.append((len(query[:end].strip()), time.perf_counter() - started))
print(json.dumps(times))
"""


def prose_corpus(count: int, base: Path | None) -> Path:
    """A copy of the generated corpus with PROSE appended to every note, its index built."""
    root = corpora_dir(base) / f"prose-{count}"
    marker = root.parent / f"prose-{count}.complete"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(corpus(count, base), root, ignore=shutil.ignore_patterns(".memtui"))
        for path in root.rglob("*.md"):
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("\n" + PROSE)
        from memtui.notes.index import NoteIndex

        NoteIndex.load(root).close()
        marker.write_text("ok\n")
    return root


def measure(code: Path, root: Path, queries: list[str], repeat: int) -> list[tuple[int, float]]:
    """(query length, seconds) per keystroke, memtui imported from `code`."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), json.dumps(queries), str(repeat)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [(length, seconds) for length, seconds in json.loads(done.stdout)]


def summary(times: list[float]) -> str:
    """p50, p95 and max in milliseconds."""
    return (
        f"p50 {statistics.median(times) * 1000:6.1f} ms, p95 {percentile(times, 0.95) * 1000:6.1f}"
        f" ms, max {max(times) * 1000:6.1f} ms (n={len(times)})"
    )


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline-code", type=Path)
    parser.add_argument("--corpora", type=Path)
    args = parser.parse_args()
    root = prose_corpus(args.count, args.corpora)
    queries = [*QUERIES, *SHORT_QUERIES]
    codes = {"this checkout": HERE.parent}
    if args.baseline_code is not None:
        codes["baseline"] = args.baseline_code
    results: dict[str, list[tuple[int, float]]] = {name: [] for name in codes}
    for _ in range(args.repeat):
        for name, code in codes.items():
            results[name] += measure(code, root, queries, 1)
    print(f"{args.count} notes with prose, every prefix of {len(queries)} typed queries:")
    for name, times in results.items():
        print(f"  {name:14} all    {summary([seconds for _length, seconds in times])}")
        short = [seconds for length, seconds in times if length <= 2]
        print(f"  {name:14} 1-2 ch {summary(short)}")


if __name__ == "__main__":
    main()
