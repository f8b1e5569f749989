"""The search screen: results as you type, highlighted matches, filters in the query."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from memtui.core.display import visible, visible_spans
from memtui.core.plurals import noun_for
from memtui.notes.query import MEANING_KIND, QueryError, parse_query
from memtui.notes.search_results import PER_NOTE, NoteHits, notes_of
from memtui.tui import text_styles as styles
from memtui.tui.messages import OpenNote
from memtui.tui.screens.base import MemtuiScreen
from memtui.tui.timers import Stoppable, timers_of
from memtui.tui.widgets.cursor_list import CursorList
from memtui.tui.widgets.key_footer import KeyFooter

if TYPE_CHECKING:
    from memtui.notes.search import SearchHit

__all__ = ["SearchScreen", "highlight", "note_prompt", "parse_query"]

SEARCH_HELP = """\
Type to search titles, paths, tags, observations, relations and text of every text file;
each matching note is listed once with its best lines, matches highlighted.
Filters go in the query:  tag:NAME  category:NAME (cat:)  type:NAME  folder:PATH/ (in:)
actor:human|agent|external|agent:NAME  age:DAYS (changed within that many days).
Filters alone list the notes that pass them, most recently changed first.
mode:text ranks by the words, mode:meaning by meaning (notes that say it in other words; shown
at the section that matched), mode:hybrid by both; with search by meaning on (the `meaning`
extra and [search] model in config.toml) hybrid is the default, else text.
Example:  deploy tag:infra folder:projects/ age:30
Down moves to the results, Enter opens a note at its best line, Escape goes back."""

RESULT_LIMIT = 40
"""Notes listed at most (each with its best lines)."""
SHOWN_CHARS = 300
"""Characters of a matching line shown, at most."""
SHOWN_PER_FRAME = 12
"""Result options added to the list per frame: each needs its wrapped height measured on the
UI thread, so a full page is spread over frames and keys get handled in between."""
TYPING_PAUSE = 0.06
"""Seconds without a keystroke before a search starts, so typing never competes with one."""


def highlight(text: str, spans: tuple[tuple[int, int], ...]) -> Content:
    """`text` made display-safe, with the matched spans highlighted."""
    shown, moved = visible_spans(text, spans)
    styled = Content(shown)
    for start, end in moved:
        styled = styled.stylize(styles.MATCH, start, end)
    return styled


def note_prompt(note: NoteHits) -> Content:
    """How one matching note is shown: its path, then each of its best hits as the line number
    (the kind for a title or path) and the matching text."""
    parts: list[Content | str | tuple[str, str]] = [(note.path, styles.HEADING)]
    for hit in note.hits:
        label = str(hit.line) if hit.line else hit.kind
        parts += ["\n", (f"{label:>6}  ", styles.MUTED), hit_text(hit)]
    return styles.assemble(*parts)


def hit_text(hit: SearchHit) -> Content:
    """A hit's text, its first SHOWN_CHARS characters, the matches highlighted."""
    text = f"section: {hit.text}" if hit.kind == MEANING_KIND else hit.text
    cut = len(text) > SHOWN_CHARS
    shown = text[:SHOWN_CHARS] + "…" if cut else text
    return highlight(shown, tuple(span for span in hit.spans if span[0] < SHOWN_CHARS))


@dataclass
class SearchResults(Message):
    """Matching notes for a query, posted by the search worker."""

    query: str
    notes: list[NoteHits]
    prompts: list[Content]
    note: str | None = None
    """Why the mode asked for was not used (the hits are by text), one line."""


