"""The contradiction candidates of a whole store: its files and links from the index, each
pair's two lines dated from the history when there is one.

Archived files are left out (they were set aside on purpose). The history is read only for the
files a pair was found in, so its cost follows the number of candidates, not of files.
"""

from __future__ import annotations

from collections.abc import Collection

from memtui.core.recording.history import History
from memtui.notes.bulk import Pacer
from memtui.notes.contradictions import (
    Contradiction,
    Line,
    MemoryFile,
    find_contradictions,
    judged,
    newest_first,
)
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import from_db
from memtui.notes.line_dates import line_times
from memtui.notes.review_facts import is_archived


def _resolved_links(index: NoteIndex) -> dict[str, set[str]]:
    """relpath -> the other notes its relations resolve to."""
    rows = index.db.connection().execute(
        "SELECT s.path, t.path FROM links l JOIN files s ON s.id = l.source "
        "JOIN files t ON t.id = l.resolved WHERE l.resolved != l.source"
    )
    links: dict[str, set[str]] = {}
    for source, target in rows:
        links.setdefault(from_db(source), set()).add(from_db(target))
    return links


def memory_files(index: NoteIndex, pace: Pacer | None = None) -> list[MemoryFile]:
    """Every note and text file outside the archive, with its text read now."""
    pace = pace or Pacer()
    with index.db.snapshot():
        entries = [entry for entry in index.entries() if not is_archived(entry.path)]
        links = _resolved_links(index)
    files = []
    for entry in entries:
        pace()
        text = index.read_text(entry.path)
        if text is not None:
            files.append(
                MemoryFile(entry.path, entry.title, text, entry.mtime, links.get(entry.path, ()))
            )
    return files


def store_contradictions(
    index: NoteIndex,
    history: History | None = None,
    *,
    kept: Collection[str] = (),
    pace: Pacer | None = None,
) -> list[Contradiction]:
    """Every contradiction candidate of the store, newest first; pairs whose key is in `kept`
    (decided "keep both") are left out. With a history, each line carries the time it was
    written and the newer of a pair is the later written."""
    files = memory_files(index, pace)
    found = find_contradictions(files, kept=kept, pace=pace)
    if history is None or not found:
        return found
    texts = {file.path: file.text for file in files}
    involved = {c.older.path for c in found} | {c.newer.path for c in found}
    times = {path: line_times(history, path, texts[path]) for path in sorted(involved)}
    dated = []
    for pair in found:
        older, newer = (_dated(line, times) for line in (pair.older, pair.newer))
        again = judged(older, newer, pair.subject, kept)
        if again is not None:
            dated.append(again)
    return newest_first(dated)


def _dated(line: Line, times: dict[str, dict[int, float]]) -> Line:
    """A line with the time the history gives it (its file's change time otherwise)."""
    when = times.get(line.path, {}).get(line.line)
    return line if when is None else Line(line.path, line.line, line.text, when, line.section)
