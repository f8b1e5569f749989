"""What the preview shows of a file, prepared in a thread: read (capped), parsed, laid out.

Nothing here touches a widget. The main screen runs `prepare_view` or `prepare_raw` in a worker
and hands the result to the preview, so reading and laying out a huge file never holds up a key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple
from urllib.parse import quote

from memtui.core.applying.viewing import file_view_text
from memtui.core.parsing.paths import from_relpath
from memtui.notes.file_checks import name_warnings, nul_warning
from memtui.notes.records import after_line
from memtui.notes.shown import FileHead, read_shown
from memtui.notes.titles import FENCE
from memtui.tui.text_layout import Rows, ShownText, is_markdown, lay_out, lexer_for, shown_text

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore
    from memtui.notes.bulk import InteractionSignal
    from memtui.notes.model import Note

MARKDOWN_MAX_BYTES = 8_000
"""Notes bigger than this are shown as plain text: the Markdown widget is too slow for them."""
MARKDOWN_MAX_BLOCKS = 150
"""Notes with more blank-line separated blocks than this are shown as plain text too."""
WIKILINK = re.compile(r"(?<!\\)\[\[([^\[\]]+)\]\]")
HEADING_LEVEL = re.compile(r" {0,3}(#{1,6})(?:[ \t]|$)")

Mode = Literal["rendered", "plain", "raw"]


def estimate_tokens(text: str) -> int:
    """A rough token count for a text: one token per four characters."""
    return len(text) // 4


class NoteBody(NamedTuple):
    """A note's text split where its parse says the body starts."""

    lines_before: int
    """How many lines come before the body (the frontmatter and blank lines)."""
    body: str
    has_frontmatter: bool


def note_body(note: Note, text: str) -> NoteBody:
    """The body of `text` (the text `note` was parsed from) as the parser split it."""
    body = after_line(text, note.body_line)
    return NoteBody(note.body_line - 1, body, bool(text[: len(text) - len(body)].strip()))


def prose_of(body: str, first_line: int, structured: set[int]) -> str:
    """A note's body with its observation and relation lines (1-based file lines in
    `structured`; the body starts at file line `first_line`) blanked, and so are the headings
    of sections left with nothing else: the note's own text, in order, with its line numbers
    kept (the preview shows observations and relations in panels of their own)."""
    lines = body.split("\n")
    kept = [first_line + number not in structured for number in range(len(lines))]
    headings = _heading_levels(lines)
    for number in sorted(headings, reverse=True):
        if _section_emptied(lines, kept, headings, number):
            kept[number] = False
    return "\n".join(line if keep else "" for line, keep in zip(lines, kept, strict=True))


def _heading_levels(lines: list[str]) -> dict[int, int]:
    """Line index -> level of every ATX heading outside code fences."""
    levels: dict[int, int] = {}
    fence: str | None = None
    for number, line in enumerate(lines):
        marker = FENCE.match(line)
        if marker is not None:
            fence = (
                marker.group(1) if fence is None else (None if marker.group(1) == fence else fence)
            )
            continue
        heading = HEADING_LEVEL.match(line) if fence is None else None
        if heading is not None:
            levels[number] = len(heading.group(1))
    return levels


def _section_emptied(
    lines: list[str], kept: list[bool], headings: dict[int, int], start: int
) -> bool:
    """Whether the section under heading `start` had lines blanked and keeps only blank ones."""
    blanked = False
    for number in range(start + 1, len(lines)):
        level = headings.get(number)
        if level is not None and level <= headings[start]:
            break
        if not kept[number]:
            blanked = True
        elif lines[number].strip():
            return False
    return blanked


def linkify_wikilinks(body: str) -> str:
    """Turn `[[Target]]` into Markdown links the preview can follow."""
    return WIKILINK.sub(lambda m: f"[{m.group(1)}](memtui:{quote(m.group(1).strip())})", body)


def too_big_for_markdown(text: str) -> bool:
    """Whether a note should be shown as plain text instead of rendered Markdown."""
    if len(text.encode("utf-8", "replace")) > MARKDOWN_MAX_BYTES:
        return True
    return text.count("\n\n") > MARKDOWN_MAX_BLOCKS


