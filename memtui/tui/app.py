"""The Textual app: wires the store, the index worker, the file watcher and the screens."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.signal import Signal
from textual.widgets import Input, TextArea
from textual.worker import get_current_worker

from memtui.tui import indexing
from memtui.tui.context import AppContext, compute_badges, default_settings
from memtui.tui.indexing import build_searcher, load_index
from memtui.tui.messages import (
    BadgesReady,
    ChangeRecorded,
    HistoryReady,
    IndexProgress,
    IndexReady,
    LockWaiting,
    NotesChanged,
    OpenNote,
    ReviewCount,
    SearcherReady,
)
from memtui.tui.plain_notify import PlainNotifyApp
from memtui.tui.screens.main import MainScreen
from memtui.tui.syncing import AppSync, SyncFinished, SyncLine, SyncStep
from memtui.tui.timers import SYSTEM_TIMERS, Stoppable, Timers

if TYPE_CHECKING:
    from textual.app import SystemCommand
    from textual.command import Provider
    from textual.screen import Screen

    from memtui.core.config import Settings
    from memtui.core.policy.rules import Policy
    from memtui.core.recording.database import HistoryCorrupt
    from memtui.core.recording.history import History
    from memtui.core.store import MemoryStore
    from memtui.notes.index import NoteIndex

FIRST_FRAME_ENV = "MEMTUI_FIRST_FRAME_FILE"
"""If set, the app writes the wall-clock time of its first frame to this file (benchmarks)."""
SKIPPED_SHOWN = 8
"""How many skipped entries the start-up warning lists by name."""
BADGES_DELAY = 0.5
"""Seconds after the last change before the badges are recomputed, so a change shows at once."""
LOCK_TIMEOUT = 30.0
"""Seconds a change made in the app waits for another process's lock before it is given up
(nothing changed, said in one line); the app answers keys all the while."""
LOCK_NOTICE = 5.5
"""Seconds a waiting-for-the-lock notice stays (a new one follows every 5 s of waiting)."""
REVIEW_POLL = 5.0
"""Seconds between recounts of the changes waiting for review, so marks made by another process
(`memtui approve`) show too; every change on disk recounts at once."""
SYNC_STATUS_POLL = 30.0
"""Seconds between reads of the status line's sync part (and after every sync)."""


def note_provider() -> type[Provider]:
    """The palette's note finder, imported when the palette first opens (it needs rapidfuzz)."""
    from memtui.tui.commands import NoteProvider

    return NoteProvider


def action_provider() -> type[Provider]:
    """The palette's action list, imported when the palette first opens."""
    from memtui.tui.commands import ActionProvider

    return ActionProvider


INTERACTIONS = (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)
"""Events that show someone is using the app."""


