"""Which events of the history: one type for every filter of it, and one parser for the filter
syntax the app's history and inbox filters, `memtui log` and `memtui changes` share.

`actor:agent command:edit path:projects/ since:2 weeks retry "rate limit"` asks for the events
of an agent (any agent; `actor:agent:claude` one of them), of one command (`edit` and `replace`
stand for `str_replace`, `read` for `view`), on a file or folder (anything below it too), at or
after a time (what `memtui log --since` takes: `7d`, `2 weeks`, `today`, an ISO date), whose
path, actor, command or result holds every free word (any case). `History.events` and
`History.count_events` take an `EventQuery`; the inbox narrows one to the changes that wait.
"""

from __future__ import annotations

import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

from memtui.core.parsing.paths import from_relpath, to_relpath
from memtui.core.timeframe import WHEN_EXAMPLES, parse_when

FILTER_KEYS = frozenset({"actor", "cmd", "command", "path", "since"})
"""The keys of the filter syntax (`cmd:` is `command:`); any other word is a free word."""
COMMAND_ALIASES = {"edit": "str_replace", "replace": "str_replace", "read": "view"}
"""Command names a person may type for the history's own."""
SINCE_WORDS = 3
"""Most words a `since:` timeframe spans (`since:3 weeks ago`)."""
FILTER_HELP = (
    "actor:agent|human|external|agent:NAME  command:NAME (cmd:; edit, read)  path:FOLDER/ or "
    "path:NOTE  since:WHEN (7d, 2 weeks, today, 2026-11-01)  and free words"
)


@dataclass(frozen=True)
class EventQuery:
    """Which events to list or count; every filter given must hold.

    `path` matches the event's path or new path, or anything below a folder path, and with
    `follow` every earlier name of what is there now (`History.lineage`); `actor` is a full
    actor or a kind; `actor_kinds` keeps only those kinds; `skip_reads` drops views; `words`
    must each appear in the path, new path, actor, command or result (any case);
    `changes_only` keeps successful changes but the baseline; `reviewed` keeps events with
    (True) or without (False) a review mark. `problems` says what a parsed filter text could
    not use (the rest of it still applies).
    """

    path: str | None = None
    follow: bool = False
    actor: str | None = None
    command: str | None = None
    since: float | None = None
    until: float | None = None
    actor_kinds: Collection[str] | None = None
    skip_reads: bool = False
    errors_only: bool = False
    words: Sequence[str] = ()
    changes_only: bool = False
    reviewed: bool | None = None
    problems: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        """Hold the words as a tuple and the kinds as a frozen set, so equal queries compare
        equal however they were given."""
        object.__setattr__(self, "words", tuple(self.words))
        if self.actor_kinds is not None:
            object.__setattr__(self, "actor_kinds", frozenset(self.actor_kinds))


def since_start(words: Sequence[str], now: float) -> tuple[float, int] | None:
    """The start of the time at the head of `words` and how many words it takes, or None.

    The longest reading wins, so `1 month ago`, `2 weeks` and `2026-11-01 09:30` take their
    following words.
    """
    for taken in range(min(SINCE_WORDS, len(words)), 0, -1):
        try:
            return parse_when(" ".join(words[:taken]), now), taken
        except ValueError:
            continue
    return None


def filter_words(text: str) -> list[str]:
    """The words of a filter text: quoted phrases kept whole (an unbalanced quote splits on
    spaces)."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def parse_event_query(text: str, now: float) -> EventQuery:
    """The query a filter text asks for (see the module's docstring); `since:` counts back from
    `now`. A filter that cannot be used (`since:soon`) filters nothing and is named in
    `problems`, one line each."""
    query = EventQuery()
    words: list[str] = []
    problems: list[str] = []
    parts = filter_words(text)
    position = 0
    while position < len(parts):
        word = parts[position]
        position += 1
        key, sep, value = word.partition(":")
        key = key.lower()
        if not sep or key not in FILTER_KEYS:
            words.append(word.lower())
        elif key == "actor":
            query = replace(query, actor=value)
        elif key in ("cmd", "command"):
            query = replace(query, command=COMMAND_ALIASES.get(value, value))
        elif key == "path":
            query = replace(query, path=from_relpath(to_relpath("/" + value.strip("/"))))
        else:
            found = since_start([value, *parts[position:]], now)
            if found is None:
                problems.append(f"since:{value} is not a time: use {WHEN_EXAMPLES}")
            else:
                query = replace(query, since=found[0])
                position += found[1] - 1
    return replace(query, words=tuple(words), problems=tuple(problems))
