"""Whether a newer memory statement contradicts an older one about the same subject.

Three rules, tried in order, each explainable in one line:

- **change**: the newer line says something changed (`moved to`, `switched from`, `replaced X
  with`, `no longer`, `X was dropped`) and the older line holds what it says is gone, or shares
  its topic and not what it says is current;
- **negation**: one line is negative and the other is not (or they hold opposite words such as
  `enabled` / `disabled`), and apart from that they say the same thing about the same things;
- **value**: the two main clauses (both positive, or both negative) share most of their words
  and differ in one place, where one value stands for another (a number, date, name, version,
  address, code) or, after an attribute word (`is`, `prefers`, `wants`, `uses`, a shared `key:`
  or XML tag), one plain word for another. Two changed values count only if both are numbers or
  dates and nothing is an event (`deployed v2.3 on ...`, `deployed v2.4 on ...` are two
  deployments). Observations filed under unrelated categories (`[editor] Prefers vim`,
  `[shell] Prefers fish`) are two attributes, never one value changed.

The rules only propose: every verdict is a candidate a person confirms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from memtui.notes.statement_words import (
    ANTONYMS,
    DATE_WORDS,
    MONTHS,
    NEGATIONS,
    NUMBER_WORDS,
    Statement,
    Token,
    phrase_tokens,
    read_statement,
    word_set,
)

MIN_SHARED_SHARE = 0.5
"""The words left unchanged are at least this share of the longer main clause."""
NEGATION_OVERLAP = 0.66
"""A negation flip needs this share of the shorter claim's other words in common."""
MAX_VALUE_WORDS = 4
"""A changed value spans at most this many words on either side."""
MAX_PLAIN_WORDS = 2
"""A changed plain word (after an attribute word) spans at most this many words."""
MAX_EXTRA_WORDS = 2
"""Words added or dropped besides the change (`about`, `only`) stay under this many."""
SUBJECT_WORDS = 2
"""Of two changed numbers, one within the first words of a sentence names what it is about
(`Service 0 listens on port 8000`, `Service 7 listens on port 8007`): two things, not one."""
MAX_KEYED_WORDS = 6
"""Under a shared key, a value of at most this many words is the key's value (`Timezone:
Europe/Berlin`); a longer text after a label (`Expansions: ...`) is compared as a sentence."""
MAX_HEAD_WORDS = 3
"""A phrase a change names (what is gone, what is current) is read from its first content
words; the older line holds it when it holds two of them (or the only one)."""

ATTRIBUTE_WORDS = word_set(
    "be prefer want lik us set run via default own manag led lead maintain hav choos chos "
    "pick call nam favourit favorit"
)
"""Stems after which a plain word is the value of an attribute (`is`, `prefers`, `uses`)."""
MANY_VALUED = word_set(
    "speak know visit met meet attend read play follow collect learn contribut enjoy lov"
)
"""Stems of verbs that take many objects at once: `speaks German` and `speaks Portuguese`."""
EVENT_WORDS = word_set(
    """deployed released shipped launched merged fixed met held caused happened occurred
    attended visited published signed paid sent completed finished started ended"""
)
"""Past events: two of them with different dates and versions are two events."""
HISTORY_WORDS = EVENT_WORDS | word_set(
    """added removed changed updated deprecated renamed dropped moved migrated switched replaced
    bumped improved refactored reverted introduced created deleted"""
)
"""A line opening with one of these records what happened (a changelog entry)."""
PLACE_WORDS = word_set("liv live based home locat resid reloc mov city")
WORK_WORDS = word_set("work employ employer job company hir join leav quit")
TOPICS = (PLACE_WORDS, WORK_WORDS)
"""Word stems that make two lines about where someone lives, or works, share a topic."""
PRONOUNS = word_set("it they them this that these those which")

