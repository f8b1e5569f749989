"""What a store costs its agent: per file its bytes, estimated tokens, whether the agent loads it
at the start of every session (`always`), in part (`partly`, with the lines it never sees) or
only when it reads it (`on demand`), and the tokens agents actually read from it in the last
30 days (the history's successful agent `view` events); and the total loaded at every session's
start against the kind's limit.

The loading rules come from the store's kind (`store_kinds`); tokens are the estimate of
`tokens`. A partly loaded file is cut as Claude Code cuts `MEMORY.md`: surrounding blank space
trimmed, the first 200 lines, then at most 25,000 characters ending at a line end.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from memtui.core.config_tables import BudgetSettings
from memtui.core.parsing.paths import VIRTUAL_ROOT
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.history import History
from memtui.notes.index import NoteIndex
from memtui.notes.store_kinds import LoadRules, PartLoad, detect_kind, rules_for
from memtui.notes.tokens import estimate_tokens, tokens_for_bytes

READ_WINDOW_DAYS = 30
DAY = 86400.0
ALWAYS, PARTLY, ON_DEMAND = "always", "partly", "on demand"
_LOAD_ORDER = {ALWAYS: 0, PARTLY: 1, ON_DEMAND: 2}
LISTING_PATH = VIRTUAL_ROOT
"""The row of the memory tool's `view /memories` listing is named by the path viewed."""
OPENING_BYTES = 2048


@dataclass(frozen=True)
class BudgetRow:
    """One file (or the memory tool's listing) and what it costs the agent."""

    path: str
    bytes: int
    tokens: int
    loaded: str
    unseen_lines: int
    read_tokens_30d: int
    loaded_tokens: int
    """The estimated tokens of the part loaded at every session's start (0 on demand)."""
    first_unseen_line: int | None = None
    """The file's line number where the part the agent never sees begins."""

    def record(self) -> dict[str, object]:
        """The row as the JSON of `memtui budget --json`."""
        return {
            "path": self.path,
            "bytes": self.bytes,
            "tokens": self.tokens,
            "loaded": self.loaded,
            "unseen_lines": self.unseen_lines,
            "read_tokens_30d": self.read_tokens_30d,
            "loaded_tokens": self.loaded_tokens,
            "first_unseen_line": self.first_unseen_line,
        }


@dataclass(frozen=True)
class Budget:
    """Every row of a store, the rules they were judged by, and the session-start total."""

    rules: LoadRules
    rows: list[BudgetRow]

    @property
    def loaded_tokens(self) -> int:
        """Estimated tokens loaded at the start of every session."""
        return sum(row.loaded_tokens for row in self.rows)

    def summary(self) -> str:
        """The kind (detected or configured) and the session-start total against the limit."""
        how = "detected" if self.rules.detected else "from the config"
        limit = f" of {self.rules.limit:,}" if self.rules.limit is not None else ""
        over = " (over the limit)" if self.over_limit else ""
        return (
            f"{self.rules.name} ({how}): {self.loaded_tokens:,}{limit} tokens loaded at the "
            f"start of every session{over}"
        )

    @property
    def over_limit(self) -> bool:
        """Whether the session-start load is over the kind's (or the config's) limit."""
        return self.rules.limit is not None and self.loaded_tokens > self.rules.limit


@dataclass(frozen=True)
class Cut:
    """A partly loaded file: the part loaded, its lines, and what is never seen."""

    loaded: str
    lines: int
    unseen_lines: int
    first_unseen_line: int | None


def cut_part(text: str, part: PartLoad) -> Cut:
    """The part of `text` an agent loads under `part`, cut as Claude Code cuts `MEMORY.md`."""
    body = text.strip()
    if not body:
        return Cut("", 0, 0, None)
    lead = text[: len(text) - len(text.lstrip())].count("\n")
    lines = body.split("\n")
    loaded = "\n".join(lines[: part.lines])
    if len(loaded) > part.bytes:
        end = loaded.rfind("\n", 0, part.bytes + 1)
        loaded = loaded[: end if end > 0 else part.bytes]
    seen = loaded.count("\n") + 1
    unseen = len(lines) - seen
    return Cut(loaded, seen, unseen, lead + seen + 1 if unseen else None)


