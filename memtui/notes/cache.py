"""Parsed-note cache under `<root>/.memtui/notes-cache.pickle` (sealed), validated per file by size and mtime."""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import threading
import zlib
from array import array
from collections import OrderedDict
from collections.abc import ItemsView, Iterator, Mapping, ValuesView
from dataclasses import fields
from itertools import pairwise
from pathlib import Path
from typing import Any, NamedTuple, TypeGuard

from memtui.core.lock import meta_dir
from memtui.notes import sealed
from memtui.notes.bulk import Pacer, collector_paused
from memtui.notes.model import Note, Observation, Relation

CACHE_VERSION = 4
"""Bump when the cached tuple layout changes."""

CACHE_NAME = "notes-cache.pickle"

NoteTuple = tuple[Any, ...]
PackedNote = tuple[str, str, str, tuple[Any, ...], bytes]
"""(title, permalink, note_type, relations flattened 4 fields a relation, compressed note tuple)."""

COMPRESS_LEVEL = 1
"""zlib level for packed notes: fast, and most of the gain of higher levels."""
RECENT_NOTES = 256
"""How many materialised notes `PackedNotes` keeps, so repeated reads return the same object."""


def cache_path(root: Path) -> Path:
    """Where the cache of a store lives."""
    return Path(root) / ".memtui" / CACHE_NAME


def _stamp_digest() -> bytes:
    """SHA-256 of the code stamp, as sealed files carry it."""
    return hashlib.sha256(repr(_code_stamp()).encode()).digest()


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
_RELATION_FIELDS = tuple(f.name for f in fields(Relation))


_TITLE = _NOTE_FIELDS.index("title")
_PERMALINK = _NOTE_FIELDS.index("permalink")
_OBSERVATIONS = _NOTE_FIELDS.index("observations")
_RELATIONS = _NOTE_FIELDS.index("relations")


def note_to_tuple(note: Note, text: str | None = None) -> NoteTuple:
    """A note as plain tuples in field order, repeated small strings interned.

    Interned strings are pickled once and shared again on load, so thousands of observations
    with the same category or tag cost one string. With the note's `text`, an observation whose
    content appears verbatim in it is stored as (start, end) offsets instead of a second copy.
    """
    intern = sys.intern
    values: list[Any] = [getattr(note, name) for name in _NOTE_FIELDS]
    rows: list[tuple[Any, ...]] = []
    searched_to = 0
    for o in note.observations:
        category = intern(o.category) if o.category else o.category
        tags = [intern(t) for t in o.tags] if o.tags is not None else None
        start = _find_from(text, o.content, searched_to) if text is not None else -1
        if start >= 0:
            end = start + len(o.content)
            rows.append((category, start, end, tags, o.context, o.line))
            searched_to = end
        else:
            rows.append((category, o.content, tags, o.context, o.line))
    values[_OBSERVATIONS] = tuple(rows)
    values[_RELATIONS] = tuple(
        tuple(getattr(r, f) for f in _RELATION_FIELDS) for r in note.relations
    )
    return tuple(values)


def _find_from(text: str, part: str, hint: int) -> int:
    """Where `part` occurs in `text`, looking from `hint` first; -1 when it does not."""
    if not part:
        return -1
    found = text.find(part, hint)
    return found if found >= 0 else text.find(part)


def note_from_tuple(path: str, data: NoteTuple, text: str | None = None) -> Note:
    """Rebuild a note from `note_to_tuple` output (positional, so it is cheap)."""
    if len(data) != len(_NOTE_FIELDS):
        raise ValueError("cached note has a different layout")
    values = list(data)
    observations: list[Observation] = []
    for row in data[_OBSERVATIONS]:
        if len(row) == 6:
            if text is None:
                raise ValueError("cached note needs its text")
            category, start, end, tags, context, line = row
            observations.append(Observation(category, text[start:end], tags, context, line))
        else:
            observations.append(Observation(*row))
    values[_OBSERVATIONS] = observations
    values[_RELATIONS] = [Relation(*row) for row in data[_RELATIONS]]
    return Note(path=path, **dict(zip(_NOTE_FIELDS, values, strict=True)))


