"""What the app shows of a file: at most its first MiB or 20,000 lines, never reading the rest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.notes.file_checks import LARGE_NOTE_BYTES, note_head, size_warnings

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore


@dataclass(frozen=True)
class FileHead:
    """The part of a file that is shown, the file's size, and why it was cut (if it was)."""

    text: str
    size: int
    """The whole file's size in bytes."""
    warnings: tuple[str, ...] = ()
    """`size_warnings` of the whole file when only its head is shown, else empty."""

    @property
    def cut(self) -> bool:
        """Whether `text` is only the start of the file."""
        return bool(self.warnings)


def read_shown(store: MemoryStore, virtual: str) -> FileHead:
    """The shown part of the file at `virtual` (its head, `MemoryStore.read_head`, cut further
    to the lines shown); a 1 GB (sparse) file costs one MiB. Raises StoreError like
    `MemoryStore.read` (missing, a folder, a FIFO, not UTF-8)."""
    file_head = store.read_head(virtual, LARGE_NOTE_BYTES)
    text, size = file_head.text, file_head.size
    head = note_head(text)
    if size > LARGE_NOTE_BYTES:
        counted = text.count("\n")
        warnings = size_warnings(size, counted, lines_at_least=True)
        return FileHead(text if head is None else head, size, tuple(warnings))
    if head is None:
        return FileHead(text, size)
    return FileHead(head, size, tuple(size_warnings(size, text.count("\n"))))