class MemtuiApp(PlainNotifyApp):
    """memtui: browse, search, edit and audit an agent memory directory."""

    CSS_PATH = "memtui.tcss"
    TITLE = "memtui"
    COMMANDS: ClassVar = App.COMMANDS | {note_provider, action_provider}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
        Binding("f1,question_mark", "help", "Keys", key_display="F1", id="app.help"),
        Binding("q", "back", "Back", show=False, id="app.back"),
        Binding("S", "sync", "Sync", show=False, id="app.sync"),
    ]

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        actor: str | None = None,
        settings: Settings | None = None,
        notice: str | None = None,
        watch: bool = True,
        clock: Callable[[], float] = time.time,
        timers: Timers = SYSTEM_TIMERS,
        cursor_blink: bool = True,
    ) -> None:
        """Open the store at `root` as `actor`; `notice` is shown once the screen is up.
        `clock` is the wall clock of notes' ages; `timers` the clock and timers of debounces;
        `cursor_blink=False` keeps text cursors steady (screenshots, tests)."""
        super().__init__()
        settings = settings if settings is not None else default_settings()
        self.ctx = AppContext.open(root, actor or None, settings, clock, self._set_lock_policy)
        self.actor = self.ctx.actor
        self.clock = clock
        self.timers = timers
        self.cursor_blink = cursor_blink
        self.notice = notice
        self.watch_enabled = watch
        self.index_progress: tuple[int, int] | None = None
        self.index_current = False
        """Whether the installed index has been checked against the files since launch."""
        self.badges: dict[str, frozenset[str]] = {}
        self._badges_timer: Stoppable | None = None
        self._badges_lock = threading.Lock()
        self.undo_stack: list[int] = []
        self.history_ready = False
        self.read_only: str | None = None
        """Why the store cannot be written, once the history knows (None: it can)."""
        self.history_problem: HistoryCorrupt | None = None
        self.notes_changed_signal: Signal[frozenset[str]] = Signal(self, "notes-changed")
        self.files_changed_signal: Signal[frozenset[str]] = Signal(self, "files-changed")
        """Files changed on disk, published before the index catches up (previews re-read now)."""
        self.index_ready_signal: Signal[None] = Signal(self, "index-ready")
        self.searcher_ready_signal: Signal[None] = Signal(self, "searcher-ready")
        self.progress_signal: Signal[tuple[int, int]] = Signal(self, "index-progress")
        self.badges_signal: Signal[None] = Signal(self, "badges")
        self.read_only_signal: Signal[str] = Signal(self, "read-only")
        """Published once the history finds that the store cannot be written (with why)."""
        self.review_count: int | None = None
        """How many agent and outside changes wait for review (None until counted)."""
        self.held_count = 0
        """Changes the store's access policy holds for the person's approval."""
        self.policy: Policy | None = None
        """The store's access policy as the last badges were computed with."""
        self.review_count_signal: Signal[int] = Signal(self, "review-count")
        self.syncing = AppSync(self)
        """The background sync (`S`, `[sync] every`) and the status line's sync part."""
        self.sync_signal: Signal[str] = Signal(self, "sync")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A text field taking focus blinks its cursor as the app was told."""
        if isinstance(event.widget, Input | TextArea):
            event.widget.cursor_blink = self.cursor_blink

    def on_unmount(self) -> None:
        """Start no sync after the app has gone (one running finishes, or the next sync does)."""
        self.syncing.stop()

    def on_mount(self) -> None:
        """Show the main screen at once, then index and watch in the background."""
        theme = getattr(self.ctx.settings, "theme", None)
        theme_problem = self.theme_problem()
        if theme_problem is not None:
            self.notify(theme_problem, severity="error", timeout=12)
        elif theme:
            self.theme = theme
        keymap = getattr(self.ctx.settings, "keymap", None)
        if keymap:
            self.set_keymap(dict(keymap))
        self.push_screen(MainScreen())
        marker = os.environ.get(FIRST_FRAME_ENV)
        if marker:
            self.call_after_refresh(Path(marker).write_text, f"{time.time():.6f}\n")
        if self.notice:
            self.notify(self.notice, timeout=8)
        for problem in self.ctx.problems:
            self.notify(problem, severity="warning", timeout=10)
        self.call_after_refresh(self.after_first_frame)

    async def on_event(self, event: events.Event) -> None:
        """Keys and clicks mark the UI as in use, so background loops yield to it."""
        if isinstance(event, INTERACTIONS):
            self.ctx.interaction.note()
        await super().on_event(event)

    async def action_quit(self) -> None:
        """Quit, asking first when an editor holds unsaved changes."""
        self.quit_when_confirmed()

    @work(exclusive=True, group="quit")
    async def quit_when_confirmed(self) -> None:
        """Ask about unsaved editors (in a worker, since it waits for an answer), then quit."""
        # imported on first use: start-up
        from memtui.tui.screens.editor import confirm_quit_with_unsaved_edits

        if await confirm_quit_with_unsaved_edits(self):
            self.exit()

    def theme_problem(self) -> str | None:
        """Why the configured theme cannot be used (its file, key and the known names), or None."""
        settings = self.ctx.settings
        theme = getattr(settings, "theme", None)
        if not theme or theme in self.available_themes:
            return None
        source = getattr(settings, "source", None)
        where = f"{source}: key" if source is not None else "config key"
        known = ", ".join(sorted(self.available_themes))
        return f'{where} "theme": unknown theme "{theme}" (known themes: {known})'

    def after_first_frame(self) -> None:
        """Check the history and start the background work once the first frame is shown."""
        # imported on first use: start-up
        from memtui.tui.screens.dialogs import CorruptHistoryScreen, unreadable_history

        self.history_problem = unreadable_history(self.ctx.root)
        if self.history_problem is None:
            self.start_background_work()
        else:
            self.push_screen(CorruptHistoryScreen(self.history_problem), self.fresh_history_chosen)

    def start_background_work(self) -> None:
        """Recover the history, index the notes and watch the store."""
        self.prepare_history()
        self.load_index()
        if self.watch_enabled:
            self.watch_files()

    def fresh_history_chosen(self, confirmed: bool | None) -> None:
        """Set the unreadable history aside and carry on, or quit without touching anything."""
        from memtui.core.recording.history import History  # imported on first use: start-up
        from memtui.tui.screens.dialogs import CorruptHistoryScreen  # first use: start-up

        error = self.history_problem
        if error is None:
            return
        if not confirmed:
            self.exit(message=CorruptHistoryScreen.declined_message(error))
            return
        try:
            kept = History.set_aside(self.ctx.root)
        except OSError as failure:
            self.exit(
                return_code=1,
                message=CorruptHistoryScreen.set_aside_failed_message(error, failure),
            )
            return
        self.notify(f"Started a fresh history. The old one is kept as {kept}.", timeout=12)
        self.start_background_work()

    @work(thread=True, exclusive=True, group="history", exit_on_error=False)
    def prepare_history(self) -> None:
        """Open the history in a thread: start-up recovery records changes made while closed."""
        try:
            self.ctx.store.history.events(limit=1)
        except Exception as error:
            self.post_message(HistoryReady(f"History recovery failed: {error}"))
        else:
            self.post_message(HistoryReady(read_only=self.ctx.store.read_only))

    def plain_history(self) -> History:
        """The history for background readers: never runs start-up recovery itself."""
        history = self.ctx.workspace.history
        assert history is not None
        return history

    def on_history_ready(self, message: HistoryReady) -> None:
        """History queries no longer block: refresh what shows it (and say if recovery failed)."""
        if message.error:
            self.notify(message.error, severity="error", timeout=10)
        if message.read_only is not None:
            self.read_only = message.read_only
            self.read_only_signal.publish(message.read_only)
        self.history_ready = True
        self.notes_changed_signal.publish(frozenset())
        self.compute_badges()
        self.count_reviews()
        self.set_interval(REVIEW_POLL, self.count_reviews)
        self.syncing.start()
        self.set_interval(SYNC_STATUS_POLL, self.syncing.read_status)

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def load_index(self) -> None:
        """Open the index and install it with a searcher (at once when it holds files), then
        catch up on files changed since, then (with a model configured) the vectors of search by
        meaning; posting progress, readiness and what changed."""
        installed: list[bool] = []

        def ready(index: NoteIndex) -> None:
            build_searcher(self.ctx, index, self.plain_history())
            installed.append(True)
            self.post_message(IndexReady(index, current=False))
            self.post_message(SearcherReady())

        index, error, changed = load_index(
            self.ctx, lambda done, total: self.post_message(IndexProgress(done, total)), ready
        )
        if installed and index is not None:
            self.post_message(IndexReady(index, error))
            if changed:
                self.post_message(NotesChanged(frozenset(changed)))
        else:
            self.post_message(IndexReady(index, error))
            if index is None:
                return
            build_searcher(self.ctx, index, self.plain_history())
            self.post_message(SearcherReady())
        workspace = self.ctx.workspace
        if workspace.meaning_wanted and workspace.open_meaning(self.ctx.interaction) is not None:
            self.post_message(SearcherReady())

    def on_index_progress(self, message: IndexProgress) -> None:
        """Remember and broadcast the indexing progress."""
        self.index_progress = (message.done, message.total)
        self.progress_signal.publish((message.done, message.total))

    def on_index_ready(self, message: IndexReady) -> None:
        """Tell the screens the index is in, compute badges, report skipped entries."""
        self.index_progress = None
        if message.error:
            self.notify(message.error, severity="error", timeout=10)
        if message.index is None:
            return
        self.index_current = message.current
        self.index_ready_signal.publish(None)
        self.compute_badges()
        if message.current:
            self.report_skipped(message.index.problems)

    def on_searcher_ready(self, message: SearcherReady) -> None:
        """Tell the screens that search works now."""
        self.searcher_ready_signal.publish(None)

    def report_skipped(self, problems: list[str]) -> None:
        """Warn once about entries the index skipped (links out, loops, FIFOs, unreadable)."""
        if not problems:
            return
        shown = "\n".join(problems[:SKIPPED_SHOWN])
        more = len(problems) - SKIPPED_SHOWN
        tail = f"\n... and {more} more" if more > 0 else ""
        self.notify(
            f"Skipped {len(problems)} entries:\n{shown}{tail}",
            severity="warning",
            timeout=20,
        )

    @work(thread=True, exclusive=True, group="badges", exit_on_error=False)
    def compute_badges(self) -> None:
        """Compute tree badges in a thread, one run at a time (a run over a large store holds
        a lot); a run overtaken by a newer one posts nothing."""
        index = self.ctx.index
        if index is None:
            return
        try:
            with self._badges_lock:
                if get_current_worker().is_cancelled:
                    return
                policy = self.ctx.store.policy()
                badges = compute_badges(
                    self.plain_history(),
                    index,
                    self.clock(),
                    self.ctx.store,
                    self.ctx.interaction,
                    policy,
                )
        except Exception as error:
            self.log.warning(f"badges not computed: {error}")
            return
        if not get_current_worker().is_cancelled:
            self.post_message(BadgesReady(badges, policy))

    @work(thread=True, exclusive=True, group="review-count", exit_on_error=False)
    def count_reviews(self) -> None:
        """Count the changes waiting for review in a thread; an overtaken count posts nothing."""
        try:
            waiting = self.plain_history().pending_review_count()
            held = self.ctx.store.proposals.count_waiting()
        except Exception as error:
            self.log.warning(f"changes to review not counted: {error}")
            return
        if not get_current_worker().is_cancelled:
            self.post_message(ReviewCount(waiting, held))

    def action_sync(self) -> None:
        """Sync now (commit, fetch, merge, push) in the background."""
        self.syncing.sync_now()

    def action_sync_screen(self) -> None:
        """Open the clashes and files held back that sync left for you."""
        from memtui.tui.screens.sync import SyncScreen  # imported on first use: start-up

        self.push_screen(SyncScreen())

    def on_sync_step(self, message: SyncStep) -> None:
        """Show a sync's step in the status line."""
        self.syncing.show(message)

    def on_sync_finished(self, message: SyncFinished) -> None:
        """Tell how a sync ended and read the status again."""
        self.syncing.show(message)

    def on_sync_line(self, message: SyncLine) -> None:
        """Take the status line's new sync part."""
        self.syncing.show(message)

    def on_review_count(self, message: ReviewCount) -> None:
        """Tell the screens new counts, when they changed."""
        if (message.waiting, message.held) != (self.review_count, self.held_count):
            self.review_count = message.waiting
            self.held_count = message.held
            self.review_count_signal.publish(message.waiting)

    def on_badges_ready(self, message: BadgesReady) -> None:
        """Install new badges (and the policy they show) and tell the screens."""
        self.badges = message.badges
        self.policy = message.policy
        self.badges_signal.publish(None)

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_files(self) -> None:
        """Watch the store for changes until the app exits."""
        from memtui.core.watcher import watch_store  # imported on first use: start-up

        await watch_store(self.ctx.root, self.apply_changes)

    async def apply_changes(self, paths: frozenset[str]) -> None:
        """Update the index in a thread and post `NotesChanged`; then search index and history."""
        self.files_changed_signal.publish(paths)
        await asyncio.to_thread(indexing.apply_changes, self.ctx, paths)
        self.post_message(NotesChanged(paths))
        await asyncio.to_thread(indexing.after_changes, self.ctx, paths)
        self.post_message(NotesChanged(frozenset()))

    def on_notes_changed(self, message: NotesChanged) -> None:
        """Tell every screen which notes changed (none: only the history grew); refresh badges
        and the count of changes waiting for review."""
        self.notes_changed_signal.publish(message.paths)
        if self.history_ready:
            self.count_reviews()
        if self._badges_timer is not None:
            self._badges_timer.stop()
        self._badges_timer = self.timers.later(self, BADGES_DELAY, self.compute_badges)

    def _set_lock_policy(self, store: MemoryStore) -> None:
        """Give the store the app's lock time limit and its waiting notice."""
        from memtui.core.store import LockPolicy  # imported on first use: start-up

        store.lock_policy = LockPolicy(
            LOCK_TIMEOUT, lambda seconds: self.post_message(LockWaiting(seconds))
        )

    def on_lock_waiting(self, message: LockWaiting) -> None:
        """Say that a change waits for another process's lock (the app keeps answering)."""
        self.notify(
            f"Waiting for the store's lock ({message.seconds:.0f} s): another process (an agent "
            "or another memtui) is changing the store. Your change goes through once it is "
            f"done, or is given up after {LOCK_TIMEOUT:.0f} s; keys work meanwhile.",
            severity="warning",
            timeout=LOCK_NOTICE,
        )

    def open_note(self, relpath: str, line: int | None = None) -> None:
        """Switch to the main screen showing `relpath`, scrolled to `line` (an editor holding
        unsaved text is never closed for it)."""
        from memtui.tui.screens.editor import unsaved_editors  # imported on first use: start-up

        if unsaved_editors(self):
            self.notify("Save or close the editor first: it holds unsaved changes.")
            return
        while len(self.screen_stack) > 2 and not isinstance(self.screen, MainScreen):
            self.pop_screen()
        main = self.screen
        if isinstance(main, MainScreen):
            main.show_path(relpath, line)

    def remember_event(self, event_id: int | None) -> None:
        """Remember an event this app made, so `undo` can revert it."""
        if event_id is not None:
            self.undo_stack.append(event_id)

    def on_open_note(self, message: OpenNote) -> None:
        """A screen asked for a note on the main screen."""
        self.open_note(message.relpath, message.line)

    def on_change_recorded(self, message: ChangeRecorded) -> None:
        """A screen made a change: keep it for undo."""
        self.remember_event(message.event_id)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands, without the keys help and quit memtui lists itself."""
        from memtui.tui.commands import without_textual_duplicates  # first use: start-up

        return without_textual_duplicates(super().get_system_commands(screen))

    def action_help(self) -> None:
        """Show the keys of the focused widget and its screen (F1 or ? again closes them)."""
        from memtui.tui.screens.dialogs import HelpScreen  # imported on first use: start-up

        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            self.push_screen(HelpScreen(self.screen))

    async def action_back(self) -> None:
        """`q`: back to the previous screen, or quit from the main screen (asking first about
        unsaved text)."""
        screen = self.screen
        if isinstance(screen, MainScreen):
            self.quit_when_confirmed()
        elif hasattr(screen, "action_close"):
            await screen.run_action("close")
