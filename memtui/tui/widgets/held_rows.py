"""The inbox's held changes: one row per change the access policy holds for approval (oldest
first, the order they apply in), and a row's detail with its diff against the file now."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content

from memtui.core.display import visible, visible_text
from memtui.tui import text_styles as styles
from memtui.tui.widgets.fitted_table import FittedTable, spare_width
from memtui.tui.widgets.history_events import format_time, short_path, unified_diff
from memtui.tui.wording import shorten_middle

if TYPE_CHECKING:
    from memtui.notes.operations.deciding import Held

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("Held note", "note", 24),
    ("#", "id", 5),
    ("By", "actor", 22),
    ("Proposed (UTC)", "when", 17),
    ("What", "what", 24),
)
"""(label, key, smallest width) of the held table's columns; the note takes any spare width."""


def held_what(shown: Held) -> str:
    """The command, and whether the file changed since (merges, or clashes)."""
    if shown.clashes:
        return f"{shown.proposal.command} (clashes with a later change)"
    if shown.proposal.proposed_hash is not None and shown.changed_since:
        return f"{shown.proposal.command} (merges with a later change)"
    return shown.proposal.command


class HeldTable(FittedTable):
    """Changes held for approval, oldest first: note, id, agent, time, command."""

    COLUMNS = COLUMNS
    rows_shown: Sequence[Held] = ()

    def widths_for(self, width: int) -> dict[str, int]:
        """The columns' widths: the note column grows to fill the table."""
        widths = {key: smallest for _label, key, smallest in COLUMNS}
        widths["note"] += max(spare_width(COLUMNS, width, self.cell_padding), 0)
        return widths

    def refill(self) -> None:
        """Add the rows shown again."""
        for shown in self.rows_shown:
            self._add(shown)

    def show_rows(self, rows: list[Held]) -> None:
        """Replace the rows, keeping the cursor on the same change when it is still listed."""
        selected = self.selected_key()
        self.clear()
        self.rows_shown = rows
        self.refill()
        self.keep_cursor_on(selected)
        self.display = bool(rows)

    def _add(self, shown: Held) -> None:
        """Append one held change's row."""
        proposal = shown.proposal
        self.add_row(
            styles.plain(shorten_middle(short_path(proposal.path), self.widths["note"])),
            Content(str(proposal.id)),
            Content.styled(visible(proposal.actor), styles.actor_style(proposal.actor)),
            Content(format_time(proposal.time)),
            Content.styled(visible(held_what(shown)), styles.ERROR if shown.clashes else ""),
            key=str(proposal.id),
        )

    def selected_held(self) -> Held | None:
        """The held change under the cursor."""
        key = self.selected_key()
        return next((shown for shown in self.rows_shown if str(shown.id) == key), None)


def describe_held(shown: Held) -> Content:
    """A held change's detail: who proposed what, and its diff against the file as it is now."""
    proposal = shown.proposal
    heading = (
        f"Held for your approval · proposal {proposal.id} · {visible(shown.summary())} · "
        f"{format_time(proposal.time)}\n"
    )
    parts: list[styles.Part] = [(heading, styles.HEADING)]
    if shown.clashes:
        parts.append(
            (
                "The file changed since and the changes overlap: approving (a) lets you choose.\n",
                styles.ERROR,
            )
        )
    elif shown.changed_since and proposal.proposed_hash is not None:
        parts.append(("The file changed since; approving applies the merge below.\n", styles.ASIDE))
    parts.append("a approves it (as the agent's change), x rejects it.\n\n")
    name = short_path(proposal.path)
    if proposal.command == "rename":
        parts.append(visible(f"Moves {name} to {short_path(proposal.new_path or '')}.") + "\n")
    elif shown.clashes:
        parts.append(
            unified_diff(
                visible_text(shown.base or ""),
                visible_text(shown.proposed or ""),
                visible(f"{name} when proposed"),
                "the agent's change",
            )
        )
    else:
        after = "" if proposal.command == "delete" else (shown.result or "")
        diff = unified_diff(
            visible_text(shown.now or ""),
            visible_text(after),
            visible(f"{name} now"),
            "approved" if proposal.command != "delete" else "deleted",
        )
        parts.append(diff if diff.plain else ("No content change.\n", styles.ASIDE))
    return styles.assemble(*parts)
