"""Index rows memtui wrote, told from rows written by anything else.

Every `files` row carries a seal: a keyed hash of its columns and of its links, tags and
categories, under a key the index keeps in its `meta` table. A row changed by another program
(a planted title, a link target with escape bytes) no longer matches its seal, and is read again
from its file. Checking every row costs a read of the whole index, so it is done only when the
index files changed since this user's memtui last left them: their stat (inode, size, mtime and
ctime, which no process can set back) is kept outside the store, in the user's cache folder.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from memtui.core.applying.atomic import replace_file

SEAL_BYTES = 16
KEY_META = "seal_key"
STATE_FOLDER = "index-state"
"""Below the user's cache folder: one file per index, naming the stat memtui left it with."""
SEALED_COLUMNS = (
    "path, kind, size, mtime_ns, ctime_ns, inode, title, permalink, note_type, alias, "
    "body_line, line_kinds, warned, info"
)
"""The `files` columns a seal covers (not `doc`, renumbered by compaction, nor `resolved` of
links, which follows the other notes)."""
LINK_COLUMNS = "ord, relation_type, target, context, line, target_key, target_alias"


def new_key() -> str:
    """A fresh seal key, as the meta table keeps it."""
    return secrets.token_hex(SEAL_BYTES)


def seal_key(conn: sqlite3.Connection) -> bytes:
    """The index's seal key."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (KEY_META,)).fetchone()
    return bytes.fromhex(str(row[0])) if row is not None else b""


def seal(
    key: bytes,
    columns: Sequence[object],
    links: Sequence[Sequence[object]],
    tags: Iterable[str],
    categories: Iterable[Sequence[object]],
) -> bytes:
    """The seal of a file's row (SEALED_COLUMNS) and of its link rows (LINK_COLUMNS), tags and
    (category, count) pairs. The data hashed is `ascii()` of them: the same on every Python
    (no character's escape depends on the Unicode version)."""
    data = ascii(
        (
            tuple(columns),
            tuple(map(tuple, links)),
            sorted(tags),
            sorted(map(tuple, categories)),
        )
    )
    return hashlib.blake2b(data.encode("ascii"), key=key, digest_size=SEAL_BYTES).digest()


def unsealed_paths(conn: sqlite3.Connection) -> list[str]:
    """The paths (as the index stores them) of the rows whose seal does not match them."""
    key = seal_key(conn)
    links: dict[int, list[tuple[object, ...]]] = defaultdict(list)
    for source, *link in conn.execute(
        f"SELECT source, {LINK_COLUMNS} FROM links ORDER BY source, ord"
    ):
        links[source].append(tuple(link))
    tags = {
        file: joined.split("\0")
        for file, joined in conn.execute(
            "SELECT file, group_concat(tag, char(0)) FROM tags GROUP BY file"
        )
    }
    categories: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for file, category, count in conn.execute("SELECT file, category, count FROM categories"):
        categories[file].append((category, count))
    failing: list[str] = []
    for file_id, stored, *columns in conn.execute(f"SELECT id, seal, {SEALED_COLUMNS} FROM files"):
        found = seal(
            key, columns, links[file_id], tags.get(file_id, ()), categories.get(file_id, ())
        )
        if stored != found:
            failing.append(columns[0])
    return failing


def _cache_folder() -> Path:
    """`$XDG_CACHE_HOME/memtui` (default `~/.cache/memtui`)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "memtui"


def _state_file(index_path: Path) -> Path:
    """Where the stat memtui left an index with is kept."""
    name = hashlib.blake2b(os.fsencode(os.path.abspath(index_path)), digest_size=16).hexdigest()
    return _cache_folder() / STATE_FOLDER / name


def file_state(index_path: Path) -> str:
    """The stat of the index file and its write-ahead log now. An empty log counts as none (a
    reader opening the index makes one), and the shared-memory file, which every reader
    writes, is left out: a write changes the log or, once folded in, the file."""
    parts = []
    for suffix in ("", "-wal"):
        try:
            info = os.lstat(f"{index_path}{suffix}")
        except FileNotFoundError:
            info = None
        if info is None or (suffix and info.st_size == 0):
            parts.append("-")
        else:
            parts.append(f"{info.st_ino}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}")
    return " ".join(parts)


def _recorded(index_path: Path) -> str | None:
    """The stat this user's memtui last left an index with, or None."""
    try:
        return _state_file(index_path).read_text(encoding="ascii")
    except (OSError, ValueError):
        return None


def left_as_is(index_path: Path) -> bool:
    """Whether the index files are as this user's memtui last left them (their rows were all
    sealed then)."""
    return _recorded(index_path) == file_state(index_path)


def never_left(index_path: Path) -> bool:
    """Whether this user's memtui has no record of ever leaving this index (it came with the
    store, or another user made it), while the cache folder could hold one."""
    if _recorded(index_path) is not None:
        return False
    folder = _state_file(index_path).parent
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def remember(index_path: Path) -> None:
    """Note the index files' stat now: every row of the index is sealed as it stands. Nothing
    is noted when the cache folder cannot be written (the next open checks every row)."""
    target = _state_file(index_path)
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        replace_file(target, file_state(index_path).encode("ascii"))
    except OSError:
        return