class SearchScreen(MemtuiScreen[None]):
    """Search every note as you type; Enter opens a note at its best line."""

    HELP = SEARCH_HELP
    AUTO_FOCUS = "#search-input"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="search.close"),
        Binding("down", "focus_results", "Results", show=False, id="search.results"),
        Binding("ctrl+l", "clear", "Clear", id="search.clear"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("search: clear", "clear", "Empty the query"),
        ("search: go to the results", "focus_results", "Move from the query to the results"),
        ("search: back", "close", "Back to the notes"),
    ]

    def __init__(self, query: str = "") -> None:
        """Open with `query` typed."""
        super().__init__()
        self.initial_query = query
        self.hits: list[SearchHit] = []
        """The best hit of each note listed, in the list's order."""
        self.shown_query: str | None = None
        self._search_timer: Stoppable | None = None
        self._shown_generation = 0

    def compose(self) -> ComposeResult:
        """The query, a status line, the results and the footer."""
        yield Input(self.initial_query, placeholder="search… (F1: filters)", id="search-input")
        yield Static("", id="search-status", markup=False)
        yield CursorList(id="search-results")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus the query and subscribe to index and change signals."""
        self.memtui.searcher_ready_signal.subscribe(self, lambda _none: self.rerun())
        self.memtui.notes_changed_signal.subscribe(self, lambda _paths: self.rerun())
        self.query_one("#search-input", Input).focus()
        self.rerun()

    def rerun(self) -> None:
        """Search again for what is typed."""
        self.start_search(self.query_one("#search-input", Input).value)

    @on(Input.Changed, "#search-input")
    def _query_changed(self, event: Input.Changed) -> None:
        """Search as the user types: stop the running search now, start the next on a pause."""
        self.workers.cancel_group(self, "search")
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_timer = timers_of(self).later(self, TYPING_PAUSE, self.rerun)

    def start_search(self, text: str) -> None:
        """Start a search, cancelling the previous one."""
        status = self.query_one("#search-status", Static)
        try:
            words, filters = parse_query(text)
        except QueryError as error:
            self.workers.cancel_group(self, "search")
            self._show(text, [], [])
            status.update(str(error))
            return
        if self.memtui.ctx.searcher is None:
            status.update(
                "Indexing… results appear when it is done."
                if self.memtui.ctx.index is None
                else "Building the search index… results appear when it is done."
            )
            return
        if not words and not filters.any():
            self.workers.cancel_group(self, "search")
            self._show(text, [], [])
            status.update("Type to search. F1 shows the filter syntax.")
            return
        status.update("searching…")
        self.search_worker(text)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def search_worker(self, text: str) -> None:
        """Run the search in a thread; the next keystroke cancels it."""
        worker = get_current_worker()
        searcher = self.memtui.ctx.searcher
        if searcher is None:
            return
        try:
            words, filters = parse_query(text, self.memtui.clock())
        except QueryError:
            return
        found = self.memtui.ctx.workspace.search(
            words,
            filters,
            limit=RESULT_LIMIT * PER_NOTE,
            cancelled=lambda: worker.is_cancelled,
            per_note=PER_NOTE,
        )
        notes = notes_of(found.hits, RESULT_LIMIT)
        prompts = [note_prompt(note) for note in notes]
        if not worker.is_cancelled:
            self.post_message(SearchResults(text, notes, prompts, found.note))

    def on_search_results(self, message: SearchResults) -> None:
        """Show the hits of the latest query."""
        if message.query != self.query_one("#search-input", Input).value:
            return
        self._show(message.query, message.notes, message.prompts)
        found = len(message.notes)
        more = "+" if found >= RESULT_LIMIT else ""
        status = f"{found}{more} {noun_for(found, 'note')}" if found else "No matches."
        if message.note:
            status = f"{status.rstrip('.')} by text: {visible(message.note)}"
        self.query_one("#search-status", Static).update(status)

    def _show(self, query: str, notes: list[NoteHits], prompts: list[Content]) -> None:
        """Replace the result list (one option per note): the first options now, the rest over
        the next frames."""
        self.hits = [note.best for note in notes]
        self.shown_query = query
        self._shown_generation += 1
        results = self.query_one("#search-results", OptionList)
        results.clear_options()
        self._add_options(self._shown_generation, prompts, 0)
        if notes:
            results.highlighted = 0

    def _add_options(self, generation: int, prompts: list[Content], start: int) -> None:
        """Add one frame's worth of options, unless newer results replaced them meanwhile."""
        if generation != self._shown_generation:
            return
        end = start + SHOWN_PER_FRAME
        self.query_one("#search-results", OptionList).add_options(
            [Option(prompt, id=str(n)) for n, prompt in enumerate(prompts[start:end], start)]
        )
        if end < len(prompts):
            self.call_after_refresh(self._add_options, generation, prompts, end)

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter in the query opens the first result."""
        if self.hits:
            self.open_hit(self.hits[0])

    @on(OptionList.OptionSelected, "#search-results")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        """Open the chosen result."""
        self.open_hit(self.hits[int(event.option_id or 0)])

    def open_hit(self, hit: SearchHit) -> None:
        """Show a hit's note in the main screen at its line."""
        self.post_message(OpenNote(hit.path, hit.line or None))

    def action_focus_results(self) -> None:
        """Move from the query to the results."""
        self.query_one("#search-results", OptionList).focus()

    def action_clear(self) -> None:
        """Empty the query."""
        search_input = self.query_one("#search-input", Input)
        search_input.value = ""
        search_input.focus()

    def action_close(self) -> None:
        """Back to the main screen."""
        self.dismiss(None)