def reads_since(history: History, since: float) -> dict[str, int]:
    """Virtual path -> estimated tokens agents read from it since `since` (successful `view`s;
    a read follows its file through later renames)."""
    query = EventQuery(command="view", actor="agent", since=since)
    views = history.events(query, newest_first=False)
    views = [event for event in views if not event.is_error and event.path is not None]
    if not views:
        return {}
    moves = history.moves(views[0].id)
    steps = sorted([(event.id, event) for event in views] + [(m[0], m) for m in moves], key=_first)
    read: dict[str, int] = {}
    for _id, step in steps:
        if isinstance(step, tuple):
            _moved_id, old, new = step
            _move(read, old, new)
        elif step.path is not None:
            read[step.path] = read.get(step.path, 0) + estimate_tokens(step.result)
    return read


def _first(item: tuple[int, object]) -> int:
    """The id a step is ordered by."""
    return item[0]


def _move(read: dict[str, int], old: str, new: str) -> None:
    """Carry the reads of `old` (a file or a folder) to `new`."""
    for path in [p for p in read if p == old or p.startswith(old + "/")]:
        tokens = read.pop(path)
        moved = new + path[len(old) :]
        read[moved] = read.get(moved, 0) + tokens


def compute_budget(
    files: Iterable[tuple[str, int]],
    rules: LoadRules,
    *,
    read_text: Callable[[str], str | None],
    reads: Mapping[str, int] | None = None,
    listing: Callable[[], str] | None = None,
) -> Budget:
    """The budget of `files` (relpath, bytes) under `rules`; `read_text` reads a partly loaded
    file, `reads` maps virtual paths to tokens read, `listing` gives the folder listing."""
    reads = reads or {}
    rows = []
    for relpath, size in files:
        row = _row(relpath, size, rules, read_text, reads.get(f"{VIRTUAL_ROOT}/{relpath}", 0))
        rows.append(row)
    if rules.listing and listing is not None:
        shown = listing()
        tokens = estimate_tokens(shown)
        size = len(shown.encode("utf-8", errors="surrogatepass"))
        read = reads.get(LISTING_PATH, 0) + reads.get(LISTING_PATH + "/", 0)
        rows.append(BudgetRow(LISTING_PATH, size, tokens, ALWAYS, 0, read, tokens))
    rows.sort(key=lambda row: (_LOAD_ORDER[row.loaded], row.path))
    return Budget(rules, rows)


def _row(
    relpath: str,
    size: int,
    rules: LoadRules,
    read_text: Callable[[str], str | None],
    read: int,
) -> BudgetRow:
    """One file's row."""
    tokens = tokens_for_bytes(size)
    loaded = rules.load_of(relpath)
    if loaded == ALWAYS:
        return BudgetRow(relpath, size, tokens, ALWAYS, 0, read, tokens)
    if loaded == ON_DEMAND:
        return BudgetRow(relpath, size, tokens, ON_DEMAND, 0, read, 0)
    cut = cut_part(read_text(relpath) or "", rules.partly[relpath])
    return BudgetRow(
        relpath,
        size,
        tokens,
        PARTLY,
        cut.unseen_lines,
        read,
        estimate_tokens(cut.loaded),
        cut.first_unseen_line,
    )


class Viewing(Protocol):
    """What renders the memory tool's `view` of a path (a MemoryStore)."""

    def render_view(self, path: str) -> str:
        """The text `view path` answers."""
        ...


def listing_of(store: Viewing) -> Callable[[], str]:
    """What the memory tool's `view /memories` shows the agent of `store`, made when asked."""
    return lambda: store.render_view(LISTING_PATH)


def store_budget(
    index: NoteIndex,
    history: History | None = None,
    *,
    settings: BudgetSettings | None = None,
    listing: Callable[[], str] | None = None,
    now: float | None = None,
) -> Budget:
    """The budget of an indexed store: its kind detected (or set by `settings`), every note
    and text file, reads over the last 30 days when there is a history."""
    entries = index.entries()
    paths = [entry.path for entry in entries]
    kind = detect_kind(paths, lambda relpath: _opening(index, relpath))
    rules = rules_for(kind, settings)
    since = (time.time() if now is None else now) - READ_WINDOW_DAYS * DAY
    reads = reads_since(history, since) if history is not None else {}
    return compute_budget(
        [(entry.path, entry.size) for entry in entries],
        rules,
        read_text=index.read_text,
        reads=reads,
        listing=listing,
    )


def _opening(index: NoteIndex, relpath: str) -> str | None:
    """The first bytes of a note, as text (for telling the store's kind)."""
    text = index.read_text(relpath)
    return None if text is None else text[:OPENING_BYTES]
