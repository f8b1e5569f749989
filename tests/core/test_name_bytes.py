"""File names that are not UTF-8 are names like any other: recorded, shown safely, restored byte
for byte."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.parsing.paths import PathRefusal, check_path
from memtui.core.recording import db_text
from memtui.core.recording.database import DB_NAME
from memtui.core.recording.history import History
from memtui.core.resolving.lock import META_DIR_NAME
from memtui.core.store import MemoryStore

LATIN1 = b"caf\xe9.md"
"""`café.md` written in Latin-1: the byte 0xe9 alone is not UTF-8."""
LATIN1_NAME = os.fsdecode(LATIN1)
BAD_DIR = b"d\xff"


def tree_bytes(root: Path) -> dict[bytes, bytes | None]:
    """Every entry below `root` but `.memtui`, by its name's bytes: a file's bytes, None for a
    folder."""
    found: dict[bytes, bytes | None] = {}
    base = bytes(root)
    for top, dirs, files in os.walk(base):
        dirs[:] = [name for name in dirs if not (top == base and name == b".memtui")]
        for name in dirs:
            found[os.path.relpath(os.path.join(top, name), base)] = None
        for name in files:
            with open(os.path.join(top, name), "rb") as handle:
                found[os.path.relpath(os.path.join(top, name), base)] = handle.read()
    return found


def open_store(root: Path, actor: str = "human:dana") -> MemoryStore:
    """A store on `root` (start-up recovery run)."""
    store = MemoryStore(root, actor=actor, settings=Settings())
    store.ensure_recovered()
    return store


@pytest.fixture
def filled(tmp_path: Path) -> Path:
    """A store whose folder `notes/` holds a Latin-1 name, a folder whose name is not UTF-8 and
    a file inside it with such a name too."""
    root = tmp_path / "store"
    notes = bytes(root) + b"/notes"
    os.makedirs(notes + b"/" + BAD_DIR)
    Path(os.fsdecode(notes + b"/" + LATIN1)).write_bytes(b"latin-1 name\n")
    Path(os.fsdecode(notes + b"/" + BAD_DIR + b"/\xfe\xfd.md")).write_bytes(b"deeper\x00\xff\n")
    Path(os.fsdecode(notes + b"/plain.md")).write_bytes(b"plain\n")
    return root


def test_an_agents_folder_delete_is_undone_byte_for_byte(filled: Path) -> None:
    before = tree_bytes(filled)
    human = open_store(filled)
    deleted = human.with_actor("agent:claude").delete("/memories/notes")
    assert (deleted.is_error, deleted.content) == (False, "Successfully deleted /memories/notes")
    assert b"notes" not in tree_bytes(filled)
    undone = human.revert(deleted.event_id or 0)
    assert (undone.is_error, undone.content) == (
        False,
        f"Reverted event {deleted.event_id} (delete /memories/notes)",
    )
    assert tree_bytes(filled) == before
    assert human.history.file_record("/memories/notes/" + LATIN1_NAME) is not None


def test_a_persons_delete_of_such_a_file_is_undone_byte_for_byte(filled: Path) -> None:
    before = tree_bytes(filled)
    store = open_store(filled)
    virtual = "/memories/notes/" + LATIN1_NAME
    deleted = store.delete(virtual)
    assert not deleted.is_error, deleted.content
    event = store.history.event(deleted.event_id or 0)
    assert event is not None and event.path == virtual
    assert os.fsencode(event.path) == b"/memories/notes/" + LATIN1
    assert store.revert(deleted.event_id or 0).is_error is False
    assert tree_bytes(filled) == before


def test_an_agents_path_with_a_lone_surrogate_is_still_refused(filled: Path) -> None:
    agent = open_store(filled).with_actor("agent:claude")
    refused = agent.delete("/memories/notes/" + LATIN1_NAME)
    assert refused.is_error
    assert refused.content == "Path /memories/notes/caf\ufffd.md is not valid Unicode"
    assert (filled / "notes" / LATIN1_NAME).exists()
    assert check_path(filled, "/memories/a\ud800", any_name=True) == PathRefusal(
        "Path /memories/a\ud800 is not valid Unicode"
    )


def test_the_baseline_lists_such_names(filled: Path) -> None:
    store = open_store(filled)
    report = store.recovery
    assert report is not None and report.unrecorded is None
    baseline = store.history.baseline()
    assert baseline is not None and baseline.after_hash is not None
    manifest = store.history.manifest(baseline.after_hash)
    assert manifest is not None
    assert sorted(os.fsencode(name) for name in manifest.files) == sorted(
        [b"notes/" + LATIN1, b"notes/" + BAD_DIR + b"/\xfe\xfd.md", b"notes/plain.md"]
    )
    store.close()
    again = open_store(filled)
    assert again.recovery is not None and again.recovery.external_event_ids == []


def test_changes_made_outside_memtui_are_external_events(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    (root / "plain.md").write_text("plain\n")
    open_store(root).close()
    target = Path(os.fsdecode(bytes(root) + b"/" + LATIN1))
    virtual = "/memories/" + LATIN1_NAME
    results = []
    for change in (
        lambda: target.write_bytes(b"one\n"),
        lambda: target.write_bytes(b"two, longer\n"),
        target.unlink,
    ):
        change()
        store = open_store(root)
        report = store.recovery
        assert report is not None and report.unrecorded is None
        (event_id,) = report.external_event_ids
        event = store.history.event(event_id)
        assert event is not None and (event.command, event.path) == ("external", virtual)
        results.append(event.result)
        store.close()
    assert results == [
        f"{virtual} was created outside memtui",
        f"{virtual} was changed outside memtui",
        f"{virtual} was deleted outside memtui",
    ]


def test_an_outside_edit_is_reverted_byte_for_byte(filled: Path) -> None:
    store = open_store(filled)
    target = Path(os.fsdecode(bytes(filled) + b"/notes/" + BAD_DIR + b"/\xfe\xfd.md"))
    target.write_bytes(b"overwritten\n")
    relpath = os.fsdecode(b"notes/" + BAD_DIR + b"/\xfe\xfd.md")
    (event_id,) = store.record_external([relpath])
    assert store.revert(event_id).is_error is False
    assert target.read_bytes() == b"deeper\x00\xff\n"


def test_history_queries_and_word_search_take_such_names(filled: Path) -> None:
    store = open_store(filled)
    store.delete("/memories/notes/" + LATIN1_NAME)
    history = store.history
    virtual = "/memories/notes/" + LATIN1_NAME
    assert [event.command for event in history.events(path=virtual, follow=True)] == [
        "delete",
        "baseline",
    ]
    assert [event.command for event in history.events(words=["caf\\xe9"])] == ["delete"]
    assert [event.command for event in history.events(words=[LATIN1_NAME.upper()])] == ["delete"]
    assert history.last_change(["/memories/notes/" + LATIN1_NAME]) is not None


def test_names_are_stored_as_their_bytes_and_utf8_text_as_before(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.create("/memories/caf\u00e9.md", "utf-8 name\n")
    Path(os.fsdecode(bytes(tmp_path) + b"/" + LATIN1)).write_bytes(b"x\n")
    store.record_external([LATIN1_NAME])
    store.close()
    raw = sqlite3.connect(tmp_path / META_DIR_NAME / DB_NAME)
    raw.text_factory = bytes
    rows = raw.execute(
        "SELECT path, typeof(path) FROM events WHERE path != '/memories' ORDER BY id"
    ).fetchall()
    raw.close()
    assert rows == [
        ("/memories/caf\u00e9.md".encode(), b"text"),
        (b"/memories/" + LATIN1, b"text"),
    ]
    assert [event.path for event in History(tmp_path).events(newest_first=False)] == [
        "/memories/caf\u00e9.md",
        "/memories/" + LATIN1_NAME,
    ]


def test_text_parameters_round_trip() -> None:
    assert db_text.param(None) is None
    assert db_text.param("plain") == "plain"
    assert db_text.param("caf\u00e9") == "caf\u00e9"
    assert db_text.param(LATIN1_NAME) == LATIN1
    assert db_text.read_text(LATIN1) == LATIN1_NAME
    assert db_text.storable("a\ud800b" + LATIN1_NAME) == "a\ufffdb" + LATIN1_NAME
    assert db_text.folded(LATIN1) == db_text.folded(LATIN1_NAME.upper()) == "caf\\xe9.md"
