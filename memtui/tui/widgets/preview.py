"""The preview of one note: frontmatter, the note's own text, observations by category and relation
links; other files as plain or syntax-coloured text, or raw as the agent sees them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.core.display import visible
from memtui.tui import text_styles as styles
from memtui.tui.outlink import OutLink
from memtui.tui.widgets.cursor_list import CursorList
from memtui.tui.widgets.text_view import Position, TextView

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from memtui.notes.model import Note
    from memtui.tui.preview_source import PreparedView

WARNINGS_SHOWN = 3
"""How many of a note's warnings are listed under the preview header."""
TAG = re.compile(r"(?<!\S)#\S*")
TEXT_GUTTER = 2
"""Cells the text view keeps for its left padding and its scrollbar."""


def highlight_tags(content: str) -> Content:
    """An observation's text with its `#tags` highlighted."""
    parts: list[styles.Part] = []
    position = 0
    for match in TAG.finditer(content):
        parts += [content[position : match.start()], (match.group(0), styles.TAG)]
        position = match.end()
    return styles.assemble(*parts, content[position:])


def frontmatter_text(note: Note) -> Content:
    """The frontmatter as aligned `key: value` lines."""
    if not note.frontmatter:
        return Content.styled("no frontmatter", f"{styles.MUTED} {styles.ASIDE}")
    keys = {key: visible(str(key)) for key in note.frontmatter}
    width = max(len(shown) for shown in keys.values())
    parts: list[styles.Part] = []
    for position, (key, value) in enumerate(note.frontmatter.items()):
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts += ["\n" if position else "", (f"{keys[key]:>{width}}  ", styles.HEADING), shown]
    return styles.assemble(*parts)


def observations_text(note: Note) -> Content:
    """Observations grouped by category, tags highlighted."""
    groups: dict[str, list[str]] = {}
    for observation in note.observations:
        groups.setdefault(observation.category or "note", []).append(observation.content)
    parts: list[styles.Part] = []
    for position, (category, contents) in enumerate(groups.items()):
        parts += ["\n" if position else "", (f"[{category}]", styles.CATEGORY)]
        for content in contents:
            parts += ["\n  • ", highlight_tags(content)]
    return styles.assemble(*parts)


def view_header(view: PreparedView, title: str | None) -> str:
    """The header line of a prepared view: path, title, size and warning count (raw: tokens)."""
    if view.mode == "raw":
        return view.raw_header
    shown = len(view.text.encode("utf-8", "replace"))
    size = f"first {shown:,} of {view.size:,} B" if view.cut else f"{shown:,} B"
    parts = [view.relpath, *([title] if title else []), size]
    if view.warnings:
        parts.append(f"! {len(view.warnings)} warning(s)")
    if view.policy:
        parts.append(view.policy)
    return "  ·  ".join(parts)


@dataclass
class LinkFollowed(Message):
    """The user followed a link in the preview; `target` is the raw link target."""

    target: str
    source: str | None


