"""The history screen's pieces: the event table and the diff view."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.text import Text
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from memtui.core.display import visible
from memtui.core.parsing.paths import VIRTUAL_ROOT, under_root
from memtui.core.plurals import count
from memtui.core.recording.entries import Entry, entries
from memtui.core.recording.events import BASELINE, actor_kind
from memtui.core.recording.result_line import first_line
from memtui.tui import text_styles as styles
from memtui.tui.widgets.fitted_table import FittedTable, spare_width
from memtui.tui.wording import shorten_end, shorten_middle

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from memtui.core.recording.events import Event, Group


def format_time(seconds: float) -> str:
    """An event time as an absolute UTC minute, e.g. `2026-11-19 10:00`."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def short_path(path: str | None) -> str:
    """A virtual path without the `/memories/` prefix (the root stays `/memories`)."""
    if path is None:
        return ""
    relpath = under_root(path)
    return path if relpath is None else relpath


def event_path_text(event: Event) -> str:
    """The path column: the path, or `old → new` for a rename."""
    if event.command == "rename" and event.new_path:
        return f"{short_path(event.path)} → {short_path(event.new_path)}"
    return short_path(event.path)


def event_flags(event: Event, *, undone: bool = True) -> str:
    """The flags column: security and secret flags, errors, and (with `undone`) whether it was
    undone."""
    flags = [f.removeprefix("security:") for f in event.flags]
    if event.is_error and "refused" not in flags:
        security = any(f.startswith("security:") for f in event.flags)
        flags.insert(0, "refused" if security else "error")
    if undone and event.reverted_by is not None:
        flags.append(f"undone by #{event.reverted_by}")
    return " ".join(flags)


def operation_flags(parts: tuple[Event, ...]) -> str:
    """The flags column of an operation: its parts' flags, and whether it was undone."""
    words = [word for part in parts for word in event_flags(part, undone=False).split()]
    undone = sum(1 for part in parts if part.reverted_by is not None)
    if undone:
        words.append("undone" if undone == len(parts) else f"{undone} undone")
    return " ".join(dict.fromkeys(words))


def operation_result(group: Group, parts: tuple[Event, ...]) -> str:
    """The result column of an operation: what its parts did, in a few words."""
    rest = sorted(parts, key=lambda part: part.id)[1:]
    if group.kind in ("rename", "archive") and rest and all(p.command == "write" for p in rest):
        return f"moved; rewrote links in {count(len(rest), 'note')}"
    return group.summary


def flag_alarms(flags: str) -> bool:
    """Whether a flags column warns of a refusal or a secret."""
    return "refused" in flags or "secret" in flags


def result_cell(text: str, names: Sequence[str | None] = (), limit: int = 40) -> str:
    """The first line of a result (a name in `names` kept whole), display-safe, cut to `limit`
    cells."""
    return shorten_end(visible(first_line(text.strip(), names)), limit)


COLUMNS: tuple[tuple[str, str, int], ...] = (
    ("#", "id", 3),
    ("When (UTC)", "when", 16),
    ("Actor", "actor", 12),
    ("Command", "command", 11),
    ("Path", "path", 27),
    ("Result", "result", 16),
    ("Flags", "flags", 17),
)
"""(label, key, smallest width) of the event table's columns."""
ACTOR_GROWTH = 16
RESULT_GROWTH = 44
"""How many cells Actor and Result may grow by on a wide terminal (Path takes the rest)."""