_PHRASE = r"[^;,.:]+?"
_PARENTHESES = re.compile(r"\([^()]*\)")
"""An aside in parentheses: a change named there (`(removed fields)`) is not what the line says."""
_VERB = r"(?:ed|d|ing|ped|ping)\b"
"""The endings of a change word that say a change happened (`moved`, `switching`): not a noun's
(`migration`, `changes`) and not the bare word (`move to`, `a change to`), an instruction or a
noun."""
_CHANGE_WORD = re.compile(
    r"\b(?:switch|mov|migrat|chang|relocat|convert|upgrad|downgrad|went|replac|remov|dropp|"
    r"deprecat|retir|archiv|shut down|abandon|discontinu|cancel|no longer|stopp|left|quit|"
    r"ditch|gave up|instead|bump|postpon|reschedul|push|slipp)",
    re.IGNORECASE,
)
"""Any of the words a change phrase is built on: lines without one are not matched further."""
_CHANGES = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        rf"\b(?:switch|mov|migrat|chang|relocat|convert|upgrad|downgrad|went){_VERB}[^;,]*?"
        rf"\bfrom\s+(?P<src>{_PHRASE})\s+(?:to|into)\s+(?P<dst>{_PHRASE})(?:[;,.]|$)",
        rf"\breplac{_VERB}\s+(?P<src>{_PHRASE})\s+(?:with|by)\s+(?P<dst>{_PHRASE})(?:[;,.]|$)",
        rf"^(?P<subject>{_PHRASE})\s+(?:was|were|has been|have been|got|is|are)\s+(?:replaced|"
        rf"removed|dropped|deprecated|retired|archived|shut down|abandoned|discontinued|"
        rf"cancel+ed)(?:\s+(?:with|by)\s+(?P<dst>{_PHRASE}))?(?:[;,.]|\s|$)",
        rf"(?:^|;\s*)(?P<dst>{_PHRASE})\s+replaced\s+(?P<src>{_PHRASE})(?:[;,.]|$)",
        rf"\b(?:no longer|stopped|dropped|removed|left|quit|abandoned|deprecated|retired|"
        rf"ditched|gave up|moved off|moved away from)\s+(?P<src>{_PHRASE})(?:[;,.]|$)",
        rf"\binstead of\s+(?P<src>{_PHRASE})(?:[;,.]|$)",
        rf"\b(?:switch|mov|migrat|chang|relocat|upgrad|downgrad|bump|postpon|reschedul|push|"
        rf"slip|went){_VERB}[^;,]*?\b(?:to|into)\s+(?P<dst>{_PHRASE})(?:[;,.]|$)",
    )
)


@dataclass(frozen=True)
class Verdict:
    """Why two statements contradict: the rule (`change`, `negation`, `value`) and what differs."""

    reason: str
    detail: str


def judge(older: str, newer: str, *, same_section: bool = True) -> Verdict | None:
    """The verdict when the `newer` line contradicts the `older` one, else None.

    `same_section` False (the lines are under different headings of one file) keeps a shared
    key from counting as one attribute: `Deploy: Fly.io` under `## Project A` and `Deploy:
    Heroku` under `## Project B` are two projects' settings.
    """
    a, b = read_statement(older), read_statement(newer)
    same = a.claim.lower() == b.claim.lower()
    if (a.key and b.key and a.key != b.key) or same or not a.claim or not b.claim:
        return None
    value = None if _other_categories(a, b) else _value(a, b, same_section)
    return _change(a, b) or _negation(a, b) or value


def _other_categories(a: Statement, b: Statement) -> bool:
    """Whether two observations are filed under unrelated categories (`[editor]`, `[shell]`):
    two attributes, whose values differ without contradicting (`owner`, `ownership` relate)."""
    if not (a.category and b.category):
        return False
    return not (a.category.startswith(b.category) or b.category.startswith(a.category))


def _stems(tokens: tuple[Token, ...] | list[Token]) -> list[str]:
    """The stems of some tokens, in order."""
    return [token.stem for token in tokens]


def _words(tokens: tuple[Token, ...] | list[Token]) -> str:
    """Tokens as they were written (lowercased), space separated."""
    return " ".join(token.text for token in tokens)


def _head(text: str) -> list[Token]:
    """What a phrase names: its first content words (at most three), pronouns left out."""
    words = [t for t in phrase_tokens(text) if t.content and t.text not in PRONOUNS]
    return words[:MAX_HEAD_WORDS]


def _holds(tokens: list[Token], words: set[str]) -> bool:
    """Whether a phrase's words are among a line's `words` (stems and words as written): two
    of them, or its only one."""
    found = sum(token.stem in words or token.text in words for token in tokens)
    return found >= min(2, len(tokens))


# ----- change ------------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _change_phrases(claim: str) -> tuple[dict[str, str | None], ...]:
    """The named parts of every change phrase of a claim, in pattern order (none for most
    lines: the patterns run only when a change word is there)."""
    said = _PARENTHESES.sub(" ", claim)
    if not _CHANGE_WORD.search(said):
        return ()
    return tuple(match.groupdict() for p in _CHANGES if (match := p.search(said)) is not None)


def states_change(statement: Statement) -> bool:
    """Whether a line says something changed (`moved to`, `no longer`, `X was dropped`)."""
    return bool(_change_phrases(statement.claim))


def _records_history(statement: Statement) -> bool:
    """Whether a line tells of a change or an event (`Added ...`, `Migrated to ...`): a record
    of what happened then, which a later change does not make untrue (a changelog, a log)."""
    first = statement.tokens[0].text if statement.tokens else ""
    return first in HISTORY_WORDS or states_change(statement)