class Preview(Vertical):
    """Shows the selected file: Markdown rendered, other text plain or syntax-coloured, a big
    note as wrapped plain text, or raw as the agent sees it. Every text shown is display-safe."""

    def __init__(self, *, id: str | None = None) -> None:
        """Create an empty preview."""
        super().__init__(id=id)
        self.relpath: str | None = None
        self.mode = "empty"
        self._frontmatter_lines = 0
        self._structured: dict[int, str] = {}
        """File line -> the panel showing it, for each observation and relation line."""
        self._outgoing: list[OutLink] = []
        self._shown_text: str | None = None

    def compose(self) -> ComposeResult:
        """A header line, the rendered view and a plain-text view (one shown at a time)."""
        yield Static("", id="preview-header", markup=False)
        yield Static("", id="preview-warnings", markup=False)
        with VerticalScroll(id="preview-rendered"):
            yield Static("", id="preview-frontmatter", classes="panel")
            yield Static("", id="preview-observations", classes="panel")
            yield CursorList(id="preview-relations", classes="panel")

    def on_mount(self) -> None:
        """Start empty."""
        self.show_message("Select a note in the tree.")

    def _set_mode(self, mode: str) -> None:
        """Show the rendered view, the plain view or neither (a message).

        A message only hides the current view (no relayout), so showing a note in the same view
        again just repaints it.
        """
        self.mode = mode
        self.query_one("#preview-header").set_class(mode == "empty", "-message")
        views = [self.query_one("#preview-rendered"), *self.query("#preview-plain")]
        if mode == "empty":
            for view in views:
                view.visible = False
            return
        for view in views:
            shown = view.id == ("preview-rendered" if mode == "rendered" else "preview-plain")
            view.display = shown
            view.visible = shown

    def _set_header(self, header: str) -> None:
        """Show one header line, display-safe."""
        self.query_one("#preview-header", Static).update(visible(header))

    def show_message(self, message: str) -> None:
        """Show a message instead of a note, wrapped: the whole of it (why a file cannot be
        read) is seen at any width."""
        self.relpath = None
        self._shown_text = None
        self._set_header(message)
        self.show_warnings([])
        self._set_mode("empty")

    def text_width(self) -> int:
        """The width the plain view lays text out for (before it exists: from the preview's)."""
        existing = self.query("#preview-plain")
        if existing and existing.first(TextView).size.width:
            return existing.first(TextView).wrap_width
        return max(1, self.content_region.width - TEXT_GUTTER)

    async def show_view(
        self,
        view: PreparedView,
        *,
        outgoing: list[OutLink],
        title: str | None,
        line: int | None,
        keep_position: bool = False,
    ) -> None:
        """Show a prepared view with its relations `outgoing`, scrolled to 1-based `line`.

        Showing the view already shown, unchanged, redraws nothing (it only goes to `line`).
        """
        unchanged = (
            view.relpath == self.relpath
            and view.text == self._shown_text
            and outgoing == self._outgoing
            and self.mode == view.mode
        )
        if unchanged:
            if line is not None:
                self.go_to_line(line)
            return
        self._shown_text = view.text
        self.relpath = view.relpath
        self._outgoing = outgoing
        self._set_header(view_header(view, title))
        self.show_warnings(list(view.warnings))
        if view.mode == "rendered" and view.note is not None:
            await self._show_rendered(view.note, view.text, outgoing, line)
        else:
            await self._show_text(view, line, keep_position=keep_position)

    async def _show_rendered(
        self, note: Note, text: str, outgoing: list[OutLink], line: int | None
    ) -> None:
        """Render a small Markdown note: its frontmatter, its own text in order (title, intro,
        any other prose), then its observations by category and its relations."""
        # imported on first use: start-up
        from memtui.tui.preview_source import linkify_wikilinks, note_body, prose_of

        self._set_mode("rendered")
        self._frontmatter_lines, body, has_frontmatter = note_body(note, text)
        frontmatter = self.query_one("#preview-frontmatter", Static)
        frontmatter.display = has_frontmatter
        frontmatter.update(frontmatter_text(note) if has_frontmatter else "")
        observations = self.query_one("#preview-observations", Static)
        observations.display = bool(note.observations)
        observations.update(observations_text(note) if note.observations else "")
        self._fill_relations(outgoing)
        self._structured = {o.line: "#preview-observations" for o in note.observations}
        self._structured.update({r.line: "#preview-relations" for r in note.relations})
        prose = prose_of(body, self._frontmatter_lines + 1, set(self._structured))
        markdown = await self.markdown_body()
        markdown.display = bool(prose.strip())
        await markdown.update(linkify_wikilinks(prose))
        scroller = self.query_one("#preview-rendered", VerticalScroll)
        if line is None:
            scroller.scroll_home(animate=False)
        else:
            self.call_after_refresh(self._scroll_markdown_to, line, note.path)

    async def _show_text(
        self, view: PreparedView, line: int | None, *, keep_position: bool = False
    ) -> None:
        """Show laid-out text in the text view, on 1-based `line` (or where the reader was)."""
        area = await self.text_area()
        keep: Position | None = None
        if keep_position and self.mode == view.mode:
            keep = area.position()
        self._set_mode(view.mode)
        assert view.shown is not None and view.rows is not None
        area.show(view.shown, view.rows, line=None if line is None else line - 1, keep=keep)

    def go_to_line(self, line: int) -> None:
        """Bring 1-based file line `line` of the shown note into view (the cursor on it
        when plain)."""
        if self.mode in ("plain", "raw"):
            self.query_one("#preview-plain", TextView).go_to_line(max(0, line - 1))
        elif self.mode == "rendered" and self.relpath is not None:
            self.call_after_refresh(self._scroll_markdown_to, line, self.relpath)

    def _fill_relations(self, outgoing: list[OutLink]) -> None:
        """List the note's relations as followable links."""
        relations = self.query_one("#preview-relations", CursorList)
        relations.display = bool(outgoing)
        relations.replace_options(
            Option(
                styles.assemble(
                    (f"{relation_type} → ", styles.HEADING),
                    (target, styles.LINK if resolved else styles.UNRESOLVED),
                    ("  (unresolved)" if resolved is None else "", styles.MUTED),
                ),
                id=f"{position}",
            )
            for position, (relation_type, target, resolved) in enumerate(outgoing)
        )

    async def markdown_body(self) -> Markdown:
        """The Markdown widget, created on first use so start-up does not pay for it."""
        from textual.widgets import Markdown  # imported on first use: start-up

        from memtui.tui.markdown_parser import preview_parser  # imported on first use: start-up

        existing = self.query("#preview-body")
        if existing:
            return existing.first(Markdown)
        markdown = Markdown("", id="preview-body", open_links=False, parser_factory=preview_parser)
        await self.query_one("#preview-rendered", VerticalScroll).mount(
            markdown, before=self.query_one("#preview-observations")
        )
        return markdown

    def _scroll_markdown_to(self, line: int, relpath: str) -> None:
        """Scroll the rendered body to the block holding 1-based file line `line` of `relpath`.

        Called after a refresh: the new blocks have no layout yet when the body is updated, so
        scrolling at once would find nothing to scroll to.
        """
        if self.relpath != relpath or self.mode != "rendered":
            return
        scroller = self.query_one("#preview-rendered", VerticalScroll)
        panel = self._structured.get(line)
        if panel is not None:
            scroller.scroll_to_widget(self.query_one(panel), top=True, animate=False)
            return
        body_line = line - 1 - self._frontmatter_lines
        markdown = self.query_one("#preview-body")
        for block in markdown.children:
            start, end = getattr(block, "source_range", (0, 0))
            if start <= body_line < max(end, start + 1) or start > body_line:
                scroller.scroll_to_widget(block, top=True, animate=False)
                return

    async def text_area(self) -> TextView:
        """The plain text view, created on first use so start-up does not pay for it."""
        existing = self.query("#preview-plain")
        if existing:
            return existing.first(TextView)
        area = TextView(id="preview-plain")
        await self.mount(area)
        return area

    def show_warnings(self, warnings: list[str]) -> None:
        """List a note's warnings under the header (the first few), or hide the list."""
        shown = [f"! {visible(warning)}" for warning in warnings[:WARNINGS_SHOWN]]
        if len(warnings) > WARNINGS_SHOWN:
            shown.append(f"! ... and {len(warnings) - WARNINGS_SHOWN} more")
        box = self.query_one("#preview-warnings", Static)
        box.update("\n".join(shown))
        box.display = bool(shown)

    @on(OptionList.OptionSelected, "#preview-relations")
    def _relation_chosen(self, event: OptionList.OptionSelected) -> None:
        """Follow a relation link."""
        event.stop()
        link = self._outgoing[int(event.option_id or 0)]
        self.post_message(LinkFollowed(link.target, self.relpath))

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Follow a wikilink clicked in the body."""
        event.stop()
        if event.href.startswith("memtui:"):
            self.post_message(LinkFollowed(event.href[len("memtui:") :], self.relpath))
