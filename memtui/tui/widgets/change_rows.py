"""The changes inbox's pieces: one table row per note with changes waiting, and a row's detail."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content

from memtui.core.display import visible, visible_text
from memtui.core.parsing.paths import VIRTUAL_ROOT
from memtui.core.recording.inbox import InboxRow, event_line_changes, row_texts
from memtui.tui import text_styles as styles
from memtui.tui.widgets.fitted_table import FittedTable, spare_width
from memtui.tui.widgets.history_events import format_time, short_path, unified_diff
from memtui.tui.wording import count, shorten_middle, shorten_words

if TYPE_CHECKING:
    from memtui.core.recording.events import Event
    from memtui.core.recording.history import History

COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("Note", "note", 14),
    ("#", "count", 3),
    ("By", "actors", 12),
    ("Changed (UTC)", "when", 16),
    ("What", "what", 6),
)
"""(label, key, smallest width) of the inbox table's columns; the note takes any spare width."""
ACTORS_WIDTH = 22
WHAT_WIDTH = 24
NOTE_FIRST = 28
"""The widest the By and What columns grow for their text, and how wide the note column grows
before them."""


def column_widths(width: int, padding: int = 1, rows: Sequence[InboxRow] = ()) -> dict[str, int]:
    """Each column's width in a table `width` cells wide: What never narrower than its longest
    word; the room left goes to the note (up to NOTE_FIRST cells of its paths), then to By and
    What as wide as their text, then to the note again."""
    widths = {key: smallest for _label, key, smallest in COLUMNS}
    actors = max((cell_len(", ".join(row.actors)) for row in rows), default=0)
    what = max((cell_len(row_what(row)) for row in rows), default=0)
    word = max((cell_len(w) for row in rows for w in row_what(row).split()), default=0)
    note = max((cell_len(short_path(row.path)) + row.folder for row in rows), default=0)
    widths["what"] = max(widths["what"], word)
    spare = spare_width(COLUMNS, width, padding) - (widths["what"] - COLUMNS[4][2])
    for key, wanted in (
        ("note", min(note, NOTE_FIRST)),
        ("actors", min(actors, ACTORS_WIDTH)),
        ("what", min(what, WHAT_WIDTH)),
    ):
        grow = max(0, min(wanted - widths[key], spare))
        widths[key] += grow
        spare -= grow
    widths["note"] += max(spare, 0)
    return widths


def row_what(row: InboxRow) -> str:
    """What happened to the note, in a few words: its commands in order, or that it is gone."""
    commands = list(dict.fromkeys(event.command for event in row.events))
    text = ", ".join(commands)
    return f"{text} (gone)" if row.gone else text


class ChangeTable(FittedTable):
    """Notes with waiting changes, newest change first: note, count, actors, time, commands."""

    COLUMNS = COLUMNS
    rows_shown: Sequence[InboxRow] = ()

    def widths_for(self, width: int) -> dict[str, int]:
        """The columns' widths for a table `width` cells wide and its rows (`column_widths`)."""
        return column_widths(width, self.cell_padding, self.rows_shown)

    def refill(self) -> None:
        """Add the rows shown again."""
        for row in self.rows_shown:
            self._add(row)

    def show_rows(self, rows: list[InboxRow]) -> None:
        """Replace the rows, keeping the cursor on the same note when it is still listed, else on
        the note that followed it."""
        selected = self.selected_key()
        before = self.shown_keys()
        self.rows_shown = rows
        widths = self.widths_for(self.size.width)
        if widths != self.widths:
            self.widths = widths
            self.clear(columns=True)
            self._add_columns()
        else:
            self.clear()
        self.refill()
        self.keep_cursor_on(selected, before)

    def _add(self, row: InboxRow) -> None:
        """Append one note's row."""
        actors = [Content.styled(visible(a), styles.actor_style(a)) for a in row.actors]
        self.add_row(
            styles.plain(
                shorten_middle(
                    short_path(row.path) + ("/" if row.folder else ""), self.widths["note"]
                )
            ),
            Text(str(len(row.events)), justify="right"),
            Content.assemble(*_joined(actors)),
            Content(format_time(row.newest.time)),
            Content.styled(
                shorten_words(visible(row_what(row)), self.widths["what"]),
                styles.ERROR if row.gone else "",
            ),
            key=row.path,
        )

    def selected_row(self) -> InboxRow | None:
        """The inbox row under the cursor."""
        path = self.selected_key()
        return next((row for row in self.rows_shown if row.path == path), None)


def _joined(parts: list[Content]) -> list[Content | str]:
    """Parts separated by `, `."""
    joined: list[Content | str] = []
    for number, part in enumerate(parts):
        if number:
            joined.append(", ")
        joined.append(part)
    return joined


def event_line(event: Event, counts: tuple[int, int] | None) -> Content:
    """One change of a row: `#41  2026-11-19 10:00  agent:claude  str_replace  +1 -0`."""
    lines = "lines not kept" if counts is None else f"+{counts[0]} -{counts[1]}"
    where = ""
    if event.new_path:
        where = f"  {short_path(event.path)} → {short_path(event.new_path)}"
    return styles.assemble(
        f"#{event.id}  {format_time(event.time)}  ",
        (visible(event.actor), styles.actor_style(event.actor)),
        f"  {event.command}  ",
        (lines, styles.ASIDE),
        visible(where),
        "\n",
    )


def describe_row(history: History, row: InboxRow) -> Content:
    """A row's detail, read from the history (run it in a thread): who changed the note and
    when, then the combined diff from before its first waiting change to now."""
    before, after = row_texts(history, row)
    added_removed = [event_line_changes(history, event) for event in row.events]
    name = short_path(row.path) or VIRTUAL_ROOT
    state = "deleted" if row.gone else "waiting for review"
    heading = f"{visible(name)} · {count(len(row.events), 'change')} {state}\n"
    parts: list[styles.Part] = [(heading, styles.HEADING)]
    for event, counts in zip(reversed(row.events), reversed(added_removed), strict=True):
        parts.append(event_line(event, counts))
    parts.append("\n")
    first = row.events[0]
    before_name = f"before #{first.id}: {short_path(first.path) or 'nothing'}"
    diff = unified_diff(
        visible_text(before or ""), visible_text(after or ""), visible(before_name), "now"
    )
    if diff.plain:
        parts.append(diff)
    else:
        parts.append(("No content change (moved, or changed back).\n", styles.ASIDE))
    return styles.assemble(*parts)