def column_widths(width: int, padding: int = 1) -> dict[str, int]:
    """Each column's width in a table `width` cells wide: the smallest widths, with any spare
    width shared by Actor (a quarter), Result (two fifths) and Path (the rest)."""
    widths = {key: smallest for _label, key, smallest in COLUMNS}
    spare = spare_width(COLUMNS, width, padding)
    if spare > 0:
        actor = min(spare // 4, ACTOR_GROWTH)
        result = min(spare * 2 // 5, RESULT_GROWTH)
        widths["actor"] += actor
        widths["result"] += result
        widths["path"] += spare - actor - result
    return widths


class EventTable(FittedTable):
    """Events newest first: id, time, actor (coloured by kind), command, path, result, flags;
    an operation (a rename and the links it rewrote) is one row standing for its parts. Actor,
    Path and Result widen to fill a wide terminal."""

    COLUMNS = COLUMNS

    def __init__(self, *, id: str | None = None) -> None:
        """An empty table; the screen fills it."""
        super().__init__(id=id)
        self._entries: dict[int, Entry] = {}

    def widths_for(self, width: int) -> dict[str, int]:
        """The columns' widths for a table `width` cells wide (see `column_widths`)."""
        return column_widths(width, self.cell_padding)

    def refill(self) -> None:
        """Add every row again, newest first."""
        for key in sorted(self._entries, reverse=True):
            self._add_entry(self._entries[key])

    class ReachedEnd(Message):
        """The table was scrolled to its last row."""

    def show_events(self, events: list[Event], groups: Mapping[int, Group] | None = None) -> None:
        """Replace the rows with `events` (the parts of an operation in `groups` as one row),
        keeping the cursor on the same row when possible."""
        selected = self.selected_key()
        self.clear()
        listed = entries(events, groups or {})
        self._entries = {entry.first.id: entry for entry in listed}
        for entry in listed:
            self._add_entry(entry)
        self.keep_cursor_on(selected)

    def add_events(
        self, newer: list[Event], older: list[Event], groups: Mapping[int, Group] | None = None
    ) -> None:
        """Add events newer than the first row above it and older ones below the last row."""
        selected = self.selected_key()
        for listed in (newer, older):
            for entry in entries(listed, groups or {}):
                self._entries[entry.first.id] = entry
                self._add_entry(entry)
        if newer:
            self.sort("id", key=lambda cell: -int(str(cell)))
            self.keep_cursor_on(selected)

    def entry(self, key: int) -> Entry | None:
        """The row whose first event is `key`."""
        return self._entries.get(key)

    def _add_entry(self, entry: Entry) -> None:
        """Append one row: an event, or an operation with its parts."""
        event = entry.first
        flags = event_flags(event)
        command, path, result = event.command, event_path_text(event), event.result
        if entry.is_operation and entry.group is not None:
            flags = operation_flags(entry.events)
            command = f"{entry.group.kind} ({len(entry.events)})"
            path = event_path_text(entry.events[-1])
            result = operation_result(entry.group, entry.events)
        self.add_row(
            Text(str(event.id), justify="right"),
            Content(format_time(event.time)),
            styles.assemble((visible(event.actor), styles.actor_style(event.actor))),
            styles.plain(command),
            styles.plain(shorten_middle(path, self.widths["path"])),
            styles.assemble(
                (
                    result_cell(
                        result, (event.path, event.new_path), max(self.widths["result"], 16)
                    ),
                    styles.ERROR if event.is_error else "",
                )
            ),
            styles.assemble((visible(flags), styles.ERROR_STRONG if flag_alarms(flags) else "")),
            key=str(event.id),
        )

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """Say when the table is scrolled to its end."""
        super().watch_scroll_y(old_value, new_value)
        if new_value > old_value and new_value >= self.max_scroll_y:
            self.post_message(self.ReachedEnd())

    def selected_event_id(self) -> int | None:
        """The id of the event under the cursor."""
        key = self.selected_key()
        return None if key is None else int(key)


def unified_diff(before: str, after: str, before_name: str, after_name: str) -> Content:
    """A unified diff of two texts, added and removed lines in the theme's colours."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        before_name,
        after_name,
    )
    return styles.assemble(
        *((line if line.endswith("\n") else line + "\n", styles.diff_line(line)) for line in lines)
    )


READERS = {"agent": "The agent read:\n", "human": "A person read:\n"}
"""How a `view` event's detail names the reader, by actor kind."""


def reader_label(actor: str) -> str:
    """The line above what a `view` returned: who read it, by the kind of actor."""
    return READERS.get(actor_kind(actor), "Read:\n")


BASELINE_SHOWN = 200
"""How many of the baseline's files its detail lists by name."""


def baseline_listing(event: Event, listing: str | None) -> list[styles.Part]:
    """The baseline's detail: what it is, then the first files it lists."""
    names = (listing or "").splitlines()
    parts: list[styles.Part] = [(event.result + "\n", styles.ASIDE)]
    parts += [name + "\n" for name in names[:BASELINE_SHOWN]]
    if len(names) > BASELINE_SHOWN:
        parts.append((f"… and {len(names) - BASELINE_SHOWN:,} more\n", styles.ASIDE))
    return parts


def describe_operation(
    group: Group, parts: Sequence[tuple[Event, str | None, str | None]]
) -> Content:
    """An operation's detail: what it was, then each part's change (oldest first)."""
    title = (
        visible(
            f"Operation {group.id} · {format_time(group.time)} {group.actor} · {group.summary} · "
            f"{len(parts)} changes, undone as one (u)"
        )
        + "\n\n"
    )
    pieces: list[styles.Part] = [(title, styles.HEADING)]
    for event, before, after in sorted(parts, key=lambda part: part[0].id):
        pieces += [describe_event(event, before, after), "\n"]
    return styles.assemble(*pieces)


def describe_event(event: Event, before: str | None, after: str | None) -> Content:
    """What changed in an event: a diff, the content read, a folder manifest or the error."""
    name = event_path_text(event) or VIRTUAL_ROOT
    title = (
        visible(f"#{event.id} {format_time(event.time)} {event.actor} {event.command} {name}")
        + "\n",
        styles.HEADING,
    )
    if event.is_error:
        return styles.assemble(title, (f"{event_flags(event)}: {event.result}\n", styles.ERROR))
    if event.command == "view":
        shown = after if after is not None else event.result
        read = shown + ("\n" if not shown.endswith("\n") else "")
        return styles.assemble(title, (reader_label(event.actor), styles.ASIDE), read)
    if event.command == BASELINE:
        return styles.assemble(title, *baseline_listing(event, after))
    if before is None and after is None:
        return styles.assemble(title, (event.result + "\n", styles.ASIDE))
    before_name = short_path(event.path) or "before"
    after_name = short_path(event.new_path or event.path) or "after"
    if event.command == "delete" and after is None and before is not None:
        folder = getattr(event, "before_kind", None) == "dir"
        what = (
            "Deleted folder; undo restores these files:\n"
            if folder
            else "Deleted; undo restores:\n"
        )
        return styles.assemble(title, (what, styles.ERROR_STRONG), (before, styles.DIFF_REMOVED))
    diff = unified_diff(before or "", after or "", before_name, after_name)
    if not diff.plain:
        return styles.assemble(title, ("No content change (moved or identical).\n", styles.ASIDE))
    return styles.assemble(title, diff)


class DiffView(Static):
    """The before/after of the selected event."""

    def show(self, event: Event | None, before: str | None, after: str | None) -> None:
        """Show the change made by `event` (or a hint when none is selected)."""
        if event is None:
            self.update(Content.styled("No event selected.", styles.ASIDE))
        else:
            self.update(describe_event(event, before, after))