def pack_note(note: Note, text: str | None = None) -> PackedNote:
    """A note as one compact tuple: the fields links need kept plain, the rest compressed.

    Give the note's `text` (and the same text to `unpack_note`) to share observation contents.
    Relation targets are interned: many notes link to the same few targets.
    """
    intern = sys.intern
    relations: list[Any] = []
    for r in note.relations:
        relations.extend((intern(r.relation_type), intern(r.target), r.context, r.line))
    data = list(note_to_tuple(note, text))
    data[_RELATIONS] = ()
    data[_TITLE] = data[_PERMALINK] = None
    blob = zlib.compress(pickle.dumps(tuple(data), pickle.HIGHEST_PROTOCOL), COMPRESS_LEVEL)
    return (note.title, note.permalink, intern(note.note_type), tuple(relations), blob)


def relations_of(packed: PackedNote) -> list[Relation]:
    """The relations of a packed note, as fresh `Relation` objects in file order."""
    flat = packed[3]
    return [Relation(*flat[i : i + 4]) for i in range(0, len(flat), 4)]


def relation_targets(packed: PackedNote) -> tuple[str, ...]:
    """The raw target of every relation of a packed note, in file order."""
    return packed[3][1::4]


def relation_lines(packed: PackedNote) -> tuple[int, ...]:
    """The line of every relation of a packed note, in file order."""
    return packed[3][3::4]


_MTIME = _NOTE_FIELDS.index("mtime")
_TAGS = _NOTE_FIELDS.index("tags")
_WARNINGS = _NOTE_FIELDS.index("warnings")


def search_fields(
    packed: PackedNote,
) -> tuple[float, list[str], list[tuple[str | None, list[str] | None, int]]]:
    """(mtime, frontmatter tags, (category, tags, line) per observation) of a packed note."""
    data = sealed.loads_data(zlib.decompress(packed[4]))
    observations = [(row[0], row[-3], row[-1]) for row in data[_OBSERVATIONS]]
    return data[_MTIME], data[_TAGS], observations


def has_warnings(packed: PackedNote) -> bool:
    """Whether the note a packed tuple stands for has parse warnings (no `Note` is built)."""
    return bool(sealed.loads_data(zlib.decompress(packed[4]))[_WARNINGS])


def unpack_note(path: str, packed: PackedNote, text: str | None = None) -> Note:
    """The `Note` a `pack_note` tuple stands for; `text` is the one given to `pack_note`."""
    note = note_from_tuple(path, sealed.loads_data(zlib.decompress(packed[4])), text)
    note.title, note.permalink = packed[0], packed[1]
    note.relations = relations_of(packed)
    return note


