"""Content the history keeps once, by sha256: a file's bytes or a folder's manifest, compressed."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

KIND_FILE = "file"
KIND_DIR = "dir"


@dataclass(frozen=True)
class Manifest:
    """A folder's content: every subfolder, file (relpath -> hash) and symlink (relpath -> target).

    `modes` holds the permission bits of the folder itself (`""`), its subfolders and files
    where they differ from memtui's own (0700 folders, 0600 files); older manifests have none.
    """

    dirs: tuple[str, ...]
    files: dict[str, str]
    links: dict[str, str]
    modes: dict[str, int] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        """A canonical JSON encoding, so equal folders have equal hashes."""
        data: dict[str, Any] = {"dirs": sorted(self.dirs), "files": self.files, "links": self.links}
        if self.modes:
            data["modes"] = self.modes
        return json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")

    @classmethod
    def from_bytes(cls, data: bytes) -> Manifest:
        """Decode a manifest written by `to_bytes`."""
        raw = json.loads(data.decode("utf-8"))
        modes = {str(name): int(mode) for name, mode in raw.get("modes", {}).items()}
        return cls(tuple(raw["dirs"]), dict(raw["files"]), dict(raw["links"]), modes)

    def same_content(self, other: Manifest) -> bool:
        """True if both list the same folders, file contents and links (modes aside)."""
        return (set(self.dirs), self.files, self.links) == (
            set(other.dirs),
            other.files,
            other.links,
        )


class Blobs:
    """The blobs table: content by sha256, compressed, stored once."""

    def __init__(self, connection: Callable[[], sqlite3.Connection]) -> None:
        """The blobs of the history whose connection (this thread's) `connection` gives."""
        self._connection = connection
        self._known: set[str] = set()
        """Digests known to be stored (committed), so they are not looked up again."""

    def blob(self, digest: str) -> bytes | None:
        """The stored bytes with this sha256 hex digest, or None."""
        row = (
            self._connection()
            .execute("SELECT data FROM blobs WHERE hash = ?", (digest,))
            .fetchone()
        )
        return None if row is None else zlib.decompress(row[0])

    def manifest(self, digest: str) -> Manifest | None:
        """A stored folder manifest, or None."""
        data = self.blob(digest)
        return None if data is None else Manifest.from_bytes(data)

    def put(self, conn: sqlite3.Connection, blobs: Mapping[str, bytes]) -> list[str]:
        """Insert the blobs not stored yet, compressed (inside the caller's transaction).

        Returns the digests now known to be stored once the transaction commits.
        """
        stored: list[str] = []
        for digest, data in blobs.items():
            if digest in self._known:
                continue
            exists = conn.execute("SELECT 1 FROM blobs WHERE hash = ?", (digest,)).fetchone()
            if exists is None:
                conn.execute(
                    "INSERT INTO blobs (hash, size, data) VALUES (?, ?, ?)",
                    (digest, len(data), zlib.compress(data, 6)),
                )
            stored.append(digest)
        return stored

    def state_text(self, kind: str | None, digest: str | None) -> str | None:
        """A file's text, a folder's file listing, or None when missing or not stored."""
        if kind is None or digest is None:
            return None
        if kind == KIND_DIR:
            manifest = self.manifest(digest)
            if manifest is None:
                return None
            names = sorted([*manifest.files, *(f"{d}/" for d in manifest.dirs), *manifest.links])
            return "".join(f"{name}\n" for name in names)
        data = self.blob(digest)
        return None if data is None else data.decode("utf-8", errors="replace")

    def remember(self, stored: Iterable[str]) -> None:
        """Count blobs `put` in a transaction as stored, once it has committed."""
        self._known.update(stored)