def _change(a: Statement, b: Statement) -> Verdict | None:
    """The newer line states a change that makes the older one out of date."""
    phrases = _change_phrases(b.claim)
    if not phrases or _records_history(a):
        return None
    for groups in phrases:
        named = groups.get("subject") or groups.get("src") or ""
        src = _head(named)
        dst = _head(groups.get("dst") or "")
        older = {t.stem for t in a.tokens} | {t.text for t in a.tokens}
        if dst and _holds(dst[:1], older):
            return None
        if src:
            if _holds(src, older) and (groups.get("subject") or _named_enough(src, a, b)):
                return Verdict("change", f"{_words(src)} -> {_words(dst) or 'gone'}")
            continue
        if dst and _same_topic(a, b, {token.stem for token in dst}):
            return Verdict("change", f"-> {_words(dst)}")
    return None


def _named_enough(src: list[Token], a: Statement, b: Statement) -> bool:
    """Whether what a change says is gone names the older line's subject: a value, several
    words, or one word when the lines share another (`no longer active` alone does not)."""
    if len(src) > 1 or src[0].value:
        return True
    return _same_topic(a, b, {src[0].stem})


def _topical(token: Token) -> bool:
    """Whether a token can tell what a line is about (not a function word or a bare count)."""
    return token.content and token.text not in NUMBER_WORDS and len(token.text) > 2


def _same_topic(a: Statement, b: Statement, leave_out: set[str]) -> bool:
    """Whether two claims share a content word (beyond `leave_out`) or a topic."""
    older = {t.stem for t in a.tokens if _topical(t)}
    newer = {t.stem for t in b.tokens if _topical(t)} - leave_out
    if older & newer:
        return True
    return any(older & topic and newer & topic for topic in TOPICS)


# ----- negation ----------------------------------------------------------------------------


def _opposite(a: Statement, b: Statement) -> set[str]:
    """The words of an antonym pair one claim holds and the other the opposite of."""
    words_a = {t.text for t in a.tokens}
    words_b = {t.text for t in b.tokens}
    found: set[str] = set()
    for first, second in ANTONYMS:
        crossed = (first in words_a and second in words_b) or (
            second in words_a and first in words_b
        )
        if crossed and not ({first, second} <= words_a or {first, second} <= words_b):
            found |= {first, second}
    return found


def _denied(statement: Statement) -> Token | None:
    """The word a negative claim denies: the first content word after its negation (`not
    shared` -> `shared`), or before it when nothing follows (`... shared anymore`)."""
    tokens = statement.tokens
    skip = NEGATIONS | {"longer"}
    for at, token in enumerate(tokens):
        if token.text in NEGATIONS:
            after = [t for t in tokens[at + 1 :] if t.content and t.text not in skip]
            before = [t for t in tokens[:at] if t.content and t.text not in skip]
            return after[0] if after else (before[-1] if before else None)
    return None


def _denies_shared(a: Statement, b: Statement) -> bool:
    """Whether the negative claim denies a word the other claim holds."""
    denied, other = (a, b) if a.negated else (b, a)
    word = _denied(denied)
    return word is None or word.stem in {t.stem for t in other.tokens}


def _negation(a: Statement, b: Statement) -> Verdict | None:
    """One claim denies what the other asserts, about the same things."""
    opposite = _opposite(a, b)
    if a.negated == b.negated and not opposite:
        return None
    if not opposite and not _denies_shared(a, b):
        return None
    leave_out = NEGATIONS | opposite | {"longer", "have", "do", "does", "did"}
    rest_a = [t for t in a.tokens if t.content and t.text not in leave_out]
    rest_b = [t for t in b.tokens if t.content and t.text not in leave_out]
    if not rest_a or not rest_b:
        return None
    matcher = SequenceMatcher(None, _stems(rest_a), _stems(rest_b), autojunk=False)
    shared = sum(block.size for block in matcher.get_matching_blocks())
    if shared / min(len(rest_a), len(rest_b)) < NEGATION_OVERLAP:
        return None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "replace" and _has_value(rest_a[i1:i2]) and _has_value(rest_b[j1:j2]):
            return None
    said = "negative" if b.negated else "positive"
    return Verdict("negation", f"the newer line is {said}")


# ----- value -------------------------------------------------------------------------------


def _has_value(tokens: list[Token]) -> bool:
    """Whether any token is a value."""
    return any(token.value for token in tokens)


@dataclass(frozen=True)
class _Alignment:
    """Two main clauses aligned: the replaced spans (old, new, where), and the words kept."""

    changed: list[tuple[list[Token], list[Token], int]]
    kept: list[Token]
    extra: int
    """How many words were only added or only dropped."""


