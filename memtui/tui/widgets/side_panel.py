"""The side panel: a note's outgoing relations, backlinks, unresolved links and recent history."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from memtui.core.display import visible
from memtui.tui import text_styles as styles
from memtui.tui.outlink import OutLink
from memtui.tui.widgets.cursor_list import CursorList
from memtui.tui.wording import shorten_end

if TYPE_CHECKING:
    from memtui.core.recording.events import Event


ACTOR_WIDTH = 24
"""Cells of the history section's actor column; longer actor names are shortened."""


def ago(seconds: float) -> str:
    """A short human age: `12s`, `5m`, `3h`, `4d`."""
    seconds = max(0.0, seconds)
    for limit, unit, size in ((60, "s", 1), (3600, "m", 60), (86400, "h", 3600)):
        if seconds < limit:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds // 86400)}d"


def actor_column(events: list[Event]) -> list[str]:
    """Each event's actor, display-safe, padded to one column width (at most ACTOR_WIDTH cells,
    longer names cut with `…`) with the gap before the command included."""
    shown = [shorten_end(visible(event.actor), ACTOR_WIDTH) for event in events]
    width = max((cell_len(actor) for actor in shown), default=0)
    return [actor + " " * (width - cell_len(actor) + 1) for actor in shown]


def event_word(event: Event) -> str:
    """What an event did, in a word or two: its command, and for one that failed how (`write
    refused`, `revert conflict`, `str_replace failed`)."""
    if not event.is_error:
        return event.command
    result = event.result.lstrip()
    if result.startswith("Refused") or any(f.startswith("security:") for f in event.flags):
        return f"{event.command} refused"
    if result.startswith("Conflict"):
        return f"{event.command} conflict"
    return f"{event.command} failed"


@dataclass
class SideItemChosen(Message):
    """The user chose an item of the side panel: `kind` is "note" or "history"."""

    kind: str
    value: str


class SidePanel(CursorList):
    """One list with sections; Enter or a click on an item follows it."""

    def __init__(self, *, id: str | None = None) -> None:
        """Create an empty panel."""
        super().__init__(id=id, markup=False)
        self.border_title = "Links & history"
        self._items: dict[str, tuple[str, str]] = {}
        self._shown: tuple[object, ...] | None = None

    def show_note(
        self,
        *,
        outgoing: list[OutLink],
        backlinks: list[tuple[str, str, str]],
        events: list[Event] | None,
        now: float | None = None,
        index_ready: bool = True,
    ) -> None:
        """Fill the sections; `backlinks` are (title, relpath, type); `events` None while the
        history loads; an unchanged panel is not redrawn."""
        now = time.time() if now is None else now
        shown = (
            tuple(outgoing),
            tuple(backlinks),
            None if events is None else tuple((e.id, ago(now - e.time)) for e in events),
            index_ready,
        )
        if shown == self._shown:
            return
        self.show_nothing()
        self._shown = shown
        resolved = [link for link in outgoing if link.resolved is not None]
        unresolved = [link.target for link in outgoing if link.resolved is None]
        self._section(f"Links out ({len(resolved)})")
        for relation_type, target, path in resolved:
            self._item(styles.plain(f"  {relation_type} → {target}"), "note", path or "")
        if not index_ready:
            self.add_option(Option(Content.styled("  indexing…", styles.MUTED), disabled=True))
        self._section(f"Backlinks ({len(backlinks)})")
        for title, source, relation_type in backlinks:
            self._item(styles.plain(f"  ← {title} ({relation_type})"), "note", source)
        self._section(f"Unresolved ({len(unresolved)})")
        for label in unresolved:
            self.add_option(
                Option(styles.assemble((f"  ? {label}", styles.UNRESOLVED)), disabled=True)
            )
        self._section("History")
        if events is None:
            self.add_option(Option(Content.styled("  loading…", styles.MUTED), disabled=True))
        elif not events:
            self.add_option(Option(Content.styled("  no events", styles.MUTED), disabled=True))
        actors = actor_column(events or [])
        for event, actor in zip(events or [], actors, strict=True):
            line = styles.assemble(
                f"  {ago(now - event.time):>4} ",
                (actor, styles.actor_style(event.actor)),
                (event_word(event), styles.ERROR if event.is_error else ""),
            )
            self._item(line, "history", str(event.id))
        if self.has_focus:
            self.start_on_first()

    def show_nothing(self) -> None:
        """Empty the panel."""
        self._shown = None
        self._items.clear()
        self.clear_options()

    def _item(self, prompt: Content, kind: str, value: str) -> None:
        """Add a followable item."""
        option_id = f"item-{len(self._items)}"
        self._items[option_id] = (kind, value)
        self.add_option(Option(prompt, id=option_id))

    def _section(self, title: str) -> None:
        """Add a disabled section heading."""
        self.add_option(Option(Content.styled(title, styles.SECTION), disabled=True))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Turn a chosen option into a `SideItemChosen` message."""
        event.stop()
        item = self._items.get(event.option_id or "")
        if item is not None:
            self.post_message(SideItemChosen(*item))
