"""The index's read queries that search, review and the contradiction finder ask (the SQL of
`.memtui/index.db` lives here and in the other `index_*` modules, never in their callers)."""

from __future__ import annotations

import sqlite3

from memtui.notes.index_db import LINE_BITS

FILE_KINDS = "f.kind IN (1, 2)"
"""Notes and text files: what search and review look at (binaries are kept out)."""
COUNT_ROWS = 2_000
"""Matching rows a count reads of each full-text table, at most (a common word's lines run to
millions in a large store; past this many the count is a lower bound)."""


def count_matching_files(
    conn: sqlite3.Connection,
    match: str,
    where: str,
    params: list[object],
    cap: int,
    rows: int = COUNT_ROWS,
) -> tuple[int, bool]:
    """How many notes and text files passing the filters (`where` on `files` as `f`) hold a match
    of the FTS expression `match` in a title, path, frontmatter value or body line, and whether
    that is all of them: the matches are read in document order, at most `rows` of each table,
    until `cap` files are found."""
    found: set[int] = set()
    complete = True
    queries = (
        f"SELECT f.id FROM fts_file t JOIN files f ON f.doc = t.rowid "
        f"WHERE t.fts_file MATCH ? AND {FILE_KINDS}{where}",
        f"SELECT f.id FROM fts t JOIN files f ON f.doc = t.rowid >> {LINE_BITS} "
        f"WHERE t.fts MATCH ? AND {FILE_KINDS}{where}",
    )
    for sql in queries:
        cursor = conn.execute(f"{sql} LIMIT ?", (match, *params, rows + 1))
        try:
            for number, (file_id,) in enumerate(cursor):
                if number == rows or len(found) >= cap:
                    complete = False
                    break
                found.add(file_id)
        finally:
            cursor.close()
    return min(len(found), cap), complete and len(found) < cap
