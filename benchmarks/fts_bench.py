"""Choose the index's full-text tokenizer by measurement: word tokens vs trigrams, and how much
FTS5 keeps per token (detail=full / column / none).

Usage: python benchmarks/fts_bench.py [--notes 10000] [--corpora DIR]

Builds a contentless FTS5 table (title, path, body: one row per file, as the index does) from
the generated corpus under each configuration, in a fresh file with one transaction per 2,000
rows, and prints the build time, the file's size, and the time to find the documents of a
word, a word prefix, and (where the configuration can answer it) a phrase. Public tools only.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from notes_bench import corpus  # noqa: E402

from memtui.notes.index_db import TOKENIZER  # noqa: E402
from memtui.notes.scan import scan_files  # noqa: E402

CONFIGS = (
    ("words, detail=full (memtui)", TOKENIZER, "full"),
    ("words, detail=column", TOKENIZER, "column"),
    ("words, detail=none", TOKENIZER, "none"),
    ("trigrams, detail=full", "trigram", "full"),
)
QUERIES = (("word", "deploy"), ("prefix", "depl*"), ("phrase", '"schema migration"'))


def texts(root: Path) -> list[tuple[str, str]]:
    """(path, text) of every file of the corpus."""
    return [
        (file.relpath, (root / file.relpath).read_text(encoding="utf-8", errors="replace"))
        for file in scan_files(root).files
    ]


def build(folder: Path, files: list[tuple[str, str]], tokenizer: str, detail: str) -> Path:
    """An FTS5 file of `files` under one configuration; prints nothing."""
    path = folder / f"{tokenizer.split()[0]}-{detail}.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(
        f"CREATE VIRTUAL TABLE fts USING fts5 (title, path, body, content='', "
        f'columnsize=0, detail={detail}, tokenize="{tokenizer}")'
    )
    conn.execute("BEGIN")
    for number, (relpath, text) in enumerate(files, 1):
        conn.execute(
            "INSERT INTO fts (rowid, title, path, body) VALUES (?, ?, ?, ?)",
            (number, relpath.rsplit("/", 1)[-1], relpath, text),
        )
        if number % 2000 == 0:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def query_ms(path: Path, match: str) -> str:
    """Milliseconds to fetch every document matching `match`, and how many (or why not)."""
    conn = sqlite3.connect(path)
    try:
        started = time.perf_counter()
        rows = conn.execute("SELECT rowid FROM fts WHERE fts MATCH ?", (match,)).fetchall()
        return f"{(time.perf_counter() - started) * 1000:7.1f} ms ({len(rows)})"
    except sqlite3.OperationalError as error:
        return f"not possible ({error})"
    finally:
        conn.close()


def main() -> None:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000, help="corpus size (default 10000)")
    parser.add_argument("--corpora", type=Path, help="where generated corpora are kept")
    args = parser.parse_args()
    files = texts(corpus(args.notes, args.corpora))
    size = sum(len(text.encode()) for _, text in files) / 1e6
    print(f"{args.notes} files, {size:.1f} MB of text")
    with tempfile.TemporaryDirectory() as tmp:
        for label, tokenizer, detail in CONFIGS:
            started = time.perf_counter()
            path = build(Path(tmp), files, tokenizer, detail)
            seconds = time.perf_counter() - started
            mb = path.stat().st_size / 1e6
            found = "; ".join(f"{kind} {query_ms(path, match)}" for kind, match in QUERIES)
            print(f"{label:30} build {seconds:6.2f} s, {mb:7.1f} MB; {found}")
            path.unlink()


if __name__ == "__main__":
    main()
