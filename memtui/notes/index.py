"""NoteIndex: the store's notes and text files, Basic Memory link resolution, backlinks, orphans,
hubs and counts, answered from the on-disk index that every process shares."""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.notes.bulk import InteractionSignal, Pacer
from memtui.notes.file_checks import shown_part
from memtui.notes.index_db import IndexFile, IndexUnavailable, from_db, to_db
from memtui.notes.index_sync import sync_paths, sync_store
from memtui.notes.index_write import alias_key, project_of, resolve_sql, target_key
from memtui.notes.link_keys import link_slug
from memtui.notes.model import Note, Relation
from memtui.notes.reading import normalise_text, read_store_head
from memtui.notes.records import NOTE, TEXT
from memtui.notes.scan import scan_files

ProgressCallback = Callable[[int, int], None]

UNRESOLVED_PREFIX = "?"
"""Node names in `neighbourhood` for targets that resolve to no note start with this."""
DAMAGED = (11, 26)
"""SQLite's result codes for a damaged file (SQLITE_CORRUPT) and one that is not a database."""

__all__ = ["UNRESOLVED_PREFIX", "IndexUnavailable", "NoteIndex", "alias_key", "normalise_text"]


def is_damage(error: sqlite3.Error) -> bool:
    """Whether an SQLite error says the index file is damaged (then it is rebuilt)."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in DAMAGED


def is_read_only(error: sqlite3.Error) -> bool:
    """Whether an SQLite error says the index file cannot be written here."""
    code = getattr(error, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (8, 14)


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One indexed note or text file as the index's row holds it."""

    path: str
    kind: int
    title: str
    permalink: str | None
    note_type: str | None
    size: int
    mtime_ns: int

    @property
    def mtime(self) -> float:
        """Modification time in seconds."""
        return self.mtime_ns / 1e9


def _entry(row: tuple[Any, ...]) -> FileEntry:
    """A FileEntry from its row (path, kind, title, permalink, note_type, size, mtime_ns)."""
    path, kind, title, permalink, note_type, size, mtime_ns = row
    return FileEntry(
        from_db(path),
        kind,
        from_db(title),
        from_db(permalink) if permalink else None,
        note_type,
        size,
        mtime_ns,
    )


def _maybe(path: str | None) -> str | None:
    """`from_db` of a path that may be missing."""
    return None if path is None else from_db(path)


