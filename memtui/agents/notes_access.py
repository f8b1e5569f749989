"""The note index an agent server keeps loaded: kept current for its own writes and outside edits."""

from __future__ import annotations

import math
import posixpath
import threading
from collections.abc import Iterable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.store import MemoryStore
from memtui.core.watcher import StoreWatcher
from memtui.notes.context import build_context, recent_activity
from memtui.notes.index import NoteIndex
from memtui.notes.scan import scan_notes, stat_note
from memtui.notes.search import Searcher, SearchFilters, SearchHit

FILTER_FIELDS: tuple[str, ...] = ("folder", "tag", "category", "note_type", "actor", "max_age_days")
"""Keys accepted in the `filters` argument of search_memories."""

MUTATING_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})

StatKey = tuple[int, int]


class NotesError(ValueError):
    """A notes request the agent can correct (bad filter, unknown note); the message says how."""


def relpath_of(virtual: object) -> str | None:
    """The root-relative path a `/memories/...` string names, or None if it names none."""
    if not isinstance(virtual, str) or not virtual.startswith("/memories"):
        return None
    rest = virtual[len("/memories") :].lstrip("/")
    if not rest:
        return ""
    normal = posixpath.normpath(rest)
    return None if normal.startswith("..") else normal


def scan_markdown(root: Path) -> dict[str, StatKey]:
    """Every note file below `root`, as the index sees them, with its mtime and size."""
    return {file.relpath: (file.mtime_ns, file.size) for file in scan_notes(root).files}


FILTERS_SCHEMA: dict[str, Any] = {
    "type": ["object", "null"],
    "properties": {
        "folder": {"type": "string", "description": "Only notes below this folder, e.g. projects"},
        "tag": {"type": "string", "description": "Only notes with this tag"},
        "category": {
            "type": "string",
            "description": "Only notes with an observation of this category, e.g. decision",
        },
        "note_type": {"type": "string", "description": "Only notes of this frontmatter type"},
        "actor": {
            "type": "string",
            "description": 'Only notes last changed by this actor or kind ("agent", "human")',
        },
        "max_age_days": {
            "type": "number",
            "description": "Only notes changed within this many days",
        },
    },
    "additionalProperties": False,
}
"""JSON schema of the `filters` argument of search_memories (null, its default, means none)."""


def parse_filters(filters: object) -> SearchFilters | None:
    """SearchFilters from the tool's `filters` object; a bad key or value is a one-line error."""
    if filters is None:
        return None
    if not isinstance(filters, dict):
        raise NotesError('filters must be an object, e.g. {"folder": "projects"}')
    unknown = sorted(str(key) for key in set(filters) - set(FILTER_FIELDS))
    if unknown:
        raise NotesError(
            f"Unknown filter {', '.join(unknown)}. Expected some of: {', '.join(FILTER_FIELDS)}"
        )
    values: dict[str, Any] = {}
    for key, value in filters.items():
        if value is None:
            continue
        if key == "max_age_days":
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value < 0
            ):
                raise NotesError("Filter max_age_days must be a number of days (0 or more)")
            values[key] = float(value)
        elif isinstance(value, str):
            values[key] = value
        else:
            raise NotesError(f"Filter {key} must be a string")
    return SearchFilters(**values) if values else None


def _plural(count: int, word: str) -> str:
    """`1 match`, `2 matches`, `1 note`, `3 notes`."""
    if count == 1:
        return f"1 {word}"
    return f"{count} {word}es" if word.endswith("ch") else f"{count} {word}s"


COUNT_CAP = 1000
"""When `limit` cuts the list, notes matching in all are counted over at most this many hits."""


def hit_line(hit: SearchHit) -> str:
    """One matched place of a note: `title: ...`, `path: ...` or `N: <the matching line>`."""
    if hit.line > 0:
        return f"  {hit.line}: {hit.text.strip()}"
    return f"  {hit.kind}: {hit.text.strip()}"


