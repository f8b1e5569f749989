"""One outgoing relation of the shown note, as the preview and the side panel list it."""

from __future__ import annotations

from typing import NamedTuple


class OutLink(NamedTuple):
    """A relation's type, its target as written and the note it resolves to (None: unresolved)."""

    relation_type: str
    target: str
    resolved: str | None
