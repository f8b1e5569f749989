"""Policy rules: path globs and actor globs with an access level; the last matching rule wins.

A path glob is matched against a path relative to the store (`user/notes.md`), ignoring case and
Unicode composition as the disks of macOS and Windows do: `*` and `?` never cross a `/`, a `**`
segment spans any number of folders (none included, so `user/**` covers the folder `user`
itself), and a rule that matches a folder covers everything inside it. An actor
glob is matched against the actor (`agent:claude`; a bare name means `agent:NAME`); a rule
without actors covers every agent. People and outside processes are never restricted.
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

Access = Literal["write", "review", "read", "none"]
"""What an agent may do with a path: change it (`write`), propose a change a person approves
(`review`), only read it (`read`), or not see it at all (`none`)."""
WRITE: Access = "write"
REVIEW: Access = "review"
READ: Access = "read"
NONE: Access = "none"
ACCESS_LEVELS: tuple[Access, ...] = (WRITE, REVIEW, READ, NONE)
"""Every access level, least strict first."""
EVERY_AGENT = "agent:*"
"""The actor glob a rule without `actors` has."""
_RULE_KEYS = ("paths", "actors", "access")
_DECIDED_KEPT = 65536
"""How many decisions a policy remembers before it starts afresh."""
_UNKNOWN = object()


class PolicyProblem(ValueError):
    """The policy cannot be used; the message says where and why, never echoing its values (it
    may be shown to an agent)."""


def strictest(levels: Iterable[Access]) -> Access:
    """The strictest of some access levels (`write` when there are none)."""
    return max(levels, key=ACCESS_LEVELS.index, default=WRITE)


def _class_end(segment: str, start: int) -> int:
    """Where the `[...]` class opened just before `start` ends (-1: not closed, so literal)."""
    if segment[start : start + 1] == "!":
        start += 1
    if segment[start : start + 1] == "]":
        start += 1
    return segment.find("]", start)


def _class_regex(body: str) -> re.Pattern[str]:
    """A `[...]` class's inside as an expression matching one character (`!` negates, as in
    fnmatch)."""
    negated = body.startswith("!")
    if negated:
        body = body[1:]
    for special in ("\\", "[", "]", "^"):
        body = body.replace(special, "\\" + special)
    try:
        return re.compile(f"[^/{body}]" if negated else f"(?!/)[{body}]", re.DOTALL | re.IGNORECASE)
    except re.error:
        raise PolicyProblem("has a `[...]` class that is not valid (a range backwards?)") from None


_STAR = None
"""A `*` among a segment's tokens."""
_Token = str | re.Pattern[str] | None
"""One piece of a segment glob: a literal character, a class or `?` (an expression of one
character), or `*`."""
_ANY_CHAR = re.compile("[^/]", re.DOTALL)
_Segment = str | tuple[_Token, ...] | None
"""A path glob's segment: the name itself when it has no wildcard, its tokens, or None for
`**`."""


def _segment_tokens(segment: str) -> tuple[_Token, ...]:
    """One path segment's glob as tokens (`*`, `?`, `[...]`, literal characters)."""
    out: list[_Token] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        index += 1
        if char == "*":
            if not out or out[-1] is not _STAR:
                out.append(_STAR)
        elif char == "?":
            out.append(_ANY_CHAR)
        elif char == "[" and (end := _class_end(segment, index)) != -1:
            out.append(_class_regex(segment[index:end]))
            index = end + 1
        else:
            out.extend(char.lower())
    return tuple(out)


def _past_stars(tokens: tuple[_Token, ...], states: set[int]) -> set[int]:
    """`states` with every place a run of `*` (which may match nothing) lets the match skip to."""
    out = set(states)
    for state in states:
        while state < len(tokens) and tokens[state] is _STAR:
            state += 1
            out.add(state)
    return out


def _segment_matches(tokens: tuple[_Token, ...], name: str) -> bool:
    """Whether one name matches a segment's tokens: every place the match may be at is followed
    at once, so the time grows with the name's length times the glob's, never faster."""
    states = _past_stars(tokens, {0})
    for char in name:
        following: set[int] = set()
        for state in states:
            if state == len(tokens):
                continue
            token = tokens[state]
            if token is _STAR:
                following.add(state)
            elif token == char if isinstance(token, str) else token.fullmatch(char):
                following.add(state + 1)
        states = _past_stars(tokens, following)
        if not states:
            return False
    return len(tokens) in states


