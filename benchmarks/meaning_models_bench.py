"""Compare embedding models for search by meaning: a model2vec static model against a
sentence-transformer (and fastembed, which fetches its models from a hub) on the labelled set.

Usage: python benchmarks/meaning_models_bench.py --static FOLDER [--transformer FOLDER]
                                               [--distractors 2000]

Runs in an environment with model2vec, and sentence-transformers (torch) for `--transformer`;
it needs no memtui install. Each note is embedded whole (the labelled notes are one section).
Prints load time, throughput on 1,000 notes, one query's time, and recall@5 of the 60 queries
that share no word with their note, among the labelled notes and `--distractors` generated ones.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen_corpus import make_note, make_vocabulary  # noqa: E402

from tests.notes.meaning.quality_set import MEANING, NOTES, WORDS  # noqa: E402

Embed = Callable[[list[str]], np.ndarray]


def distractor_texts(count: int) -> list[str]:
    """`count` generated notes' texts (the benchmarks' corpus generator, seed 1)."""
    import random

    rng = random.Random(1)
    vocab = make_vocabulary(rng)
    titles: list[str] = []
    texts = []
    for index in range(count):
        _path, text = make_note(rng, vocab, index, titles)
        titles.append(text.split("\n", 2)[1].removeprefix("title: "))
        texts.append(text)
    return texts


def unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1."""
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def measure(name: str, load: Callable[[], Embed], distractors: list[str]) -> None:
    """Load, throughput and recall@5 of one model."""
    started = time.perf_counter()
    embed = load()
    loaded = time.perf_counter() - started
    paths = list(NOTES)
    texts = [NOTES[p] for p in paths] + distractors
    sample = (texts * (1000 // len(texts) + 1))[:1000]
    started = time.perf_counter()
    embed(sample)
    rate = 1000 / (time.perf_counter() - started)
    started = time.perf_counter()
    matrix = unit(embed(texts))
    every = time.perf_counter() - started
    times = []
    found = {"meaning": 0, "words": 0}
    for kind, pairs in (("meaning", MEANING), ("words", WORDS)):
        for query, answer in pairs:
            begun = time.perf_counter()
            vector = unit(embed([query]))[0]
            times.append(time.perf_counter() - begun)
            top = np.argsort(-(matrix @ vector), kind="stable")[:5]
            found[kind] += paths.index(answer) in top
    print(
        f"{name}: load {loaded:.2f} s, {rate:,.0f} notes/s, {len(texts):,} notes in {every:.1f} s,"
        f" one query {statistics.median(times) * 1000:.1f} ms; recall@5 meaning "
        f"{found['meaning'] / len(MEANING):.2f}, words {found['words'] / len(WORDS):.2f}"
    )


def static(folder: str) -> Embed:
    """A model2vec model."""
    from model2vec import StaticModel

    model = StaticModel.from_pretrained(folder, force_download=False)
    return lambda texts: model.encode(texts, use_multiprocessing=False)


def transformer(folder: str) -> Embed:
    """A sentence-transformers model on the CPU."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(folder, device="cpu")
    return lambda texts: model.encode(texts, batch_size=64)


def fastembed() -> Embed:
    """fastembed's default model (fetched from its hub on first use)."""
    from fastembed import TextEmbedding

    model = TextEmbedding("BAAI/bge-small-en-v1.5")
    return lambda texts: np.asarray(list(model.embed(texts)))


def main() -> None:
    """Measure each model given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--static", required=True)
    parser.add_argument("--transformer")
    parser.add_argument("--fastembed", action="store_true")
    parser.add_argument("--distractors", type=int, default=2000)
    args = parser.parse_args()
    distractors = distractor_texts(args.distractors)
    measure(f"model2vec {args.static}", lambda: static(args.static), distractors)
    if args.transformer:
        measure(
            f"sentence-transformers {args.transformer}",
            lambda: transformer(args.transformer),
            distractors,
        )
    if args.fastembed:
        try:
            measure("fastembed BAAI/bge-small-en-v1.5", fastembed, distractors)
        except Exception as error:
            print(f"fastembed: {type(error).__name__}: {' '.join(str(error).split())[:300]}")


if __name__ == "__main__":
    main()
