"""The words of one memory statement as the contradiction rules compare them.

A statement is one line an agent wrote: a Basic Memory observation (`- [category] text #tag
(context)`), an XML-tagged memory-tool line (`<tool name="formatter">black</tool>`), a
`key: value` line, or a plain sentence. `read_statement` takes off what is not the claim itself
(list marker, category, temporal qualifier, tags, trailing context), keeps the line's key (the
XML tag and attributes, or the text before `key:`), and splits the claim into tokens that know
whether they are values (numbers, dates, names, code, addresses) or plain words, with light
stems so `uses`, `using` and `used` compare equal. The main clause is the claim up to its first
aside (`;`, `, `, ` since `, ` now that `...), which is what a changed value is looked for in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memtui.notes.temporal import scan_qualifier

_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_CATEGORY = re.compile(r"^\[([^\[\]()]+)\]\s+")
_XML = re.compile(r'^<([A-Za-z][\w.-]*)((?:\s+[\w.-]+\s*=\s*"[^"]*")*)\s*>(.*)</\1>\s*$')
_XML_ATTRIBUTE = re.compile(r'([\w.-]+)\s*=\s*"([^"]*)"')
_KEY_VALUE = re.compile(r"^([^:]{1,40}?):\s+(\S.*)$")
_DIGIT = re.compile(r"\d")
_INNER_MARK = re.compile(r"[._/@+]")
_EMPHASIS = re.compile(r"\*\*|__")
_TAG = re.compile(r"(?<!\S)#[^\s#]+")
_CONTEXT = re.compile(r"\s*\([^()]*\)\s*$")
_TOKEN = re.compile(
    r"`[^`]+`"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    r"|\d+(?:[.:,/-]\d+)*[^\W\d_]*"
    r"|[^\W_][\w'’./+-]*[\w+]"
    r"|[^\W_]"
)
_ASIDE = re.compile(
    r";|:\s|,\s|\s\(|\s(?:now that|since|after|because|as of|so that|which|"
    r"but|while|until|when)\s",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"\b(?:from now on|any ?more|instead|nowadays|these days|at the moment|currently|now|still"
    r"|again|too|also)\b",
    re.IGNORECASE,
)
MAX_KEY_WORDS = 6
"""A `key: value` line's key has at most this many words (a longer head is a sentence)..."""
MAX_KEY_CONTENT_WORDS = 4
"""... and at most this many content words, and no negation."""


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`, as a set."""
    return frozenset(text.split())


STOPWORDS = word_set(
    """a an the of in on at for to with by from into onto via as and or nor but so if then than
    is are was were be been being am do does did done doing will would shall should can could may
    might must it its this that these those there here they them their he she his her him we our
    us i me my you your who whom which what about also too very just only each every all some any
    per one's s"""
)
NEGATIONS = word_set(
    """not no never n't without cannot can't don't doesn't didn't isn't aren't wasn't weren't
    won't shouldn't stopped stop stops dropped removed disabled none nobody nothing neither
    anymore"""
)
NEGATION_PHRASES = re.compile(r"\b(?:no longer|not any ?more|any ?more)\b", re.IGNORECASE)
ANTONYMS = (
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("true", "false"),
    ("yes", "no"),
    ("allowed", "forbidden"),
    ("allowed", "blocked"),
    ("required", "optional"),
    ("public", "private"),
    ("active", "inactive"),
    ("open", "closed"),
    ("always", "never"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("with", "without"),
)
MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
DATE_WORDS = word_set(
    """monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays weekday weekend q1 q2 q3 q4 h1 h2 today tomorrow
    yesterday morning afternoon evening noon midnight"""
) | frozenset(MONTHS)
NUMBER_WORDS = word_set(
    """zero one two three four five six seven eight nine ten eleven twelve twenty thirty forty
    fifty hundred thousand dozen half double single once twice"""
)
_IRREGULAR = {
    "has": "have",
    "had": "have",
    "having": "have",
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "am": "be",
    "left": "leave",
    "ran": "run",
    "went": "go",
    "goes": "go",
    "gone": "go",
}


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a statement: as written (lowercased), its stem, and whether it is a value."""

    text: str
    stem: str
    value: bool

    @property
    def content(self) -> bool:
        """Whether the token carries meaning (not a function word)."""
        return self.text not in STOPWORDS


@dataclass(frozen=True, slots=True)
class Statement:
    """What the rules know of one line: its key, its main clause, all its tokens, its text."""

    key: str
    """The XML tag and attributes or the `key:` head, normalised; "" when the line has none."""
    category: str
    """A Basic Memory observation's category, lowercased; "" when the line has none."""
    main: tuple[Token, ...]
    """The tokens of the main clause, filler adverbs (`now`, `instead`) left out."""
    tokens: tuple[Token, ...]
    """Every token of the claim, in order."""
    claim: str
    """The claim as text (list marker, category, tags and context taken off)."""
    negated: bool
    """Whether the claim is negative (`not`, `no longer`, `stopped`, `never`, ...)."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem: `uses`/`using`/`used` -> `us`, `planned` -> `plan`, `has` -> `have`."""
    word = word.lower().removesuffix("'s").removesuffix("’s")
    word = _IRREGULAR.get(word, word)
    if not word.isalpha():
        return word
    if len(word) > 3 and word not in _IRREGULAR.values():
        for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "e")):
            if word.endswith(suffix) and len(word) - len(suffix) >= 2:
                word = word[: -len(suffix)] + keep
                break
        else:
            if word.endswith("s") and not word.endswith("ss"):
                word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word.removesuffix("e") if len(word) > 2 else word


def _value_stem(raw: str) -> str:
    """A value compared as written, lowercased (`Mondays` and `Monday` alike)."""
    lower = raw.lower()
    return lower[:-1] if lower.endswith("s") and lower[:-1] in DATE_WORDS else lower


def _is_value(raw: str, lower: str, first: bool) -> bool:
    """Whether a token names a value: a number, date, name, code, path or address."""
    if raw[0] == "`" or _DIGIT.search(raw) or lower in DATE_WORDS or lower in NUMBER_WORDS:
        return True
    if _INNER_MARK.search(raw, 1, len(raw) - 1):
        return True
    if raw[1:] != lower[1:]:
        return True
    return not first and raw[0] != lower[0]


