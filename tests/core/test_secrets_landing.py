"""Secrets: what lands is scanned (the file around the change, new paths), and nothing recorded
keeps a secret but the file content undo needs."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

AWS_KEY = "AKIAQWERTYUIOPASDFGH"
GITHUB = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
TEXT_REFUSAL = (
    "Refused: the text looks like it contains a secret (AWS access key). "
    "Nothing was written; store a reference to where the secret is kept instead."
)


def agent(root: Path, mode: str) -> MemoryStore:
    """An agent's store with secrets set to `mode`."""
    return MemoryStore(root, actor="agent:claude", settings=Settings(secrets=mode))


def recorded_texts(root: Path) -> list[str]:
    """Every text the history holds outside blobs (args, results, paths, actors)."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    try:
        rows = conn.execute("SELECT actor, path, new_path, args, result FROM events").fetchall()
    finally:
        conn.close()
    return [cell for row in rows for cell in row if cell]


def blob_texts(root: Path) -> list[bytes]:
    """Every stored blob, decompressed."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    try:
        return [zlib.decompress(data) for (data,) in conn.execute("SELECT data FROM blobs")]
    finally:
        conn.close()


def test_a_key_built_across_two_commands_is_blocked(tmp_path: Path) -> None:
    store = agent(tmp_path, "block")
    assert not store.create("/memories/k.md", "key: AKIAQWERTYUI\n").is_error
    completed = store.str_replace("/memories/k.md", "QWERTYUI", "QWERTYUIOPASDFGH")
    assert (completed.content, completed.is_error) == (TEXT_REFUSAL, True)
    inserted = store.insert("/memories/k.md", 1, "AKIA")
    assert not inserted.is_error
    joined = store.str_replace("/memories/k.md", "\nAKIA", " AKIAOPASDFGHJKLZXCVB")
    assert (joined.content, joined.is_error) == (TEXT_REFUSAL, True)
    assert (tmp_path / "k.md").read_text() == "key: AKIAQWERTYUI\nAKIA\n"
    event = store.history.event(completed.event_id or 0)
    assert event is not None and event.flags == ("secret:aws-access-key",)


def test_an_old_secret_elsewhere_in_the_file_does_not_block_an_edit(tmp_path: Path) -> None:
    (tmp_path / "k.md").write_text(f"{AWS_KEY}\n" + "filler\n" * 2000 + "last line\n")
    store = agent(tmp_path, "block")
    result = store.str_replace("/memories/k.md", "last line", "edited line")
    assert not result.is_error, result.content


