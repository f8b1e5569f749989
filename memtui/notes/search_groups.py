"""The candidate groups of a word query, made as the search takes them, best bound first.

A group is an FTS expression over one kind of line (body lines, or the files' titles, paths or
frontmatter) with the best score anything it matches can reach. The exact groups combine one
tier (or nothing) per query word; there are up to 4 to the power of the words' count of them per
kind of line, so only MAX_GROUPS are made. Past that, each kind of line gets one group of
whatever holds any query word, bounded by the best unopened combination: the hits stay exact,
only the work changes, and a caller caps how many candidates those groups may hand over.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from memtui.notes.vocabulary import EXACT, PREFIX, QUALITY, Variant

TITLE_BOOST = 8.0
PATH_BOOST = 4.0
LINE_KIND_BOOST = {"observation": 1.0, "relation": 1.0, "frontmatter": 1.0, "body": 0.0}
PHRASE_BONUS = 15.0
BODY, TITLE, PATH, META = "body", "title", "path", "meta"
"""The full-text index's columns, and what a visit scores."""
BOOSTS = {BODY: LINE_KIND_BOOST["observation"], TITLE: TITLE_BOOST, PATH: PATH_BOOST, META: 1.0}
COLUMNS = (BODY, TITLE, PATH, META)
MAX_GROUPS = 32
"""Exact combinations opened per search, at most; past them, one group per kind of line."""

Tier = tuple[float, str | None]
"""A word's tier in one column: (best quality, FTS expression), or (0.0, None) for "absent"."""


@dataclass(frozen=True)
class Group:
    """Candidates whose lines of one kind can reach `bound`: an FTS expression over the body
    lines (`what` BODY) or over one column of the files' titles, paths and frontmatter."""

    bound: float
    what: str
    match: str
    wide: bool = False
    """One of the groups of anything holding a query word, made past MAX_GROUPS."""


def quoted(term: str) -> str:
    """A term as an FTS5 string (its quotes doubled)."""
    return '"' + term.replace('"', '""') + '"'


def any_of(terms: Iterable[str]) -> str:
    """An FTS5 expression matching any of `terms`."""
    return "(" + " OR ".join(quoted(term) for term in sorted(terms)) + ")"


def in_column(column: str, expression: str) -> str:
    """An FTS expression over the body lines (BODY) or over one column of `fts_file`."""
    return expression if column == BODY else f"{{{column}}} : {expression}"


def word_tiers(word: str, index: int, by_word: dict[str, list[Variant]]) -> list[tuple[float, str]]:
    """(best quality, FTS expression) of each tier of one query word, best first: the word
    itself, the words it starts, and words holding it or spelt close to it (each tier names its
    vocabulary words: SQLite then walks only their rows)."""
    exact = False
    prefix: list[str] = []
    other: dict[str, float] = {}
    for term, variants in by_word.items():
        for variant in variants:
            if variant.word_index != index:
                continue
            if variant.how == EXACT:
                exact = True
            elif variant.how == PREFIX:
                prefix.append(term)
            else:
                other[term] = max(other.get(term, 0.0), variant.quality)
    tiers: list[tuple[float, str]] = []
    if exact:
        tiers.append((QUALITY[EXACT], "(" + quoted(word) + ")"))
    if prefix:
        tiers.append((QUALITY[PREFIX], any_of(prefix)))
    if other:
        tiers.append((max(other.values()), any_of(other)))
    return tiers


