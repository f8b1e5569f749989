"""One history event as the command line prints it: a heading, then what it changed as a
unified diff, coloured on a terminal and plain in a pipe (`changes --diff`, `show`)."""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, TextIO

from memtui.cli.events import lines_cell, path_cell
from memtui.cli.terminal import visible, visible_text
from memtui.core.parsing.paths import under_root

if TYPE_CHECKING:
    from memtui.core.recording.history import Event, History

HEADING = "1"
ADDED = "32"
REMOVED = "31"
HUNK = "36"
ASIDE = "2"
"""The SGR codes of each kind of line (bold, green, red, cyan, dim)."""
NO_CONTENT = "(its content was not kept)"
NO_CHANGE = "(no content change: moved or identical)"


def _name(path: str | None, kind: str | None) -> str:
    """A virtual path without `/memories/` for a diff's `---`/`+++` line; `/dev/null` for the
    side where nothing was (a create's before, a delete's after), as git writes it."""
    if not path or kind is None:
        return "/dev/null"
    relpath = under_root(path)
    return path if relpath is None else relpath or path


def heading(event: Event, counts: tuple[int, int] | None) -> str:
    """`#12 2026-06-10 12:00:00 agent:claude str_replace /memories/a.md (+1 -1)`."""
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(event.time))
    changed = "" if event.is_error or event.command == "view" else f" ({lines_cell(counts)})"
    return f"#{event.id} {when} {event.actor} {event.command} {path_cell(event)}{changed}"


def diff_text(history: History, event: Event) -> list[tuple[str, str]]:
    """The lines showing what `event` did, each with its style: the unified diff of its before
    and after, what a read returned, or the error a refused change got."""
    from memtui.core.recording.blobs import KIND_DIR, KIND_FILE
    from memtui.notes.merge import diff_lines

    if event.is_error:
        return [(f"refused: {event.result}", REMOVED)]
    before, after = history.texts(event)
    if event.command == "view":
        return [(line, "") for line in (after or event.result).splitlines()]
    for kind, text in ((event.before_kind, before), (event.after_kind, after)):
        if kind in (KIND_FILE, KIND_DIR) and text is None:
            return [(NO_CONTENT, ASIDE)]
    lines = diff_lines(
        before or "",
        after or "",
        _name(event.path, event.before_kind),
        _name(event.new_path or event.path, event.after_kind),
    )
    if not lines:
        return [(NO_CHANGE, ASIDE)]
    return [(line, _style(line)) for line in lines]


_STYLES = {"file": HEADING, "hunk": HUNK, "added": ADDED, "removed": REMOVED, "note": ASIDE}


def _style(line: str) -> str:
    """The colour of one unified diff line."""
    from memtui.notes.merge import diff_line_kind

    return _STYLES.get(diff_line_kind(line), "")


def diff_json(history: History, event: Event) -> list[str]:
    """The lines of `diff_text` for a JSON record (escaped there by `json_safe`)."""
    return [line for line, _style in diff_text(history, event)]


def colours(stream: TextIO) -> bool:
    """Whether to colour what goes to `stream`: on a terminal, unless NO_COLOR is set."""
    return stream.isatty() and not os.environ.get("NO_COLOR")


def print_event(
    history: History,
    event: Event,
    counts: tuple[int, int] | None,
    stream: TextIO | None = None,
) -> None:
    """The heading and the diff of one event, control characters in them made visible (tabs
    kept); coloured on a terminal, plain (the lines as they are) in a pipe."""
    out = stream or sys.stdout
    colour = colours(out)
    lines = [(visible(heading(event, counts)), HEADING)]
    lines += [(visible_text(line), style) for line, style in diff_text(history, event)]
    for line, style in lines:
        out.write(f"\x1b[{style}m{line}\x1b[0m\n" if colour and style else line + "\n")
