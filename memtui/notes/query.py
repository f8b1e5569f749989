"""The search query syntax shared by the app, `memtui search` and MCP: words plus filters."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

FILTER_TOKEN = re.compile(r"(?<!\S)(tag|category|cat|type|folder|in|actor|age|mode):(\S*)")
FILTER_FIELDS = {
    "tag": "tag",
    "category": "category",
    "cat": "category",
    "type": "note_type",
    "folder": "folder",
    "in": "folder",
    "actor": "actor",
}
FILTER_HELP = (
    "tag:NAME  category:NAME (cat:)  type:NAME  folder:PATH/ (in:)  "
    "actor:human|agent|external|agent:NAME  age:DAYS  mode:text|meaning|hybrid"
)
MODES = ("text", "meaning", "hybrid")
"""How a query ranks: by its words (typos tolerated), by meaning (the nearest note sections,
with the `meaning` extra and a model), or by both fused."""
MEANING_KIND = "meaning"
"""The kind of a hit found by meaning alone; its text is the heading of the section nearest the
query (why it matched) and its line the section's first."""


class QueryError(ValueError):
    """A filter value that cannot be used; the message says which and what is expected."""


@dataclass(frozen=True)
class SearchFilters:
    """Restrictions on which notes a search may return."""

    folder: str | None = None
    tag: str | None = None
    category: str | None = None
    note_type: str | None = None
    actor: str | None = None
    """`human`, `agent`, `external` (any of that kind) or an exact actor like `agent:claude`."""
    max_age_days: float | None = None
    now: float | None = None
    """The present `max_age_days` counts back from (the caller's clock); None: the wall clock."""
    mode: str | None = None
    """`mode:` of the query, one of MODES (None: the default); how to rank, not a filter."""

    def any(self) -> bool:
        """Whether any filter is set."""
        return any(
            value is not None and value != ""
            for value in (
                self.folder,
                self.tag,
                self.category,
                self.note_type,
                self.actor,
                self.max_age_days,
            )
        )


def age_days(text: str) -> float:
    """`7`, `7d` or `1.5D` as a number of days; QueryError for anything else."""
    try:
        days = float(text.rstrip("dD"))
    except ValueError:
        days = math.nan
    if not math.isfinite(days) or days < 0:
        raise QueryError(f"age:{text} is not a number of days (e.g. age:7 or age:7d)")
    return days


def search_mode(text: str) -> str | None:
    """`text`, `meaning` or `hybrid` (any case); None for the start of one (still being typed);
    QueryError for anything else."""
    mode = text.lower()
    if mode in MODES:
        return mode
    if any(known.startswith(mode) for known in MODES):
        return None
    raise QueryError(f"mode:{text} is not a search mode (mode:text, mode:meaning, mode:hybrid)")


def parse_query(text: str, now: float | None = None) -> tuple[str, SearchFilters]:
    """Split `words tag:x folder:y/ age:7 mode:meaning` into the search words and the filters
    (the mode with them); `age:` counts back from `now` (None: the wall clock). A filter still
    being typed (`tag:`) is left out; a value that cannot be used (`age:abc`, `mode:fast`)
    raises QueryError."""
    values: dict[str, object] = {}
    for key, value in FILTER_TOKEN.findall(text):
        if not value:
            continue
        if key == "age":
            values["max_age_days"] = age_days(value)
            if now is not None:
                values["now"] = now
        elif key == "mode":
            values["mode"] = search_mode(value)  # None while it is being typed
        elif key in ("folder", "in"):
            values["folder"] = value.strip("/")
        else:
            values[FILTER_FIELDS[key]] = value.lstrip("#")
    words = " ".join(FILTER_TOKEN.sub(" ", text).split())
    return words, SearchFilters(**values)  # type: ignore[arg-type]
