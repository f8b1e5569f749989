"""The budget screen: what the agent loads of the store at every session's start (always,
partly with the lines it never sees, on demand), the tokens it read in 30 days, and the total
against the limit of the store's kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Protocol

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from memtui.core.display import visible
from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.notes.budget import Budget, BudgetRow
    from memtui.tui.context import AppContext


class MainLike(Protocol):
    """A screen with the store's context and a clock."""

    @property
    def ctx(self) -> AppContext:
        """The store's context."""

    def now(self) -> float:
        """The current time."""


QUIET = 0.5
"""Seconds without a change before the budget is computed again."""


def headline(budget: Budget) -> str:
    """The screen's title: the kind and the session-start total against its limit."""
    return f"Budget · {budget.summary()}"


def unseen_cell(row: BudgetRow) -> str:
    """The lines a partly loaded file keeps from the agent, or ""."""
    if not row.unseen_lines:
        return ""
    return f"{count(row.unseen_lines, 'line')} never seen, from line {row.first_unseen_line}"


def status_total(budget: Budget) -> str:
    """The status line's words for the always-loaded total ("" when the kind loads nothing)."""
    if not budget.loaded_tokens:
        return ""
    limit = budget.rules.limit
    over = " (over the limit)" if budget.over_limit else ""
    of = f" / {limit:,}" if limit is not None else ""
    return f"{budget.loaded_tokens:,}{of} tokens loaded every session (b){over}"


def compute_budget(screen: StoreScreen | MainLike) -> Budget | None:
    """The store's budget, or None while the index loads (runs in a thread)."""
    from memtui.notes.budget import listing_of, store_budget  # imported on first use: start-up

    index = screen.ctx.index
    if index is None:
        return None
    settings = screen.ctx.settings
    return store_budget(
        index,
        screen.ctx.history,
        settings=settings.budget if settings is not None else None,
        listing=listing_of(screen.ctx.store),
        now=screen.now(),
    )


class BudgetScreen(StoreScreen):
    """Every file with its tokens, how the agent loads it and what it read; `escape` leaves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back", id="budget.close"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("go: back", "close", "Leave the budget"),
    ]

    def __init__(self, *, clock: Callable[[], float] | None = None) -> None:
        """An empty screen; the budget is computed on mount."""
        super().__init__()
        self._clock = clock
        self.budget: Budget | None = None

    def compose(self) -> ComposeResult:
        """Title, the files' table and the footer."""
        yield Static("Budget: reading the store…", id="budget-title", markup=False)
        yield DataTable(id="budget-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        """Lay out the columns, compute the budget and follow changes."""
        table = self.query_one(DataTable)
        for label, key in (
            ("Tokens", "tokens"),
            ("Loaded", "loaded"),
            ("Read 30d", "read"),
            ("Path", "path"),
            ("Never seen", "unseen"),
        ):
            table.add_column(label, key=key)
        refresh = self.refresher("budget", lambda: compute_budget(self), self._show, quiet=QUIET)
        self.follow_index(lambda _data=None: refresh.request())
        refresh.request(now=True)
        table.focus()

    def _show(self, budget: Budget | None) -> None:
        """Show a computed budget."""
        if budget is None:
            self.query_one("#budget-title", Static).update("Budget: indexing notes…")
            return
        self.budget = budget
        self.query_one("#budget-title", Static).update(headline(budget))
        table = self.query_one(DataTable)
        table.clear()
        for row in budget.rows:
            table.add_row(
                f"{row.tokens:,}",
                row.loaded,
                f"{row.read_tokens_30d:,}",
                visible(row.path),
                unseen_cell(row),
                key=row.path,
            )
