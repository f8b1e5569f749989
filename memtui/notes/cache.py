"""Parsed-note cache under `<root>/.memtui/notes-cache.pickle`, validated per file by size and mtime."""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import sys
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from memtui.notes.model import Note, Observation, Relation

CACHE_VERSION = 1
"""Bump when the cached tuple layout changes."""

CACHE_NAME = "notes-cache.pickle"

NoteTuple = tuple[Any, ...]
CacheEntry = tuple[int, int, NoteTuple, str]
"""(size, mtime_ns, note as plain tuple, normalised text)."""


def cache_path(root: Path) -> Path:
    """Where the cache of a store lives."""
    return Path(root) / ".memtui" / CACHE_NAME


def _code_stamp() -> tuple[Any, ...]:
    """Size and mtime of every module of the notes package, so changed code never serves stale data."""
    stamp: list[Any] = [CACHE_VERSION]
    package = Path(__file__).resolve().parent
    try:
        names = sorted(n for n in os.listdir(package) if n.endswith(".py"))
    except OSError:
        names = []
    for name in names:
        try:
            st = os.stat(package / name)
        except OSError:
            continue
        stamp.append((name, st.st_size, st.st_mtime_ns))
    return tuple(stamp)


_NOTE_FIELDS = tuple(f.name for f in fields(Note) if f.name != "path")
_OBSERVATION_FIELDS = tuple(f.name for f in fields(Observation))
_RELATION_FIELDS = tuple(f.name for f in fields(Relation))


_OBSERVATIONS = _NOTE_FIELDS.index("observations")
_RELATIONS = _NOTE_FIELDS.index("relations")


def note_to_tuple(note: Note) -> NoteTuple:
    """A note as plain tuples in field order, repeated small strings interned.

    Interned strings are pickled once and shared again on load, so thousands of observations
    with the same category or tag cost one string.
    """
    intern = sys.intern
    values: list[Any] = [getattr(note, name) for name in _NOTE_FIELDS]
    values[_OBSERVATIONS] = tuple(
        (
            intern(o.category) if o.category else o.category,
            o.content,
            [intern(t) for t in o.tags] if o.tags is not None else None,
            o.context,
            o.line,
        )
        if _OBSERVATION_FIELDS == ("category", "content", "tags", "context", "line")
        else tuple(getattr(o, f) for f in _OBSERVATION_FIELDS)
        for o in note.observations
    )
    values[_RELATIONS] = tuple(
        tuple(getattr(r, f) for f in _RELATION_FIELDS) for r in note.relations
    )
    return tuple(values)


def note_from_tuple(path: str, data: NoteTuple) -> Note:
    """Rebuild a note from `note_to_tuple` output (positional, so it is cheap)."""
    if len(data) != len(_NOTE_FIELDS):
        raise ValueError("cached note has a different layout")
    values = list(data)
    values[_OBSERVATIONS] = [Observation(*row) for row in data[_OBSERVATIONS]]
    values[_RELATIONS] = [Relation(*row) for row in data[_RELATIONS]]
    return Note(path=path, **dict(zip(_NOTE_FIELDS, values, strict=True)))


def read_payload(root: Path, name: str) -> Any:
    """The payload pickled under `.memtui/name` by the same code, or None (missing or corrupt)."""
    try:
        with open(Path(root) / ".memtui" / name, "rb") as handle:
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                stamped = pickle.load(handle)
            finally:
                if gc_was_enabled:
                    gc.enable()
    except Exception:
        return None
    if not isinstance(stamped, tuple) or len(stamped) != 2 or stamped[0] != _code_stamp():
        return None
    return stamped[1]


def write_payload(root: Path, name: str, payload: Any) -> bool:
    """Pickle `payload` to `.memtui/name` atomically (temp + rename); False if not writable."""
    target = Path(root) / ".memtui" / name
    tmp_name = ""
    try:
        target.parent.mkdir(mode=0o700, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{name}-", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            pickle.dump((_code_stamp(), payload), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp_name, target)
        return True
    except OSError:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        return False


def load_cache(root: Path) -> dict[str, CacheEntry]:
    """The cached entries by relpath, or {} when the cache is missing, corrupt or from other code."""
    payload = read_payload(root, CACHE_NAME)
    return payload if isinstance(payload, dict) else {}


def save_cache(root: Path, entries: dict[str, CacheEntry]) -> bool:
    """Write the cache atomically (temp file + rename); False when the store is not writable."""
    return write_payload(root, CACHE_NAME, entries)
