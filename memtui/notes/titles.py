"""A file's title as a person reads it: its frontmatter title, else its first heading."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from memtui.core.parsing.paths import from_relpath

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

TITLE_HEAD_BYTES = 8192
"""How much of a file is read to find its title."""
HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r" {0,3}(```|~~~)")


def display_title(relpath: str, head: str) -> str | None:
    """The title of the file at `relpath` from its first bytes `head`: a Markdown note's
    frontmatter `title`, else the first `#` heading outside code fences; None when it has
    neither (its file name is its title then)."""
    text = head.removeprefix("\ufeff").replace("\x00", "")
    if PurePosixPath(relpath).suffix.lower() in (".md", ".markdown"):
        from memtui.notes.frontmatter_norm import read_frontmatter  # YAML: 20 ms a search skips

        front = read_frontmatter(text, "")
        if front.metadata["title"]:
            return str(front.metadata["title"]).strip() or None
        text = front.body
    return first_heading(text)


def first_heading(text: str) -> str | None:
    """The text of the first ATX heading (`# Title`) that is not inside a code fence."""
    fence: str | None = None
    for line in text.splitlines():
        marker = FENCE.match(line)
        if marker is not None:
            if fence is None:
                fence = marker.group(1)
            elif marker.group(1) == fence:
                fence = None
            continue
        heading = HEADING.match(line) if fence is None else None
        if heading is not None:
            return heading.group(1).strip()
    return None


def read_titles(store: MemoryStore, relpaths: Iterable[str]) -> dict[str, str | None]:
    """relpath -> display title (None: use the name) for each readable file, reading only the
    first `TITLE_HEAD_BYTES` of each; files that cannot be read are left out."""
    from memtui.core.store import StoreError

    titles: dict[str, str | None] = {}
    for relpath in relpaths:
        try:
            head = store.read_head(from_relpath(relpath), TITLE_HEAD_BYTES).text
        except StoreError:
            continue
        titles[relpath] = display_title(relpath, head)
    return titles
