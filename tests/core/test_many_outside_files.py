"""Many files changed outside memtui are recorded with a few descriptors and bounded memory."""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

FILES = 600
SPARE_DESCRIPTORS = 96
"""Descriptors the test may open beyond those already open: well below FILES, so a walk that
kept one descriptor per file would run out."""


@pytest.fixture
def few_descriptors() -> Iterator[None]:
    """Run the test with at most SPARE_DESCRIPTORS more open files than are open now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(name) for name in os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (highest + 1 + SPARE_DESCRIPTORS, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_record_external_of_many_files_keeps_few_descriptors_open(
    tmp_path: Path, few_descriptors: None
) -> None:
    store = MemoryStore(tmp_path, actor="human:ann", settings=Settings())
    store.create("/memories/seed.md", "seed\n")
    for number in range(FILES):
        folder = tmp_path / f"d{number % 7}"
        folder.mkdir(exist_ok=True)
        (folder / f"n{number}.md").write_text(f"note {number}\n")
    relpaths = [f"d{number % 7}/n{number}.md" for number in range(FILES)]
    ids = store.record_external(relpaths)
    assert len(ids) == FILES
    events = store.history.events(command="external", limit=None)
    assert {event.path for event in events} == {f"/memories/{path}" for path in relpaths}
    assert all(event.result.endswith("was created outside memtui") for event in events)
