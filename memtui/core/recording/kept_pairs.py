"""Pairs of statements a person decided to keep both of, so they are not proposed again.

Kept in the history database's `meta` table (one row per pair, keyed `kept-pair:<key>`), so the
decision lives in `.memtui/` beside the review marks, is shared by every process of the store
and needs no schema change. The key is the caller's identity of the pair (for contradictions,
`notes.contradictions.pair_key`); the row also keeps who decided, when, and the two texts.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass

PREFIX = "kept-pair:"


@dataclass(frozen=True)
class KeptPair:
    """One "keep both" decision: the pair's key, who made it and when, and the two texts."""

    key: str
    actor: str
    time: float
    texts: tuple[str, str]


class KeptPairs:
    """The kept pairs of one history, read and written on its connection."""

    def __init__(
        self,
        connection: Callable[[], sqlite3.Connection],
        writing: Callable[[sqlite3.Connection], AbstractContextManager[list[str]]],
    ) -> None:
        """The kept pairs of the history whose connection `connection` gives, written in
        `writing`'s transactions."""
        self._connection = connection
        self._writing = writing

    def keep(self, pair: KeptPair) -> None:
        """Remember a pair as kept (again: the newer decision replaces the older)."""
        value = json.dumps(
            {"actor": pair.actor, "time": pair.time, "texts": list(pair.texts)},
            ensure_ascii=False,
        )
        conn = self._connection()
        with self._writing(conn):
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (PREFIX + pair.key, value)
            )

    def forget(self, key: str) -> bool:
        """Forget a kept pair (its decision undone); False when it was not kept."""
        conn = self._connection()
        with self._writing(conn):
            gone = conn.execute("DELETE FROM meta WHERE key = ?", (PREFIX + key,)).rowcount
        return gone > 0

    def keys(self) -> frozenset[str]:
        """The key of every kept pair."""
        rows = self._connection().execute(
            "SELECT key FROM meta WHERE key >= ? AND key < ?", (PREFIX, PREFIX[:-1] + ";")
        )
        return frozenset(str(row[0])[len(PREFIX) :] for row in rows)

    def all(self) -> Iterator[KeptPair]:
        """Every kept pair, in key order (a row that is not what memtui wrote is skipped)."""
        rows = self._connection().execute(
            "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key",
            (PREFIX, PREFIX[:-1] + ";"),
        )
        for key, value in rows.fetchall():
            try:
                data = json.loads(value)
                texts = data["texts"]
                yield KeptPair(
                    str(key)[len(PREFIX) :],
                    str(data["actor"]),
                    float(data["time"]),
                    (str(texts[0]), str(texts[1])),
                )
            except (ValueError, TypeError, KeyError, IndexError):
                continue