@pytest.mark.parametrize(
    ("call", "label"),
    [
        (lambda s: s.create(f"/memories/{GITHUB}.md", "x\n"), "GitHub token"),
        (lambda s: s.rename("/memories/a.md", f"/memories/{AWS_KEY}.md"), "AWS access key"),
        (lambda s: s.rename("/memories/d", f"/memories/{AWS_KEY}"), "AWS access key"),
    ],
    ids=["create path", "rename destination", "folder rename"],
)
def test_a_secret_in_a_new_path_is_blocked_and_not_recorded(
    tmp_path: Path, call: object, label: str
) -> None:
    store = agent(tmp_path, "block")
    store.create("/memories/a.md", "a\n")
    store.create("/memories/d/x.md", "x\n")
    result = call(store)  # type: ignore[operator]
    assert (result.content, result.is_error) == (
        f"Refused: the path looks like it contains a secret ({label} in the path). "
        "Nothing was written; choose a name without it.",
        True,
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == [".memtui", "a.md", "d"]
    for text in recorded_texts(tmp_path):
        assert AWS_KEY not in text and GITHUB not in text


def test_warn_mode_redacts_every_recorded_argument_and_result(tmp_path: Path) -> None:
    store = agent(tmp_path, "warn")
    store.create("/memories/k.md", "one\ntwo\nthree\n")
    edited = store.str_replace("/memories/k.md", "two", f"key {AWS_KEY}")
    assert not edited.is_error and AWS_KEY in edited.content
    viewed = store.view("/memories/k.md")
    assert AWS_KEY in viewed.content
    removed = store.str_replace("/memories/k.md", f"key {AWS_KEY}", "two")
    assert not removed.is_error
    missing = store.str_replace("/memories/k.md", f"key {AWS_KEY}", "two")
    assert missing.is_error and AWS_KEY in missing.content
    for text in recorded_texts(tmp_path):
        assert AWS_KEY not in text, text
    events = store.history.events(newest_first=False)
    assert events[1].result == (
        "The memory file has been edited. Here is the snippet showing the change (with line "
        "numbers):\n     1\tone\n     2\tkey <redacted secret:aws-access-key>\n     3\tthree\n"
        "     4\t"
    )
    assert events[3].args["old_str"] == "key <redacted secret:aws-access-key>"
    assert events[1].flags == ("secret:aws-access-key",)
    assert any(AWS_KEY.encode() in blob for blob in blob_texts(tmp_path))
    human = store.with_actor("human:ann")
    assert not human.revert(removed.event_id or 0).is_error
    assert AWS_KEY in (tmp_path / "k.md").read_text()


def test_a_secret_named_file_created_in_warn_mode_keeps_its_name_for_undo(tmp_path: Path) -> None:
    store = agent(tmp_path, "warn")
    created = store.create(f"/memories/{GITHUB}.md", "x\n")
    assert not created.is_error
    event = store.history.event(created.event_id or 0)
    assert event is not None
    assert event.path == f"/memories/{GITHUB}.md"
    assert event.args["path"] == "/memories/<redacted secret:github-token>.md"
    assert event.flags == ("secret:github-token",)
    assert not store.with_actor("human:ann").revert(created.event_id or 0).is_error
    assert not (tmp_path / f"{GITHUB}.md").exists()


PATH_REFUSAL = (
    "Refused: the path looks like it contains a secret (AWS access key in the path). "
    "Nothing was written; choose a name without it."
)


@pytest.mark.parametrize(
    "name",
    [f"{AWS_KEY}.json", "QUtJQVFXRVJUWVVJT1BBU0RGR0g.md", "AKIA\u200bQWERTYUIOPASDFGH.md"],
    ids=["plain", "base64", "zero-width"],
)
def test_an_agent_write_that_creates_a_secret_named_file_is_blocked(
    tmp_path: Path, name: str
) -> None:
    store = agent(tmp_path, "block")
    result = store.write(f"/memories/ns/{name}", "{}\n", None)
    assert (result.content, result.is_error) == (PATH_REFUSAL, True)
    assert sorted(path.name for path in tmp_path.iterdir()) == [".memtui"]
    event = store.history.event(result.event_id or 0)
    assert event is not None and event.flags == ("secret:aws-access-key",)
    assert event.path == "/memories/ns/<redacted secret:aws-access-key>." + name.split(".")[-1]
    for text in recorded_texts(tmp_path):
        assert AWS_KEY not in text and "QWERTYUIOPASDFGH" not in text


def test_an_agent_write_that_creates_a_secret_named_file_is_flagged_in_warn_mode(
    tmp_path: Path,
) -> None:
    store = agent(tmp_path, "warn")
    result = store.write(f"/memories/{AWS_KEY}.md", "plain\n", None)
    assert (result.content, result.is_error) == (f"Saved /memories/{AWS_KEY}.md", False)
    event = store.history.event(result.event_id or 0)
    assert event is not None and event.flags == ("secret:aws-access-key",)
    assert event.path == f"/memories/{AWS_KEY}.md"


def test_an_agent_write_over_an_existing_file_is_not_judged_by_its_name(tmp_path: Path) -> None:
    (tmp_path / f"{AWS_KEY}.md").write_text("old\n")
    store = agent(tmp_path, "block")
    path = f"/memories/{AWS_KEY}.md"
    result = store.write(path, "new\n", store.revision(path))
    assert (result.content, result.is_error) == (f"Saved {path}", False)
    event = store.history.event(result.event_id or 0)
    assert event is not None and event.flags == ()