def format_hits(
    query: str, hits: list[SearchHit], index: NoteIndex, total_notes: str | None = None
) -> str:
    """Search hits as concise text: one block per note with its title and what matched there.

    `total_notes` (such as `12` or `at least 300`) says how many notes match in all when the
    list was cut to the limit.
    """
    if not hits:
        return f'No notes match "{query}".'
    by_path: dict[str, list[SearchHit]] = {}
    for hit in hits:
        by_path.setdefault(hit.path, []).append(hit)
    header = f'{_plural(len(hits), "match")} in {_plural(len(by_path), "note")} for "{query}"'
    if total_notes is not None:
        header += f" (the best {len(hits)}; {total_notes} notes match in all, raise limit for more)"
    lines = [header + ":"]
    for path, note_hits in by_path.items():
        note = index.notes.get(path)
        title = note.title if note is not None else posixpath.basename(path)
        lines.append("")
        lines.append(f"/memories/{path} ({title})")
        lines.extend(hit_line(hit) for hit in note_hits)
    return "\n".join(lines)


@dataclass(frozen=True)
class LoadedNotes:
    """A loaded index with its searcher and the file stats it was loaded from."""

    index: NoteIndex
    searcher: Searcher
    seen: dict[str, StatKey]


def load_notes(root: Path) -> LoadedNotes:
    """Stat every note, then load the index and build the searcher (seconds on big stores).

    The stats are taken first, so a file changed during the load looks changed to the next
    refresh and is read again.
    """
    seen = scan_markdown(root)
    index = NoteIndex.load(root)
    return LoadedNotes(index, Searcher(index), seen)


