"""The preview of one note: frontmatter, observations by category, relation links and the body."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from memtui.tui import text_styles as styles
from memtui.tui.outlink import OutLink
from memtui.tui.widgets.cursor_list import CursorList

if TYPE_CHECKING:
    from textual.widgets import Markdown, TextArea

    from memtui.notes.model import Note

MARKDOWN_MAX_BYTES = 8_000
"""Notes bigger than this are shown as plain text: the Markdown widget is too slow for them."""
WARNINGS_SHOWN = 3
"""How many of a note's warnings are listed under the preview header."""
MARKDOWN_MAX_BLOCKS = 150
"""Notes with more blank-line separated blocks than this are shown as plain text too."""
WIKILINK = re.compile(r"(?<!\\)\[\[([^\[\]]+)\]\]")
TAG = re.compile(r"(?<!\S)#\S*")
FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(?:.*?\r?\n)?---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


def estimate_tokens(text: str) -> int:
    """A rough token count for a text: one token per four characters."""
    return len(text) // 4


def split_frontmatter(text: str) -> tuple[int, str]:
    """The number of lines the frontmatter takes and the body after it."""
    match = FRONTMATTER.match(text)
    if match is None:
        return 0, text
    head = match.group(0)
    return head.count("\n"), text[len(head) :]


def linkify_wikilinks(body: str) -> str:
    """Turn `[[Target]]` into Markdown links the preview can follow."""
    return WIKILINK.sub(lambda m: f"[{m.group(1)}](memtui:{quote(m.group(1).strip())})", body)


def too_big_for_markdown(text: str) -> bool:
    """Whether a note should be shown as plain text instead of rendered Markdown."""
    if len(text.encode("utf-8", "replace")) > MARKDOWN_MAX_BYTES:
        return True
    return text.count("\n\n") > MARKDOWN_MAX_BLOCKS


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
    width = max(len(str(key)) for key in note.frontmatter)
    parts: list[styles.Part] = []
    for position, (key, value) in enumerate(note.frontmatter.items()):
        shown = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        parts += ["\n" if position else "", (f"{key!s:>{width}}  ", styles.HEADING), shown]
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


@dataclass
class LinkFollowed(Message):
    """The user followed a link in the preview; `target` is the raw link target."""

    target: str
    source: str | None


