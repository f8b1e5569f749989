"""Benchmark search by meaning: quality (recall@5 on the labelled set) and cost.

Usage: python benchmarks/meaning_bench.py --model PATH_OR_NAME
                                        [--parts quality,model,store,query] [--sizes 10000,100000]

`--model` (or $MEMTUI_MEANING_MODEL) names a model2vec model: a local folder, or a name the
library downloads once. Nothing is fetched otherwise. Parts:
- quality: the labelled set of tests/notes/meaning/quality_set.py (60 queries sharing no word
  with their note, 20 that do) in a fresh store; recall@5 of text search (the app's Searcher),
  meaning alone, and fusions of the two (score fusion at several bonuses, reciprocal rank fusion);
- model: load time, embedding throughput on 10k and 100k generated chunks, resident memory;
- store: the vectors of a generated store (gen_corpus.py): first embedding, index growth, a
  catch-up after one changed file, against the text index's own first build in the same run
  (`--reuse`: the index and vectors of an earlier run are kept, only the rest is measured);
- query: a meaning query through `search_in_mode` (the app's path: embed, scan, fetch sections)
  at each size, p50/p95 over 50 queries, with the scan as it chooses (two stages from 100k
  vectors), exact, and with every product on one core (numpy's own loop, as before),
  against a text query in the same run;
- cli: `memtui search --mode text|meaning|hybrid --json` as a whole process (the store's index
  and vectors built by the parts before, or by an earlier run), medians of 5 queries x 3.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen_corpus import generate  # noqa: E402

from memtui.notes.index import NoteIndex  # noqa: E402
from memtui.notes.meaning import scan as scan_module  # noqa: E402
from memtui.notes.meaning.embedder import Embedder, load_embedder  # noqa: E402
from memtui.notes.meaning.fusion import rank_fusion, score_fusion  # noqa: E402
from memtui.notes.meaning.hybrid import MeaningSearch, text_ranking  # noqa: E402
from memtui.notes.meaning.sync import sync_vectors  # noqa: E402
from memtui.notes.search import Searcher  # noqa: E402
from memtui.notes.search_modes import search_in_mode  # noqa: E402
from tests.notes.meaning.quality_set import MEANING, NOTES, WORDS  # noqa: E402

K = 5


def write_store(root: Path) -> None:
    """The labelled notes as files."""
    for path, text in NOTES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def recall(ranked: Callable[[str], list[str]], pairs: list[tuple[str, str]]) -> float:
    """Share of queries whose note is in the first K paths."""
    return sum(answer in ranked(query)[:K] for query, answer in pairs) / len(pairs)


def bench_quality(model: str, distractors: int) -> None:
    """Recall@5 of text, meaning and fusions on the labelled set, alone or among `distractors`
    generated notes."""
    root = Path(tempfile.mkdtemp(prefix="memtui-meaning-quality-"))
    try:
        if distractors:
            generate(distractors, root)
        write_store(root)
        index = NoteIndex.load(root)
        embedder = load_embedder(model)
        sync_vectors(index.db, root, embedder)
        searcher, meaning = Searcher(index), MeaningSearch(index, embedder)

        def text(query: str) -> list[str]:
            return [p for p, _ in text_ranking(searcher.search(query, limit=50))]

        def vector(query: str) -> list[str]:
            return [h.path for h in meaning.nearest(query, 20)]

        def fused(method: Callable[..., list]) -> Callable[[str], list[str]]:
            def ranked(query: str) -> list[str]:
                hits = text_ranking(searcher.search(query, limit=50))
                return [f.path for f in method(hits, meaning.nearest(query, 20))]

            return ranked

        methods: dict[str, Callable[[str], list[str]]] = {"text": text, "meaning": vector}
        for bonus in (0.0, 0.3, 0.5):
            methods[f"score fusion, best=1, bonus {bonus}"] = fused(
                lambda t, m, b=bonus: score_fusion(t, m, bonus=b, relative=True)
            )
            methods[f"score fusion, full=1, bonus {bonus}"] = fused(
                lambda t, m, b=bonus: score_fusion(t, m, bonus=b)
            )
        methods["reciprocal rank fusion k=60"] = fused(rank_fusion)
        print(
            f"quality: {len(MEANING)} meaning queries, {len(WORDS)} word queries, recall@{K}, "
            f"{len(NOTES)} labelled notes among {distractors:,} generated ones"
        )
        for name, ranked in methods.items():
            both = recall(ranked, MEANING + WORDS)
            print(
                f"  {name:36} meaning {recall(ranked, MEANING):5.2f}   words "
                f"{recall(ranked, WORDS):5.2f}   all {both:5.2f}"
            )
        index.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def rss_mib() -> float:
    """Peak resident memory of this process so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_model(model: str) -> None:
    """Load time, throughput, memory."""
    before = rss_mib()
    started = time.perf_counter()
    embedder = load_embedder(model)
    print(
        f"model: load {time.perf_counter() - started:.2f} s, peak RSS +{rss_mib() - before:.0f} MiB"
    )
    texts = [f"{q} {text}" for q, _ in MEANING for text in NOTES.values()]
    for count in (10_000, 100_000):
        batch = (texts * (count // len(texts) + 1))[:count]
        started = time.perf_counter()
        embedder.embed(batch)
        seconds = time.perf_counter() - started
        print(f"  embed {count:,} chunks: {seconds:.2f} s ({count / seconds:,.0f} chunks/s)")
    times = []
    for query, _ in MEANING:
        started = time.perf_counter()
        embedder.embed([query])
        times.append(time.perf_counter() - started)
    print(f"  embed one query: median {statistics.median(times) * 1000:.2f} ms")


def corpus(count: int) -> Path:
    """A generated store of `count` notes (kept between runs)."""
    base = Path(os.environ.get("MEMTUI_BENCH_CORPORA", "/tmp/memtui-corpora"))
    root = base / f"n{count}"
    if not root.exists():
        generate(count, root)
    return root


def index_bytes(root: Path) -> int:
    """Size of the store's index file and its write-ahead log."""
    meta = root / ".memtui"
    return sum(f.stat().st_size for f in meta.glob("index.db*"))


def bench_store(count: int, model: str, *, reuse: bool) -> MeaningSearch:
    """First embedding of a store (skipped with `reuse` when its index is there), index growth,
    one changed file (median of 7); returns a search over it."""
    root = corpus(count)
    embedder = load_embedder(model)
    if reuse and (root / ".memtui" / "index.db").exists():
        index = NoteIndex.load(root)
        sync_vectors(index.db, root, embedder)
    else:
        index = first_build(root, count, embedder)
    changed = sorted(p for p in root.rglob("*.md") if ".memtui" not in p.parts)[0]
    relpath = changed.relative_to(root).as_posix()
    text_times, vector_times = [], []
    for number in range(7):
        changed.write_text(changed.read_text() + f"\nLine {number} about the espresso machine.\n")
        started = time.perf_counter()
        index.update_paths([relpath])
        text_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        sync_vectors(index.db, root, embedder, [relpath])
        vector_times.append(time.perf_counter() - started)
    print(
        f"  one changed file (median of 7): text {statistics.median(text_times) * 1000:.0f} ms, "
        f"vectors {statistics.median(vector_times) * 1000:.0f} ms"
    )
    return MeaningSearch(index, embedder)


def first_build(root: Path, count: int, embedder: Embedder) -> NoteIndex:
    """Build the text index and then the vectors from nothing, timed."""
    shutil.rmtree(root / ".memtui", ignore_errors=True)
    started = time.perf_counter()
    cpu = time.process_time()
    index = NoteIndex.load(root)
    text_seconds, text_cpu = time.perf_counter() - started, time.process_time() - cpu
    text_size = index_bytes(root)
    started, cpu = time.perf_counter(), time.process_time()
    outcome = sync_vectors(index.db, root, embedder)
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    grown = index_bytes(root) - text_size
    print(
        f"store {count:,} notes: text index {text_seconds:.1f} s ({text_cpu:.1f} s CPU), "
        f"{text_size / 2**20:.0f} MiB; vectors {seconds:.1f} s ({cpu_seconds:.1f} s CPU), "
        f"{outcome.embedded:,} chunks of {outcome.files:,} files, +{grown / 2**20:.0f} MiB"
    )
    return index


def percentile(values: list[float], share: float) -> float:
    """The value below which `share` of `values` fall."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def bench_query(search: MeaningSearch, count: int) -> None:
    """Meaning query latency through the app's path (`search_in_mode`: embed, scan, sections)
    with the scan as it chooses and with the exact scan, hybrid, and a text query, same run;
    and how many of the exact scan's best files the chosen scan finds."""
    started = time.perf_counter()
    search.scan.refresh()
    load = time.perf_counter() - started
    scan = search.scan
    chosen = scan._two_stage
    searcher = Searcher(search.index)
    queries = [query for query, _ in MEANING[:50]]
    results: dict[str, list[float]] = {
        "meaning": [],
        "meaning, exact scan": [],
        "meaning, products on one core": [],
        "hybrid": [],
        "text": [],
    }
    found: dict[str, list[list[str]]] = {"meaning": [], "meaning, exact scan": []}
    blas_from = scan_module.BLAS_ELEMENTS

    def meaning(query: str, exact: bool, one_core: bool = False) -> list[str]:
        scan._two_stage = chosen and not exact
        scan_module.BLAS_ELEMENTS = 2**62 if one_core else blas_from
        try:
            hits = search_in_mode(searcher, search, query, limit=20, mode="meaning").hits
        finally:
            scan_module.BLAS_ELEMENTS = blas_from
        return [hit.path for hit in hits]

    for query in queries:
        for name, run in (
            ("meaning", lambda q=query: meaning(q, False)),
            ("meaning, exact scan", lambda q=query: meaning(q, True)),
            ("meaning, products on one core", lambda q=query: meaning(q, False, True)),
            ("hybrid", lambda q=query: search_in_mode(searcher, search, q, limit=20)),
            ("text", lambda q=query: searcher.search(q, limit=50)),
        ):
            begun = time.perf_counter()
            answer = run()
            results[name].append(time.perf_counter() - begun)
            if name in found:
                found[name].append(answer)  # type: ignore[arg-type]
    scan._two_stage = chosen
    print(
        f"query at {count:,} notes ({len(scan):,} vectors held, loaded in {load:.2f} s, "
        f"two-stage scan {'on' if chosen else 'off'}):"
    )
    for name, times in results.items():
        print(
            f"  {name:20} p50 {statistics.median(times) * 1000:6.1f} ms   "
            f"p95 {percentile(times, 0.95) * 1000:6.1f} ms"
        )
    kept = [
        len(set(got) & set(exact)) / max(len(exact), 1)
        for got, exact in zip(found["meaning"], found["meaning, exact scan"], strict=True)
    ]
    top5 = [
        len(set(got[:5]) & set(exact[:5])) / max(len(exact[:5]), 1)
        for got, exact in zip(found["meaning"], found["meaning, exact scan"], strict=True)
    ]
    print(
        f"  the exact scan's best 20 files found: {statistics.mean(kept):.3f} "
        f"(best 5: {statistics.mean(top5):.3f})"
    )
    print(f"  peak RSS {rss_mib():.0f} MiB")


def bench_cli(count: int, model: str, repeat: int = 3) -> None:
    """`memtui search --mode M --json` as a whole process on a store whose index and vectors are
    built, each mode in turn for 5 queries, `repeat` times; medians."""
    root = corpus(count)
    config = Path(tempfile.mkdtemp(prefix="memtui-meaning-config-"))
    (config / "memtui").mkdir()
    (config / "memtui" / "config.toml").write_text(f"[search]\nmodel = {json.dumps(model)}\n")
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "HF_HUB_OFFLINE": "1"}
    times: dict[str, list[float]] = {"text": [], "meaning": [], "hybrid": []}
    for _ in range(repeat):
        for query, _answer in MEANING[:5]:
            for mode in times:
                command = [sys.executable, "-m", "memtui", "search", str(root), query]
                started = time.perf_counter()
                subprocess.run(
                    [*command, "--mode", mode, "--json", "--limit", "10"],
                    env=env,
                    capture_output=True,
                    check=False,
                )
                times[mode].append(time.perf_counter() - started)
    print(f"memtui search as a whole process at {count:,} notes (index and vectors built):")
    for mode, values in times.items():
        print(f"  --mode {mode:8} median {statistics.median(values) * 1000:7.0f} ms")
    shutil.rmtree(config, ignore_errors=True)


def main() -> None:
    """Run the chosen parts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=os.environ.get("MEMTUI_MEANING_MODEL"))
    parser.add_argument("--parts", default="quality,model,store,query,cli")
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--distractors", default="0,10000")
    parser.add_argument("--cli-repeat", type=int, default=3, help="rounds of the cli part (3)")
    parser.add_argument(
        "--reuse", action="store_true", help="keep a corpus's index and vectors from a run before"
    )
    args = parser.parse_args()
    if not args.model:
        parser.error("--model (or MEMTUI_MEANING_MODEL) must name a model2vec model")
    parts = set(args.parts.split(","))
    if "quality" in parts:
        for distractors in (int(n) for n in args.distractors.split(",")):
            bench_quality(args.model, distractors)
    if "model" in parts:
        bench_model(args.model)
    for count in (int(size) for size in args.sizes.split(",")):
        if parts & {"store", "query"}:
            search = bench_store(count, args.model, reuse=args.reuse)
            if "query" in parts:
                bench_query(search, count)
            search.index.close()
        if "cli" in parts:
            bench_cli(count, args.model, args.cli_repeat)


if __name__ == "__main__":
    main()
