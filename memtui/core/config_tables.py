"""The `[budget]` and `[contradictions]` tables of `config.toml`, typed and checked.

```toml
[budget]
kind = "claude-code"        # the store's kind, when detection should not decide
always = ["MEMORY.md", "people/*.md"]   # files the agent loads whole every session (globs)
limit = 20000               # tokens loaded at the start of every session, at most

[contradictions]
older = "mark"              # keeping the newer statement marks the older superseded ("remove")
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

STORE_KINDS = ("claude-code", "letta", "memory-tool", "basic-memory")
"""The kinds of store whose loading rules memtui knows."""
OLDER_LINE_CHOICES = ("remove", "mark")


@dataclass(frozen=True)
class BudgetSettings:
    """Overrides of the loading rules a store's kind gives (None: the kind decides)."""

    kind: str | None = None
    always: tuple[str, ...] | None = None
    """Globs, relative to the store, of the files loaded whole at the start of every session."""
    limit: int | None = None
    """Estimated tokens the always-loaded part may reach."""


@dataclass(frozen=True)
class ContradictionSettings:
    """How a contradiction is resolved by keeping the newer statement."""

    older: str = "remove"
    """`remove` the older line, or `mark` it superseded."""


class TableError(ValueError):
    """A table of the config holds a value it cannot (the message names the key)."""


def _choice(where: str, value: object, choices: tuple[str, ...]) -> str:
    """`value` if it is one of `choices`, else a TableError listing them."""
    if value not in choices:
        shown = ", ".join(f'"{choice}"' for choice in choices)
        raise TableError(f"{where} must be one of {shown}, got {value!r}")
    return str(value)


def budget_settings(path: Path, value: object) -> BudgetSettings:
    """The `[budget]` table checked; raises TableError naming the bad key."""
    table = _table(path, "budget", value)
    fields: dict[str, Any] = {}
    for key, item in table.items():
        where = f'{path}: [budget] "{key}"'
        if key == "kind":
            fields["kind"] = _choice(where, item, STORE_KINDS)
        elif key == "always":
            if not isinstance(item, list) or not all(isinstance(g, str) and g for g in item):
                raise TableError(f"{where} must be a list of file globs, got {item!r}")
            fields["always"] = tuple(item)
        elif key == "limit":
            if not isinstance(item, int) or isinstance(item, bool) or item <= 0:
                raise TableError(f"{where} must be a positive number of tokens, got {item!r}")
            fields["limit"] = item
        else:
            raise TableError(f'{path}: unknown key "{key}" in [budget]')
    return BudgetSettings(**fields)


def contradiction_settings(path: Path, value: object) -> ContradictionSettings:
    """The `[contradictions]` table checked; raises TableError naming the bad key."""
    table = _table(path, "contradictions", value)
    fields: dict[str, Any] = {}
    for key, item in table.items():
        if key != "older":
            raise TableError(f'{path}: unknown key "{key}" in [contradictions]')
        fields["older"] = _choice(f'{path}: [contradictions] "older"', item, OLDER_LINE_CHOICES)
    return ContradictionSettings(**fields)


def _table(path: Path, name: str, value: object) -> Mapping[str, object]:
    """`value` if it is a table, else a TableError."""
    if not isinstance(value, dict):
        raise TableError(f'{path}: key "{name}" must be a table ([{name}])')
    return value