def is_packed_note(value: Any) -> TypeGuard[PackedNote]:
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
    returned `Note` is not stored back (the index updates notes through `store`). `texts` holds
    each note's text, which its packed form may point into.
    Iteration works on a snapshot of the keys, so a reader in another thread never sees
    "dictionary changed size during iteration" while the index is updated.
    """

    def __init__(self) -> None:
        """An empty mapping."""
        self._packed: dict[str, PackedNote] = {}
        self.texts: dict[str, str] = {}
        """relpath -> the note's text (read-only for callers)."""
        self._recent: OrderedDict[str, Note] = OrderedDict()
        self._warned: dict[str, tuple[PackedNote, bool]] = {}
        self._lock = threading.Lock()

    def __getitem__(self, relpath: str) -> Note:
        """The note at `relpath` (KeyError when there is none)."""
        with self._lock:
            packed = self._packed[relpath]
            text = self.texts.get(relpath)
        return self._materialise(relpath, packed, text)

    def _materialise(self, relpath: str, packed: PackedNote, text: str | None) -> Note:
        """The note for one packed entry, from the recent ones when it is there."""
        with self._lock:
            note = self._recent.get(relpath)
            if note is not None:
                self._recent.move_to_end(relpath)
                return note
        note = unpack_note(relpath, packed, text)
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
        with self._lock:
            texts = self.texts
            entries = [(p, packed, texts.get(p)) for p, packed in self._packed.items()]
        for relpath, packed, text in entries:
            yield relpath, self._materialise(relpath, packed, text)

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
        """Store (or replace) the note at `relpath`, without a text."""
        self.set_packed(relpath, pack_note(note), None)

    def store(self, relpath: str, note: Note, text: str) -> None:
        """Store (or replace) the note at `relpath` with its text."""
        self.set_packed(relpath, pack_note(note, text), text)

    def set_packed(self, relpath: str, packed: PackedNote, text: str | None) -> None:
        """Store an already packed note at `relpath` with the text it was packed with."""
        with self._lock:
            self._recent.pop(relpath, None)
            self._packed[relpath] = packed
            if text is None:
                self.texts.pop(relpath, None)
            else:
                self.texts[relpath] = text

    def pop(self, relpath: str, default: Any = None) -> Any:
        """Remove the note at `relpath` and its text; returns its packed form, or `default`."""
        with self._lock:
            self._recent.pop(relpath, None)
            self.texts.pop(relpath, None)
            return self._packed.pop(relpath, default)

    def packed(self, relpath: str) -> PackedNote:
        """The packed form of the note at `relpath` (KeyError when there is none)."""
        return self._packed[relpath]

    def packed_items(self) -> Iterator[tuple[str, PackedNote]]:
        """(relpath, packed note) pairs in index order (a snapshot), materialising nothing."""
        return iter(list(self._packed.items()))

    def warned(self) -> list[str]:
        """Relpaths of the notes with parse warnings, in index order; only notes stored since
        the last call are unpacked (without building a `Note`)."""
        with self._lock:
            entries = list(self._packed.items())
            known = dict(self._warned)
        seen: dict[str, tuple[PackedNote, bool]] = {}
        pace = Pacer()
        for relpath, packed in entries:
            pace()
            cached = known.get(relpath)
            if cached is not None and cached[0] is packed:
                seen[relpath] = cached
            else:
                seen[relpath] = (packed, has_warnings(packed))
        with self._lock:
            self._warned = seen
        return [relpath for relpath, (_packed, flagged) in seen.items() if flagged]


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
    """The payload saved under `.memtui/name` by this user with the same code, or None.

    The file is sealed (`memtui.notes.sealed`): a file planted in the store, written by other
    code or changed in any byte is never unpickled, it reads as no payload.
    """
    try:
        with collector_paused():
            return sealed.load(meta_dir(Path(root), create=False) / name, name, _stamp_digest())
    except Exception:
        return None


def write_payload(root: Path, name: str, payload: Any) -> bool:
    """Save `payload` sealed to `.memtui/name` atomically; False when it cannot be written.

    Nothing is written through a `.memtui` that is a symlink or not a folder.
    """
    try:
        folder = meta_dir(Path(root), create=False)
    except OSError:
        return False
    return sealed.dump(folder / name, name, _stamp_digest(), payload)


class CachedNotes(NamedTuple):
    """The parsed-note cache as columns, one row per note sorted by relpath, and the link tables.

    Columns keep a load from making (and dropping) a tuple and two ints per note. `links` is
    the index's link tables for exactly these notes, or None.
    """

    relpaths: list[str]
    sizes: array[int]
    mtimes: array[int]
    packed: list[PackedNote]
    texts: list[str]
    links: Any


def _columns_fit(payload: Any) -> bool:
    """Whether a loaded payload has the shape of `CachedNotes`, its rows sorted by relpath."""
    if not (isinstance(payload, tuple) and len(payload) == len(CachedNotes._fields)):
        return False
    relpaths, sizes, mtimes, packed, texts, _ = payload
    if not (
        isinstance(relpaths, list)
        and isinstance(sizes, array)
        and isinstance(mtimes, array)
        and isinstance(packed, list)
        and isinstance(texts, list)
        and len(relpaths) == len(sizes) == len(mtimes) == len(packed) == len(texts)
    ):
        return False
    return all(type(p) is str for p in relpaths) and all(a < b for a, b in pairwise(relpaths))


def load_cache(root: Path) -> CachedNotes | None:
    """The cached notes, or None when the cache is missing, corrupt or from other code."""
    payload = read_payload(root, CACHE_NAME)
    return CachedNotes(*payload) if _columns_fit(payload) else None


def save_cache(root: Path, notes: CachedNotes) -> bool:
    """Write the cache atomically; False when it cannot be written."""
    return write_payload(root, CACHE_NAME, tuple(notes))
