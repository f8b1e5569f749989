"""Writing the index: files added, changed or gone become rows, documents and resolved links, one
transaction per batch, so every reader (any thread, any process) sees a whole state."""

from __future__ import annotations

import json
import posixpath
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from memtui.core.resolving.regular import Head
from memtui.notes.file_checks import shown_part
from memtui.notes.index_db import (
    LINE_BITS,
    SCHEMA,
    SECONDARY_INDEXES,
    from_db,
    inode_from_db,
    inode_to_db,
    to_db,
    transaction,
)
from memtui.notes.index_seal import seal, seal_key
from memtui.notes.link_keys import link_slug
from memtui.notes.reading import normalise_text
from memtui.notes.records import BINARY, NOTE, FileRecord, after_line

ProgressCallback = Callable[[int, int], None]

WORD_RE = re.compile(r"\w+")
"""What search counts as a word (the index's tokenizer splits the same way)."""
BULK_FILES = 1000
"""A sync writing this many files takes the whole vocabulary from the full-text index afterwards;
a smaller one adds the words of what it wrote."""
DEAD_DOCS_MIN = 1000
"""Documents of changed or deleted files stay in the full-text index (it keeps no text to remove
them with) until there are this many and a quarter of the live ones; then it is rebuilt."""
DOC_GAP = 1 << 16
"""Document numbers a build leaves between two files, so a file read again or a new file takes
a number between its neighbours' and the full-text tables stay in path order."""
DOC_STEP = 1 << 8
"""How far past its predecessor a new file's number goes (the rest of the gap stays free for
files added after it)."""
MAX_LINE = (1 << LINE_BITS) - 1

RESOLVE = """CASE WHEN {slug} IS NULL THEN
    (SELECT id FROM files WHERE path = {key} AND kind = 1)
ELSE COALESCE(
    (SELECT id FROM files WHERE permalink = {key} AND kind = 1 ORDER BY path LIMIT 1),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files
        WHERE permalink = {slug} AND kind = 1),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files
        WHERE permalink = {project} || '/' || {slug} AND kind = 1
        AND {slug} != {project} AND NOT {slug_in_project}),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files
        WHERE permalink = substr({key}, length({project}) + 2) AND kind = 1
        AND {slug_in_project} AND substr({key}, 1, length({project}) + 1) = {project} || '/'),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files
        WHERE permalink = substr({slug}, length({project}) + 2) AND kind = 1
        AND {slug_in_project}),
    (SELECT id FROM files WHERE title = {key} AND kind = 1 ORDER BY path LIMIT 1),
    (SELECT id FROM files WHERE path = {key} AND kind = 1),
    (SELECT id FROM files WHERE path = {key} || '.md' AND kind = 1),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files WHERE kind = 1 AND (
        alias = {alias} OR (substr({alias}, -3) = '.md'
            AND alias = substr({alias}, 1, length({alias}) - 3)))),
    (SELECT id FROM files WHERE title = {rest} AND kind = 1 AND {slug_in_project}
        ORDER BY path LIMIT 1),
    (SELECT id FROM files WHERE path = {rest} AND kind = 1 AND {slug_in_project}),
    (SELECT id FROM files WHERE path = {rest} || '.md' AND kind = 1 AND {slug_in_project}),
    (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM files WHERE kind = 1
        AND {slug_in_project} AND alias = replace(lower({rest}), '_', '-')))
END"""
"""Basic Memory's strict resolution of a link target (its bulk link resolver), the one rule every
lookup uses. A path target (`./x.md`, no slug) is the note at that path. Any other target is
the note with that permalink, or the only note with the target as a permalink (its slug), under
the store's project prefix too, or with the prefix taken off a target that carries it (only one:
Basic Memory's permalinks are unique, the ones memtui derives from paths may not be); else the
note with that title (the first path in order on a tie), that path, that path plus `.md`, the
only note whose path matches ignoring case and `_`/`-`; else, for a target starting with the
project prefix, the title or path after the prefix."""


