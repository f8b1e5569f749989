"""NoteIndex: notes by path, Basic Memory link resolution, backlinks, orphans, hubs and counts."""

from __future__ import annotations

import posixpath
import time
from array import array
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from memtui.notes import cache as note_cache
from memtui.notes.bulk import KEEP_MIN_NOTES, Pacer, collector_paused
from memtui.notes.model import Relation
from memtui.notes.scan import FileStat, scan_notes, stat_note

ProgressCallback = Callable[[int, int], None]

UNRESOLVED_PREFIX = "?"
"""Node names in `neighbourhood` for targets that resolve to no note start with this."""


def normalise_text(data: bytes) -> str:
    """Decoded file text with `\\n` line ends, so line numbers match the parser's."""
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def alias_key(path: str) -> str:
    """The case- and `_`/`-`-insensitive form of a path used for the last resolution step."""
    key = path.lower().replace("_", "-")
    return path if key == path else key


PathSet = str | tuple[str, ...] | set[str]
"""One relpath, a tuple of a few, or a set of many: most keys have one owner, and sets are big."""

SMALL_SET = 16
"""Path sets up to this size are tuples (a set of even two paths costs 216 bytes)."""


def add_member(table: dict[str, PathSet], key: str, member: str) -> None:
    """Add `member` to the path set of `key` in `table`."""
    current = table.get(key)
    if current is None:
        table[key] = member
    elif isinstance(current, str):
        if current != member:
            table[key] = (current, member)
    elif isinstance(current, tuple):
        if member not in current:
            table[key] = (*current, member) if len(current) < SMALL_SET else {*current, member}
    else:
        current.add(member)


def discard_member(table: dict[str, PathSet], key: str, member: str) -> None:
    """Remove `member` from the path set of `key`, dropping the key when the set empties."""
    current = table.get(key)
    if current is None:
        return
    if isinstance(current, str):
        if current == member:
            del table[key]
        return
    if isinstance(current, tuple):
        rest = tuple(m for m in current if m != member)
    else:
        current.discard(member)
        if len(current) > SMALL_SET:
            return
        rest = tuple(current)
    if len(rest) > 1:
        table[key] = rest
    elif rest:
        table[key] = rest[0]
    else:
        del table[key]


def members(table: dict[str, PathSet], key: str) -> set[str] | tuple[str, ...]:
    """The relpaths in the path set of `key` (empty when absent); do not modify the result."""
    current = table.get(key)
    if current is None:
        return ()
    if isinstance(current, str):
        return (current,)
    return current


def first_member(table: dict[str, PathSet], key: str) -> str | None:
    """The first relpath in order in the path set of `key`, or None."""
    current = table.get(key)
    if current is None or isinstance(current, str):
        return current
    return min(current)


def stamp(size: int, mtime_ns: int) -> int:
    """A file's size and mtime as one int."""
    return mtime_ns << 48 | size


def unstamp(value: int) -> tuple[int, int]:
    """The (size, mtime_ns) of a `stamp`."""
    return value & 0xFFFF_FFFF_FFFF, value >> 48


def _path_keys(relpath: str) -> tuple[str, ...]:
    """The exact lookup keys a note's path answers to: with and without `.md`."""
    return (relpath, relpath[:-3]) if relpath.endswith(".md") else (relpath,)


def _collect_keys(
    relpath: str, packed: note_cache.PackedNote, keys: set[str], aliases: set[str]
) -> None:
    """Add every lookup key a note answers to (permalink, title, paths, aliases)."""
    title, permalink = packed[:2]
    if permalink:
        keys.add(permalink)
    keys.add(title)
    for key in _path_keys(relpath):
        keys.add(key)
        aliases.add(alias_key(key))


def _pair_rows(files: list[FileStat], relpaths: list[str]) -> Iterator[tuple[FileStat | None, int]]:
    """Scanned files paired with cache rows, both sorted by relpath: (file, row index).

    The row is -1 for a file the cache lacks; the file is None for a row whose file is gone.
    """
    row, rows = 0, len(relpaths)
    for file in files:
        while row < rows and relpaths[row] < file.relpath:
            yield None, row
            row += 1
        if row < rows and relpaths[row] == file.relpath:
            yield file, row
            row += 1
        else:
            yield file, -1
    for rest in range(row, rows):
        yield None, rest


