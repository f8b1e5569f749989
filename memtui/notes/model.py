"""The parsed shape of a note: what Basic Memory extracts, plus what memtui adds (lines,
warnings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class Observation:
    """A categorised fact: `- [category] content #tag (context)`."""

    category: str | None
    content: str
    tags: list[str] | None
    context: str | None
    line: int
    """1-based line in the file where the observation starts."""


@dataclass(slots=True)
class Relation:
    """A typed link to another note: `- relation_type [[Target]] (context)` or an implicit link."""

    relation_type: str
    target: str
    context: str | None
    line: int
    """1-based line in the file where the relation appears."""


@dataclass(slots=True)
class Note:
    """One markdown note as memtui understands it."""

    path: str
    """POSIX path relative to the store root, e.g. `projects/memtui.md`."""
    title: str
    frontmatter: dict[str, Any]
    observations: list[Observation] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    size: int = 0
    mtime: float = 0.0
    content_hash: str = ""
    permalink: str = ""
    note_type: str = "note"
    tags: list[str] = field(default_factory=list)
    index_error: str | None = None
    """Why Basic Memory would refuse to index this file (undecodable bytes, a non-string key), if
    so."""
    body_line: int = 1
    """1-based line where the body starts (the first line after the frontmatter block)."""
