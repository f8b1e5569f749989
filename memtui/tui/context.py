"""Everything the screens share about the open store: the core facade, history, index and search."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.core.config import Settings
    from memtui.core.history import History
    from memtui.core.store import MemoryStore
    from memtui.notes.index import NoteIndex
    from memtui.notes.search import Searcher


@dataclass
class AppContext:
    """The open store as the app sees it; `index` and `searcher` are None until indexing finishes."""

    root: Path
    settings: Settings
    store: MemoryStore
    """The core facade with the human actor; every change the app makes goes through it."""
    index: NoteIndex | None = None
    searcher: Searcher | None = None
    problems: list[str] = field(default_factory=list)
    """Start-up problems to show the user (for example a corrupt history that was set aside)."""

    @property
    def history(self) -> History:
        """The store's audit history."""
        return self.store.history

    @staticmethod
    def virtual(relpath: str) -> str:
        """The `/memories/...` path of a note's relative path."""
        return "/memories/" + relpath if relpath else "/memories"