class NoteIndex:
    """Every note and text file of a store, read from the shared index; each thread reads through
    its own connection, and updates land as whole transactions."""

    def __init__(self, root: Path, db: IndexFile | None = None) -> None:
        """An index of `root` over `db` (a private empty one when None); use `load` to fill it."""
        self.root = Path(root)
        self.db = db if db is not None else IndexFile.open_private()
        self.notes = NotesView(self)
        """relpath -> Note of every Basic Memory note (`.md`), parsed from its file on access."""
        self.texts = TextsView(self)
        """relpath -> searchable text (the shown part, `\\n` line ends) of every text file."""
        self.problems: list[str] = []
        """One line per entry that is not indexed, e.g. `a/b.md: not a regular file, skipped`."""
        self.timings: dict[str, float] = {}
        """Seconds spent per load phase: scan, compare, write."""

    # ----- loading -----------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        root: str | Path,
        *,
        use_cache: bool = True,
        progress: ProgressCallback | None = None,
    ) -> NoteIndex:
        """The index of `root`, brought up to date: only files whose size or mtime changed since
        any memtui process indexed them are read. With `use_cache` False the index is private
        and built from scratch. Raises IndexUnavailable (one line) when it cannot be used."""
        index = cls.open(root, use_cache=use_cache)
        index.refresh(progress)
        return index

    @classmethod
    def open(cls, root: str | Path, *, use_cache: bool = True) -> NoteIndex:
        """The index of `root` as it stands on disk, not yet checked against the files (call
        `refresh`): it answers at once with what any memtui process last indexed."""
        return cls(Path(root), IndexFile.open(Path(root), shared=use_cache))

    def is_empty(self) -> bool:
        """Whether the index holds no file yet (never built, or the store is empty)."""
        return self._conn().execute("SELECT 1 FROM files LIMIT 1").fetchone() is None

    def refresh(
        self,
        progress: ProgressCallback | None = None,
        *,
        interaction: InteractionSignal | None = None,
    ) -> set[str]:
        """Walk the store and index what changed since the index last saw it; returns those paths.
        The walk rests more while `interaction` says someone is using the app that asked.

        A damaged index file is replaced and rebuilt; one this process may not write is replaced
        by a private index.
        """
        started = time.perf_counter()
        scan = scan_files(self.root, ordered=False, pace=Pacer(interaction))
        self.timings = {"scan": time.perf_counter() - started}
        try:
            outcome = sync_store(self.db, self.root, scan.stats, progress)
        except sqlite3.DatabaseError as error:
            if not (is_damage(error) or is_read_only(error)):
                raise
            self._replace(private=is_read_only(error))
            outcome = sync_store(self.db, self.root, scan.stats, progress)
        self.timings.update(outcome.timings)
        self.problems = sorted({*scan.problems, *outcome.unreadable, *self._skipped()})
        return outcome.changed

    def _replace(self, *, private: bool) -> None:
        """Start again from an empty index: the shared file made afresh, or a private one."""
        if private or self.db.private:
            self.db.close()
            self.db = IndexFile.open_private()
        else:
            self.db.reset()

    def _skipped(self) -> list[str]:
        """The binary files the index keeps out of search, each with why."""
        rows = self._conn().execute("SELECT path, info FROM files WHERE kind = 3").fetchall()
        return [
            f"{from_db(path)}: {json.loads(info).get('problem', 'skipped')}" for path, info in rows
        ]

    def update_paths(self, relpaths: Iterable[str]) -> set[str]:
        """Index these paths again (added, changed, deleted or renamed); a folder path stands for
        every file below it. Returns the paths whose record changed."""
        relpaths = list(relpaths)
        outcome = sync_paths(self.db, self.root, relpaths)
        names = {p.strip("/") for p in relpaths}
        kept = [
            p
            for p in self.problems
            if not any(p.startswith(n + ": ") or p.startswith(n + "/") for n in names)
        ]
        self.problems = sorted({*kept, *outcome.unreadable})
        return outcome.changed

    def close(self) -> None:
        """Close this index's connections (a private index's file goes with it)."""
        self.db.close()

    def _conn(self) -> sqlite3.Connection:
        """This thread's connection to the index."""
        return self.db.connection()

    def generation(self) -> int:
        """A number that grows with every change written to the index (by any process)."""
        row = self._conn().execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
        return int(row[0]) if row is not None else 0

    # ----- one file ----------------------------------------------------------------------------

    def _value(self, column: str, relpath: str, kinds: str = "1, 2, 3") -> Any:
        """One column of a file's row (of one of `kinds`), or None when there is none."""
        row = (
            self._conn()
            .execute(
                f"SELECT {column} FROM files WHERE path = ? AND kind IN ({kinds})",
                (to_db(relpath),),
            )
            .fetchone()
        )
        return None if row is None else row[0]

    def kind(self, relpath: str) -> int | None:
        """NOTE, TEXT or BINARY for an indexed file, None for a path the index does not hold."""
        return self._value("kind", relpath)  # type: ignore[no-any-return]

    def title(self, relpath: str) -> str | None:
        """One note's title, or None when it is not indexed."""
        title = self._value("title", relpath, "1")
        return None if title is None else from_db(title)

    def permalink(self, relpath: str) -> str | None:
        """One note's permalink, or None when it is not indexed."""
        if self.kind(relpath) != NOTE:
            return None
        return from_db(self._value("permalink", relpath, "1") or "")

    def titles(self) -> dict[str, str]:
        """relpath -> title of every note and text file, in path order."""
        rows = (
            self._conn()
            .execute("SELECT path, title FROM files WHERE kind IN (1, 2) ORDER BY path")
            .fetchall()
        )
        return {from_db(path): from_db(title) for path, title in rows}

    def file_stats(self) -> dict[str, tuple[int, int]]:
        """relpath -> (size, mtime_ns) of every indexed file as it was read."""
        rows = self._conn().execute("SELECT path, size, mtime_ns FROM files").fetchall()
        return {from_db(path): (size, mtime_ns) for path, size, mtime_ns in rows}

    def entry(self, relpath: str) -> FileEntry | None:
        """What the index knows of one note or text file without reading it, or None."""
        row = (
            self._conn()
            .execute(
                "SELECT path, kind, title, permalink, note_type, size, mtime_ns FROM files "
                "WHERE path = ? AND kind IN (1, 2)",
                (to_db(relpath),),
            )
            .fetchone()
        )
        return None if row is None else _entry(row)

    def entries(self, *, since_ns: int | None = None) -> list[FileEntry]:
        """Every note and text file (changed at or after `since_ns`, when given), in path order."""
        rows = (
            self._conn()
            .execute(
                "SELECT path, kind, title, permalink, note_type, size, mtime_ns FROM files "
                "WHERE kind IN (1, 2) AND mtime_ns >= ? ORDER BY path",
                (since_ns if since_ns is not None else -(2**63),),
            )
            .fetchall()
        )
        return [_entry(row) for row in rows]

    def notes_under(self, relpath: str) -> set[str]:
        """The note at `relpath`, or every note in the folder at `relpath`."""
        folder = to_db(relpath.strip("/"))
        rows = (
            self._conn()
            .execute(
                "SELECT path FROM files WHERE kind = 1 AND (path = ? OR (path > ? AND path < ?))",
                (folder, folder + "/", folder + "0"),
            )
            .fetchall()
        )
        return {from_db(row[0]) for row in rows}

    def info(self, relpath: str) -> dict[str, Any]:
        """The stored extras of a file: warnings, frontmatter dates, search lines."""
        row = (
            self._conn()
            .execute("SELECT info FROM files WHERE path = ?", (to_db(relpath),))
            .fetchone()
        )
        return {} if row is None else dict(json.loads(row[0]))

    def read_text(self, relpath: str) -> str | None:
        """A file's searchable text read now (its shown part, `\\n` line ends), None if
        unreadable."""
        try:
            head = read_store_head(self.root, relpath)
        except OSError:
            return None
        return shown_part(normalise_text(head.data))

    def note_from_disk(self, relpath: str) -> Note | None:
        """The note at `relpath` parsed from its file now (within the cap), None if not indexed."""
        row = (
            self._conn()
            .execute(
                "SELECT title, permalink, note_type, info FROM files WHERE path = ? AND kind = 1",
                (to_db(relpath),),
            )
            .fetchone()
        )
        if row is None:
            return None
        try:
            head = read_store_head(self.root, relpath)
        except OSError as error:
            title, permalink, note_type, info = from_db(row[0]), row[1], row[2], row[3]
            note = Note(relpath, title, {"title": title, "type": note_type})
            note.permalink, note.note_type = from_db(permalink or ""), note_type or "note"
            note.warnings = [
                *json.loads(info).get("warnings", []),
                f"could not read the file ({error.strerror or error})",
            ]
            note.relations = self._relations(relpath)
            return note
        from memtui.notes.parser import parse_note  # 55 ms of imports a warm search never needs

        return parse_note(head.data, relpath, mtime=head.mtime, size=head.size)

    # ----- resolution --------------------------------------------------------------------------

    target_key = staticmethod(target_key)

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The relpath a link target points at, or None; `./x.md` targets are relative to
        `source`."""
        key = to_db(target_key(target, source))
        slug = link_slug(target)
        conn = self._conn()
        row = conn.execute(
            f"SELECT path FROM files WHERE id = {resolve_sql('?1', '?2', '?3', '?4')}",
            (key, alias_key(key), None if slug is None else to_db(slug), project_of(conn)),
        ).fetchone()
        return None if row is None else from_db(row[0])

    @contextmanager
    def moved(self, moves: Mapping[str, tuple[str, str, str]]) -> Iterator[NoteIndex]:
        """How the index would resolve links once some notes moved, by its own rules: a view that
        answers `resolve`, `title` and `permalink` inside the block, never seen by anyone else.

        `moves`: old relpath -> (new relpath, title there, permalink there). The moves are made in
        a transaction of a connection of its own that is rolled back at the end.
        """
        view = _MovedView(self)
        conn = view._conn()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for old_path, (new_path, title, permalink) in moves.items():
                old, new = to_db(old_path), to_db(new_path)
                conn.execute("DELETE FROM files WHERE path = ? AND path != ?", (new, old))
                conn.execute(
                    "UPDATE files SET path = ?, title = ?, permalink = ?, alias = ? "
                    "WHERE path = ? AND kind = 1",
                    (
                        new,
                        to_db(title),
                        to_db(permalink) if permalink else None,
                        alias_key(new.removesuffix(".md")),
                        old,
                    ),
                )
            yield view
        finally:
            conn.execute("ROLLBACK")
            view.close()

    # ----- links -------------------------------------------------------------------------------

    def _relations(self, relpath: str) -> list[Relation]:
        """A note's relations in file order, from the index."""
        rows = (
            self._conn()
            .execute(
                "SELECT relation_type, target, context, line FROM links WHERE source = "
                "(SELECT id FROM files WHERE path = ?) ORDER BY ord",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return [Relation(*row) for row in rows]

    def outgoing(self, relpath: str) -> list[tuple[Relation, str | None]]:
        """Each relation of a note with the relpath it resolves to (None when unresolved)."""
        rows = (
            self._conn()
            .execute(
                "SELECT l.relation_type, l.target, l.context, l.line, t.path FROM files s "
                "JOIN links l ON l.source = s.id LEFT JOIN files t ON t.id = l.resolved "
                "WHERE s.path = ? AND s.kind = 1 ORDER BY l.ord",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return [(Relation(*row[:4]), _maybe(row[4])) for row in rows]

    def backlinks(self, relpath: str) -> list[tuple[str, Relation]]:
        """Every (source relpath, relation) that points at this note, ordered by source and line."""
        rows = (
            self._conn()
            .execute(
                "SELECT s.path, l.relation_type, l.target, l.context, l.line FROM files t "
                "JOIN links l ON l.resolved = t.id JOIN files s ON s.id = l.source "
                "WHERE t.path = ? ORDER BY s.path, l.ord",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return [(from_db(row[0]), Relation(*row[1:])) for row in rows]

    def unresolved(self) -> dict[str, list[tuple[str, Relation]]]:
        """Unresolved target text -> the (source relpath, relation) pairs that use it, sorted."""
        rows = (
            self._conn()
            .execute(
                "SELECT l.target, s.path, l.relation_type, l.context, l.line FROM links l "
                "JOIN files s ON s.id = l.source WHERE l.resolved IS NULL "
                "ORDER BY l.target, s.path, l.ord"
            )
            .fetchall()
        )
        result: dict[str, list[tuple[str, Relation]]] = {}
        for target, source, relation_type, context, line in rows:
            relation = Relation(relation_type, target, context, line)
            result.setdefault(target, []).append((from_db(source), relation))
        return result

    def unresolved_uses(self) -> dict[str, list[tuple[str, int]]]:
        """Unresolved target text -> (source relpath, relations of it using the target), sorted."""
        rows = (
            self._conn()
            .execute(
                "SELECT l.target, s.path, count(*) FROM links l JOIN files s ON s.id = l.source "
                "WHERE l.resolved IS NULL GROUP BY l.target, s.path ORDER BY l.target, s.path"
            )
            .fetchall()
        )
        result: dict[str, list[tuple[str, int]]] = {}
        for target, source, used in rows:
            result.setdefault(target, []).append((from_db(source), used))
        return result

    def unresolved_sources(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each unresolved target text with the notes that use it."""
        for target, uses in self.unresolved_uses().items():
            yield target, tuple(source for source, _count in uses)

    def unresolved_targets(self, relpath: str) -> list[str]:
        """The distinct unresolved targets of one note, in the order they appear."""
        rows = (
            self._conn()
            .execute(
                "SELECT l.target FROM files s JOIN links l ON l.source = s.id "
                "WHERE s.path = ? AND l.resolved IS NULL ORDER BY l.ord",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return list(dict.fromkeys(row[0] for row in rows))

    def unresolved_counts(self) -> dict[str, list[str]]:
        """relpath -> its distinct unresolved targets in order, for every note that has any."""
        rows = (
            self._conn()
            .execute(
                "SELECT s.path, l.target FROM links l JOIN files s ON s.id = l.source "
                "WHERE l.resolved IS NULL ORDER BY s.path, l.ord"
            )
            .fetchall()
        )
        result: dict[str, dict[str, None]] = {}
        for path, target in rows:
            result.setdefault(from_db(path), {})[target] = None
        return {path: list(targets) for path, targets in result.items()}

    def warnings(self, relpath: str) -> list[str]:
        """The note's parse warnings plus one `unresolved link: T` per unresolved target."""
        if self.kind(relpath) != NOTE:
            return list(self.info(relpath).get("warnings", [])) if self.kind(relpath) else []
        extra = [f"unresolved link: {target}" for target in self.unresolved_targets(relpath)]
        return [*self.info(relpath).get("warnings", []), *extra]

    def linked_notes(self, relpath: str) -> set[str]:
        """Other notes this note links to or is linked from (resolved links only)."""
        rows = (
            self._conn()
            .execute(
                "WITH me AS (SELECT id FROM files WHERE path = ?) "
                "SELECT t.path FROM links l JOIN files t ON t.id = l.resolved "
                "WHERE l.source = (SELECT id FROM me) AND l.resolved != l.source "
                "UNION SELECT s.path FROM links l JOIN files s ON s.id = l.source "
                "WHERE l.resolved = (SELECT id FROM me) AND l.source != l.resolved",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return {from_db(row[0]) for row in rows}

    def linked(self) -> set[str]:
        """Every note with a resolved link to or from another note."""
        rows = (
            self._conn()
            .execute(
                "SELECT f.path FROM files f WHERE f.id IN (SELECT source FROM links "
                "WHERE resolved IS NOT NULL AND resolved != source "
                "UNION SELECT resolved FROM links "
                "WHERE resolved IS NOT NULL AND resolved != source)"
            )
            .fetchall()
        )
        return {from_db(row[0]) for row in rows}

    def orphans(self) -> list[str]:
        """Notes with no resolved link to or from another note, sorted."""
        linked = self.linked()
        return [p for p in self.notes if p not in linked]

    def hubs(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most connected notes: (relpath, number of distinct linked notes), most first."""
        rows = (
            self._conn()
            .execute(
                "WITH pairs AS (SELECT source AS a, resolved AS b FROM links "
                "WHERE resolved IS NOT NULL AND resolved != source UNION "
                "SELECT resolved, source FROM links "
                "WHERE resolved IS NOT NULL AND resolved != source) "
                "SELECT f.path, count(*) AS degree FROM pairs JOIN files f ON f.id = pairs.a "
                "GROUP BY pairs.a ORDER BY degree DESC, f.path LIMIT ?",
                (limit,),
            )
            .fetchall()
        )
        return [(from_db(path), int(degree)) for path, degree in rows]

    # ----- counts ------------------------------------------------------------------------------

    def note_tags(self, relpath: str) -> set[str]:
        """Every tag a note carries: frontmatter tags and observation tags."""
        rows = (
            self._conn()
            .execute(
                "SELECT tag FROM tags WHERE file = (SELECT id FROM files WHERE path = ?)",
                (to_db(relpath),),
            )
            .fetchall()
        )
        return {row[0] for row in rows}

    def tag_counts(self) -> Counter[str]:
        """Tag -> number of notes carrying it (in frontmatter or any observation)."""
        rows = self._conn().execute("SELECT tag, count(*) FROM tags GROUP BY tag").fetchall()
        return Counter(dict(rows))

    def category_counts(self) -> Counter[str]:
        """Observation category -> number of observations (uncategorised ones are not counted)."""
        rows = (
            self._conn()
            .execute("SELECT category, sum(count) FROM categories GROUP BY category")
            .fetchall()
        )
        return Counter(dict(rows))

    def type_counts(self) -> Counter[str]:
        """Note type -> number of notes."""
        rows = (
            self._conn()
            .execute("SELECT note_type, count(*) FROM files WHERE kind = 1 GROUP BY note_type")
            .fetchall()
        )
        return Counter(dict(rows))

    def neighbourhood(
        self, relpath: str, depth: int
    ) -> tuple[set[str], list[tuple[str, str, str]]]:
        """Notes within `depth` links of `relpath` in either direction, and the edges among them.

        Nodes are relpaths, plus `?target` for unresolved targets; edges are (source, target,
        relation_type), each once, sorted.
        """
        if relpath not in self.notes:
            return set(), []
        nodes: set[str] = {relpath}
        edges: set[tuple[str, str, str]] = set()
        queue: deque[tuple[str, int]] = deque([(relpath, 0)])
        with self.db.snapshot():
            while queue:
                current, distance = queue.popleft()
                if distance >= depth or current.startswith(UNRESOLVED_PREFIX):
                    continue
                neighbours: list[str] = []
                for relation, target in self.outgoing(current):
                    node = target if target is not None else UNRESOLVED_PREFIX + relation.target
                    edges.add((current, node, relation.relation_type))
                    neighbours.append(node)
                for source, relation in self.backlinks(current):
                    edges.add((source, current, relation.relation_type))
                    neighbours.append(source)
                for node in neighbours:
                    if node not in nodes:
                        nodes.add(node)
                        queue.append((node, distance + 1))
        kept = sorted(e for e in edges if e[0] in nodes and e[1] in nodes)
        return nodes, kept


class _MovedView(NoteIndex):
    """A NoteIndex on a connection of its own (for `NoteIndex.moved`)."""

    def __init__(self, index: NoteIndex) -> None:
        """Share `index`'s file, with a separate connection."""
        super().__init__(index.root, IndexFile(index.db.path, None, private=False))

    def close(self) -> None:
        """Close the view's connection (the file stays)."""
        self.db.close()


class NotesView(Mapping[str, Note]):
    """relpath -> Note of every indexed note; a note is parsed from its file when asked for."""

    def __init__(self, index: NoteIndex) -> None:
        """The notes of `index`."""
        self._index = index

    def __getitem__(self, relpath: str) -> Note:
        """The note at `relpath` (KeyError when the index holds none there)."""
        note = self._index.note_from_disk(relpath)
        if note is None:
            raise KeyError(relpath)
        return note

    def __contains__(self, relpath: object) -> bool:
        """Whether a note is indexed at `relpath`."""
        if not isinstance(relpath, str):
            return False
        row = (
            self._index._conn()
            .execute("SELECT 1 FROM files WHERE path = ? AND kind = 1", (to_db(relpath),))
            .fetchone()
        )
        return row is not None

    def __iter__(self) -> Iterator[str]:
        """Relpaths of the notes in path order (a snapshot)."""
        rows = (
            self._index._conn()
            .execute("SELECT path FROM files WHERE kind = 1 ORDER BY path")
            .fetchall()
        )
        return iter([from_db(row[0]) for row in rows])

    def __len__(self) -> int:
        """Number of notes."""
        return int(
            self._index._conn().execute("SELECT count(*) FROM files WHERE kind = 1").fetchone()[0]
        )

    def __repr__(self) -> str:
        """A short summary."""
        return f"<notes of {self._index.root}: {len(self)}>"

    def warned(self) -> list[str]:
        """Relpaths of the notes with parse warnings, in path order."""
        rows = (
            self._index._conn()
            .execute("SELECT path FROM files WHERE kind = 1 AND warned ORDER BY path")
            .fetchall()
        )
        return [from_db(row[0]) for row in rows]

    def read_only(self) -> list[str]:
        """Relpaths of the notes whose frontmatter says `read_only: true`, in path order."""
        rows = (
            self._index._conn()
            .execute(
                "SELECT path FROM files WHERE kind = 1 AND instr(info, '\"read_only\"') > 0"
                " AND json_extract(info, '$.read_only') ORDER BY path"
            )
            .fetchall()
        )
        return [from_db(row[0]) for row in rows]


class TextsView(Mapping[str, str]):
    """relpath -> the searchable text of every indexed note and text file, read when asked for."""

    def __init__(self, index: NoteIndex) -> None:
        """The texts of `index`."""
        self._index = index

    def __getitem__(self, relpath: str) -> str:
        """The text at `relpath` (KeyError when not indexed or unreadable now)."""
        if self._index.kind(relpath) not in (NOTE, TEXT):
            raise KeyError(relpath)
        text = self._index.read_text(relpath)
        if text is None:
            raise KeyError(relpath)
        return text

    def __contains__(self, relpath: object) -> bool:
        """Whether a text file is indexed at `relpath`."""
        return isinstance(relpath, str) and self._index.kind(relpath) in (NOTE, TEXT)

    def __iter__(self) -> Iterator[str]:
        """Relpaths of the text files in path order."""
        return iter(self._index.titles())

    def __len__(self) -> int:
        """Number of text files."""
        return int(
            self._index._conn()
            .execute("SELECT count(*) FROM files WHERE kind IN (1, 2)")
            .fetchone()[0]
        )