def _align(x: list[Token], y: list[Token]) -> _Alignment:
    """Align two token lists by their stems."""
    matcher = SequenceMatcher(None, _stems(x), _stems(y), autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    changed = [(x[i1:i2], y[j1:j2], i1) for tag, i1, i2, j1, j2 in ops if tag == "replace"]
    extra = sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in ops if tag != "replace")
    kept = [
        x[i]
        for block in matcher.get_matching_blocks()
        for i in range(block.a, block.a + block.size)
    ]
    return _Alignment(changed, kept, extra)


def _events(tokens: list[Token]) -> bool:
    """Whether a sentence tells of an event (`deployed`, `released`, `met`)."""
    return any(token.text in EVENT_WORDS for token in tokens)


def _most_shared(x: list[Token], y: list[Token]) -> int:
    """At least as many words as two token lists can share in an alignment (a cheap bound)."""
    set_x, set_y = {t.stem for t in x}, {t.stem for t in y}
    repeated = min(len(x) - len(set_x), len(y) - len(set_y))
    return len(set_x & set_y) + repeated


def _value(a: Statement, b: Statement, same_section: bool) -> Verdict | None:
    """The main clauses differ in one value (or in two numbers or dates, not of an event)."""
    x, y = list(a.main), list(b.main)
    if not x or not y or a.negated != b.negated:
        return None
    short = max(len(a.tokens), len(b.tokens)) <= MAX_KEYED_WORDS
    keyed = same_section and bool(a.key) and a.key == b.key and short
    if not keyed and _most_shared(x, y) < MIN_SHARED_SHARE * max(len(x), len(y)):
        return None
    aligned = _align(x, y)
    kept = aligned.kept
    if not aligned.changed or aligned.extra > MAX_EXTRA_WORDS:
        return None
    if not keyed and (
        len(kept) < MIN_SHARED_SHARE * max(len(x), len(y)) or not any(t.content for t in kept)
    ):
        return None
    if any(token.stem in MANY_VALUED for token in kept):
        return None
    shown = "; ".join(f"{_words(old)} -> {_words(new)}" for old, new, _at in aligned.changed)
    if len(aligned.changed) == 1:
        old, new, at = aligned.changed[0]
        changed = _word_change(old, new, x[:at], keyed) or _value_change(old, new)
        return Verdict("value", shown) if changed else None
    measured = all(
        _value_change(old, new) and _measures(old + new) for old, new, _at in aligned.changed
    )
    about_one = aligned.changed[0][2] >= SUBJECT_WORDS
    if len(aligned.changed) == 2 and measured and about_one and not _events(kept):
        return Verdict("value", shown)
    return None


def _value_change(old: list[Token], new: list[Token]) -> bool:
    """One value stands for another; the words around the values are the same."""
    if len(old) > MAX_VALUE_WORDS or len(new) > MAX_VALUE_WORDS:
        return False
    if not (_has_value(old) and _has_value(new)):
        return False
    plain_old = {t.stem for t in old if not t.value and t.content}
    plain_new = {t.stem for t in new if not t.value and t.content}
    return plain_old == plain_new and not _narrower_date(old, new)


def _measures(tokens: list[Token]) -> bool:
    """Whether the values of a phrase are all numbers, times or dates (no names: a changed
    name next to a changed number is usually another thing, `iOS 16` and `Android 10`)."""
    return all(
        any(ch.isdigit() for ch in t.text) or t.stem in DATE_WORDS or t.text in NUMBER_WORDS
        for t in tokens
        if t.value
    )


def _months(tokens: list[Token]) -> set[int]:
    """The months a phrase names: by name, or as the month of an ISO date."""
    found = {MONTHS[t.text] for t in tokens if t.text in MONTHS}
    for token in tokens:
        iso = re.fullmatch(r"\d{4}-(\d{2})(?:-\d{2})?", token.text)
        if iso is not None:
            found.add(int(iso.group(1)))
    return found


def _narrower_date(old: list[Token], new: list[Token]) -> bool:
    """Whether one side names a month and the other a day of that month (`April`,
    `2025-04-15`): the newer is more exact, not different."""
    if not _months(old) & _months(new):
        return False
    return not any(ch.isdigit() for t in old for ch in t.text) or not any(
        ch.isdigit() for t in new for ch in t.text
    )


def _word_change(old: list[Token], new: list[Token], before: list[Token], keyed: bool) -> bool:
    """A plain word stands for another after an attribute word; under the same key, any short
    phrase for another."""
    if keyed:
        return len(old) <= MAX_VALUE_WORDS and len(new) <= MAX_VALUE_WORDS
    if len(old) > MAX_PLAIN_WORDS or len(new) > MAX_PLAIN_WORDS:
        return False
    if _has_value(old) or _has_value(new):
        return False
    if not all(t.content for t in old) or not all(t.content for t in new):
        return False
    return keyed or any(token.stem in ATTRIBUTE_WORDS for token in before)