@dataclass(frozen=True)
class PreparedView:
    """A file's view, ready to be put on screen without further work on the UI thread."""

    relpath: str
    mode: Mode
    text: str
    """What is shown: the file's head (rendered or plain), or what `view` returned (raw)."""
    size: int
    """The whole file's size in bytes."""
    cut: bool = False
    note: Note | None = None
    """The parsed note, for Markdown files (title, frontmatter, observations, relations)."""
    warnings: tuple[str, ...] = ()
    shown: ShownText | None = None
    rows: Rows | None = None
    raw_header: str = ""
    recorded_event: int | None = None
    policy: str = ""
    """Which rule of the store's access policy applies to the file (set on the UI thread)."""


def prepare_view(
    store: MemoryStore, relpath: str, width: int, *, interaction: InteractionSignal | None = None
) -> PreparedView:
    """A file's preview: Markdown rendered when small enough, else plain text (code and data
    files with syntax colours), laid out for `width` cells, yielding more while `interaction`
    says the app is in use. Raises StoreError."""
    head = read_shown(store, from_relpath(relpath))
    if not is_markdown(relpath):
        warnings = (*head.warnings, *name_warnings(relpath), *_nul_warnings(head.text))
        shown = shown_text(head.text, lexer_for(relpath), interaction=interaction)
        return _plain(relpath, head, shown, width, warnings=warnings, interaction=interaction)
    from memtui.notes.parser import parse_note

    note = parse_note(head.text, relpath)
    warnings = (*head.warnings, *note.warnings)
    if head.cut or too_big_for_markdown(head.text):
        shown = shown_text(head.text, interaction=interaction)
        return _plain(
            relpath, head, shown, width, note=note, warnings=warnings, interaction=interaction
        )
    return PreparedView(relpath, "rendered", head.text, head.size, note=note, warnings=warnings)


def _nul_warnings(text: str) -> tuple[str, ...]:
    """The NUL-byte warning of a text, if it has one."""
    warning = nul_warning(text)
    return () if warning is None else (warning,)


def _plain(
    relpath: str,
    head: FileHead,
    shown: ShownText,
    width: int,
    *,
    note: Note | None = None,
    warnings: tuple[str, ...] = (),
    interaction: InteractionSignal | None = None,
) -> PreparedView:
    """A plain (or syntax-coloured) view of a file's head, laid out."""
    return PreparedView(
        relpath,
        "plain",
        head.text,
        head.size,
        cut=head.cut,
        note=note,
        warnings=warnings,
        shown=shown,
        rows=lay_out(shown, width, interaction=interaction),
    )


def prepare_raw(
    store: MemoryStore,
    relpath: str,
    width: int,
    *,
    record: bool,
    interaction: InteractionSignal | None = None,
) -> PreparedView:
    """What the agent's `view` returns for the file, laid out for `width` cells; recorded as the
    store's actor's `view` when `record`. A file over the cap shows the same numbered lines for
    its head only, read without the rest, and is not recorded. Raises StoreError."""
    virtual = from_relpath(relpath)
    head = read_shown(store, virtual)
    event_id = None
    if head.cut:
        text = file_view_text(virtual, head.text.split("\n"))
        header = (
            f"{relpath}  ·  raw view of the first {len(head.text.encode('utf-8')):,} of"
            f" {head.size:,} B  ·  ≈ {head.size // 4:,} tokens in all"
        )
    else:
        if record:
            result = store.view(virtual)
            text, event_id = result.content, result.event_id
        else:
            text = store.render_view(virtual)
        header = f"{relpath}  ·  raw view  ·  ≈ {estimate_tokens(text):,} tokens"
    shown = shown_text(text, interaction=interaction)
    return PreparedView(
        relpath,
        "raw",
        text,
        head.size,
        cut=head.cut,
        warnings=head.warnings,
        shown=shown,
        rows=lay_out(shown, width, interaction=interaction),
        raw_header=header,
        recorded_event=event_id,
    )
