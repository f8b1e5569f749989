"""The bundled demo notes as they are once the whole history has been replayed, and the
earlier versions of them the replay writes first."""

from __future__ import annotations

from pathlib import Path

DEMO_NOTES_DIR = Path(__file__).parent / "store"
"""The bundled notes, as they are on disk once the whole history has been replayed."""


def demo_note_paths() -> list[str]:
    """The relative paths of every bundled demo file (notes and the memory tool's files), sorted."""
    return sorted(
        p.relative_to(DEMO_NOTES_DIR).as_posix() for p in DEMO_NOTES_DIR.rglob("*") if p.is_file()
    )


def final_text(relpath: str) -> str:
    """The bundled (final) text of a demo note."""
    return (DEMO_NOTES_DIR / relpath).read_text(encoding="utf-8")


def without(text: str, line: str) -> str:
    """`text` with one occurrence of a whole line removed (an earlier version of a note)."""
    if line not in text:
        raise ValueError(f"demo note is missing the line {line!r}")
    return text.replace(line, "", 1)
