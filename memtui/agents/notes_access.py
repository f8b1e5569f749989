"""The note index an agent server uses: the store's shared index, kept current for its own writes
and outside edits."""

from __future__ import annotations

import math
import posixpath
import threading
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.core.parsing.paths import VIRTUAL_ROOT, from_relpath, under_root
from memtui.core.plurals import count
from memtui.core.store import MemoryStore
from memtui.core.watcher import StoreWatcher
from memtui.notes.agent_context import build_context, recent_activity
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher, SearchFilters, SearchHit
from memtui.notes.visibility import PolicyUnusable, Visible, visible_filter

FILTER_FIELDS: tuple[str, ...] = ("folder", "tag", "category", "note_type", "actor", "max_age_days")
"""Keys accepted in the `filters` argument of search_memories."""

MUTATING_COMMANDS = frozenset({"create", "str_replace", "insert", "delete", "rename"})


class NotesError(ValueError):
    """A notes request the agent can correct (bad filter, unknown note); the message says how."""


def relpath_of(virtual: object) -> str | None:
    """The root-relative path a `/memories/...` string names, or None if it names none."""
    if not isinstance(virtual, str):
        return None
    rest = "" if virtual == VIRTUAL_ROOT else under_root(virtual)
    if rest is None:
        return None
    rest = rest.lstrip("/")
    if not rest:
        return ""
    normal = posixpath.normpath(rest)
    return None if normal.startswith("..") else normal


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
    header = (
        f'{count(len(hits), "match", "matches")} in {count(len(by_path), "note")} for "{query}"'
    )
    if total_notes is not None:
        header += f" (the best {len(hits)}; {total_notes} notes match in all, raise limit for more)"
    lines = [header + ":"]
    for path, note_hits in by_path.items():
        entry = index.entry(path)
        title = entry.title if entry is not None else posixpath.basename(path)
        lines.append("")
        lines.append(f"{from_relpath(path)} ({title})")
        lines.extend(hit_line(hit) for hit in note_hits)
    return "\n".join(lines)


@dataclass(frozen=True)
class LoadedNotes:
    """A loaded index with its searcher."""

    index: NoteIndex
    searcher: Searcher


def load_notes(root: Path) -> LoadedNotes:
    """Bring the store's shared index up to date (only changed files are read) and open a
    searcher on it."""
    index = NoteIndex.load(root)
    return LoadedNotes(index, Searcher(index))


class NotesAccess:
    """The store's index and a searcher on it, brought up to date before each use: for the paths
    the file watcher saw change, or by a stat walk until the watcher is ready.

    Call it from one thread (the server's store worker); only `start_loading` uses another.
    """

    def __init__(self, root: Path, store: MemoryStore) -> None:
        self.root = root
        self.store = store
        self._index: NoteIndex | None = None
        self._searcher: Searcher | None = None
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
            self._index, self._searcher = loaded.index, loaded.searcher
            self._searcher.history = self.store.history
        self.refresh()
        return self._index

    def searcher(self) -> Searcher:
        """The searcher over the current index."""
        self.index()
        assert self._searcher is not None
        return self._searcher

    def refresh(self) -> set[str]:
        """Index just the files that changed on disk since the last look; returns their paths.

        Once the watcher is ready (after one last full walk, which covers changes from before it
        started) it says which paths to look at; until then the whole store is stat-ed.
        """
        if self._index is None:
            return set()
        watched = self._watcher.take() if self._watcher is not None else None
        if watched is not None and not self._walked_since_watching:
            self._walked_since_watching = True
            watched = None
        if watched is None:
            return self._index.refresh()
        if not watched:
            return set()
        return self._index.update_paths(watched)

    def note_changed_by_command(self, arguments: object) -> set[str]:
        """Update the index for the paths a successful memory command changed.

        If that fails, the next refresh walks the whole store and catches up.
        """
        if self._index is None or not isinstance(arguments, dict):
            return set()
        if arguments.get("command") not in MUTATING_COMMANDS:
            return set()
        targets = [relpath_of(arguments.get(key)) for key in ("path", "old_path", "new_path")]
        paths = [target for target in targets if target]
        try:
            return self._index.update_paths(paths)
        except Exception:
            self._walked_since_watching = False
            return set()

    def _visible(self, reader: MemoryStore | None) -> Visible | None:
        """What the store's policy lets the reader's agent (this server's, by default) see (None:
        everything); a policy that cannot be used answers with its one-line refusal."""
        try:
            return visible_filter(reader or self.store)
        except PolicyUnusable as problem:
            raise NotesError(str(problem)) from None

    def search_text(
        self,
        query: str,
        limit: int = 10,
        filters: dict[str, Any] | None = None,
        reader: MemoryStore | None = None,
    ) -> str:
        """search_memories: matching notes with titles and matched lines."""
        if limit < 1:
            raise NotesError("limit must be at least 1")
        parsed = parse_filters(filters)
        searcher = self.searcher()
        assert self._index is not None
        if not query.strip() and parsed is None:
            raise NotesError("give a query, filters, or both")
        visible = self._visible(reader)
        hits = searcher.search(query, limit=limit, filters=parsed, visible=visible)
        total = None
        if len(hits) >= limit:
            every = searcher.search(
                query, limit=max(COUNT_CAP, limit + 1), filters=parsed, visible=visible
            )
            if len(every) > len(hits):
                notes = len({hit.path for hit in every})
                total = f"at least {notes}" if len(every) >= COUNT_CAP else str(notes)
        return format_hits(query, hits, self._index, total)

    def context_text(
        self,
        target: str,
        depth: int = 1,
        timeframe: str | None = None,
        reader: MemoryStore | None = None,
    ) -> str:
        """build_context: a note, its observations and its neighbourhood as text."""
        index = self.index()
        try:
            context = build_context(
                index,
                target,
                depth=depth,
                timeframe=timeframe or None,
                history=self.store.history,
                visible=self._visible(reader),
            )
        except (LookupError, ValueError) as exc:
            raise NotesError(str(exc)) from exc
        return context.to_text()

    def activity_text(
        self, timeframe: str = "7d", limit: int = 20, reader: MemoryStore | None = None
    ) -> str:
        """recent_activity: what changed recently, newest first."""
        index = self.index()
        try:
            activity = recent_activity(
                index,
                self.store.history,
                timeframe=timeframe,
                limit=limit,
                visible=self._visible(reader),
            )
        except ValueError as exc:
            raise NotesError(str(exc)) from exc
        return activity.to_text()