def resolve_sql(key: str, alias: str, slug: str, project: str) -> str:
    """RESOLVE for SQL expressions giving a link's key, alias and slug and the store's project
    prefix (NULL when its notes carry none)."""
    return RESOLVE.format(
        key=key,
        alias=alias,
        slug=slug,
        project=project,
        rest=f"substr({key}, instr({key}, '/') + 1)",
        slug_in_project=f"(substr({slug}, 1, length({project}) + 1) = {project} || '/')",
    )


def project_of(conn: sqlite3.Connection) -> str | None:
    """The project prefix the store's notes carry (meta `project`), None when there is none."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'project'").fetchone()
    return None if row is None else str(row[0])


def settle_project(conn: sqlite3.Connection) -> bool:
    """Take as the store's project prefix the one at least half of its notes' permalinks carry
    (most notes first, then the first by name); whether it changed."""
    notes = conn.execute("SELECT count(*) FROM files WHERE kind = 1").fetchone()[0]
    row = conn.execute(
        "SELECT project, count(*) AS uses FROM files WHERE kind = 1 AND project IS NOT NULL "
        "GROUP BY project ORDER BY uses DESC, project LIMIT 1"
    ).fetchone()
    project = row[0] if row is not None and row[1] * 2 >= notes else None
    if project == project_of(conn):
        return False
    if project is None:
        conn.execute("DELETE FROM meta WHERE key = 'project'")
    else:
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('project', ?)", (project,))
    return True


def alias_key(path: str) -> str:
    """The case- and `_`/`-`-insensitive form of a path used for the last resolution step."""
    return path.lower().replace("_", "-")


def target_key(target: str, source: str | None) -> str:
    """The lookup key of a relation target: a path target is made root-relative (`./x.md` and
    `../x.md` from the linking note's folder, `/x.md` from the root)."""
    target = target.strip()
    if target.startswith("/"):
        return posixpath.normpath("/" + target.lstrip("/")).lstrip("/")
    if target.startswith(("./", "../")):
        folder = posixpath.dirname(source) if source is not None else ""
        return posixpath.normpath(posixpath.join(folder, target))
    return target


def _path_keys(relpath: str) -> tuple[str, str]:
    """The exact lookup keys a note's path answers to: with and without `.md`."""
    return relpath, relpath[:-3] if relpath.endswith(".md") else relpath


@dataclass
class Written:
    """What one write changed: the paths, and the lookup keys (as the index stores them) whose
    links must be resolved again."""

    paths: set[str] = field(default_factory=set)
    sources: set[int] = field(default_factory=set)
    aliases: set[str] = field(default_factory=set)
    slugs: set[str] = field(default_factory=set)
    project: str | None = None
    """The store's project prefix as the transaction began."""
    words: set[str] = field(default_factory=set)
    records: int = 0
    key: bytes = b""
    """The index's seal key (set per transaction)."""
    docs: DocNumbers | None = None
    """Where new document numbers come from (set per transaction)."""
    links: list[tuple[object, ...]] = field(default_factory=list)
    tags: list[tuple[int, str]] = field(default_factory=list)
    categories: list[tuple[int, str, int]] = field(default_factory=list)
    heads: list[tuple[int, str, str, str]] = field(default_factory=list)
    lines: list[tuple[int, str]] = field(default_factory=list)
    """Rows to insert at the end of the transaction, all at once."""

    def flush(self, conn: sqlite3.Connection) -> None:
        """Insert the collected full-text, link, tag and category rows."""
        conn.executemany(
            "INSERT INTO fts_file (rowid, title, path, meta) VALUES (?, ?, ?, ?)", self.heads
        )
        conn.executemany("INSERT INTO fts (rowid, text) VALUES (?, ?)", self.lines)
        conn.executemany(
            "INSERT INTO links (source, ord, relation_type, target, context, line, target_key, "
            "target_alias, target_slug) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            self.links,
        )
        conn.executemany("INSERT OR IGNORE INTO tags (file, tag) VALUES (?, ?)", self.tags)
        conn.executemany(
            "INSERT INTO categories (file, category, count) VALUES (?, ?, ?)", self.categories
        )
        self.links, self.tags, self.categories, self.heads, self.lines = [], [], [], [], []

    def add_keys(self, path: str, title: str | None, permalink: str | None) -> None:
        """The alias of every key a note answers to (permalink, title, paths) and the slugs its
        permalink answers (with and without the project prefix): a link whose target has one
        of these aliases or slugs may resolve differently now."""
        prefix = f"{self.project}/" if self.project else ""
        for key in (permalink, title, *_path_keys(path)):
            if key:
                self.aliases.add(alias_key(key))
                if prefix and key != permalink:
                    self.aliases.add(alias_key(prefix + key))
        if permalink:
            self.slugs.add(permalink)
            if prefix:
                self.slugs.add(prefix + permalink)
                if permalink.startswith(prefix):
                    self.slugs.add(permalink[len(prefix) :])


class DocNumbers:
    """Hands out document numbers that keep the full-text tables in path order: past the last
    one in a first build (its files come in path order), else between the file's neighbours.
    With no number free there, the order is given up until the next compaction."""

    def __init__(self, conn: sqlite3.Connection, *, in_order: bool) -> None:
        """Numbers for one transaction on `conn`; `in_order`: the files come in path order and
        after every file indexed so far (a first build)."""
        self.top = _meta(conn, "top_doc")
        self.ordered = bool(_meta(conn, "ordered"))
        self.in_order = in_order

    def new(self, conn: sqlite3.Connection, path: str, old: int | None) -> int:
        """A number for the file at `path` (as stored), whose previous number was `old`."""
        if not self.ordered:
            doc = self.top + 1
        elif self.in_order:
            doc = self.top + DOC_GAP
        else:
            doc = self._between(conn, path, old)
        self.top = max(self.top, doc)
        return doc

    def _between(self, conn: sqlite3.Connection, path: str, old: int | None) -> int:
        """A free number between those of the files before and after `path`."""
        before = conn.execute(
            "SELECT doc FROM files WHERE path < ? AND doc IS NOT NULL ORDER BY path DESC LIMIT 1",
            (path,),
        ).fetchone()
        after = conn.execute(
            "SELECT doc FROM files WHERE path > ? AND doc IS NOT NULL ORDER BY path LIMIT 1",
            (path,),
        ).fetchone()
        low = before[0] if before is not None else 0
        if after is None:
            return max(self.top, low) + DOC_GAP
        high = after[0]
        starts = [low + max(1, min(DOC_STEP, (high - low) // 2))]
        if old is not None and low < old < high:
            starts.insert(0, old + 1)
        for doc in starts:
            while low < doc < high and _is_dead(conn, doc):
                doc += 1
            if low < doc < high:
                return doc
        self.ordered = False
        return self.top + 1


def _is_dead(conn: sqlite3.Connection, doc: int) -> bool:
    """Whether a document number was used before (its rows may still be in the full-text tables)."""
    return conn.execute("SELECT 1 FROM dead WHERE doc = ?", (doc,)).fetchone() is not None


def body_lines(doc: int, body: str, first_line: int) -> list[tuple[int, str]]:
    """The full-text rows of a body starting at 1-based `first_line`: (rowid, line) for every
    line that is not empty."""
    base = doc << LINE_BITS
    return [
        (base + number, line)
        for number, line in enumerate(body.split("\n"), first_line)
        if line and number <= MAX_LINE
    ]


def record_info(record: FileRecord) -> str:
    """The JSON of the fields few readers need (warnings, frontmatter dates, search lines)."""
    info: dict[str, object] = {}
    for key, value in (
        ("warnings", record.warnings),
        ("meta", record.meta_lines),
        ("expires", record.expires),
        ("verified", record.verified),
        ("sample", record.sample_hash),
        ("lead", record.lead_hash),
        ("problem", record.problem),
        ("read_only", record.read_only),
    ):
        if value:
            info[key] = value
    return json.dumps(info, ensure_ascii=False)


def _meta(conn: sqlite3.Connection, key: str) -> int:
    """An integer from the meta table."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row is not None else 0


def _set_meta(conn: sqlite3.Connection, key: str, value: int) -> None:
    """Store an integer in the meta table."""
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _forget(conn: sqlite3.Connection, path: str, written: Written) -> tuple[int, int | None] | None:
    """Drop what the index holds about `path` (as the index stores it) except its `files` row;
    returns its id and document number (None: the path is new)."""
    row = conn.execute(
        "SELECT id, doc, kind, title, permalink FROM files WHERE path = ?", (path,)
    ).fetchone()
    if row is None:
        return None
    file_id, doc, kind, title, permalink = row
    if kind == NOTE:
        written.add_keys(path, title, permalink)
    if doc is not None:
        conn.execute("INSERT OR IGNORE INTO dead (doc) VALUES (?)", (doc,))
    conn.execute("DELETE FROM links WHERE source = ?", (file_id,))
    conn.execute("DELETE FROM tags WHERE file = ?", (file_id,))
    conn.execute("DELETE FROM categories WHERE file = ?", (file_id,))
    written.sources.add(file_id)
    return int(file_id), doc


def remove_file(conn: sqlite3.Connection, path: str, written: Written) -> None:
    """Take a file that is gone out of the index."""
    found = _forget(conn, to_db(path), written)
    if found is not None:
        conn.execute("DELETE FROM files WHERE id = ?", (found[0],))
        written.sources.discard(found[0])
        written.paths.add(path)


_COLUMNS = (
    "kind, size, mtime_ns, ctime_ns, inode, title, permalink, note_type, alias, body_line, "
    "line_kinds, warned, info, project, doc, seal"
)
_INSERT_FILE = f"INSERT INTO files (path, {_COLUMNS}) VALUES (?{', ?' * 16})"
_UPDATE_FILE = (
    "UPDATE files SET "
    + ", ".join(f"{name.strip()} = ?" for name in _COLUMNS.split(","))
    + " WHERE id = ?"
)


def put_record(
    conn: sqlite3.Connection,
    record: FileRecord,
    written: Written,
    *,
    words: bool = True,
    new: bool = False,
) -> None:
    """Store one file's record (replacing the one before), with a new document number and its
    full-text rows; with `words`, note its words for the vocabulary; `new`: the index holds
    nothing at this path (a first build)."""
    path, title = to_db(record.path), to_db(record.title)
    permalink = to_db(record.permalink) if record.permalink else None
    found = None if new else _forget(conn, path, written)
    file_id, old_doc = found if found is not None else (None, None)
    doc = None
    if record.kind != BINARY:
        assert written.docs is not None
        doc = written.docs.new(conn, path, old_doc)
        written.heads.append((doc, title, path, record.meta_text))
        written.lines += body_lines(doc, record.body, record.body_line)
    is_note = record.kind == NOTE
    columns = (
        record.kind,
        record.size,
        record.mtime_ns,
        record.ctime_ns,
        inode_to_db(record.inode),
        title if record.kind != BINARY else None,
        permalink if is_note else None,
        record.note_type if is_note else None,
        alias_key(_path_keys(path)[1]) if is_note else None,
        record.body_line,
        record.line_kinds or None,
        1 if record.warnings else 0,
        record_info(record),
        to_db(record.project) if is_note and record.project else None,
    )
    links = _link_rows(record) if is_note else []
    tags = sorted(set(record.tags)) if is_note else []
    categories = list(record.categories.items()) if is_note else []
    values = (*columns, doc, seal(written.key, (path, *columns), links, tags, categories))
    if file_id is None:
        file_id = int(conn.execute(_INSERT_FILE, (path, *values)).lastrowid or 0)
    else:
        conn.execute(_UPDATE_FILE, (*values, file_id))
    written.paths.add(record.path)
    written.records += 1
    if words and record.kind != BINARY:
        written.words.update(_words(record))
    if not is_note:
        return
    written.sources.add(file_id)
    written.add_keys(path, title, permalink)
    written.links.extend((file_id, *link) for link in links)
    written.tags.extend((file_id, tag) for tag in tags)
    written.categories.extend((file_id, category, count) for category, count in categories)


def _link_rows(record: FileRecord) -> list[tuple[object, ...]]:
    """A note's `links` rows but their source (index_seal.LINK_COLUMNS), in file order."""
    slugs = record.link_slugs or [link_slug(relation.target) for relation in record.relations]
    return [
        (
            ord_,
            relation.relation_type,
            relation.target,
            relation.context,
            relation.line,
            key := to_db(target_key(relation.target, record.path)),
            alias_key(key),
            None if slug is None else to_db(slug),
        )
        for ord_, (relation, slug) in enumerate(zip(record.relations, slugs, strict=True))
    ]


def _words(record: FileRecord) -> set[str]:
    """The words of a record's searchable fields, as the vocabulary keeps them."""
    words: set[str] = set()
    for text in (record.title, record.path, record.meta_text, record.body):
        words.update(WORD_RE.findall(text.lower()))
    return words


def resolve_affected(conn: sqlite3.Connection, written: Written) -> None:
    """Resolve again every link whose answer the written files may change: the links of the
    written notes, and every link whose target matches one of their keys (ignoring case)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS affected_sources (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS affected_aliases (alias TEXT PRIMARY KEY)")
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS affected_slugs (slug TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.affected_sources")
    conn.execute("DELETE FROM temp.affected_aliases")
    conn.execute("DELETE FROM temp.affected_slugs")
    conn.executemany(
        "INSERT INTO temp.affected_sources VALUES (?)", ((i,) for i in written.sources)
    )
    conn.executemany(
        "INSERT INTO temp.affected_aliases VALUES (?)", ((a,) for a in written.aliases)
    )
    conn.executemany(
        "INSERT INTO temp.affected_slugs VALUES (?)", ((to_db(s),) for s in written.slugs)
    )
    for condition in (
        "source IN (SELECT id FROM temp.affected_sources)",
        "target_alias IN (SELECT alias FROM temp.affected_aliases)",
        "target_slug IN (SELECT slug FROM temp.affected_slugs)",
    ):
        resolve_links(conn, condition)


def resolve_links(conn: sqlite3.Connection, condition: str = "1") -> None:
    """Resolve the links that meet an SQL condition (all of them by default)."""
    resolve = resolve_sql("links.target_key", "links.target_alias", "links.target_slug", ":p")
    conn.execute(
        f"UPDATE links SET resolved = {resolve} WHERE {condition}", {"p": project_of(conn)}
    )


def terms_from_index(conn: sqlite3.Connection, generation: int) -> None:
    """Take the whole vocabulary from the full-text tables (their exact tokens)."""
    conn.execute("DELETE FROM terms")
    for table in ("fts", "fts_file"):
        conn.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab_{table} "
            f"USING fts5vocab (main, {table}, row)"
        )
        conn.execute(
            f"INSERT OR IGNORE INTO terms (term, gen) SELECT term, ? FROM temp.vocab_{table}",
            (generation,),
        )
    _set_meta(conn, "terms_gen", generation)


UPDATE, BULK, FRESH = "update", "bulk", "fresh"
"""How a sync writes: a few files (vocabulary kept as it goes), many files (vocabulary taken
from the full-text index at the end), or a first build (links resolved and secondary indexes
made at the end)."""


def stored_digest(conn: sqlite3.Connection) -> str | None:
    """The digest of the walk the index was last found to match, None after any other write."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'walk_digest'").fetchone()
    return None if row is None else str(row[0])


def store_digest(conn: sqlite3.Connection, digest: str) -> None:
    """Record that the index matches the walk with this digest (see `index_sync.sync_store`)."""
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('walk_digest', ?)", (digest,)
        )


def write_batch(
    conn: sqlite3.Connection,
    records: Sequence[FileRecord],
    gone: Iterable[str],
    *,
    mode: str = UPDATE,
) -> Written:
    """Store records and drop gone paths in one transaction, links resolved, vocabulary updated.

    In BULK and FRESH mode the vocabulary is marked stale and taken afresh by `finish_bulk`,
    so a build cut short by a crash is completed by the next sync (FRESH: rebuilt, see
    `begin_fresh`).
    """
    written = Written()
    with transaction(conn):
        conn.execute("DELETE FROM meta WHERE key = 'walk_digest'")
        generation = _meta(conn, "generation") + 1
        written.key = seal_key(conn)
        written.project = project_of(conn)
        docs = written.docs = DocNumbers(conn, in_order=mode == FRESH)
        for path in gone:
            remove_file(conn, path, written)
        ordered = records if mode == FRESH else sorted(records, key=lambda r: to_db(r.path))
        for record in ordered:
            put_record(conn, record, written, words=mode == UPDATE, new=mode == FRESH)
        written.flush(conn)
        _set_meta(conn, "top_doc", docs.top)
        _set_meta(conn, "ordered", int(docs.ordered))
        if mode != FRESH:
            if settle_project(conn):
                resolve_links(conn)
            else:
                resolve_affected(conn, written)
        if mode == UPDATE:
            conn.executemany(
                "INSERT OR IGNORE INTO terms (term, gen) VALUES (?, ?)",
                ((word, generation) for word in written.words),
            )
        else:
            _set_meta(conn, "terms_stale", 1)
        _set_meta(conn, "generation", generation)
    return written


def begin_fresh(conn: sqlite3.Connection) -> None:
    """Start the first build of a large store: its secondary indexes are made once at the end.

    Until `finish_bulk`, the file's tables differ from a finished index's, so a build cut short
    is never trusted: the next process replaces the file and builds again.
    """
    with transaction(conn):
        for name in SECONDARY_INDEXES:
            conn.execute(f"DROP INDEX IF EXISTS {name}")
        _set_meta(conn, "terms_stale", 1)


def finish_bulk(conn: sqlite3.Connection) -> None:
    """After a bulk write: make missing secondary indexes and resolve every link (a first build),
    and take the vocabulary from the full-text index if it is stale."""
    missing = [
        statement
        for statement in SCHEMA
        if statement.startswith("CREATE INDEX")
        and statement.split()[2] in SECONDARY_INDEXES
        and not conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
            (statement.split()[2],),
        ).fetchone()
    ]
    if not missing and not _meta(conn, "terms_stale"):
        return
    with transaction(conn):
        generation = _meta(conn, "generation") + 1
        for statement in missing:
            conn.execute(statement)
        if missing:
            settle_project(conn)
            resolve_links(conn)
        terms_from_index(conn, generation)
        _set_meta(conn, "terms_stale", 0)
        _set_meta(conn, "generation", generation)


def needs_compaction(conn: sqlite3.Connection) -> bool:
    """Whether dead documents fill enough of the full-text tables to rebuild them, or their
    document numbers are no longer in path order."""
    if not _meta(conn, "ordered"):
        return True
    dead = conn.execute("SELECT count(*) FROM dead").fetchone()[0]
    live = conn.execute("SELECT count(*) FROM files WHERE doc IS NOT NULL").fetchone()[0]
    return bool(dead >= max(DEAD_DOCS_MIN, live // 4))


def compact(conn: sqlite3.Connection, read: Callable[[str], Head | None]) -> list[str]:
    """Rebuild the full-text tables from the live files (no dead documents), numbering the
    documents in path order again.

    `read` gives a file's head now (None: unreadable); a file whose stat changed since its record
    was written keeps its old text here and is returned, for the caller to index again.
    """
    stale: list[str] = []
    with transaction(conn):
        for table in ("fts", "fts_file"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('delete-all')")
        conn.execute("DELETE FROM dead")
        conn.execute("UPDATE files SET doc = -doc WHERE doc IS NOT NULL")
        rows = conn.execute(
            "SELECT id, path, size, mtime_ns, ctime_ns, inode, title, body_line, info FROM files "
            "WHERE doc IS NOT NULL ORDER BY path"
        ).fetchall()
        written = Written()
        for number, (file_id, stored, *stat, title, body_line, info) in enumerate(rows, 1):
            doc = number * DOC_GAP
            conn.execute("UPDATE files SET doc = ? WHERE id = ?", (doc, file_id))
            path = from_db(stored)
            head = read(path)
            stat[-1] = inode_from_db(stat[-1])
            if head is None or [head.size, head.mtime_ns, head.ctime_ns, head.inode] != stat:
                stale.append(path)
            meta = json.loads(info).get("meta", [])
            meta_text = " ".join(text.split(":", 1)[1] for _line, text in meta)
            written.heads.append((doc, title, stored, meta_text))
            if head is not None:
                text = shown_part(normalise_text(head.data))
                written.lines += body_lines(doc, after_line(text, body_line), body_line)
            if len(written.lines) > 50_000:
                written.flush(conn)
        written.flush(conn)
        _set_meta(conn, "top_doc", len(rows) * DOC_GAP)
        _set_meta(conn, "ordered", 1)
        generation = _meta(conn, "generation") + 1
        terms_from_index(conn, generation)
        _set_meta(conn, "generation", generation)
    return stale
