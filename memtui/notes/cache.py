"""Parsed-note cache under `<root>/.memtui/notes-cache.pickle`, validated per file by size and mtime."""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import sys
import tempfile
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
    for module_name in ("memtui.notes.parser", "memtui.notes.model"):
        module = sys.modules.get(module_name)
        file = getattr(module, "__file__", None)
        if file:
            try:
                st = os.stat(file)
                stamp.append((module_name, st.st_size, st.st_mtime_ns))
            except OSError:
                stamp.append((module_name, None))
    return tuple(stamp)


def note_to_tuple(note: Note) -> NoteTuple:
    """A note as plain tuples (fast to pickle, no class lookups on load)."""
    return (
        note.title,
        note.frontmatter,
        tuple((o.category, o.content, o.tags, o.context, o.line) for o in note.observations),
        tuple((r.relation_type, r.target, r.context, r.line) for r in note.relations),
        tuple(note.warnings),
        note.size,
        note.mtime,
        note.content_hash,
        note.permalink,
        note.note_type,
        tuple(note.tags),
    )


def note_from_tuple(path: str, data: NoteTuple) -> Note:
    """Rebuild a note from `note_to_tuple` output, interning the small repeated strings."""
    intern = sys.intern
    title, fm, obs, rels, warnings, size, mtime, digest, permalink, note_type, tags = data
    return Note(
        path=path,
        title=title,
        frontmatter=fm,
        observations=[
            Observation(
                intern(c) if c is not None else None,
                content,
                [intern(t) for t in tg] if tg is not None else None,
                ctx,
                line,
            )
            for c, content, tg, ctx, line in obs
        ],
        relations=[Relation(intern(t), target, ctx, line) for t, target, ctx, line in rels],
        warnings=list(warnings),
        size=size,
        mtime=mtime,
        content_hash=digest,
        permalink=permalink,
        note_type=intern(note_type) if isinstance(note_type, str) else note_type,
        tags=[intern(t) for t in tags],
    )


def load_cache(root: Path) -> dict[str, CacheEntry]:
    """The cached entries by relpath, or {} when the cache is missing, corrupt or from other code."""
    try:
        with open(cache_path(root), "rb") as handle:
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                payload = pickle.load(handle)
            finally:
                if gc_was_enabled:
                    gc.enable()
    except Exception:
        return {}
    if (
        not isinstance(payload, tuple)
        or len(payload) != 2
        or payload[0] != _code_stamp()
        or not isinstance(payload[1], dict)
    ):
        return {}
    return payload[1]


def save_cache(root: Path, entries: dict[str, CacheEntry]) -> bool:
    """Write the cache atomically (temp file + rename); False when the store is not writable."""
    target = cache_path(root)
    tmp_name = ""
    try:
        target.parent.mkdir(mode=0o700, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".notes-cache-", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            pickle.dump((_code_stamp(), entries), handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp_name, target)
        return True
    except OSError:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        return False
