"""One search in the mode a query asks for (`mode:text`, `mode:meaning`, `mode:hybrid`), answered
as the text search's hits, so the app, `memtui search` and MCP show every mode the same way: a
file found by its words shows its matching lines (highlighted), a file found by meaning alone
the section that made it a hit. Nothing here imports numpy: search by meaning is passed in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memtui.notes.query import MEANING_KIND
from memtui.notes.search import Searcher, SearchFilters, SearchHit

if TYPE_CHECKING:
    from memtui.notes.meaning.fusion import Fused
    from memtui.notes.meaning.hybrid import MeaningSearch
    from memtui.notes.meaning.scan import MeaningHit

READYING = "search by meaning is getting ready (the notes are being embedded)"
"""Why meaning is not used yet while a process embeds what its index holds."""


@dataclass(frozen=True)
class ModeResult:
    """The hits of one search and how they were ranked."""

    hits: list[SearchHit]
    mode: str
    """The mode that ranked them: `text`, `meaning` or `hybrid`."""
    note: str | None = None
    """One line when the mode asked for could not be used (search by meaning off or not ready):
    the hits are then by text."""


def default_mode(meaning: MeaningSearch | None) -> str:
    """The mode of a query that names none: text and meaning together when meaning is on."""
    return "text" if meaning is None else "hybrid"


def meaning_hit(hit: MeaningHit) -> SearchHit:
    """A file found by meaning as a search hit: at its nearest section, named by its heading."""
    return SearchHit(hit.path, hit.line, MEANING_KIND, hit.heading, round(hit.score, 3), ())


def search_in_mode(
    searcher: Searcher,
    meaning: MeaningSearch | None,
    words: str,
    *,
    limit: int,
    filters: SearchFilters | None = None,
    mode: str | None = None,
    off: str | None = None,
    cancelled: Callable[[], bool] | None = None,
    visible: Callable[[str], bool] | None = None,
    per_note: int | None = None,
) -> ModeResult:
    """The best `limit` hits for `words` and `filters` in `mode` (None: `filters.mode`, else the
    default); with `meaning` None a mode that needs it searches by text and says why (`off`).
    A query of filters alone lists the notes that pass them, as the text search does. With
    `visible`, only files it allows are found (what an agent may see); `per_note` keeps at most
    that many text hits of one note (its best)."""
    asked = mode or (filters.mode if filters is not None else None) or default_mode(meaning)
    if asked == "text" or meaning is None or not words.strip():
        hits = searcher.search(
            words,
            limit=limit,
            filters=filters,
            cancelled=cancelled,
            visible=visible,
            per_note=per_note,
        )
        note = None if asked == "text" or meaning is not None else off or READYING
        return ModeResult(hits, "text" if note else asked, note)
    seeing = visible or _everything
    wanted = limit if visible is None else limit * HIDDEN_MARGIN
    if asked == "meaning":
        found = meaning.nearest_passing(words, wanted, filters, searcher.history)
        hits = [meaning_hit(hit) for hit in found if seeing(hit.path)]
        return ModeResult(hits[:limit], asked)
    fused, text_hits = meaning.hybrid_hits(
        searcher,
        words,
        limit=wanted,
        filters=filters,
        cancelled=cancelled,
        visible=visible,
    )
    fused = [item for item in fused if seeing(item.path)]
    text_hits = [hit for hit in text_hits if seeing(hit.path)]
    return ModeResult(fused_hits(fused, text_hits, limit), asked)


HIDDEN_MARGIN = 3
"""With a policy that hides files, meaning searches ask for this many times the limit, so the
files left once the hidden ones are dropped still fill it."""


def _everything(_path: str) -> bool:
    """Every file may be seen (no policy)."""
    return True


def fused_hits(fused: list[Fused], text_hits: list[SearchHit], limit: int) -> list[SearchHit]:
    """The hits of the fused files in their order, at most `limit`: a file's matching lines
    when its words matched, else its nearest section."""
    by_path: dict[str, list[SearchHit]] = {}
    for hit in text_hits:
        by_path.setdefault(hit.path, []).append(hit)
    hits: list[SearchHit] = []
    for item in fused:
        lines = by_path.get(item.path)
        if lines:
            hits.extend(lines)
        elif item.section is not None:
            hits.append(meaning_hit(item.section))
        if len(hits) >= limit:
            break
    return hits[:limit]