@lru_cache(maxsize=65536)
def _token(raw: str, first: bool) -> Token:
    """One token as written (cached: a store's vocabulary is small next to its text)."""
    lower = raw.lower()
    value = _is_value(raw, lower, first)
    return Token(lower, _value_stem(raw) if value and not raw.isalpha() else stem(raw), value)


def _tokens(text: str) -> tuple[Token, ...]:
    """The tokens of `text`, each marked value or word."""
    return tuple(_token(raw, i == 0) for i, raw in enumerate(_TOKEN.findall(text)))


def phrase_tokens(text: str) -> tuple[Token, ...]:
    """The tokens of a phrase taken from inside a sentence (a capital marks a name even on
    the phrase's first word)."""
    return tuple(_token(raw, False) for raw in _TOKEN.findall(text))


def _claim_tokens(claim: str, end: int) -> tuple[tuple[Token, ...], tuple[Token, ...]]:
    """All tokens of a claim, and those of its main clause (before `end`, fillers left out)."""
    fillers = [match.span() for match in _FILLER.finditer(claim, 0, end)]
    tokens: list[Token] = []
    main: list[Token] = []
    for i, match in enumerate(_TOKEN.finditer(claim)):
        token = _token(match.group(), i == 0)
        tokens.append(token)
        start = match.start()
        if start < end and not any(low <= start < high for low, high in fillers):
            main.append(token)
    return tuple(tokens), tuple(main)


def _key_and_claim(text: str) -> tuple[str, str]:
    """The line's key (XML tag and attributes, or a short `key:` head) and the rest."""
    xml = _XML.match(text)
    if xml is not None:
        attributes = " ".join(f"{k}={v}".lower() for k, v in _XML_ATTRIBUTE.findall(xml.group(2)))
        return f"<{xml.group(1).lower()} {attributes}".strip(), xml.group(3).strip()
    pair = _KEY_VALUE.match(text)
    if pair is not None and len(pair.group(1).split()) <= MAX_KEY_WORDS:
        head = pair.group(1).strip()
        words = _tokens(head)
        content = [t for t in words if t.content]
        if len(content) <= MAX_KEY_CONTENT_WORDS and not any(t.text in NEGATIONS for t in words):
            return " ".join(t.stem for t in content), pair.group(2).strip()
    return "", text


def claim_text(line: str) -> str:
    """A line without its list marker, category and temporal qualifier."""
    text = _LIST_MARKER.sub("", line.strip(), count=1)
    text = _CATEGORY.sub("", text, count=1)
    return _EMPHASIS.sub("", scan_qualifier(text).content).strip()


@lru_cache(maxsize=65536)
def read_statement(line: str) -> Statement:
    """The statement a line makes, ready for the rules (cached: lines repeat across pairs)."""
    key, claim = _key_and_claim(claim_text(line))
    category = _CATEGORY.match(_LIST_MARKER.sub("", line.strip(), count=1))
    claim = _CONTEXT.sub("", _TAG.sub("", claim)).strip()
    aside = _ASIDE.search(claim)
    end = aside.start() if aside is not None and aside.start() > 0 else len(claim)
    tokens, main = _claim_tokens(claim, end)
    return Statement(
        key=key,
        category=category.group(1).strip().lower() if category is not None else "",
        main=main,
        tokens=tokens,
        claim=claim,
        negated=bool(NEGATION_PHRASES.search(claim)) or any(t.text in NEGATIONS for t in tokens),
    )