def _not_utf8(text: str) -> bool:
    """Whether `text` holds what UTF-8 cannot encode (bytes a command line smuggled in)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def path_glob(pattern: str) -> str:
    """A path glob in its normal form: `/memories/` or a leading `/` dropped, no trailing `/`.

    Raises PolicyProblem for an empty glob, a NUL, or a `.` or `..` segment.
    """
    text = pattern
    if text == "/memories" or text.startswith("/memories/"):
        text = text[len("/memories") :]
    text = text.strip("/")
    if not text:
        raise PolicyProblem("is empty (use ** for every path)")
    if "\x00" in text:
        raise PolicyProblem("holds a NUL character")
    if not text.isascii() and _not_utf8(text):
        raise PolicyProblem("is not UTF-8 text")
    if any(segment in (".", "..", "") for segment in text.split("/")):
        raise PolicyProblem("has an empty, `.` or `..` segment")
    return text


def comparable(relpath: str) -> str:
    """A path as globs are matched against it: composed Unicode (NFC) in lower case, since a
    disk that ignores case or composition (macOS, Windows) opens `Private/` as `private/`."""
    return unicodedata.normalize("NFC", relpath).lower()


def compile_path_glob(pattern: str) -> tuple[_Segment, ...]:
    """A path glob as segments (`**` as None, repeats of it as one), for `glob_covers` on a
    `comparable` path (its letters compared in lower case, composed)."""
    segments: list[_Segment] = []
    for segment in unicodedata.normalize("NFC", path_glob(pattern)).split("/"):
        if segment != "**":
            tokens = _segment_tokens(segment)
            literal = all(isinstance(token, str) for token in tokens)
            segments.append("".join(tokens) if literal else tokens)  # type: ignore[arg-type]
        elif not segments or segments[-1] is not None:
            segments.append(None)
    return tuple(segments)


def _past_spans(glob: tuple[_Segment, ...], states: set[int]) -> set[int]:
    """`states` with every place a `**` (which may span no folder) lets the match skip to."""
    out = set(states)
    for state in states:
        while state < len(glob) and glob[state] is None:
            state += 1
            out.add(state)
    return out


def glob_covers(glob: tuple[_Segment, ...], relpath: str) -> bool:
    """Whether a compiled path glob covers `relpath` (or a folder holding it), following every
    place the match may be at once (no backtracking, whatever the glob or the path)."""
    states = _past_spans(glob, {0})
    for name in relpath.split("/"):
        if len(glob) in states:
            return True
        following: set[int] = set()
        for state in states:
            segment = glob[state]
            if segment is None:
                following.add(state)
            elif segment == name if isinstance(segment, str) else _segment_matches(segment, name):
                following.add(state + 1)
        states = _past_spans(glob, following)
        if not states:
            return False
    return len(glob) in states


def actor_glob(pattern: str) -> str:
    """An actor glob in its normal form: a bare name means `agent:NAME`."""
    text = pattern.strip()
    if not text:
        raise PolicyProblem("is empty")
    if not text.isascii() and _not_utf8(text):
        raise PolicyProblem("is not UTF-8 text")
    return text if ":" in text or text == "*" else f"agent:{text}"


@dataclass(frozen=True)
class Rule:
    """One `[[rule]]`: the paths and actors it covers and the access it gives."""

    number: int
    """Its place in the file, from 1."""
    paths: tuple[str, ...]
    access: Access
    actors: tuple[str, ...] = (EVERY_AGENT,)
    _compiled: tuple[tuple[_Segment, ...], ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def make(
        cls, number: int, paths: Iterable[str], access: Access, actors: Iterable[str] = ()
    ) -> Rule:
        """A rule with its globs checked and compiled; raises PolicyProblem naming the glob."""
        normal_paths: list[str] = []
        compiled: list[tuple[_Segment, ...]] = []
        for place, pattern in enumerate(paths, 1):
            try:
                normal_paths.append(path_glob(pattern))
                compiled.append(compile_path_glob(pattern))
            except PolicyProblem as problem:
                raise PolicyProblem(f"rule {number}: path {place} {problem}") from None
        normal_actors: list[str] = []
        for place, pattern in enumerate(actors, 1):
            try:
                normal_actors.append(actor_glob(pattern))
            except PolicyProblem as problem:
                raise PolicyProblem(f"rule {number}: actor {place} {problem}") from None
        return cls(
            number,
            tuple(normal_paths),
            access,
            tuple(normal_actors) or (EVERY_AGENT,),
            tuple(compiled),
        )

    def covers_path(self, relpath: str) -> bool:
        """Whether a path relative to the store (not the root itself) is one of the rule's."""
        probe = comparable(relpath)
        return any(glob_covers(glob, probe) for glob in self._compiled)

    def covers_actor(self, actor: str) -> bool:
        """Whether the rule speaks of `actor` (an agent)."""
        return any(fnmatch.fnmatchcase(actor, pattern) for pattern in self.actors)


