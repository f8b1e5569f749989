"""Messages that workers post to the app; its handlers tell the screens what changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.notes.index import NoteIndex
    from memtui.tui.outlink import OutLink
    from memtui.tui.preview_source import PreparedView


@dataclass
class IndexProgress(Message):
    """The index worker has parsed `done` of `total` notes."""

    done: int
    total: int


@dataclass
class IndexReady(Message):
    """The index worker installed the index (or failed to load it): an index already built is
    announced as soon as it opens, and again once it has caught up with the files."""

    index: NoteIndex | None = None
    error: str | None = None
    current: bool = True
    """Whether the index has been checked against the files (False: announced as it opened)."""


@dataclass
class SearcherReady(Message):
    """The index worker installed the search index; search results can be shown."""


@dataclass
class NotesChanged(Message):
    """Relative paths changed on disk, posted after the index was updated for them."""

    paths: frozenset[str]


@dataclass
class BadgesReady(Message):
    """Tree badges computed in a worker: relpath -> badge names, and the store's access policy
    they were computed with."""

    badges: dict[str, frozenset[str]]
    policy: Any = None


@dataclass
class HistoryReady(Message):
    """The store's history finished start-up recovery (outside changes are recorded)."""

    error: str | None = None
    """Why recovery failed, if it did."""
    read_only: str | None = None
    """Why the store cannot be written (a read-only folder, a full disk), if it cannot."""


@dataclass
class NoteHistoryRead(Message):
    """A note's recent events, read in a worker for the side panel (with the links it showed)."""

    relpath: str
    outgoing: list[OutLink]
    backlinks: list[tuple[str, str, str]]
    events: list[Event]


@dataclass
class MoveBreaksCounted(Message):
    """A rename dialog's worker counted the notes whose links a move to `new` would break."""

    new: str
    broken: int


@dataclass
class ReviewCount(Message):
    """How many agent and outside changes wait for review, and how many changes the access
    policy holds for approval, counted in a worker."""

    waiting: int
    held: int = 0


@dataclass
class PreviewPrepared(Message):
    """A file's view was read and laid out in a thread (or `error` says why it could not be)."""

    relpath: str
    raw: bool
    view: PreparedView | None
    error: str | None
    line: int | None
    keep_position: bool


@dataclass
class TitlesRead(Message):
    """Files' titles read in a thread for the tree (None: the file has none)."""

    titles: dict[str, str | None]


@dataclass
class SettingSaved(Message):
    """A setting was saved in the config file (`error` None) or could not be."""

    summary: str
    error: str | None


@dataclass
class LockWaiting(Message):
    """A change made in the app has waited `seconds` for the lock another process holds."""

    seconds: float


@dataclass
class OpenNote(Message):
    """A screen asks for a note on the main screen (at a 1-based line): bubbles to the app."""

    relpath: str
    line: int | None = None


@dataclass
class ChangeRecorded(Message):
    """A screen made a change the history recorded: bubbles to the app, which keeps it for undo."""

    event_id: int | None


@dataclass
class EditedNoteChanged(Message):
    """The note open in an editor changed on disk by `who` (deleted when `gone`)."""

    who: str
    gone: bool
