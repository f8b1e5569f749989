"""Ranking by text and meaning together: each file's text score (from the fuzzy search) and
meaning score (cosine similarity of its nearest section) fused into one order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from memtui.notes.meaning.scan import MeaningHit

BONUS = 0.3
"""How much the weaker of a file's two scores adds to the stronger one (score fusion)."""
RRF_K = 60
"""The rank offset of reciprocal rank fusion."""
TEXT_FULL = 100.0
"""The fuzzy search's score of a line holding every query word exactly (before its boosts for a
phrase, a title or a path): a text score of 1 when fused."""


@dataclass(frozen=True, slots=True)
class Fused:
    """A file in the fused order, with both of its scores (0 where one search missed it)."""

    path: str
    score: float
    text: float
    """Its text score on a 0..1 scale (see `_scaled`)."""
    meaning: float
    """Its meaning score: the cosine similarity of its nearest section, floored at 0."""
    section: MeaningHit | None
    """The section that made it a meaning hit (None: found by text only)."""


def _scaled(text: Sequence[tuple[str, float]], *, relative: bool = False) -> dict[str, float]:
    """Each file's text score on a 0..1 scale: over TEXT_FULL (every query word found exactly
    on one line), capped at 1; `relative`: over the query's best text score instead."""
    best = max((score for _path, score in text), default=0.0)
    full = best if relative else TEXT_FULL
    scaled: dict[str, float] = {}
    for path, score in text:
        if path not in scaled:
            scaled[path] = min(score / full, 1.0) if full > 0 else 0.0
    return scaled


def _sections(meaning: Sequence[MeaningHit]) -> dict[str, MeaningHit]:
    """The first (best) meaning hit of each file."""
    found: dict[str, MeaningHit] = {}
    for hit in meaning:
        found.setdefault(hit.path, hit)
    return found


def score_fusion(
    text: Sequence[tuple[str, float]],
    meaning: Sequence[MeaningHit],
    *,
    bonus: float = BONUS,
    relative: bool = False,
) -> list[Fused]:
    """Basic Memory's fusion: `max(meaning, text) + bonus * min(meaning, text)` of the scaled
    text score and the cosine similarity; ties keep path order. `relative`: text scores scaled
    by the query's best one rather than by TEXT_FULL."""
    scaled, sections = _scaled(text, relative=relative), _sections(meaning)
    fused = []
    for path in scaled.keys() | sections.keys():
        section = sections.get(path)
        t = scaled.get(path, 0.0)
        m = max(section.score, 0.0) if section is not None else 0.0
        fused.append(Fused(path, max(t, m) + bonus * min(t, m), t, m, section))
    fused.sort(key=lambda item: (-item.score, item.path))
    return fused


def rank_fusion(
    text: Sequence[tuple[str, float]],
    meaning: Sequence[MeaningHit],
    *,
    k: int = RRF_K,
) -> list[Fused]:
    """Reciprocal rank fusion: each file scores `1 / (k + rank)` in each list it is in."""
    scaled, sections = _scaled(text), _sections(meaning)
    score: dict[str, float] = {}
    for rank, path in enumerate(scaled, 1):
        score[path] = score.get(path, 0.0) + 1.0 / (k + rank)
    for rank, path in enumerate(sections, 1):
        score[path] = score.get(path, 0.0) + 1.0 / (k + rank)
    fused = [
        Fused(
            path,
            value,
            scaled.get(path, 0.0),
            max(sections[path].score, 0.0) if path in sections else 0.0,
            sections.get(path),
        )
        for path, value in score.items()
    ]
    fused.sort(key=lambda item: (-item.score, item.path))
    return fused
