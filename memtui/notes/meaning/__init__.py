"""Search by meaning: an optional embedding model, one vector per note section in the index, and
the fusion of meaning with text ranking. Nothing here is imported unless the extra is on."""

from __future__ import annotations

import importlib.util

TURN_ON = (
    "search by meaning is off: pip install 'memtui[meaning]' and set "
    '[search] model = "minishlab/potion-base-8M" in config.toml'
)
"""The one line that says how to turn search by meaning on."""
REQUIRED = ("numpy", "model2vec")
"""The packages of the `meaning` extra the embedder needs."""


def missing_packages() -> list[str]:
    """The packages of the `meaning` extra this Python lacks (none: it is installed)."""
    return [name for name in REQUIRED if importlib.util.find_spec(name) is None]


def off_reason(model: str | None) -> str | None:
    """Why search by meaning is off for this configured `model` (None: it can be turned on)."""
    missing = missing_packages()
    if missing or not model:
        return TURN_ON
    return None