class Preview(Vertical):
    """Shows the selected note rendered, as plain text when big, or raw as the agent sees it."""

    def __init__(self, *, id: str | None = None) -> None:
        """Create an empty preview."""
        super().__init__(id=id)
        self.relpath: str | None = None
        self.mode = "empty"
        self._frontmatter_lines = 0
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
        views = [self.query_one("#preview-rendered"), *self.query("#preview-plain")]
        if mode == "empty":
            for view in views:
                view.visible = False
            return
        for view in views:
            shown = view.id == ("preview-rendered" if mode == "rendered" else "preview-plain")
            view.display = shown
            view.visible = shown

    def show_message(self, message: str) -> None:
        """Show a one-line message instead of a note."""
        self.relpath = None
        self._shown_text = None
        self.query_one("#preview-header", Static).update(message)
        self.show_warnings([])
        self._set_mode("empty")

    async def show_note(
        self,
        note: Note,
        text: str,
        *,
        outgoing: list[OutLink],
        line: int | None,
        whole_size: int | None = None,
    ) -> None:
        """Show a note with its relations `outgoing`, scrolled to `line`.

        `whole_size` is the file's size in bytes when `text` is only its start (a large note).
        Showing the note already shown, unchanged, redraws nothing (it only goes to `line`).
        """
        unchanged = (
            note.path == self.relpath
            and text == self._shown_text
            and outgoing == self._outgoing
            and self.mode in ("rendered", "plain")
        )
        if unchanged:
            if line is not None:
                self.go_to_line(line)
            return
        self._shown_text = text
        self.relpath = note.path
        shown = len(text.encode("utf-8", "replace"))
        size = f"{shown:,} B" if whole_size is None else f"first {shown:,} of {whole_size:,} B"
        header = f"{note.path}  ·  {note.title}  ·  {size}"
        if note.warnings:
            header += f"  ·  ! {len(note.warnings)} warning(s)"
        self.query_one("#preview-header", Static).update(header)
        self.show_warnings(note.warnings)
        if too_big_for_markdown(text):
            self._outgoing = outgoing
            await self._show_plain(text, line, title=None)
            return
        self._set_mode("rendered")
        self.query_one("#preview-frontmatter", Static).update(frontmatter_text(note))
        observations = self.query_one("#preview-observations", Static)
        observations.display = bool(note.observations)
        observations.update(observations_text(note) if note.observations else "")
        self._fill_relations(outgoing)
        self._frontmatter_lines, body = split_frontmatter(text)
        markdown = await self.markdown_body()
        await markdown.update(linkify_wikilinks(body))
        scroller = self.query_one("#preview-rendered", VerticalScroll)
        if line is None:
            scroller.scroll_home(animate=False)
        else:
            self.call_after_refresh(self._scroll_markdown_to, line, note.path)

    def go_to_line(self, line: int) -> None:
        """Bring 1-based file line `line` of the shown note into view (the cursor on it when plain)."""
        if self.mode == "plain":
            from textual.widgets import TextArea

            plain = self.query_one("#preview-plain", TextArea)
            plain.move_cursor((max(0, line - 1), 0), center=True)
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
        self._outgoing = outgoing

    async def markdown_body(self) -> Markdown:
        """The Markdown widget, created on first use so start-up does not pay for it."""
        from textual.widgets import Markdown

        existing = self.query("#preview-body")
        if existing:
            return existing.first(Markdown)
        markdown = Markdown("", id="preview-body", open_links=False)
        await self.query_one("#preview-rendered", VerticalScroll).mount(markdown)
        return markdown

    def _scroll_markdown_to(self, line: int, relpath: str) -> None:
        """Scroll the rendered body to the block holding 1-based file line `line` of `relpath`.

        Called after a refresh: the new blocks have no layout yet when the body is updated, so
        scrolling at once would find nothing to scroll to.
        """
        if self.relpath != relpath or self.mode != "rendered":
            return
        body_line = line - 1 - self._frontmatter_lines
        markdown = self.query_one("#preview-body")
        scroller = self.query_one("#preview-rendered", VerticalScroll)
        for block in markdown.children:
            start, end = getattr(block, "source_range", (0, 0))
            if start <= body_line < max(end, start + 1) or start > body_line:
                scroller.scroll_to_widget(block, top=True, animate=False)
                return

    async def plain_area(self) -> TextArea:
        """The read-only text area, created on first use so start-up does not pay for it."""
        from textual.widgets import TextArea

        existing = self.query("#preview-plain")
        if existing:
            return existing.first(TextArea)
        plain = TextArea("", id="preview-plain", read_only=True, soft_wrap=False)
        await self.mount(plain)
        return plain

    async def _show_plain(
        self, text: str, line: int | None, title: str | None, *, keep_position: bool = False
    ) -> None:
        """Show text in the read-only text area, cursor on `line` (or where it was when kept)."""
        plain = await self.plain_area()
        self._set_mode("plain" if title is None else "raw")
        plain.soft_wrap = title is not None
        if keep_position:
            cursor, scroll = plain.cursor_location, plain.scroll_offset
            if plain.text != text:
                plain.load_text(text)
            plain.move_cursor(cursor)
            plain.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)
            return
        if plain.text != text:
            plain.load_text(text)
        row = 0 if line is None else max(0, line - 1)
        plain.move_cursor((row, 0), center=line is not None)
        if line is None:
            plain.scroll_home(animate=False)

    def show_warnings(self, warnings: list[str]) -> None:
        """List a note's warnings under the header (the first few), or hide the list."""
        shown = [f"! {warning}" for warning in warnings[:WARNINGS_SHOWN]]
        if len(warnings) > WARNINGS_SHOWN:
            shown.append(f"! ... and {len(warnings) - WARNINGS_SHOWN} more")
        box = self.query_one("#preview-warnings", Static)
        box.update("\n".join(shown))
        box.display = bool(shown)

    async def show_raw(self, relpath: str, view_text: str, *, keep_position: bool = False) -> None:
        """Show exactly what the agent's `view` returns, with its token estimate."""
        self.relpath = relpath
        self._shown_text = None
        self.query_one("#preview-header", Static).update(
            f"≈ {estimate_tokens(view_text):,} tokens  ·  raw view of /memories/{relpath}"
        )
        self.show_warnings([])
        await self._show_plain(view_text, None, title="raw", keep_position=keep_position)

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
