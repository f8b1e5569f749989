"""What the stale review reads from the index: each file's dates, size and body hash, and its links.

These are the review's own queries on the index's tables (read-only, inside the caller's snapshot),
kept apart from `NoteIndex`'s public API so the review can ask for everything in a few passes.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote

from memtui.notes.bulk import Pacer
from memtui.notes.index import NoteIndex
from memtui.notes.index_db import from_db, to_db
from memtui.notes.records import NOTE

_PERMALINK_PATH = re.compile(r"[a-z0-9][a-z0-9._~-]*(?:/[a-z0-9._~-]+)+")
"""A lowercase `folder/note` path, the form of Basic Memory's permalinks."""
ARCHIVE_FOLDER = "archive"
"""Files under this top-level folder were set aside on purpose and are never proposed again."""


def parse_date(value: Any) -> float | None:
    """Unix seconds of an ISO date or datetime string (dates are midnight UTC); None if not
    a date."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.timestamp()


def _dated(value: Any) -> tuple[float, str] | None:
    """A frontmatter date as (unix seconds, its text), or None."""
    when = parse_date(value)
    return None if when is None else (when, str(value))


def is_archived(relpath: str) -> bool:
    """Whether a file lies under the top-level archive folder."""
    return relpath.startswith(ARCHIVE_FOLDER + "/")


@dataclass(frozen=True)
class NoteFacts:
    """What the review reads from one file's index record."""

    kind: int
    """NOTE (a Basic Memory `.md` note) or TEXT (any other text file)."""
    mtime: float
    size: int
    title: str
    """The title, lowercased."""
    sample_hash: str | None
    """A hash of the body sample, None when the sample is too short to compare."""
    lead_hash: str | None
    """A hash of the start of the body sample, None when too short."""
    expires: tuple[float, str] | None
    """When the note expires, and the frontmatter text that says so."""
    verified: tuple[float, str] | None
    """When the note was last verified, and the frontmatter text that says so."""


def all_facts(index: NoteIndex, pace: Pacer | None = None) -> dict[str, NoteFacts]:
    """Facts of every reviewed file (every note and text file outside the archive), by path."""
    pace = pace or Pacer()
    rows = index.db.connection().execute(
        "SELECT path, kind, mtime_ns, size, title, info FROM files WHERE kind IN (1, 2) "
        "AND NOT (path > ? AND path < ?) ORDER BY path",
        (ARCHIVE_FOLDER + "/", ARCHIVE_FOLDER + "0"),
    )
    facts: dict[str, NoteFacts] = {}
    for path, kind, mtime_ns, size, title, info in rows:
        pace()
        extras = json.loads(info)
        facts[from_db(path)] = NoteFacts(
            kind=kind,
            mtime=mtime_ns / 1e9,
            size=size,
            title=from_db(title or "").lower(),
            sample_hash=extras.get("sample"),
            lead_hash=extras.get("lead"),
            expires=_dated(extras.get("expires")),
            verified=_dated(extras.get("verified")),
        )
    return facts


@dataclass(frozen=True)
class LinkFacts:
    """The store's links as the review sees them."""

    linked: set[str]
    """Notes with a resolved link to or from another note."""
    linked_share: float
    """The share of reviewed notes that are linked (0 when there are none)."""
    missing: dict[str, list[str]]
    """relpath -> distinct names it links to that no note has (yet), in order."""
    broken: dict[str, list[str]]
    """relpath -> distinct path links (`./x.md`, `folder/note`) with no file or folder there."""


def link_facts(
    index: NoteIndex, facts: dict[str, NoteFacts], pace: Pacer | None = None
) -> LinkFacts:
    """Who is linked, and every unresolved link split into missing names and broken paths."""
    pace = pace or Pacer()
    linked = index.linked()
    notes = [path for path, fact in facts.items() if fact.kind == NOTE]
    share = sum(1 for path in notes if path in linked) / len(notes) if notes else 0.0
    missing: dict[str, dict[str, None]] = {}
    broken: dict[str, dict[str, None]] = {}
    conn = index.db.connection()
    rows = conn.execute(
        "SELECT s.path, l.target, l.target_key FROM links l JOIN files s ON s.id = l.source "
        "WHERE l.resolved IS NULL ORDER BY s.path, l.ord"
    ).fetchall()
    for source, target, key in rows:
        pace()
        relpath = from_db(source)
        if relpath not in facts:
            continue
        if not is_path_link(target):
            missing.setdefault(relpath, {})[target] = None
        elif not _something_at(index, from_db(key)):
            broken.setdefault(relpath, {})[target] = None
    return LinkFacts(
        linked=linked,
        linked_share=share,
        missing={path: list(targets) for path, targets in missing.items()},
        broken={path: list(targets) for path, targets in broken.items()},
    )


def is_path_link(target: str) -> bool:
    """Whether a link target names a place (`./docs/x.md`, `../LICENSE`, `projects/billing`,
    `notes.md`) rather than a note by its title (`TCP/IP`, `Node.js`), which Basic Memory lets
    a note link to before that note exists."""
    target = target.strip()
    if "://" in target or target.lower().startswith("mailto:"):
        return False
    if target.startswith(("./", "../", "/")):
        return True
    return target.lower().endswith(".md") or _PERMALINK_PATH.fullmatch(target) is not None


def _something_at(index: NoteIndex, key: str) -> bool:
    """Whether the index holds a file, or a folder of files, at a link's root-relative key
    (its `#section` dropped, `%20`-style escapes read either way); a key leaving the store
    points at nothing."""
    conn = index.db.connection()
    place = key.split("#", 1)[0].strip().lstrip("/")
    for candidate in dict.fromkeys((place, unquote(place))):
        candidate = posixpath.normpath(candidate) if candidate else candidate
        if not candidate or candidate == "." or candidate.startswith("../") or candidate == "..":
            continue
        stored = to_db(candidate)
        row = conn.execute(
            "SELECT 1 FROM files WHERE path = ? OR path = ? OR (path > ? AND path < ?) LIMIT 1",
            (stored, stored + ".md", stored + "/", stored + "0"),
        ).fetchone()
        if row is not None:
            return True
    return False
