"""The history cannot be filled by writing the same text again: a long text a create sends is
kept as a reference to the file it left (whose bytes the history keeps once), and rebuilt."""

from __future__ import annotations

import hashlib
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.recording.read_refs import WHOLE_TEXT_FIELD
from memtui.core.store import MemoryStore
from tests.core.test_history_caps import history_size
from tests.core.test_history_reads import KEY, MIB, agent, last_event, nine_mb_note, prepared

__all__ = ["agent", "prepared"]


def test_ten_creates_and_writes_of_a_9_mb_text_grow_the_history_by_under_1_mib(
    agent: MemoryStore,
) -> None:
    text = nine_mb_note()
    person = agent.with_actor("human:writer")
    agent.ensure_recovered()
    agent.close()
    before = history_size(agent.root)
    for number in range(5):
        assert not agent.create(f"/memories/copy-{number}.md", text).is_error
        assert not person.write(f"/memories/saved-{number}.md", text, None).is_error
    agent.close()
    growth = history_size(agent.root) - before
    assert growth < MIB, f"history grew by {growth:,} bytes"


def test_a_long_created_text_is_a_reference_rebuilt_as_sent(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:writer", settings=Settings())
    text = "a line of a long note\n" * 2000
    data = text.encode()
    assert not store.create("/memories/long.md", text).is_error
    event = last_event(store)
    assert event.args == {
        "command": "create",
        "path": "/memories/long.md",
        WHOLE_TEXT_FIELD: (
            f"[memtui: the text of the file with sha256 {hashlib.sha256(data).hexdigest()}"
            f" ({len(data)} bytes, {len(text)} characters), kept once in the history]"
        ),
    }
    assert store.history.args(event) == {
        "command": "create",
        "path": "/memories/long.md",
        WHOLE_TEXT_FIELD: text,
    }


def test_an_agents_text_is_rebuilt_redacted_as_its_arguments_are_kept(tmp_path: Path) -> None:
    agent = MemoryStore(tmp_path, actor="agent:writer", settings=Settings())
    text = "notes about the deploy\n" * 1000 + f"aws_access_key_id = {KEY}\n"
    assert not agent.create("/memories/keys.md", text).is_error
    event = last_event(agent)
    assert event.args[WHOLE_TEXT_FIELD].startswith("[memtui: the text of the file with sha256 ")
    rebuilt = agent.history.args(event)[WHOLE_TEXT_FIELD]
    assert rebuilt == text.replace(KEY, "<redacted secret:aws-access-key>")
    assert agent.history.texts(event) == (None, text)


def test_short_texts_and_refused_creates_are_kept_as_before(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path, actor="human:writer", settings=Settings())
    store.create("/memories/small.md", "one\ntwo\n")
    assert last_event(store).args[WHOLE_TEXT_FIELD] == "one\ntwo\n"
    long = "x" * 20_000
    store.create("/memories/small.md", long)
    refused = last_event(store)
    digest = hashlib.sha256(long.encode()).hexdigest()
    assert refused.is_error
    assert refused.args[WHOLE_TEXT_FIELD] == (
        f"{long[:4096]}… ({len(long)} characters in all, sha256 {digest})"
    )
    assert store.history.args(refused) == refused.args
