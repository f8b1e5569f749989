"""The review queue with the memory-health reasons: the lines of a partly loaded file the agent
never sees, the files over the always-loaded budget, and statements that contradict a newer one.

One implementation for `memtui stale` and the app's review screen. The staleness signals come
from `stale.review` (every candidate, whatever its score); the health reasons are added to them
and the total decides, as for every reason, whether a file is proposed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from memtui.core.config_tables import BudgetSettings
from memtui.core.plurals import count
from memtui.core.recording.history import History
from memtui.notes.budget import ALWAYS, LISTING_PATH, PARTLY, Budget, store_budget
from memtui.notes.bulk import InteractionSignal, Pacer
from memtui.notes.contradictions import Contradiction
from memtui.notes.index import NoteIndex
from memtui.notes.stale import PROPOSE_SCORE, StaleCandidate, StaleReason, review
from memtui.notes.store_contradictions import store_contradictions

UNSEEN = "unseen"
OVER_BUDGET = "over-budget"
CONTRADICTS = "contradicts"
UNSEEN_WEIGHT = 1.0
"""Lines the agent never sees are a strong reason: the file is proposed for them alone."""
OVER_BUDGET_WEIGHT = 1.0
"""A file whose part alone is more than the load is over the limit: proposed for it alone."""
OVER_BUDGET_SHARE_WEIGHT = 0.5
"""Any other always-loaded file of a store over its limit: a weak reason."""
CONTRADICTS_WEIGHT = 2.0
CONTRADICTS_MORE_WEIGHT = 0.25
"""Each further contradicted statement of a file."""
MAX_CONTRADICTS_WEIGHT = 3.0
"""The most all the `contradicts` reasons of one file add up to."""
CONTRADICTS_NEWER_WEIGHT = 0.25
"""The newer statement's file is shown the pair too, but the newer line is not what is stale."""
SHOWN_CONTRADICTIONS = 3
"""`contradicts` reasons listed per file for a person (the rest are counted)."""
MAX_DETAIL = 60


@dataclass(frozen=True)
class HealthReview:
    """The review queue with health reasons, and the budget and pairs they came from."""

    candidates: list[StaleCandidate]
    budget: Budget | None
    pairs: list[Contradiction]


def budget_reasons(budget: Budget) -> dict[str, list[StaleReason]]:
    """relpath -> its budget reasons: lines never seen, and being over the always-loaded
    budget (every file loaded at a session's start, strongly the ones that alone exceed it)."""
    reasons: dict[str, list[StaleReason]] = {}
    limit = budget.rules.limit
    excess = budget.loaded_tokens - limit if limit is not None else 0
    for row in budget.rows:
        if row.path.startswith(LISTING_PATH):
            continue
        if row.loaded == PARTLY and row.unseen_lines and row.first_unseen_line is not None:
            text = (
                f"{count(row.unseen_lines, 'line')} never seen by the agent "
                f"(past line {row.first_unseen_line - 1} of {row.path})"
            )
            reasons.setdefault(row.path, []).append(StaleReason(UNSEEN, text, UNSEEN_WEIGHT))
        if budget.over_limit and row.loaded in (ALWAYS, PARTLY) and row.loaded_tokens:
            weight = OVER_BUDGET_WEIGHT if row.loaded_tokens >= excess else OVER_BUDGET_SHARE_WEIGHT
            text = (
                f"over the always-loaded budget ({budget.loaded_tokens:,} of {limit:,} tokens "
                f"loaded every session, {row.loaded_tokens:,} of them from this file)"
            )
            reasons.setdefault(row.path, []).append(StaleReason(OVER_BUDGET, text, weight))
    return reasons


