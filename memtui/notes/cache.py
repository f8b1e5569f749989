"""Parsed-note cache under `<root>/.memtui/notes-cache.pickle`, validated per file by size and mtime."""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import sys
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import fields
from pathlib import Path
from typing import Any

from memtui.notes.model import Note, Observation, Relation

CACHE_VERSION = 2
"""Bump when the cached tuple layout changes."""

CACHE_NAME = "notes-cache.pickle"

NoteTuple = tuple[Any, ...]
PackedNote = tuple[str, str, str, tuple[Any, ...], bytes]
"""(title, permalink, note_type, relations flattened 4 fields a relation, compressed note tuple)."""
CacheEntry = tuple[int, int, PackedNote, str]
"""(size, mtime_ns, packed note, normalised text)."""

COMPRESS_LEVEL = 1
"""zlib level for packed notes: fast, and most of the gain of higher levels."""
RECENT_NOTES = 256
"""How many materialised notes `PackedNotes` keeps, so repeated reads return the same object."""


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


def pack_note(note: Note) -> PackedNote:
    """A note as one compact tuple: the fields links need kept plain, the rest compressed."""
    intern = sys.intern
    relations: list[Any] = []
    for r in note.relations:
        relations.extend((intern(r.relation_type), r.target, r.context, r.line))
    data = list(note_to_tuple(note))
    data[_RELATIONS] = ()
    blob = zlib.compress(pickle.dumps(tuple(data), pickle.HIGHEST_PROTOCOL), COMPRESS_LEVEL)
    return (note.title, note.permalink, intern(note.note_type), tuple(relations), blob)


def relations_of(packed: PackedNote) -> list[Relation]:
    """The relations of a packed note, as fresh `Relation` objects in file order."""
    flat = packed[3]
    return [Relation(*flat[i : i + 4]) for i in range(0, len(flat), 4)]


def relation_targets(packed: PackedNote) -> tuple[str, ...]:
    """The raw target of every relation of a packed note, in file order."""
    return packed[3][1::4]


def unpack_note(path: str, packed: PackedNote) -> Note:
    """The `Note` a `pack_note` tuple stands for."""
    note = note_from_tuple(path, pickle.loads(zlib.decompress(packed[4])))
    note.relations = relations_of(packed)
    return note


def is_packed_note(value: Any) -> bool:
    """Whether a cached value has the shape `pack_note` returns."""
    return (
        isinstance(value, tuple)
        and len(value) == 5
        and isinstance(value[3], tuple)
        and isinstance(value[4], bytes)
    )


class PackedNotes(Mapping[str, Note]):
    """relpath -> Note, stored packed and materialised on access; reads behave as a dict's.

    Materialised notes are kept for the most recent `RECENT_NOTES` reads; a change made to a
    returned `Note` is not stored back (the index updates notes through `__setitem__`).
    Iteration works on a snapshot of the keys, so a reader in another thread never sees
    "dictionary changed size during iteration" while the index is updated.
    """

    def __init__(self) -> None:
        """An empty mapping."""
        self._packed: dict[str, PackedNote] = {}
        self._recent: OrderedDict[str, Note] = OrderedDict()
        self._lock = threading.Lock()

    def __getitem__(self, relpath: str) -> Note:
        """The note at `relpath` (KeyError when there is none)."""
        return self._materialise(relpath, self._packed[relpath])

    def _materialise(self, relpath: str, packed: PackedNote) -> Note:
        """The note for one packed entry, from the recent ones when it is there."""
        with self._lock:
            note = self._recent.get(relpath)
            if note is not None:
                self._recent.move_to_end(relpath)
                return note
        note = unpack_note(relpath, packed)
        with self._lock:
            if self._packed.get(relpath) is packed:
                self._recent[relpath] = note
                if len(self._recent) > RECENT_NOTES:
                    self._recent.popitem(last=False)
        return note

    def items(self) -> ItemsView[str, Note]:
        """(relpath, note) pairs, iterated over a snapshot taken when iteration starts."""
        return _SnapshotItems(self)

    def values(self) -> ValuesView[Note]:
        """Notes in index order, iterated over a snapshot taken when iteration starts."""
        return _SnapshotValues(self)

    def _snapshot(self) -> Iterator[tuple[str, Note]]:
        """(relpath, note) for every note indexed when called, materialised one by one."""
        for relpath, packed in list(self._packed.items()):
            yield relpath, self._materialise(relpath, packed)

    def __contains__(self, relpath: object) -> bool:
        """Whether a note is indexed at `relpath` (without materialising it)."""
        return relpath in self._packed

    def __iter__(self) -> Iterator[str]:
        """Relpaths in the order they were indexed (a snapshot)."""
        return iter(list(self._packed))

    def __len__(self) -> int:
        """Number of notes."""
        return len(self._packed)

    def __repr__(self) -> str:
        """A short summary (the notes themselves are packed)."""
        return f"<PackedNotes of {len(self._packed)} notes>"

    def __setitem__(self, relpath: str, note: Note) -> None:
        """Store (or replace) the note at `relpath`."""
        self.set_packed(relpath, pack_note(note))

    def set_packed(self, relpath: str, packed: PackedNote) -> None:
        """Store an already packed note at `relpath`."""
        with self._lock:
            self._recent.pop(relpath, None)
            self._packed[relpath] = packed

    def pop(self, relpath: str, default: Any = None) -> Any:
        """Remove the note at `relpath`; returns its packed form, or `default` when absent."""
        with self._lock:
            self._recent.pop(relpath, None)
            return self._packed.pop(relpath, default)

    def packed(self, relpath: str) -> PackedNote:
        """The packed form of the note at `relpath` (KeyError when there is none)."""
        return self._packed[relpath]

    def packed_items(self) -> Iterator[tuple[str, PackedNote]]:
        """(relpath, packed note) pairs in index order (a snapshot), materialising nothing."""
        return iter(list(self._packed.items()))


class _SnapshotItems(ItemsView[str, Note]):
    """The items view of `PackedNotes`: iterates a snapshot."""

    _mapping: PackedNotes

    def __iter__(self) -> Iterator[tuple[str, Note]]:
        """(relpath, note) pairs of the notes indexed when iteration starts."""
        return self._mapping._snapshot()


class _SnapshotValues(ValuesView[Note]):
    """The values view of `PackedNotes`: iterates a snapshot."""

    _mapping: PackedNotes

    def __iter__(self) -> Iterator[Note]:
        """The notes indexed when iteration starts."""
        return (note for _, note in self._mapping._snapshot())


def read_payload(root: Path, name: str) -> Any:
    """The payload pickled under `.memtui/name` by the same code, or None (missing or corrupt).

    The code stamp is a pickle of its own ahead of the payload, so a payload written by other
    code is never unpickled (it may be hundreds of megabytes).
    """
    try:
        with open(Path(root) / ".memtui" / name, "rb") as handle:
            if pickle.load(handle) != _code_stamp():
                return None
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                return pickle.load(handle)
            finally:
                if gc_was_enabled:
                    gc.enable()
    except Exception:
        return None


def write_payload(root: Path, name: str, payload: Any) -> bool:
    """Pickle `payload` to `.memtui/name` atomically (temp + rename); False if not writable."""
    target = Path(root) / ".memtui" / name
    tmp_name = ""
    try:
        target.parent.mkdir(mode=0o700, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{name}-", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(_code_stamp(), handle, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(payload, handle, protocol=pickle.HIGHEST_PROTOCOL)
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
