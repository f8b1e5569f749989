"""Parsed-note cache under `<root>/.memtui/notes-cache.pickle`, validated per file by size and mtime."""

from __future__ import annotations

import contextlib
import gc
import importlib
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
    """A stamp of the parser and model code, so a changed parser never serves stale results."""
    stamp: list[Any] = [CACHE_VERSION]
    for module_name in (
        "memtui.notes.parser",
        "memtui.notes.model",
        "memtui.notes.search",
        __name__,
    ):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            module = None
        file = getattr(module, "__file__", None)
        if file:
            try:
                st = os.stat(file)
                stamp.append((module_name, st.st_size, st.st_mtime_ns))
            except OSError:
                stamp.append((module_name, None))
    return tuple(stamp)


_NOTE_FIELDS = tuple(f.name for f in fields(Note) if f.name != "path")
_OBSERVATION_FIELDS = tuple(f.name for f in fields(Observation))
_RELATION_FIELDS = tuple(f.name for f in fields(Relation))


def note_to_tuple(note: Note) -> NoteTuple:
    """A note as plain tuples in field order (fast to pickle, no class lookups on load)."""
    values: list[Any] = []
    for name in _NOTE_FIELDS:
        value = getattr(note, name)
        if name == "observations":
            value = tuple(tuple(getattr(o, f) for f in _OBSERVATION_FIELDS) for o in value)
        elif name == "relations":
            value = tuple(tuple(getattr(r, f) for f in _RELATION_FIELDS) for r in value)
        elif isinstance(value, list):
            value = tuple(value)
        values.append(value)
    return tuple(values)


def _intern_tags(tags: Any) -> Any:
    """Tags with their strings interned (tags repeat across thousands of observations)."""
    if tags is None:
        return None
    return [sys.intern(t) if isinstance(t, str) else t for t in tags]


def note_from_tuple(path: str, data: NoteTuple) -> Note:
    """Rebuild a note from `note_to_tuple` output, interning the small repeated strings."""
    intern = sys.intern
    values = dict(zip(_NOTE_FIELDS, data, strict=True))
    observations = []
    for row in values["observations"]:
        obs = dict(zip(_OBSERVATION_FIELDS, row, strict=True))
        if isinstance(obs.get("category"), str):
            obs["category"] = intern(obs["category"])
        obs["tags"] = _intern_tags(obs.get("tags"))
        observations.append(Observation(**obs))
    relations = []
    for row in values["relations"]:
        rel = dict(zip(_RELATION_FIELDS, row, strict=True))
        rel["relation_type"] = intern(rel["relation_type"])
        relations.append(Relation(**rel))
    values["observations"] = observations
    values["relations"] = relations
    for name, value in values.items():
        if isinstance(value, tuple):
            values[name] = list(value)
    values["tags"] = _intern_tags(values["tags"])
    if isinstance(values.get("note_type"), str):
        values["note_type"] = intern(values["note_type"])
    return Note(path=path, **values)


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
