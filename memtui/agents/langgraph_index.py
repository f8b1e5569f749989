"""LangGraph's `index=` for MemtuiStore: the configured fields of each put embedded with the
configured function, kept in `.memtui/langgraph-index.db`, and `search(query=...)` ranked by
cosine similarity exactly as LangGraph's InMemoryStore ranks it.

As in InMemoryStore, an item keeps one vector per field path it was embedded under (a later put
replaces the vectors of the paths it embeds and keeps the others; `index=False` embeds nothing);
a delete drops them; an item with no vector is listed after the scored ones, unscored. Vectors
belong to the item's file: a file changed behind the store keeps the vectors of its last put.
"""

from __future__ import annotations

import importlib.util
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from langgraph.store.base import IndexConfig, PutOp
from langgraph.store.base.embed import ensure_embeddings, get_text_at_path, tokenize_path

from memtui.core.applying.atomic import private_file
from memtui.core.resolving.lock import meta_dir

INDEX_FILE = "langgraph-index.db"
T = TypeVar("T")


class ItemIndex:
    """The vectors of one store's LangGraph items under one `IndexConfig`."""

    def __init__(self, root: Path, config: IndexConfig) -> None:
        """Use `config` (dims, embed, fields) for the items of the store at `root`."""
        self.dims = int(config["dims"])
        embeddings = ensure_embeddings(config.get("embed"))
        self.embeddings = embeddings
        self.fields = [
            (path, tokenize_path(path) if path != "$" else path)
            for path in (config.get("fields") or ["$"])
        ]
        self._path = meta_dir(root) / INDEX_FILE
        private_file(self._path)
        self._lock = threading.Lock()
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS vectors (item TEXT NOT NULL, field TEXT NOT NULL, "
                "vector BLOB NOT NULL, PRIMARY KEY (item, field)) WITHOUT ROWID"
            )

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection to the vector file, closed after the block (autocommit)."""
        with closing(sqlite3.connect(self._path, timeout=30.0, isolation_level=None)) as conn:
            conn.execute("PRAGMA busy_timeout = 30000")
            yield conn

    def texts(self, op: PutOp) -> list[tuple[str, str]]:
        """(field label, text) of a put to embed, as InMemoryStore extracts them."""
        if op.value is None or op.index is False:
            return []
        fields = (
            self.fields if op.index is None else [(path, tokenize_path(path)) for path in op.index]
        )
        found: list[tuple[str, str]] = []
        for label, tokens in fields:
            texts = get_text_at_path(op.value, tokens)
            if len(texts) > 1:
                found.extend((f"{label}.{number}", text) for number, text in enumerate(texts))
            elif texts:
                found.append((label, texts[0]))
        return found

    def applied(self, done: Sequence[tuple[str, PutOp]]) -> None:
        """Record the puts and deletes a batch applied ((item file, op) pairs, in order): their
        texts embedded in one call, a deleted item's vectors dropped."""
        wanted = [(item, self.texts(op)) for item, op in done if op.value is not None]
        unique = list(dict.fromkeys(text for _item, texts in wanted for _label, text in texts))
        vectors = dict(zip(unique, self._embed(unique), strict=True)) if unique else {}
        with self._lock, self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            for item, op in done:
                if op.value is None:
                    conn.execute("DELETE FROM vectors WHERE item = ?", (item,))
            conn.executemany(
                "INSERT OR REPLACE INTO vectors (item, field, vector) VALUES (?, ?, ?)",
                (
                    (item, label, array("d", vectors[text]).tobytes())
                    for item, texts in wanted
                    for label, text in texts
                ),
            )
            conn.execute("COMMIT")

    def _embed(self, texts: list[str]) -> list[list[float]]:
        """The configured function's vectors of `texts`."""
        return [[float(x) for x in vector] for vector in self.embeddings.embed_documents(texts)]

    def vectors(self, items: Iterable[str]) -> dict[str, list[list[float]]]:
        """Each item's vectors (items without any are left out)."""
        found: dict[str, list[list[float]]] = {}
        with self._connect() as conn:
            for item in items:
                rows = conn.execute("SELECT vector FROM vectors WHERE item = ?", (item,)).fetchall()
                if rows:
                    found[item] = [array("d", bytes(row[0])).tolist() for row in rows]
        return found

    def rank(
        self, query: str, candidates: Sequence[tuple[str, T]], offset: int, limit: int
    ) -> list[tuple[T, float | None]]:
        """The page of `candidates` ((item file, payload), in listing order) InMemoryStore would
        return for `query`: best cosine similarity of an item's vectors first (ties keep the
        listing order), then unscored items filling the page."""
        if not candidates:
            return []
        query_vector = [float(x) for x in self.embeddings.embed_query(query)]
        stored = self.vectors(item for item, _payload in candidates)
        flat: list[int] = []
        rows: list[list[float]] = []
        scoreless: list[T] = []
        for position, (item, payload) in enumerate(candidates):
            for vector in stored.get(item, ()):
                flat.append(position)
                rows.append(vector)
            if item not in stored:
                scoreless.append(payload)
        scores = cosine(query_vector, rows)
        ordered = sorted(zip(scores, flat, strict=True), key=lambda pair: pair[0], reverse=True)
        return _page(ordered, candidates, scoreless, offset, limit)


def cosine(query: list[float], rows: list[list[float]]) -> list[float]:
    """Cosine similarity of `query` to each row (0 for a zero row), computed as InMemoryStore
    computes it: with numpy when it is installed, else in Python."""
    if not rows:
        return []
    if importlib.util.find_spec("numpy") is not None:
        import numpy as np

        matrix = np.array(rows)
        vector = np.array(query)
        norms = np.linalg.norm(matrix, axis=1)
        mask = norms != 0
        similarities = np.zeros_like(norms)
        similarities[mask] = np.dot(matrix[mask], vector) / (norms[mask] * np.linalg.norm(vector))
        return [float(value) for value in similarities.tolist()]
    found = []
    for row in rows:
        dot = sum(a * b for a, b in zip(query, row, strict=False))
        norm1 = sum(a * a for a in query) ** 0.5
        norm2 = sum(a * a for a in row) ** 0.5
        found.append(dot / (norm1 * norm2) if norm1 > 0 and norm2 > 0 else 0.0)
    return found


def _page(
    ordered: list[tuple[float, int]],
    candidates: Sequence[tuple[str, T]],
    scoreless: list[T],
    offset: int,
    limit: int,
) -> list[tuple[T, float | None]]:
    """Each candidate once at its best score, `offset` and `limit` applied as InMemoryStore
    applies them, then unscored candidates up to `limit`."""
    seen: set[int] = set()
    kept: list[tuple[T, float | None]] = []
    for score, position in ordered:
        if position in seen:
            continue
        rank = len(seen)
        seen.add(position)
        if rank >= offset + limit:
            break
        if rank < offset:
            continue
        kept.append((candidates[position][1], score))
    if scoreless and len(kept) < limit:
        kept.extend((payload, None) for payload in scoreless[: limit - len(kept)])
    return kept


def parse_index(config: Any) -> IndexConfig:
    """`config` if it is an index configuration LangGraph accepts (dims and embed), else a
    ValueError naming what is missing."""
    if not isinstance(config, dict) or "dims" not in config or "embed" not in config:
        raise ValueError('index must be a dict with "dims" and "embed" (and optional "fields")')
    return config  # type: ignore[return-value]
