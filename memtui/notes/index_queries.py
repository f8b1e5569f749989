"""The index's read queries that search, review and the contradiction finder ask (the SQL of
`.memtui/index.db` lives here and in the other `index_*` modules, never in their callers)."""

from __future__ import annotations

import sqlite3

from memtui.notes.index_db import LINE_BITS

FILE_KINDS = "f.kind IN (1, 2)"
"""Notes and text files: what search and review look at (binaries are kept out)."""


def count_matching_files(
    conn: sqlite3.Connection, match: str, where: str, params: list[object], cap: int
) -> int:
    """How many notes and text files passing the filters (`where` on `files` as `f`) hold a match
    of the FTS expression `match` in a title, path, frontmatter value or body line, counted up to
    `cap` (each table's matches are read in document order and only until `cap` files)."""
    found: set[int] = set()
    queries = (
        f"SELECT f.id FROM fts_file t JOIN files f ON f.doc = t.rowid "
        f"WHERE t.fts_file MATCH ? AND {FILE_KINDS}{where}",
        f"SELECT f.id FROM fts t JOIN files f ON f.doc = t.rowid >> {LINE_BITS} "
        f"WHERE t.fts MATCH ? AND {FILE_KINDS}{where}",
    )
    for sql in queries:
        cursor = conn.execute(sql, (match, *params))
        try:
            for (file_id,) in cursor:
                found.add(file_id)
                if len(found) >= cap:
                    return cap
        finally:
            cursor.close()
    return len(found)