class NotesAccess:
    """A NoteIndex and Searcher over a store, loaded once and refreshed only for changed files.

    Call it from one thread (the server's store worker); only `start_loading` uses another.
    """

    def __init__(self, root: Path, store: MemoryStore) -> None:
        self.root = root
        self.store = store
        self._index: NoteIndex | None = None
        self._searcher: Searcher | None = None
        self._seen: dict[str, StatKey] = {}
        self._loading: Future[LoadedNotes] | None = None
        self._watcher: StoreWatcher | None = None
        self._walked_since_watching = False

    @property
    def loaded(self) -> bool:
        """Whether the index has been loaded yet."""
        return self._index is not None

    @property
    def watching(self) -> bool:
        """Whether refreshes come from the file watcher instead of a full stat walk."""
        return self._watcher is not None and self._watcher.ready

    def start_loading(self, *, watch: bool = True) -> None:
        """Load the index on a background thread now, so the first search does not wait for it.

        With `watch`, a file watcher starts first and later refreshes re-read only what it saw
        change, instead of walking the whole store.
        """
        if self._index is not None or self._loading is not None:
            return
        if watch:
            self._watcher = StoreWatcher(self.root)
            self._watcher.start()
        future: Future[LoadedNotes] = Future()

        def load() -> None:
            try:
                future.set_result(load_notes(self.root))
            except BaseException as exc:
                future.set_exception(exc)

        self._loading = future
        threading.Thread(target=load, name="memtui-index-load", daemon=True).start()

    def index(self) -> NoteIndex:
        """The index, loaded on first use and refreshed for files changed behind our back."""
        if self._index is None:
            loading, self._loading = self._loading, None
            loaded = loading.result() if loading is not None else load_notes(self.root)
            self._index, self._searcher, self._seen = loaded.index, loaded.searcher, loaded.seen
            self._searcher.history = self.store.history
        self.refresh()
        return self._index

    def searcher(self) -> Searcher:
        """The searcher over the current index."""
        self.index()
        assert self._searcher is not None
        return self._searcher

    def refresh(self) -> set[str]:
        """Re-read just the notes that changed on disk since the last look; returns them.

        Once the watcher is ready (after one last full walk, which covers changes from before it
        started) it says which paths to look at; until then every note is stat-ed.
        """
        if self._index is None:
            return set()
        watched = self._watcher.take() if self._watcher is not None else None
        if watched is not None and not self._walked_since_watching:
            self._walked_since_watching = True
            watched = None
        if watched is None:
            current = scan_markdown(self.root)
            changed = {path for path, key in current.items() if self._seen.get(path) != key}
            changed |= set(self._seen) - set(current)
            self._seen = current
            return self._update(changed)
        candidates: set[str] = set()
        for relpath in watched:
            candidates |= self._paths_at(relpath)
        changed = {path for path in candidates if self._restat(path)}
        return self._update(changed)

    def note_changed_by_command(self, arguments: object) -> set[str]:
        """Update the index for the paths a successful memory command changed.

        If that fails, the paths are forgotten so the next refresh (a full walk) re-reads them.
        """
        if self._index is None or not isinstance(arguments, dict):
            return set()
        if arguments.get("command") not in MUTATING_COMMANDS:
            return set()
        targets = [relpath_of(arguments.get(key)) for key in ("path", "old_path", "new_path")]
        affected: set[str] = set()
        for target in targets:
            if target is None:
                continue
            affected |= self._paths_at(target)
        for path in affected:
            self._restat(path)
        try:
            return self._update(affected)
        except Exception:
            for path in affected:
                self._seen.pop(path, None)
            self._walked_since_watching = False
            return set()

    def _paths_at(self, relpath: str) -> set[str]:
        """The note paths at or below `relpath`: known to the index, or on disk now."""
        prefix = f"{relpath}/" if relpath else ""
        paths = {path for path in self._seen if path == relpath or path.startswith(prefix)}
        full = self.root / relpath
        if full.is_dir():
            paths |= {f"{prefix}{path}" for path in scan_markdown(full)}
        elif relpath.endswith(".md"):
            paths.add(relpath)
        return paths

    def _restat(self, relpath: str) -> bool:
        """Record the current stat of one note; True if it differs from what was recorded."""
        found, _ = stat_note(self.root, relpath)
        before = self._seen.get(relpath)
        if found is None:
            self._seen.pop(relpath, None)
            return before is not None
        key = (found.mtime_ns, found.size)
        self._seen[relpath] = key
        return before != key

    def _update(self, relpaths: Iterable[str]) -> set[str]:
        """Tell the index and the searcher that these notes changed."""
        relpaths = set(relpaths)
        if not relpaths or self._index is None:
            return set()
        changed = self._index.update_paths(relpaths)
        if self._searcher is not None:
            self._searcher.invalidate(relpaths)
        return changed

    def search_text(
        self, query: str, limit: int = 10, filters: dict[str, Any] | None = None
    ) -> str:
        """search_memories: matching notes with titles and matched lines."""
        if limit < 1:
            raise NotesError("limit must be at least 1")
        parsed = parse_filters(filters)
        searcher = self.searcher()
        assert self._index is not None
        hits = searcher.search(query, limit=limit, filters=parsed)
        total = None
        if len(hits) >= limit:
            every = searcher.search(query, limit=max(COUNT_CAP, limit + 1), filters=parsed)
            if len(every) > len(hits):
                notes = len({hit.path for hit in every})
                total = f"at least {notes}" if len(every) >= COUNT_CAP else str(notes)
        return format_hits(query, hits, self._index, total)

    def context_text(self, target: str, depth: int = 1, timeframe: str | None = None) -> str:
        """build_context: a note, its observations and its neighbourhood as text."""
        index = self.index()
        try:
            context = build_context(
                index, target, depth=depth, timeframe=timeframe or None, history=self.store.history
            )
        except (LookupError, ValueError) as exc:
            raise NotesError(str(exc)) from exc
        return context.to_text()

    def activity_text(self, timeframe: str = "7d", limit: int = 20) -> str:
        """recent_activity: what changed recently, newest first."""
        index = self.index()
        try:
            activity = recent_activity(index, self.store.history, timeframe=timeframe, limit=limit)
        except ValueError as exc:
            raise NotesError(str(exc)) from exc
        return activity.to_text()