@dataclass(frozen=True)
class Policy:
    """A store's rules (empty: every agent may write everywhere), or the problem that makes the
    policy unusable (then every agent command is refused)."""

    rules: tuple[Rule, ...] = ()
    problem: str | None = None
    _decided: dict[tuple[str, str], Rule | None] = field(
        default_factory=dict, compare=False, repr=False
    )
    """(relpath, actor) -> the rule deciding it, as found so far (the policy is kept while its
    file is unchanged, so listings asked again find their answers here)."""

    def rule_for(self, relpath: str, actor: str) -> Rule | None:
        """The rule that decides `actor`'s access to `relpath` (the last that covers both), or
        None: people, outside processes and the root itself are never covered."""
        if not relpath or not actor.startswith("agent:") or not self.rules:
            return None
        key = (relpath, actor)
        known = self._decided.get(key, _UNKNOWN)
        if known is not _UNKNOWN:
            return known  # type: ignore[return-value]
        found = None
        for rule in reversed(self.rules):
            if rule.covers_actor(actor) and rule.covers_path(relpath):
                found = rule
                break
        if len(self._decided) >= _DECIDED_KEPT:
            self._decided.clear()
        self._decided[key] = found
        return found

    def access(self, relpath: str, actor: str) -> Access:
        """What `actor` may do with `relpath` by the rules (`write` where none applies)."""
        rule = self.rule_for(relpath, actor)
        return WRITE if rule is None else rule.access

    def hides_any(self, actor: str) -> bool:
        """Whether some rule could hide a path from `actor` (its listings then show every
        folder's size alike, so a size never tells that a folder holds hidden entries)."""
        return actor.startswith("agent:") and any(
            rule.access == NONE and rule.covers_actor(actor) for rule in self.rules
        )

    def probes(self) -> tuple[str, ...]:
        """One actor per kind of agent the rules tell apart: any agent (`agent:`) and one that
        each rule's actor glob names."""
        found = {"agent:"}
        for rule in self.rules:
            for pattern in rule.actors:
                probe = re.sub(r"\[[^\]]*\]", "x", pattern).replace("*", "").replace("?", "x")
                if probe.startswith("agent:"):
                    found.add(probe)
        return tuple(sorted(found))

    def strictest(self, relpath: str) -> Access:
        """The strictest access any agent has to `relpath` by the rules (for a mark)."""
        return strictest(self.access(relpath, probe) for probe in self.probes())

    def explain(self, relpath: str) -> list[str]:
        """Which rule decides `relpath` for which agents, one line per rule that decides it for
        some agent (`rule 2 (user/**: review) for every agent`); empty when none covers it."""
        deciding: dict[int, list[str]] = {}
        rules = {}
        for probe in self.probes():
            rule = self.rule_for(relpath, probe)
            if rule is not None:
                rules[rule.number] = rule
                deciding.setdefault(rule.number, []).append(probe)
        lines = []
        for number in sorted(rules):
            rule = rules[number]
            generic = "every agent" if len(rules) == 1 else "the other agents"
            who = generic if "agent:" in deciding[number] else ", ".join(rule.actors)
            lines.append(f"rule {number} ({', '.join(rule.paths)}: {rule.access}) for {who}")
        return lines


def _strings(value: object, what: str) -> tuple[str, ...]:
    """A string or list of strings as a tuple; raises PolicyProblem naming `what`."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise PolicyProblem(f"{what} must be a list of strings")


def rule_from_table(number: int, table: object) -> Rule:
    """The rule a `[[rule]]` table describes; raises PolicyProblem saying what is wrong."""
    if not isinstance(table, Mapping):
        raise PolicyProblem(f"rule {number} must be a table ([[rule]])")
    unknown = [str(key) for key in table if key not in _RULE_KEYS]
    if unknown:
        raise PolicyProblem(
            f"rule {number}: unknown key (expected {', '.join(_RULE_KEYS)}; check the spelling)"
        )
    if "paths" not in table:
        raise PolicyProblem(f"rule {number}: paths is required")
    if "access" not in table:
        raise PolicyProblem(f"rule {number}: access is required")
    access = table["access"]
    if access not in ACCESS_LEVELS:
        raise PolicyProblem(f"rule {number}: access must be one of {', '.join(ACCESS_LEVELS)}")
    paths = _strings(table["paths"], f"rule {number}: paths")
    actors = _strings(table["actors"], f"rule {number}: actors") if "actors" in table else ()
    return Rule.make(number, paths, access, actors)


def policy_from_data(data: Mapping[str, object]) -> Policy:
    """The policy parsed TOML describes; raises PolicyProblem saying what is wrong."""
    unknown = [str(key) for key in data if key != "rule"]
    if unknown:
        raise PolicyProblem("unknown top-level key (expected only [[rule]] tables)")
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        raise PolicyProblem("rule must be an array of tables ([[rule]])")
    return Policy(tuple(rule_from_table(number, table) for number, table in enumerate(tables, 1)))


@dataclass(frozen=True)
class ActorPolicy:
    """The store's policy as it applies to one actor (an agent: people are never restricted)."""

    policy: Policy
    actor: str

    @property
    def problem(self) -> str | None:
        """Why the policy cannot be used (then every command of an agent is refused)."""
        return self.policy.problem if self.actor.startswith("agent:") else None

    @property
    def hides_any(self) -> bool:
        """Whether some rule could hide a path from this actor."""
        return self.policy.hides_any(self.actor)

    def access(self, relpath: str) -> Access:
        """What this actor may do with `relpath` by the rules."""
        return self.policy.access(relpath, self.actor)

    def hidden(self, relpath: str) -> bool:
        """Whether `relpath` does not exist for this actor."""
        return self.access(relpath) == NONE
