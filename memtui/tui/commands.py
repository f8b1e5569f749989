"""Command palette providers: open any note by fuzzy title, and run any screen action by verb."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from rapidfuzz import fuzz, process
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher
from textual.markup import escape

from memtui.core.display import visible
from memtui.tui.typed_app import memtui_app

if TYPE_CHECKING:
    from textual.app import SystemCommand
    from textual.screen import Screen

    from memtui.tui.app import MemtuiApp

PaletteEntry = tuple[str, str, str]
"""(verb shown in the palette, action name on the screen, help text without the keys)."""

APP_PALETTE: list[PaletteEntry] = [
    ("app: keys for this screen", "app.help", "Show the keys of the focused widget"),
    ("app: quit", "app.quit", "Leave memtui"),
    ("app: back", "app.back", "Back to the previous screen; on the main screen, quit"),
]
TEXTUAL_DUPLICATES = frozenset({"Keys", "Quit"})
"""Textual's own palette commands that `APP_PALETTE` replaces."""


def palette_entries(screen: Screen[object]) -> list[PaletteEntry]:
    """The palette verbs of a screen (its `PALETTE` attribute), then one for each of its
    bindings that has none there, then the app's: every screen action is in the palette.

    Each help text ends with the keys bound to the action now, keymap included."""
    entries: list[PaletteEntry] = list(getattr(screen, "PALETTE", []))
    covered = {action for _verb, action, _help in entries}
    for binding in screen_bindings(screen):
        if binding.action not in covered:
            covered.add(binding.action)
            namespace = (binding.id or "").partition(".")[0] or "screen"
            verb = f"{namespace}: {binding.description.lower() or binding.action}"
            entries.append((verb, binding.action, binding.description))
    keys = bound_keys(screen)
    return [
        (verb, action, f"{help_text} ({keys[action]})" if action in keys else help_text)
        for verb, action, help_text in [*entries, *APP_PALETTE]
    ]


def bound_keys(screen: Screen[object]) -> dict[str, str]:
    """Action -> the keys bound to it on `screen` now, as shown in the footer (`app.` actions
    for the app's bindings)."""
    app = screen.app
    keys: dict[str, list[str]] = {}
    for active in screen.active_bindings.values():
        if active.node is app:
            action = f"app.{active.binding.action}"
        elif active.node is screen:
            action = active.binding.action
        else:
            continue
        shown = escape(app.get_key_display(active.binding))
        if shown not in keys.setdefault(action, []):
            keys[action].append(shown)
    return {action: ", ".join(shown) for action, shown in keys.items()}


def without_textual_duplicates(commands: Iterable[SystemCommand]) -> Iterator[SystemCommand]:
    """Textual's system commands minus those memtui's own palette entries replace."""
    return (command for command in commands if command.title not in TEXTUAL_DUPLICATES)


def screen_bindings(screen: Screen[object]) -> Iterator[Binding]:
    """The bindings with an id (memtui's own) declared on the screen's classes."""
    for cls in type(screen).__mro__:
        for binding in vars(cls).get("BINDINGS", []):
            if isinstance(binding, Binding) and binding.id:
                yield binding


def plain_highlight(matcher: Matcher, text: str) -> Content:
    """`text` as display-safe plain text (not markup) with the characters the query matched
    highlighted."""
    text = visible(text)
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return content
    for offset in offsets:
        if not text[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class ActionProvider(Provider):
    """Every action of the current screen as a verb: "note: edit", "view: toggle raw", "go:
    graph"."""

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
        return memtui_app(self)

    def _choices(self) -> dict[str, str]:
        """Relative path -> "title  path" for every indexed note."""
        index = self.memtui.ctx.index
        if index is None:
            return {}
        return {path: f"{title}  {path}" for path, title in index.titles().items()}

    async def search(self, query: str) -> Hits:
        """The best matching notes, scored with rapidfuzz and highlighted like the palette; a
        title equal to the query (ignoring case) comes first."""
        choices = self._choices()
        wanted = query.strip().casefold()
        if not choices or not wanted:
            return
        matcher = self.matcher(query)
        exact = {
            path for path, display in choices.items() if title_of(display).casefold() == wanted
        }
        best = process.extract(
            query, choices, scorer=fuzz.WRatio, limit=self.LIMIT, score_cutoff=40
        )
        ranked = [(path, 1.0) for path in sorted(exact)] + [
            (path, min(score / 100, 0.99)) for _display, score, path in best if path not in exact
        ]
        for path, score in ranked:
            title = title_of(choices[path])
            yield Hit(
                score,
                plain_highlight(matcher, f"open: {title}"),
                partial(self.memtui.open_note, path),
                help=escape(visible(path)),
            )


def title_of(display: str) -> str:
    """The title part of a note finder choice ("title  path")."""
    return display.rsplit("  ", 1)[0]
