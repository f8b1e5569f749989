"""The history cannot be filled by reading: a long view is kept as a reference to the bytes it
showed, and the text it showed is rebuilt from them."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.recording.events import Event
from memtui.core.store import MemoryStore
from tests.core.test_history_caps import history_size

MIB = 1024 * 1024
KEY = "AKIAIOSFODNN7EXAMPLE"
"""An AWS access key id (the scanner's own example), so recorded text is redacted."""


def nine_mb_note() -> str:
    """A 9 MiB note of numbered lines."""
    text = "\n".join(f"line {number:06d}: " + "memory " * 9 for number in range(1, 140_000))
    return text[: 9 * MIB - 1] + "\n"


NOTE_LINES = nine_mb_note().count("\n") + 1
"""The lines `view` shows of the note (the last one empty)."""


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store where an agent created the 9 MiB note (made once, copied for each test)."""
    root = tmp_path_factory.mktemp("prepared") / "store"
    store = MemoryStore(root, actor="agent:reader", settings=Settings())
    assert not store.create("/memories/big.md", nine_mb_note()).is_error
    store.close()
    return root


@pytest.fixture
def agent(prepared: Path, tmp_path: Path) -> MemoryStore:
    """An agent's store holding the 9 MiB note."""
    root = tmp_path / "store"
    shutil.copytree(prepared, root)
    return MemoryStore(root, actor="agent:reader", settings=Settings())


def last_event(store: MemoryStore) -> Event:
    """The newest event of the store's history."""
    return store.history.events(limit=1)[0]


def test_ten_views_of_a_9_mb_note_grow_the_history_by_under_1_mib(agent: MemoryStore) -> None:
    agent.ensure_recovered()
    agent.close()
    before = history_size(agent.root)
    for number in range(10):
        view_range = None if number % 2 else [100, 120_000]
        shown = agent.view("/memories/big.md", view_range)
        assert not shown.is_error and len(shown.content) > 8 * MIB
    agent.close()
    growth = history_size(agent.root) - before
    assert growth < MIB, f"history grew by {growth:,} bytes"


def test_the_text_a_long_view_showed_is_rebuilt_from_the_history(agent: MemoryStore) -> None:
    data = (agent.root / "big.md").read_bytes()
    for view_range, first, last in ((None, 1, NOTE_LINES), ([100, 120_000], 100, 120_000)):
        shown = agent.view("/memories/big.md", view_range)
        event = last_event(agent)
        assert event.result == (
            "Here's the content of /memories/big.md with line numbers:\n"
            f"[memtui: lines {first}-{last} of the file with sha256 "
            f"{hashlib.sha256(data).hexdigest()} ({len(data)} bytes, "
            f"{len(shown.content)} characters shown), kept once in the history]"
        )
        assert agent.history.texts(event) == (None, shown.content)


def test_the_bytes_a_view_read_are_kept_and_shown_redacted_even_if_never_seen_before(
    tmp_path: Path,
) -> None:
    store = MemoryStore(tmp_path, actor="agent:reader", settings=Settings())
    store.ensure_recovered()
    text = "written behind memtui's back\n" * 2000 + f"aws_access_key_id = {KEY}\n"
    (tmp_path / "outside.md").write_text(text)
    shown = store.view("/memories/outside.md")
    assert KEY in shown.content
    os.unlink(tmp_path / "outside.md")
    _before, rebuilt = store.history.texts(last_event(store))
    assert rebuilt == shown.content.replace(KEY, "<redacted secret:aws-access-key>")


def test_short_results_are_kept_whole_and_long_listings_are_cut(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="agent:reader", settings=Settings())
    store.create("/memories/small.md", "one\ntwo\n")
    small = store.view("/memories/small.md")
    assert last_event(store).result == small.content
    assert store.history.texts(last_event(store)) == (None, None)
    for number in range(400):
        (tmp_path / f"a-rather-long-file-name-for-the-listing-{number:04d}.md").write_text("x")
    listing = store.view("/memories")
    assert len(listing.content) > 16_384
    digest = hashlib.sha256(listing.content.encode()).hexdigest()
    assert last_event(store).result == (
        f"{listing.content[:16_384]}… ({len(listing.content)} characters in all, sha256 {digest})"
    )


def test_log_json_shows_the_reference(agent: MemoryStore) -> None:
    agent.view("/memories/big.md")
    event_id = last_event(agent).id
    agent.close()
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    memtui = str(Path(sys.executable).with_name("memtui"))
    done = subprocess.run(
        [memtui, "log", str(agent.root), "--json", "--limit", "1"],
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    record = json.loads(done.stdout)
    assert record["id"] == event_id
    assert record["result"].splitlines()[1].startswith(f"[memtui: lines 1-{NOTE_LINES} of the file")
