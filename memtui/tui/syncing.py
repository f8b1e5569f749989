"""The app's side of sync: a background `AutoSync` (on `[sync] every` and on `S`), its steps and
outcome as messages, and the status line's sync part. Syncs and status reads run off the UI
thread; the UI thread only shows what they post."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from memtui.notes.sync.auto import AutoSync, Outcome
    from memtui.tui.app import MemtuiApp

NOT_SET_UP = "This folder is not set up for sync: run `memtui sync {root} --remote URL` once."


class SyncStep(Message):
    """A sync moved to its next step (`fetching`, `committing`, `merging ...`, `pushing`)."""

    def __init__(self, text: str) -> None:
        """The step's words."""
        super().__init__()
        self.text = text


class SyncFinished(Message):
    """A sync ended, with its report or its one-line error."""

    def __init__(self, outcome: Outcome) -> None:
        """The outcome."""
        super().__init__()
        self.outcome = outcome


class SyncLine(Message):
    """The status line's sync part, read again (empty when sync is not set up)."""

    def __init__(self, line: str, clashes: int) -> None:
        """The line and how many clashes wait."""
        super().__init__()
        self.line = line
        self.clashes = clashes


def finished_note(outcome: Outcome) -> tuple[str, str]:
    """What to tell after a sync (the text and its severity)."""
    from memtui.core.display import visible
    from memtui.notes.sync import SyncError

    if isinstance(outcome, SyncError):
        return visible(f"Sync failed: {outcome}"), "error"
    words = []
    if outcome.pulled:
        words.append(f"pulled {outcome.pulled:,}")
    if outcome.committed:
        words.append(f"sent {outcome.committed:,}")
    done = ", ".join(words) if words else "nothing to do"
    waiting = len(outcome.clashes) + len(outcome.held)
    if waiting:
        return f"Synced ({done}); {waiting:,} waiting for you (palette: sync clashes)", "warning"
    return f"Synced ({done}).", "information"


class AppSync:
    """The app's background sync and its status."""

    def __init__(self, app: MemtuiApp) -> None:
        """Nothing runs until `start`."""
        self.app = app
        self.auto: AutoSync | None = None
        self.line = ""
        """The status line's sync part: a step while a sync runs, else the state."""
        self.state_line = ""
        self.clashes = 0

    def start(self) -> None:
        """Make the background sync (started when the store is set up and `every` is set) and
        read the status."""
        from memtui.notes.sync.auto import AutoSync  # imported on first use: start-up

        app = self.app
        sync_settings = getattr(app.ctx.settings, "sync", None)
        every = getattr(sync_settings, "every", None)
        self.auto = AutoSync(
            app.ctx.store,
            every,
            machine=getattr(sync_settings, "machine", None),
            on_progress=lambda text: app.post_message(SyncStep(text)),
            on_done=lambda outcome: app.post_message(SyncFinished(outcome)),
        )
        if every is not None:
            self.auto.start()
        self.read_status()

    def stop(self) -> None:
        """Stop the background sync without waiting for a sync that runs (the next one
        finishes it)."""
        if self.auto is not None:
            self.auto.stop(timeout=0.0)

    def sync_now(self) -> None:
        """Sync now (after the running one); said when the folder is not set up."""
        auto = self.auto
        if auto is None:
            return
        if not auto.configured:
            self.app.notify(NOT_SET_UP.format(root=self.app.ctx.root), severity="warning")
            return
        self.show(SyncStep("starting"))
        auto.sync_now()

    def show(self, message: SyncStep | SyncFinished | SyncLine) -> None:
        """Take a message of the sync into the status line (and tell the outcome)."""
        if isinstance(message, SyncStep):
            self.line = f"sync: {message.text}…"
        elif isinstance(message, SyncLine):
            self.state_line, self.clashes = message.line, message.clashes
            if self.auto is None or not self.auto.running:
                self.line = self.state_line
        else:
            text, severity = finished_note(message.outcome)
            self.app.notify(text, severity=severity, timeout=8)  # type: ignore[arg-type]
            written = frozenset(getattr(message.outcome, "paths", ()))
            if written:
                self.app.run_worker(self.app.apply_changes(written), exit_on_error=False)
            self.line = self.state_line
            self.read_status()
            self.app.count_reviews()
        self.app.sync_signal.publish(self.line)

    def read_status(self) -> None:
        """Read the status line's sync part in a thread."""
        if self.auto is not None:
            self.app.run_worker(
                partial(read_sync_status, self.app),
                thread=True,
                exclusive=True,
                group="sync-status",
                exit_on_error=False,
            )


def read_sync_status(app: MemtuiApp) -> None:
    """The store's sync status, posted as a `SyncLine` (git refs and the sync tables only)."""
    from memtui.notes.sync.status import sync_status  # imported on first use: start-up

    try:
        status = sync_status(app.ctx.store)
    except Exception as error:
        app.log.warning(f"sync status not read: {error}")
        return
    if not get_current_worker().is_cancelled:
        app.post_message(SyncLine(status.line(app.clock()), status.clashes))
