"""The `[sync]` table of `config.toml`, typed and checked.

```toml
[sync]
every = "5m"        # sync automatically in the app and in `memtui mcp` ("off": never)
machine = "laptop"  # this machine's name in commits and pulled changes (default: host name)
```
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from memtui.core.config_tables import TableError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|hr|d)?\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400}
MIN_EVERY = 10.0
"""The shortest automatic sync interval, in seconds."""


@dataclass(frozen=True)
class SyncSettings:
    """Automatic sync and this machine's name."""

    every: float | None = None
    """Seconds between automatic syncs in the app and `memtui mcp`; None: no automatic sync."""
    machine: str | None = None
    """This machine's name in commits and pulled changes; None: the host name."""


def parse_every(where: str, value: object) -> float | None:
    """`"5m"`, `"30s"`, `"1h"`, a number of seconds, or `"off"`; raises TableError."""
    if isinstance(value, str) and value.strip().lower() in ("off", "never", "no", ""):
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (found := _DURATION.match(value)):
        seconds = float(found.group(1)) * _UNITS[(found.group(2) or "s").lower()]
    else:
        raise TableError(f'{where} must be a duration such as "5m", "30s" or "off", got {value!r}')
    if seconds < MIN_EVERY:
        raise TableError(f"{where} must be at least {MIN_EVERY:.0f} s, got {value!r}")
    return seconds


def sync_settings(path: Path, value: object) -> SyncSettings:
    """The `[sync]` table checked; raises TableError naming the bad key."""
    if not isinstance(value, dict):
        raise TableError(f'{path}: key "sync" must be a table ([sync])')
    every: float | None = None
    machine: str | None = None
    for key, item in value.items():
        where = f'{path}: [sync] "{key}"'
        if key == "every":
            every = parse_every(where, item)
        elif key == "machine":
            if not isinstance(item, str) or not item.strip() or len(item) > 100:
                raise TableError(f"{where} must be a name of 1 to 100 characters, got {item!r}")
            if any(ord(ch) < 32 or ord(ch) == 127 for ch in item):
                raise TableError(f"{where} must not hold control characters")
            machine = " ".join(item.split())
        else:
            raise TableError(f'{path}: unknown key "{key}" in [sync]')
    return SyncSettings(every, machine)
