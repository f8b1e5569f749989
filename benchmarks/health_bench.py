"""Benchmark memory health on generated stores: the contradiction finder and the budget.

Usage: python benchmarks/health_bench.py [--sizes 1000,10000] [--repeat 3] [--sample 100]
                                         [--corpora DIR]

Corpora come from gen_corpus.py (as notes_bench.py makes them: --corpora, default
$MEMTUI_BENCH_CORPORA or /tmp/memtui-corpora). The index is built once before timing. Prints
medians (CPU seconds as well as wall: the machine may be shared) and ratios against baselines
measured in the same run:
- reading every statement (finding the statement lines of every file and reading each one's
  words): the floor any finder pays;
- every pair of statements within each file judged (no blocking), measured on --sample files
  and scaled to the store: what the finder would cost without its candidate blocks;
- the finder (`find_contradictions` on the store's files, their texts already read);
- `store_contradictions` end to end (files and links read from the index, then the finder);
- `store_budget` (kind detection, every file's row, no history);
- the review queue: the staleness signals alone (`stale.review`, the baseline) against the
  queue with the health reasons (`health_review.health_review`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import corpus, timed  # noqa: E402

from memtui.notes import contradiction_rules, statement_words  # noqa: E402
from memtui.notes.budget import store_budget  # noqa: E402
from memtui.notes.contradiction_rules import judge  # noqa: E402
from memtui.notes.contradictions import MemoryFile, find_contradictions  # noqa: E402
from memtui.notes.health_review import health_review  # noqa: E402
from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.stale import review  # noqa: E402
from memtui.notes.statement_words import read_statement  # noqa: E402
from memtui.notes.statements import statement_lines  # noqa: E402
from memtui.notes.store_contradictions import memory_files, store_contradictions  # noqa: E402


def median_of(repeat: int, run: Callable[[], object]) -> tuple[float, float]:
    """Median (wall, CPU) seconds of `repeat` calls."""
    runs = [timed(run) for _ in range(repeat)]
    return statistics.median(w for w, _c in runs), statistics.median(c for _w, c in runs)


def cold_caches() -> None:
    """Forget every word and statement read, so each timed run starts from nothing."""
    for cached in (
        statement_words.read_statement,
        statement_words.stem,
        statement_words._token,
        contradiction_rules._change_phrases,
    ):
        cached.cache_clear()


def read_statements(files: list[MemoryFile]) -> int:
    """Baseline: every statement of every file found and read."""
    cold_caches()
    total = 0
    for file in files:
        for _number, text, _section in statement_lines(file.path, file.text):
            read_statement(text)
            total += 1
    return total


def all_pairs(files: list[MemoryFile]) -> int:
    """Baseline: every pair of statements within each file judged."""
    cold_caches()
    judged = 0
    for file in files:
        texts = [text for _n, text, _s in statement_lines(file.path, file.text)]
        for older, newer in combinations(texts, 2):
            judge(older, newer)
            judged += 1
    return judged


def bench(root: Path, repeat: int, sample: int) -> None:
    """Time the finder and the budget on one store."""
    index = NoteIndex.load(root)
    files = memory_files(index)
    statements = sum(len(statement_lines(f.path, f.text)) for f in files)
    print(f"{root.name}: {len(files)} files, {statements:,} statements")

    def finder() -> None:
        cold_caches()
        find_contradictions(files)

    def end_to_end() -> None:
        cold_caches()
        store_contradictions(index)

    floor = median_of(repeat, lambda: read_statements(files))
    found = median_of(repeat, finder)
    step = max(1, len(files) // sample)
    part = files[::step]
    naive_part = median_of(1, lambda: all_pairs(part))
    naive = (naive_part[0] * len(files) / len(part), naive_part[1] * len(files) / len(part))
    whole = median_of(repeat, end_to_end)
    budget = median_of(repeat, lambda: store_budget(index))
    signals = median_of(repeat, lambda: review(index, None))
    queue = median_of(repeat, lambda: (cold_caches(), health_review(index, None)))
    candidates = len(find_contradictions(files))
    rows = [
        ("read every statement (floor)", floor),
        (f"judge all pairs per file (from {len(part)} files, scaled)", naive),
        (f"find_contradictions ({candidates} candidates)", found),
        ("store_contradictions (index -> pairs)", whole),
        ("store_budget", budget),
        ("review queue: staleness signals (baseline)", signals),
        ("review queue with health reasons", queue),
    ]
    for name, (wall, cpu) in rows:
        print(f"  {name:<52} wall {wall:8.2f} s  cpu {cpu:8.2f} s")
    print(
        f"  finder / floor (cpu): {found[1] / floor[1]:.1f}x;  all pairs / finder (cpu): "
        f"{naive[1] / found[1]:.1f}x;  queue with health / signals (cpu): "
        f"{queue[1] / signals[1]:.1f}x"
    )
    index.close()
    bench_long_file(files, repeat)


def bench_long_file(files: list[MemoryFile], repeat: int, size: int = 5000) -> None:
    """One file of `size` statements (a long log or MEMORY.md): the finder against judging
    every pair, the latter measured on 20,000 pairs and scaled to all of them."""
    texts = [t for f in files for _n, t, _s in statement_lines(f.path, f.text)][:size]
    long = MemoryFile("log.md", "Log", "\n".join(texts) + "\n")

    def finder() -> None:
        cold_caches()
        find_contradictions([long])

    def some_pairs() -> None:
        cold_caches()
        for number, (older, newer) in enumerate(combinations(texts, 2)):
            if number == SAMPLED_PAIRS:
                break
            judge(older, newer)

    pairs = len(texts) * (len(texts) - 1) // 2
    found = median_of(repeat, finder)
    sampled = median_of(repeat, some_pairs)
    naive = (sampled[0] * pairs / SAMPLED_PAIRS, sampled[1] * pairs / SAMPLED_PAIRS)
    print(f"one file of {len(texts):,} statements ({pairs:,} pairs)")
    print(f"  {'find_contradictions':<52} wall {found[0]:8.2f} s  cpu {found[1]:8.2f} s")
    label = "judge all pairs (scaled from 20,000)"
    print(f"  {label:<52} wall {naive[0]:8.2f} s  cpu {naive[1]:8.2f} s")
    print(f"  all pairs / finder (cpu): {naive[1] / found[1]:.0f}x")


SAMPLED_PAIRS = 20_000


def main() -> None:
    """Parse the options and run the benchmarks."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--corpora", type=Path, default=None)
    args = parser.parse_args()
    for size in (int(text) for text in args.sizes.split(",")):
        bench(corpus(size, args.corpora), args.repeat, args.sample)


if __name__ == "__main__":
    main()
