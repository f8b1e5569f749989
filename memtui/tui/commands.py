"""Command palette providers: open any note by fuzzy title, and run any screen action by verb."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

if TYPE_CHECKING:
    from memtui.tui.app import MemtuiApp

PaletteEntry = tuple[str, str, str]
"""(verb shown in the palette, action name on the screen, help text)."""

APP_PALETTE: list[PaletteEntry] = [
    ("app: keys for this screen", "app.help", "Show the keys of the focused widget (F1)"),
    ("app: quit", "app.quit", "Leave memtui"),
]


def palette_entries(screen: object) -> list[PaletteEntry]:
    """The palette verbs of a screen (its `PALETTE` attribute), then one for each of its
    bindings that has none there, then the app's: every screen action is in the palette."""
    entries: list[PaletteEntry] = list(getattr(screen, "PALETTE", []))
    covered = {action for _verb, action, _help in entries}
    for binding in screen_bindings(screen):
        if binding.action not in covered:
            covered.add(binding.action)
            namespace = (binding.id or "").partition(".")[0] or "screen"
            key = binding.key_display or binding.key.split(",")[0]
            verb = f"{namespace}: {binding.description.lower() or binding.action}"
            entries.append((verb, binding.action, f"{binding.description} ({key})"))
    return [*entries, *APP_PALETTE]


def screen_bindings(screen: object) -> Iterator[Binding]:
    """The bindings with an id (memtui's own) declared on the screen's classes."""
    for cls in type(screen).__mro__:
        for binding in vars(cls).get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id:
                yield binding


def plain_highlight(matcher: Matcher, text: str) -> Content:
    """`text` as plain text (not markup) with the characters the query matched highlighted."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return content
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ActionProvider(Provider):
    """Every action of the current screen as a verb: "note: edit", "view: toggle raw", "go: graph"."""

    def _entries(self) -> Iterator[tuple[str, str, str]]:
        """The verbs available on the screen the palette was opened from."""
        yield from palette_entries(self.screen)

    async def discover(self) -> Hits:
        """List every verb when the palette opens empty."""
        for verb, action, help_text in self._entries():
            yield DiscoveryHit(verb, partial(self._run, action), help=help_text)

    async def search(self, query: str) -> Hits:
        """Verbs matching the query."""
        matcher = self.matcher(query)
        for verb, action, help_text in self._entries():
            score = matcher.match(verb)
            if score > 0:
                yield Hit(
                    score, matcher.highlight(verb), partial(self._run, action), help=help_text
                )

    async def _run(self, action: str) -> None:
        """Run an action on the screen (or the app for `app.` actions)."""
        if action.startswith("app."):
            await self.app.run_action(action)
        else:
            await self.screen.run_action(action)


class NoteProvider(Provider):
    """Open any note by fuzzy title or path."""

    LIMIT = 30

    @property
    def memtui(self) -> MemtuiApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def _choices(self) -> dict[str, str]:
        """Relative path -> "title  path" for every indexed note."""
        index = self.memtui.ctx.index
        if index is None:
            return {}
        return {path: f"{title}  {path}" for path, title in index.titles().items()}

    async def search(self, query: str) -> Hits:
        """The best matching notes, scored with rapidfuzz and highlighted like the palette."""
        choices = self._choices()
        if not choices or not query.strip():
            return
        matcher = self.matcher(query)
        best = process.extract(
            query, choices, scorer=fuzz.WRatio, limit=self.LIMIT, score_cutoff=40
        )
        for display, score, path in best:
            title = display.rsplit("  ", 1)[0]
            yield Hit(
                score / 100,
                plain_highlight(matcher, f"open: {title}"),
                partial(self.memtui.open_note, path),
                help=escape(path),
            )
