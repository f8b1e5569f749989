"""Fixtures for every test: `$XDG_CACHE_HOME` is a temporary folder, so no test writes in the real
home."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def user_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Point `$XDG_CACHE_HOME` (inherited by child processes) away from the real home."""
    folder = tmp_path_factory.mktemp("xdg-cache")
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before