LINK_TABLES = (
    "_by_permalink",
    "_by_title",
    "_by_alias",
    "_resolved",
    "_backlinks",
    "_unresolved",
    "_keys_of_source",
    "_unresolved_of_source",
    "_sources_by_key",
    "_sources_by_alias",
)
"""The index's lookup and resolution tables, saved with the cache and reused by a warm load."""

Changes = dict[str, note_cache.PackedNote | None]
"""relpath -> the note there before (None: there was none) for each note added, changed or gone."""


class NoteIndex:
    """Every note of a store with its links resolved; updated per changed path."""

    def __init__(self, root: Path) -> None:
        """An empty index of `root`; use `load` to fill it."""
        self.root = Path(root)
        self.notes = note_cache.PackedNotes()
        """relpath -> Note (read-only for callers): kept packed, materialised on access."""
        self.texts: dict[str, str] = self.notes.texts
        """relpath -> the note's full text (decoded, `\\n` line ends), for search and context."""
        self.problems: list[str] = []
        """One line per file that could not be indexed, e.g. `a/b.md: not a regular file, skipped`."""
        self.timings: dict[str, float] = {}
        """Seconds spent per load phase: scan, cache, read, parse, resolve, save."""
        self._stats: dict[str, int] = {}
        """relpath -> `stamp(size, mtime_ns)` as the file was read (one int costs less than a pair)."""
        self._by_permalink: dict[str, PathSet] = {}
        self._by_title: dict[str, PathSet] = {}
        self._by_alias: dict[str, PathSet] = {}
        self._resolved: dict[str, tuple[str | None, ...]] = {}
        self._backlinks: dict[str, PathSet] = {}
        self._unresolved: dict[str, PathSet] = {}
        self._keys_of_source: dict[str, tuple[str, ...]] = {}
        self._unresolved_of_source: dict[str, tuple[str, ...]] = {}
        self._sources_by_key: dict[str, PathSet] = {}
        self._sources_by_alias: dict[str, PathSet] = {}

    # ----- loading -------------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        root: str | Path,
        *,
        use_cache: bool = True,
        progress: ProgressCallback | None = None,
    ) -> NoteIndex:
        """Index every note under `root`, reusing cached parses whose size and mtime still match."""
        index = cls(Path(root))
        index._load(use_cache=use_cache, progress=progress)
        return index

    def _load(self, *, use_cache: bool, progress: ProgressCallback | None) -> None:
        """Scan, read or reuse every note, resolve links, and refresh the cache when it changed."""
        started = time.perf_counter()
        scan = scan_notes(self.root)
        self.problems = list(scan.problems)
        self.timings["scan"] = time.perf_counter() - started
        started = time.perf_counter()
        cached = note_cache.load_cache(self.root) if use_cache else None
        self.timings["cache"] = time.perf_counter() - started
        with collector_paused(keep=len(scan.files) >= KEEP_MIN_NOTES):
            changes, olds_known = self._take_notes(scan.files, cached, progress)
            links = cached.links if cached is not None else None
            del cached
            started = time.perf_counter()
            relinked = olds_known and self._restore_links(links)
            if relinked:
                self._relink(changes)
            else:
                self._resolve_all()
            self.timings["resolve"] = time.perf_counter() - started
        started = time.perf_counter()
        if use_cache and (changes or not relinked):
            self.save_cache()
        self.timings["save"] = time.perf_counter() - started

    def _take_notes(
        self,
        files: list[FileStat],
        cached: note_cache.CachedNotes | None,
        progress: ProgressCallback | None,
    ) -> tuple[Changes, bool]:
        """Take each note from `cached` when its stat matches, else read and parse it.

        Returns what changed since the cache (new, changed and deleted notes, each with its
        cached form) and whether every cached form in it is readable.
        """
        relpaths = cached.relpaths if cached is not None else []
        total = len(files)
        changes: Changes = {}
        olds_known = True
        read_time = parse_time = 0.0
        done = 0
        for file, row in _pair_rows(files, relpaths):
            old = cached.packed[row] if cached is not None and row >= 0 else None
            if file is None:
                olds_known = olds_known and note_cache.is_packed_note(old)
                changes[relpaths[row]] = old
                continue
            if not (
                cached is not None
                and row >= 0
                and cached.sizes[row] == file.size
                and cached.mtimes[row] == file.mtime_ns
                and self._use_cached(relpaths[row], file, old, cached.texts[row])
            ):
                olds_known = olds_known and (old is None or note_cache.is_packed_note(old))
                changes[file.relpath] = old
                timing = self._read_and_parse(file)
                read_time += timing[0]
                parse_time += timing[1]
            done += 1
            if progress is not None and (done % 500 == 0 or done == total):
                progress(done, total)
        if progress is not None and total == 0:
            progress(0, 0)
        self.timings["read"] = read_time
        self.timings["parse"] = parse_time
        return changes, olds_known

    def _restore_links(self, links: object) -> bool:
        """Take the link tables saved with the cache; False when they are not usable."""
        if not (
            isinstance(links, tuple)
            and len(links) == len(LINK_TABLES)
            and all(isinstance(table, dict) for table in links)
        ):
            return False
        for name, table in zip(LINK_TABLES, links, strict=True):
            setattr(self, name, table)
        return True

    def _resolve_all(self) -> None:
        """Build the lookup tables and resolve every note's links from scratch."""
        for name in LINK_TABLES:
            setattr(self, name, {})
        for relpath in self.notes:
            self._index_lookup(relpath)
        for relpath in self.notes:
            self._resolve_source(relpath)

    def _use_cached(self, relpath: str, file: FileStat, packed: object, text: object) -> bool:
        """Take a note from its cache row; False when the row is unusable (then it is re-read).

        `relpath` is the cache's own string for the path, which its link tables share.
        """
        if not (note_cache.is_packed_note(packed) and isinstance(text, str)):
            return False
        self.notes.set_packed(relpath, packed, text)
        self._stats[relpath] = stamp(file.size, file.mtime_ns)
        return True

    def _read_and_parse(self, file: FileStat) -> tuple[float, float]:
        """Read and parse one file into the index; returns (read seconds, parse seconds)."""
        from memtui.notes.parser import parse_note

        started = time.perf_counter()
        try:
            with open(self.root / file.relpath, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            self.problems.append(f"{file.relpath}: cannot read ({exc.strerror or exc})")
            return time.perf_counter() - started, 0.0
        read_done = time.perf_counter()
        note = parse_note(data, file.relpath, mtime=file.mtime_ns / 1e9)
        parsed = time.perf_counter()
        text = normalise_text(data)
        self.notes.store(file.relpath, note, text)
        self._stats[file.relpath] = stamp(file.size, file.mtime_ns)
        return read_done - started, parsed - read_done

    # ----- incremental updates ---------------------------------------------------------------

    def update_paths(self, relpaths: Iterable[str]) -> set[str]:
        """Re-read the given paths (added, changed, deleted or renamed) and re-resolve what they affect.

        A folder path stands for every note below it (a folder added, deleted or renamed).
        Returns the relpaths whose note was added, changed or removed. Other notes are not re-read;
        the cache is not rewritten (the next `load` re-reads just the changed files).
        """
        changes: Changes = {}
        for relpath in self._expand_folders(p.strip("/") for p in relpaths):
            if not relpath.endswith(".md") or any(
                part.startswith(".") for part in relpath.split("/")
            ):
                continue
            self.problems = [p for p in self.problems if not p.startswith(relpath + ": ")]
            found, problem = stat_note(self.root, relpath)
            if problem is not None:
                self.problems.append(problem)
            if found is not None and self._stats.get(relpath) == stamp(found.size, found.mtime_ns):
                continue
            old = self.notes.pop(relpath)
            if old is None and found is None:
                continue
            self._stats.pop(relpath, None)
            if found is not None:
                self._read_and_parse(found)
            changes[relpath] = old
        self._relink(changes)
        return set(changes)

    def _relink(self, changes: Changes) -> None:
        """Update the lookup tables and re-resolve every note whose links the changes may affect.

        The tables must describe the notes as they were before: `changes` gives, per path, the
        note that was there (None if none); `self.notes` already holds what is there now.
        """
        affected_keys: set[str] = set()
        affected_aliases: set[str] = set()
        for relpath, old in changes.items():
            if old is not None:
                self._unindex_lookup(relpath, old)
                _collect_keys(relpath, old, affected_keys, affected_aliases)
        for relpath in changes:
            if relpath in self.notes:
                self._index_lookup(relpath)
                _collect_keys(relpath, self.notes.packed(relpath), affected_keys, affected_aliases)
        sources: set[str] = set(changes)
        for key in affected_keys:
            sources.update(members(self._sources_by_key, key))
        for key in affected_aliases:
            sources.update(members(self._sources_by_alias, key))
        for source in sorted(sources):
            self._unresolve_source(source)
            if source in self.notes:
                self._resolve_source(source)

    def title(self, relpath: str) -> str | None:
        """One note's title without materialising the note, or None when it is not indexed."""
        try:
            return self.notes.packed(relpath)[0]
        except KeyError:
            return None

    def permalink(self, relpath: str) -> str | None:
        """One note's permalink without materialising the note, or None when it is not indexed."""
        try:
            return self.notes.packed(relpath)[1]
        except KeyError:
            return None

    def titles(self) -> dict[str, str]:
        """relpath -> title of every note, without materialising the notes (fast at 50k notes)."""
        return {relpath: packed[0] for relpath, packed in self.notes.packed_items()}

    def file_stats(self) -> dict[str, tuple[int, int]]:
        """relpath -> (size, mtime_ns) of every indexed note as it was read."""
        return {relpath: unstamp(value) for relpath, value in self._stats.items()}

    def save_cache(self) -> bool:
        """Write every parsed note to the cache (load does this when anything was re-read)."""
        with collector_paused():
            rows = sorted(self.notes.packed_items(), key=lambda row: row[0])
            relpaths = [relpath for relpath, _ in rows]
            stats = [unstamp(self._stats[relpath]) for relpath in relpaths]
            cached = note_cache.CachedNotes(
                relpaths,
                array("q", (size for size, _ in stats)),
                array("q", (mtime_ns for _, mtime_ns in stats)),
                [packed for _, packed in rows],
                [self.texts[relpath] for relpath in relpaths],
                tuple(getattr(self, name) for name in LINK_TABLES),
            )
            del rows, stats
            return note_cache.save_cache(self.root, cached)

    def _expand_folders(self, relpaths: Iterable[str]) -> list[str]:
        """The given paths, with each folder replaced by the notes indexed or present below it."""
        expanded: dict[str, None] = {}
        for relpath in relpaths:
            if relpath.endswith(".md") or not relpath:
                expanded[relpath] = None
                continue
            prefix = relpath + "/"
            for known in self.notes:
                if known.startswith(prefix):
                    expanded[known] = None
            folder = self.root / relpath
            if folder.is_dir() and not folder.is_symlink():
                sub = scan_notes(folder)
                for file in sub.files:
                    expanded[prefix + file.relpath] = None
        return list(expanded)

    # ----- lookup tables -----------------------------------------------------------------------

    def _index_lookup(self, relpath: str) -> None:
        """Register a note's permalink, title and path aliases (the first path in order wins ties)."""
        title, permalink = self.notes.packed(relpath)[:2]
        if permalink:
            add_member(self._by_permalink, permalink, relpath)
        add_member(self._by_title, title, relpath)
        for key in _path_keys(relpath):
            add_member(self._by_alias, alias_key(key), relpath)

    def _unindex_lookup(self, relpath: str, packed: note_cache.PackedNote) -> None:
        """Remove the note `packed` at `relpath` from the lookup tables (a shared key passes on)."""
        title, permalink = packed[:2]
        if permalink:
            discard_member(self._by_permalink, permalink, relpath)
        discard_member(self._by_title, title, relpath)
        for key in _path_keys(relpath):
            discard_member(self._by_alias, alias_key(key), relpath)

    # ----- resolution ---------------------------------------------------------------------------

    @staticmethod
    def target_key(target: str, source: str | None) -> str:
        """The lookup key of a relation target: markdown-style `./x.md` targets are made root-relative."""
        target = target.strip()
        if source is not None and (target.startswith("./") or target.startswith("../")):
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
            return joined
        return target

    def _resolve_key(self, key: str) -> str | None:
        """Basic Memory's strict order: permalink, title, path, path + .md, unique alias."""
        found = first_member(self._by_permalink, key) or first_member(self._by_title, key)
        if found is not None:
            return found
        if key in self.notes:
            return key
        if key + ".md" in self.notes:
            return key + ".md"
        owners = self._by_alias.get(alias_key(key))
        return owners if isinstance(owners, str) else None

    def resolve(self, target: str, source: str | None = None) -> str | None:
        """The relpath a link target points at, or None; `./x.md` targets are relative to `source`."""
        return self._resolve_key(self.target_key(target, source))

    def _resolve_source(self, source: str) -> None:
        """Resolve every relation of one note and record its backlinks and unresolved targets."""
        resolved: list[str | None] = []
        keys: set[str] = set()
        missing: set[str] = set()
        for target in note_cache.relation_targets(self.notes.packed(source)):
            key = self.target_key(target, source)
            keys.add(key)
            result = self._resolve_key(key)
            resolved.append(result)
            if result is None:
                missing.add(target)
                add_member(self._unresolved, target, source)
            else:
                add_member(self._backlinks, result, source)
        self._resolved[source] = tuple(resolved)
        if keys:
            self._keys_of_source[source] = tuple(keys)
        if missing:
            self._unresolved_of_source[source] = tuple(missing)
        for key in keys:
            add_member(self._sources_by_key, key, source)
            add_member(self._sources_by_alias, alias_key(key), source)

    def _unresolve_source(self, source: str) -> None:
        """Undo `_resolve_source` for one note (its old relations may differ from the current ones)."""
        resolved = self._resolved.pop(source, None)
        keys = self._keys_of_source.pop(source, ())
        if resolved is not None:
            for target in set(resolved):
                if target is not None:
                    discard_member(self._backlinks, target, source)
        for target in self._unresolved_of_source.pop(source, ()):
            discard_member(self._unresolved, target, source)
        for key in keys:
            discard_member(self._sources_by_key, key, source)
            discard_member(self._sources_by_alias, alias_key(key), source)

    # ----- queries --------------------------------------------------------------------------------

    def outgoing(self, relpath: str) -> list[tuple[Relation, str | None]]:
        """Each relation of a note with the relpath it resolves to (None when unresolved)."""
        if relpath not in self.notes:
            return []
        relations = self._relations(relpath)
        resolved = self._resolved.get(relpath, [None] * len(relations))
        return list(zip(relations, resolved, strict=False))

    def _relations(self, relpath: str) -> list[Relation]:
        """A note's relations without materialising the whole note."""
        return note_cache.relations_of(self.notes.packed(relpath))

    def backlinks(self, relpath: str) -> list[tuple[str, Relation]]:
        """Every (source relpath, relation) that points at this note, ordered by source and line."""
        result: list[tuple[str, Relation]] = []
        for source in sorted(members(self._backlinks, relpath)):
            relations = self._relations(source)
            for relation, target in zip(relations, self._resolved[source], strict=False):
                if target == relpath:
                    result.append((source, relation))
        return result

    def unresolved(self) -> dict[str, list[tuple[str, Relation]]]:
        """Unresolved target text -> the (source relpath, relation) pairs that use it, sorted."""
        result: dict[str, list[tuple[str, Relation]]] = {}
        for target in sorted(self._unresolved):
            pairs: list[tuple[str, Relation]] = []
            for source in sorted(members(self._unresolved, target)):
                relations = self._relations(source)
                for relation, resolved in zip(relations, self._resolved[source], strict=False):
                    if resolved is None and relation.target == target:
                        pairs.append((source, relation))
            result[target] = pairs
        return result

    def unresolved_uses(self) -> dict[str, list[tuple[str, int]]]:
        """Unresolved target text -> (source relpath, relations of it using the target), both
        sorted; reads relation targets only, building no relations."""
        pace = Pacer()
        result: dict[str, list[tuple[str, int]]] = {}
        for target in sorted(self._unresolved):
            uses: list[tuple[str, int]] = []
            for source in sorted(members(self._unresolved, target)):
                pace()
                targets = note_cache.relation_targets(self.notes.packed(source))
                used = sum(
                    1
                    for text, resolved in zip(targets, self._resolved[source], strict=False)
                    if resolved is None and text == target
                )
                if used:
                    uses.append((source, used))
            result[target] = uses
        return result

    def unresolved_sources(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Each unresolved target text with the notes that use it (reads no relations)."""
        for target in list(self._unresolved):
            yield target, tuple(members(self._unresolved, target))

    def unresolved_targets(self, relpath: str) -> list[str]:
        """The distinct unresolved targets of one note, in the order they appear."""
        if relpath not in self.notes:
            return []
        resolved = self._resolved.get(relpath)
        if resolved is not None and None not in resolved:
            return []
        targets = note_cache.relation_targets(self.notes.packed(relpath))
        if resolved is None:
            return list(dict.fromkeys(targets))
        return list(dict.fromkeys(t for t, r in zip(targets, resolved, strict=False) if r is None))

    def warnings(self, relpath: str) -> list[str]:
        """The note's parse warnings plus one `unresolved link: T` per unresolved target."""
        note = self.notes.get(relpath)
        if note is None:
            return []
        extra = [f"unresolved link: {target}" for target in self.unresolved_targets(relpath)]
        return [*note.warnings, *extra]

    def linked_notes(self, relpath: str) -> set[str]:
        """Other notes this note links to or is linked from (resolved links only)."""
        out = {t for t in self._resolved.get(relpath, ()) if t is not None}
        out.update(members(self._backlinks, relpath))
        out.discard(relpath)
        return out

    def orphans(self) -> list[str]:
        """Notes with no resolved link to or from another note, sorted."""
        return [p for p in sorted(self.notes) if not self.linked_notes(p)]

    def hubs(self, limit: int = 20) -> list[tuple[str, int]]:
        """The most connected notes: (relpath, number of distinct linked notes), most first."""
        degrees = [(p, len(self.linked_notes(p))) for p in self.notes]
        degrees = [d for d in degrees if d[1] > 0]
        degrees.sort(key=lambda item: (-item[1], item[0]))
        return degrees[:limit]

    def note_tags(self, relpath: str) -> set[str]:
        """Every tag a note carries: frontmatter tags and observation tags."""
        note = self.notes[relpath]
        tags = set(note.tags)
        for observation in note.observations:
            if observation.tags:
                tags.update(t for t in observation.tags if t)
        return tags

    def tag_counts(self) -> Counter[str]:
        """Tag -> number of notes carrying it (in frontmatter or any observation)."""
        counts: Counter[str] = Counter()
        for relpath in self.notes:
            counts.update(self.note_tags(relpath))
        return counts

    def category_counts(self) -> Counter[str]:
        """Observation category -> number of observations (uncategorised ones are not counted)."""
        counts: Counter[str] = Counter()
        for note in self.notes.values():
            counts.update(o.category for o in note.observations if o.category is not None)
        return counts

    def type_counts(self) -> Counter[str]:
        """Note type -> number of notes."""
        return Counter(packed[2] for _, packed in self.notes.packed_items())

    def neighbourhood(
        self, relpath: str, depth: int
    ) -> tuple[set[str], list[tuple[str, str, str]]]:
        """Notes within `depth` links of `relpath` in either direction, and the edges among them.

        Nodes are relpaths, plus `?target` for unresolved targets; edges are (source, target,
        relation_type), each once, sorted.
        """
        if relpath not in self.notes:
            return set(), []
        nodes: set[str] = {relpath}
        edges: set[tuple[str, str, str]] = set()
        queue: deque[tuple[str, int]] = deque([(relpath, 0)])
        while queue:
            current, distance = queue.popleft()
            if distance >= depth or current.startswith(UNRESOLVED_PREFIX):
                continue
            neighbours: list[str] = []
            for relation, target in self.outgoing(current):
                node = target if target is not None else UNRESOLVED_PREFIX + relation.target
                edges.add((current, node, relation.relation_type))
                neighbours.append(node)
            for source, relation in self.backlinks(current):
                edges.add((source, current, relation.relation_type))
                neighbours.append(source)
            for node in neighbours:
                if node not in nodes:
                    nodes.add(node)
                    queue.append((node, distance + 1))
        kept = sorted(e for e in edges if e[0] in nodes and e[1] in nodes)
        return nodes, kept


def _path_set(paths: set[str]) -> PathSet | None:
    """A path set in the form the lookup tables keep it (None when empty)."""
    if not paths:
        return None
    if len(paths) == 1:
        return next(iter(paths))
    return tuple(sorted(paths)) if len(paths) <= SMALL_SET else paths


def _moved_table(
    table: dict[str, PathSet],
    gone: set[str],
    dropped: Iterable[str],
    added: Iterable[tuple[str, str]],
) -> dict[str, PathSet]:
    """A copy of a lookup table with the `gone` paths taken from the `dropped` keys and each
    (key, path) of `added` put in; `table` and its path sets are not changed."""
    additions: dict[str, set[str]] = {}
    for key, relpath in added:
        additions.setdefault(key, set()).add(relpath)
    moved = dict(table)
    for key in {*dropped, *additions}:
        owners = {path for path in members(table, key) if path not in gone}
        value = _path_set(owners | additions.get(key, set()))
        if value is None:
            moved.pop(key, None)
        else:
            moved[key] = value
    return moved


class _MovedNotes(note_cache.PackedNotes):
    """Which paths hold a note once some notes moved (answers `in` only)."""

    def __init__(self, notes: note_cache.PackedNotes, gone: set[str], added: set[str]) -> None:
        """The paths of `notes`, without `gone` and with `added`."""
        super().__init__()
        self._before = notes
        self._gone = gone
        self._added = added

    def __contains__(self, relpath: object) -> bool:
        """Whether a note is at `relpath` after the move."""
        return relpath in self._added or (relpath not in self._gone and relpath in self._before)


class MovedIndex(NoteIndex):
    """How an index would resolve links once some notes moved, by the index's own rules: a
    read-only view for predicting a move that answers `resolve`, `title` and `permalink`."""

    def __init__(self, index: NoteIndex, moves: Mapping[str, tuple[str, str, str]]) -> None:
        """`moves`: old relpath -> (new relpath, title there, permalink there)."""
        super().__init__(index.root)
        self._before = index
        self._gone = set(moves)
        self._names = {new: (title, permalink) for new, title, permalink in moves.values()}
        self.notes = _MovedNotes(index.notes, self._gone, set(self._names))
        old = {relpath: index.notes.packed(relpath)[:2] for relpath in moves}
        self._by_permalink = _moved_table(
            index._by_permalink,
            self._gone,
            (permalink for _title, permalink in old.values() if permalink),
            ((permalink, new) for new, (_title, permalink) in self._names.items() if permalink),
        )
        self._by_title = _moved_table(
            index._by_title,
            self._gone,
            (title for title, _permalink in old.values()),
            ((title, new) for new, (title, _permalink) in self._names.items()),
        )
        self._by_alias = _moved_table(
            index._by_alias,
            self._gone,
            (alias_key(key) for relpath in old for key in _path_keys(relpath)),
            ((alias_key(key), new) for new in self._names for key in _path_keys(new)),
        )

    def title(self, relpath: str) -> str | None:
        """A note's title after the move, or None when no note is there."""
        if relpath in self._names:
            return self._names[relpath][0]
        return None if relpath in self._gone else self._before.title(relpath)

    def permalink(self, relpath: str) -> str | None:
        """A note's permalink after the move, or None when no note is there."""
        if relpath in self._names:
            return self._names[relpath][1]
        return None if relpath in self._gone else self._before.permalink(relpath)
