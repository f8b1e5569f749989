"""Fixtures for every test: `$XDG_CACHE_HOME` is a temporary folder, so no test writes in the real
home; the store watchers a test starts are recorded (see tests/tui/settle.py); tests marked
`serial` share one xdist group, so they never run beside each other."""

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


@pytest.fixture(autouse=True)
def watchers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Record the store watchers a test starts, so `wait_idle` waits until an app's is set up."""
    from tests.tui.settle import record_watchers

    record_watchers(monkeypatch)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every `serial` test in one xdist group: with `--dist loadgroup` (the default options)
    one worker runs them one after another, so no two wall-clock budgets share the machine."""
    for item in items:
        if item.get_closest_marker("serial") is not None:
            item.add_marker(pytest.mark.xdist_group("serial"))