def _shown(text: str) -> str:
    """A statement cut to fit a reason's line."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


def _capped(earlier: Iterable[StaleReason], first: float) -> float:
    """The weight of a file's next `contradicts` reason: `first` for its first, a little for
    the next few, nothing past MAX_CONTRADICTS_WEIGHT, so a long log cannot outweigh all."""
    so_far = sum(r.weight for r in earlier if r.kind == CONTRADICTS)
    wanted = first if so_far == 0 else CONTRADICTS_MORE_WEIGHT
    return round(max(0.0, min(wanted, MAX_CONTRADICTS_WEIGHT - so_far)), 3)


def contradiction_reasons(pairs: Iterable[Contradiction]) -> dict[str, list[StaleReason]]:
    """relpath -> its `contradicts` reasons: strong on the older statement's file, weak on the
    newer's when that is another file; each reason carries its pair."""
    reasons: dict[str, list[StaleReason]] = {}
    for pair in pairs:
        older, newer = pair.older, pair.newer
        weight = _capped(reasons.get(older.path, ()), CONTRADICTS_WEIGHT)
        where = f"line {newer.line}" if older.path == newer.path else f"{newer.path}:{newer.line}"
        said = f'"{_shown(older.text)}" contradicts newer {where} "{_shown(newer.text)}"'
        text = f"line {older.line} {said}"
        reason = StaleReason(CONTRADICTS, text, weight, pair)
        reasons.setdefault(older.path, []).append(reason)
        if newer.path != older.path:
            text = (
                f'line {newer.line} is newer than {older.path}:{older.line} "{_shown(older.text)}"'
            )
            weight = _capped(reasons.get(newer.path, ()), CONTRADICTS_NEWER_WEIGHT)
            reasons.setdefault(newer.path, []).append(StaleReason(CONTRADICTS, text, weight, pair))
    return reasons


def shown_reasons(reasons: Iterable[StaleReason]) -> tuple[list[StaleReason], int]:
    """The reasons a person reads, in their order: all but the `contradicts` ones past the
    first SHOWN_CONTRADICTIONS (a long log can hold hundreds), and how many were left out."""
    shown: list[StaleReason] = []
    contradictions = left_out = 0
    for reason in reasons:
        if reason.kind == CONTRADICTS:
            contradictions += 1
            if contradictions > SHOWN_CONTRADICTIONS:
                left_out += 1
                continue
        shown.append(reason)
    return shown, left_out


def left_out_line(number: int) -> str:
    """The line that stands for `number` contradictions not shown."""
    return f"and {count(number, 'more statement')} a newer one contradicts"


def with_reasons(
    candidates: Iterable[StaleCandidate],
    extra: dict[str, list[StaleReason]],
    min_score: float = PROPOSE_SCORE,
) -> list[StaleCandidate]:
    """The candidates with `extra` reasons added (files not yet candidates too), those reaching
    `min_score`, highest score first (ties by path)."""
    merged: dict[str, list[StaleReason]] = {c.path: list(c.reasons) for c in candidates}
    for path, reasons in extra.items():
        merged.setdefault(path, []).extend(reasons)
    proposed = []
    for path, reasons in merged.items():
        score = round(sum(r.weight for r in reasons), 3)
        if reasons and score >= min_score:
            proposed.append(StaleCandidate(path, score, tuple(reasons)))
    proposed.sort(key=lambda c: (-c.score, c.path))
    return proposed


@dataclass(frozen=True)
class HealthReasons:
    """The health reasons of a store by file, and the budget and pairs they came from."""

    budget: Budget
    pairs: list[Contradiction]
    reasons: dict[str, list[StaleReason]]


def health_reasons(
    index: NoteIndex,
    history: History | None,
    *,
    budget_settings: BudgetSettings | None = None,
    listing: Callable[[], str] | None = None,
    kept: Collection[str] | None = None,
    now: float | None = None,
    interaction: InteractionSignal | None = None,
) -> HealthReasons:
    """The budget and contradiction reasons of `index`; `kept` (the history's kept pairs when
    None) are the pairs not proposed again."""
    budget = store_budget(index, history, settings=budget_settings, listing=listing, now=now)
    if kept is None:
        kept = history.kept_pair_keys() if history is not None else frozenset()
    pairs = store_contradictions(index, history, kept=kept, pace=Pacer(interaction))
    extra = budget_reasons(budget)
    for path, reasons in contradiction_reasons(pairs).items():
        extra.setdefault(path, []).extend(reasons)
    return HealthReasons(budget, pairs, extra)


def health_review(
    index: NoteIndex,
    history: History | None,
    *,
    budget_settings: BudgetSettings | None = None,
    listing: Callable[[], str] | None = None,
    kept: Collection[str] | None = None,
    now: float | None = None,
    min_score: float = PROPOSE_SCORE,
    interaction: InteractionSignal | None = None,
) -> HealthReview:
    """The review queue of `index` with the budget and contradiction reasons (see
    `health_reasons`)."""
    now = time.time() if now is None else now
    stale = review(index, history, now=now, min_score=0.0, interaction=interaction)
    health = health_reasons(
        index,
        history,
        budget_settings=budget_settings,
        listing=listing,
        kept=kept,
        now=now,
        interaction=interaction,
    )
    return HealthReview(with_reasons(stale, health.reasons, min_score), health.budget, health.pairs)
