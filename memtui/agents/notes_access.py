"""The notes tools an agent server answers (search, context, recent activity) over the store's
Workspace, and the paths a memory command changes."""

from __future__ import annotations

import json
import math
import posixpath
from typing import TYPE_CHECKING, Any

from memtui.core.parsing.paths import VIRTUAL_ROOT, from_relpath, under_root
from memtui.core.plurals import count
from memtui.notes.agent_context import build_context, recent_activity
from memtui.notes.index import NoteIndex
from memtui.notes.query import MEANING_KIND, MODES
from memtui.notes.search import Searcher, SearchFilters, SearchHit
from memtui.notes.search_results import by_note
from memtui.notes.visibility import PolicyUnusable, Visible, visible_filter
from memtui.notes.workspace import Workspace

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

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


FILTERS_OBJECT_SCHEMA: dict[str, Any] = {
    "type": "object",
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
"""JSON schema of a `filters` object of search_memories."""

FILTERS_SCHEMA: dict[str, Any] = {"anyOf": [FILTERS_OBJECT_SCHEMA, {"type": "null"}]}
"""JSON schema of the `filters` argument of search_memories (null, its default, means none);
`anyOf` rather than a list of types, which some clients do not read."""


def parse_filters(filters: object) -> SearchFilters | None:
    """SearchFilters from the tool's `filters` object (or that object as JSON text, as some
    clients send it); a bad key or value is a one-line error."""
    if isinstance(filters, str):
        filters = filters_from_text(filters)
    if filters is None:
        return None
    if not isinstance(filters, dict):
        raise NotesError(FILTERS_EXPECTED)
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


FILTERS_EXPECTED = 'filters must be an object, e.g. {"folder": "projects"}'


def filters_from_text(text: str) -> object:
    """The filters a client sent as JSON text (blank or `null`: none); not JSON is an error."""
    if not text.strip():
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise NotesError(FILTERS_EXPECTED) from None


COUNT_CAP = 1000
"""When `limit` cuts the list, the notes matching in all are counted up to this many."""


def hit_line(hit: SearchHit) -> str:
    """One matched place of a note: `title: ...`, `path: ...`, `N: <the matching line>` or
    `N: by meaning, section: <its heading>`."""
    if hit.kind == MEANING_KIND:
        return f"  {hit.line}: by meaning, section: {hit.text.strip()}"
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
    notes = by_note(hits)
    header = f'{count(len(hits), "match", "matches")} in {count(len(notes), "note")} for "{query}"'
    if total_notes is not None:
        header += f" (the best {len(hits)}; {total_notes} notes match in all, raise limit for more)"
    lines = [header + ":"]
    for note in notes:
        entry = index.entry(note.path)
        title = entry.title if entry is not None else posixpath.basename(note.path)
        lines.append("")
        lines.append(f"{from_relpath(note.path)} ({title})")
        lines.extend(hit_line(hit) for hit in note.hits)
    return "\n".join(lines)


def changed_paths(arguments: object) -> list[str]:
    """The root-relative paths a memory command changes (none for `view` or a bad input)."""
    if not isinstance(arguments, dict) or arguments.get("command") not in MUTATING_COMMANDS:
        return []
    targets = [relpath_of(arguments.get(key)) for key in ("path", "old_path", "new_path")]
    return [target for target in targets if target]


class NotesAccess:
    """The notes tools an agent server answers (search, context, recent activity) over the
    store's Workspace, whose index is caught up with the files before each use.

    Call it from one thread (the server's store worker); the workspace loads in another.
    """

    def __init__(self, workspace: Workspace) -> None:
        """The notes tools over `workspace`."""
        self.workspace = workspace

    def start_loading(self, *, watch: bool = True) -> None:
        """Load the index in the background now, watching the files first (`watch`)."""
        self.workspace.start_loading(watch=watch)

    @property
    def watching(self) -> bool:
        """Whether catch-ups come from the file watcher instead of a full stat walk."""
        return self.workspace.watching

    def index(self) -> NoteIndex:
        """The index, loaded on first use and caught up with files changed behind our back."""
        return self.workspace.current_index()

    def _visible(self, reader: MemoryStore | None) -> Visible | None:
        """What the store's policy lets the reader's agent (this server's, by default) see (None:
        everything); a policy that cannot be used answers with its one-line refusal."""
        try:
            return visible_filter(reader or self.workspace.store)
        except PolicyUnusable as problem:
            raise NotesError(str(problem)) from None

    def search_text(
        self,
        query: str,
        limit: int = 10,
        filters: dict[str, Any] | str | None = None,
        mode: str | None = None,
        reader: MemoryStore | None = None,
    ) -> str:
        """search_memories: matching notes with titles and matched lines (by meaning: the
        section that matched), ranked in `mode`."""
        if limit < 1:
            raise NotesError("limit must be at least 1")
        if mode is not None and mode not in MODES:
            raise NotesError(f"mode must be one of {', '.join(MODES)}")
        parsed = parse_filters(filters)
        if not query.strip() and parsed is None:
            raise NotesError("give a query, filters, or both")
        visible = self._visible(reader)
        searcher = self.workspace.current_searcher()
        found = self.workspace.search(query, parsed, limit=limit, mode=mode, visible=visible)
        hits = found.hits
        total = None
        if len(hits) >= limit and found.mode == "text":
            total = notes_in_all(searcher, query, parsed, hits, limit, visible)
        assert searcher.index is not None
        text = format_hits(query, hits, searcher.index, total)
        return text if found.note is None else f"({found.note}; searched by text)\n{text}"

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
                history=self.workspace.store.history,
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
                self.workspace.store.history,
                timeframe=timeframe,
                limit=limit,
                visible=self._visible(reader),
            )
        except ValueError as exc:
            raise NotesError(str(exc)) from exc
        return activity.to_text()


def notes_in_all(
    searcher: Searcher,
    query: str,
    filters: SearchFilters | None,
    hits: list[SearchHit],
    limit: int,
    visible: Visible | None = None,
) -> str | None:
    """How many notes match in all when `limit` cut the hits to `hits` (`12`, or `at least 250`
    when counting stopped early), or None when nothing was cut.

    The notes are counted without scoring them; when no more notes are counted than are shown,
    the best COUNT_CAP hits say whether anything was cut. For a reader who may not see
    everything (`visible`) only the hits it may see are counted, so no count tells of a hidden
    note.
    """
    shown = len({hit.path for hit in hits})
    counted = (
        None if visible is not None else searcher.count_notes(query, filters=filters, cap=COUNT_CAP)
    )
    if counted is not None and counted[0] > shown:
        notes, complete = counted
        return str(notes) if complete else f"at least {notes}"
    every = searcher.search(
        query, limit=max(COUNT_CAP, limit + 1), filters=filters, visible=visible
    )
    if len(every) <= len(hits):
        return None
    notes = len({hit.path for hit in every})
    return f"at least {notes}" if len(every) >= COUNT_CAP else str(notes)