class GroupSource:
    """The groups of one query in the order of their bounds (ties: body, title, path, meta, then
    the phrase; within a kind, in the order of the words' tiers), each made when taken."""

    def __init__(
        self,
        options: dict[str, list[list[Tier]]],
        n_words: int,
        holds: Callable[[str], bool],
        phrase: Group | None = None,
        budget: int | None = None,
    ) -> None:
        """`options`: per column, per query word, its tiers held there best first, then
        (0.0, None); `holds`: whether any line matches an FTS expression; `phrase`: the group
        of lines holding the query as a phrase; `budget`: combinations made at most (None:
        MAX_GROUPS)."""
        self._columns = [(column, options[column]) for column in COLUMNS if column in options]
        self._n_words = n_words
        self._holds = holds
        self._phrase = phrase
        self._budget = MAX_GROUPS if budget is None else budget
        self._heap: list[tuple[float, int, tuple[int, ...], int]] = []
        """(-bound, column number, tier chosen per word, first word whose tier may go down)."""
        for number, (_column, per_word) in enumerate(self._columns):
            self._push(number, (0,) * len(per_word), 0)
        if phrase is not None:
            heapq.heappush(self._heap, (-phrase.bound, len(self._columns), (), 0))
        self.taken = 0
        """Groups handed out so far."""
        self._wide: list[Group] | None = None
        self._next: Group | None = None
        self._advance()

    def peek(self) -> Group | None:
        """The next group, not taken; None when there are no more."""
        return self._next

    def take(self) -> Group | None:
        """The next group; None when there are no more."""
        group = self._next
        if group is not None:
            self.taken += 1
            self._advance()
        return group

    def _bound(self, column: str, tiers: list[Tier]) -> float:
        """The best score a line of `column` holding exactly these tiers can reach."""
        qualities = [quality for quality, _expression in tiers]
        bound = 100 * sum(qualities) / self._n_words + BOOSTS[column]
        if column != BODY and self._n_words > 1 and min(qualities) > 0:
            bound += PHRASE_BONUS
        return bound

    def _push(self, number: int, choice: tuple[int, ...], first: int) -> None:
        """Put one combination of tiers on the heap."""
        column, per_word = self._columns[number]
        tiers = [per_word[word][tier] for word, tier in enumerate(choice)]
        heapq.heappush(self._heap, (-self._bound(column, tiers), number, choice, first))

    def _advance(self) -> None:
        """Make the next group: a combination while the budget lasts, then the wide groups."""
        self._next = None
        while self._wide is None and self._heap:
            if self.taken >= self._budget:
                self._wide = self._wide_groups()
                break
            neg_bound, number, choice, first = heapq.heappop(self._heap)
            if number == len(self._columns):
                assert self._phrase is not None
                self._next = self._phrase
                return
            column, per_word = self._columns[number]
            for word in range(first, len(choice)):
                if choice[word] + 1 < len(per_word[word]):
                    lower = (*choice[:word], choice[word] + 1, *choice[word + 1 :])
                    self._push(number, lower, word)
            parts = [per_word[word][tier][1] for word, tier in enumerate(choice)]
            expressions = [part for part in parts if part is not None]
            if expressions:
                match = in_column(column, f"({' AND '.join(expressions)})")
                self._next = Group(-neg_bound, column, match)
                return
        if self._wide:
            self._next = self._wide.pop(0)

    def _wide_groups(self) -> list[Group]:
        """Past the budget: per column, the lines holding each query word and none before it,
        bounded by the best combination not yet taken (every combination left is one on the heap
        or below it) and by the words that ever meet it on a line there."""
        left: dict[int, float] = {}
        for neg_bound, number, choice, _first in self._heap:
            if number == len(self._columns):
                continue
            per_word = self._columns[number][1]
            if any(per_word[word][tier][1] is not None for word, tier in enumerate(choice)):
                left[number] = max(left.get(number, -neg_bound), -neg_bound)
        groups: list[tuple[float, int, int, Group]] = []
        for number, most in left.items():
            for position, group in enumerate(self._first_word_groups(number, most)):
                groups.append((-group.bound, number, position, group))
        if any(number == len(self._columns) for _b, number, _c, _f in self._heap):
            assert self._phrase is not None
            groups.append((-self._phrase.bound, len(self._columns), 0, self._phrase))
        self._heap = []
        return [group for *_key, group in sorted(groups, key=lambda g: g[:3])]

    def _first_word_groups(self, number: int, most: float) -> list[Group]:
        """One column's lines by the first query word they hold, each bounded by `most` and by
        the best set of later words that each meet it and one another on some line."""
        column, per_word = self._columns[number]
        held = [
            (word, "(" + " OR ".join(expr for _q, expr in tiers if expr is not None) + ")")
            for word, tiers in enumerate(per_word)
            if tiers[0][1] is not None
        ]
        meets = {word: 1 << word for word, _expression in held}
        for (one, first), (other, second) in itertools.combinations(held, 2):
            if self._holds(in_column(column, f"({first} AND {second})")):
                meets[one] |= 1 << other
                meets[other] |= 1 << one
        groups: list[Group] = []
        for position, (word, expression) in enumerate(held):
            later = [other for other, _expression in held[position + 1 :]]
            bound = min(most, self._best_meeting(number, word, later, meets))
            earlier = [expr for _word, expr in held[:position]]
            if earlier:
                expression = f"({expression} NOT ({' OR '.join(earlier)}))"
            groups.append(Group(bound, column, in_column(column, expression), wide=True))
        return groups

    def _best_meeting(
        self, number: int, word: int, later: list[int], meets: dict[int, int]
    ) -> float:
        """The best bound in column `number` of `word` with any of the `later` words, all of
        them meeting one another on some line."""
        column, per_word = self._columns[number]
        best = 0.0
        for size in range(len(later) + 1):
            for chosen in itertools.combinations(later, size):
                words = (word, *chosen)
                mask = sum(1 << each for each in words)
                if any(meets[each] & mask != mask for each in words):
                    continue
                tiers: list[Tier] = [
                    (tiers[0][0], None) if index in words else (0.0, None)
                    for index, tiers in enumerate(per_word)
                ]
                best = max(best, self._bound(column, tiers))
        return best
