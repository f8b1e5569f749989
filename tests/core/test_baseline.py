"""The first open of a folder records one baseline event, not one outside change per file."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.recording.blobs import Manifest
from memtui.core.recording.inbox import changes
from memtui.core.store import MemoryStore

T0 = 1_800_000_000.0


def sha(data: bytes) -> str:
    """The sha256 hex of `data`."""
    return hashlib.sha256(data).hexdigest()


def open_store(root: Path, actor: str = "human:dana", **settings: object) -> MemoryStore:
    """A store with a fixed clock and no config file."""
    return MemoryStore(root, actor=actor, settings=Settings(**settings), clock=lambda: T0)  # type: ignore[arg-type]


def a_folder(root: Path) -> dict[str, bytes]:
    """Write a few notes in folders, as a folder memtui has never seen."""
    files = {
        "a.md": b"alpha\n",
        "projects/b.md": b"beta\nline two\n",
        "projects/deep/c.md": b"gamma\n",
        "same.md": b"alpha\n",
    }
    for relpath, data in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_bytes(data)
    return files


def test_one_baseline_event_lists_every_file_with_its_hash(tmp_path: Path) -> None:
    files = a_folder(tmp_path)
    store = open_store(tmp_path)
    history = store.history

    (baseline,) = history.events()
    assert (baseline.id, baseline.actor, baseline.command, baseline.path) == (
        1,
        "external",
        "baseline",
        "/memories",
    )
    assert baseline.result == "Baseline: 4 files were here when memtui first opened this folder"
    assert baseline.args == {"files": 4}
    assert (baseline.before_kind, baseline.after_kind) == (None, "dir")
    assert store.recovery is not None and store.recovery.baseline_event_id == 1
    manifest = history.manifest(baseline.after_hash or "")
    assert manifest == Manifest((), {path: sha(data) for path, data in sorted(files.items())}, {})
    assert {path: row.sha256 for path, row in history.file_records().items()} == {
        f"/memories/{path}": sha(data) for path, data in files.items()
    }
    for data in files.values():
        assert history.blob(sha(data)) == data
    assert changes(history) == []
    assert history.pending_review_count() == 0


def test_the_list_is_a_blob_so_the_event_row_stays_small(tmp_path: Path) -> None:
    for number in range(300):
        (tmp_path / f"note-{number:03}.md").write_text(f"note {number}\n")
    store = open_store(tmp_path)
    store.history.close()

    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    args, result, after = conn.execute("SELECT args, result, after_hash FROM events").fetchone()
    (listing,) = conn.execute("SELECT data FROM blobs WHERE hash = ?", (after,)).fetchone()
    conn.close()
    assert len(args) + len(result) < 100
    assert len(json.loads(zlib.decompress(listing))["files"]) == 300


def test_a_second_open_records_nothing_and_later_changes_are_recorded_as_today(
    tmp_path: Path,
) -> None:
    a_folder(tmp_path)
    open_store(tmp_path).history.close()
    assert open_store(tmp_path).history.count_events() == 1

    (tmp_path / "a.md").write_bytes(b"alpha, edited by hand\n")
    (tmp_path / "new.md").write_bytes(b"new\n")
    reopened = open_store(tmp_path)
    external = reopened.history.events(command="external", newest_first=False)

    assert [(e.path, e.result, e.before_hash) for e in external] == [
        ("/memories/a.md", "/memories/a.md was changed outside memtui", sha(b"alpha\n")),
        ("/memories/new.md", "/memories/new.md was created outside memtui", None),
    ]
    assert reopened.history.texts(external[0]) == ("alpha\n", "alpha, edited by hand\n")
    assert [event.id for event in changes(reopened.history)] == [3, 2]


def test_undo_of_the_first_change_after_the_baseline_restores_the_file(tmp_path: Path) -> None:
    a_folder(tmp_path)
    open_store(tmp_path).history.close()
    (tmp_path / "a.md").write_bytes(b"edited outside\n")
    person = open_store(tmp_path)
    (edit,) = person.history.events(command="external")
    agent = person.with_actor("agent:claude")
    agent_edit = agent.str_replace("/memories/projects/b.md", "beta", "BETA")

    assert not person.revert(edit.id).is_error
    assert not person.revert(agent_edit.event_id or 0).is_error

    assert (tmp_path / "a.md").read_bytes() == b"alpha\n"
    assert (tmp_path / "projects" / "b.md").read_bytes() == b"beta\nline two\n"
    assert changes(person.history) == []


def test_the_baseline_itself_cannot_be_undone(tmp_path: Path) -> None:
    a_folder(tmp_path)
    store = open_store(tmp_path)

    refused = store.revert(1)

    assert refused.is_error
    assert refused.content == (
        "Nothing to revert: event 1 is the baseline, the files that were here when memtui "
        "first opened this folder"
    )
    assert (tmp_path / "a.md").read_bytes() == b"alpha\n"


def test_an_empty_folder_has_no_baseline_and_a_file_added_later_is_an_outside_change(
    tmp_path: Path,
) -> None:
    open_store(tmp_path).history.close()
    (tmp_path / "later.md").write_text("later\n")

    (event,) = open_store(tmp_path).history.events()

    assert (event.command, event.result) == (
        "external",
        "/memories/later.md was created outside memtui",
    )


def test_a_file_over_the_maximum_size_is_listed_but_not_kept(tmp_path: Path) -> None:
    (tmp_path / "small.md").write_bytes(b"small\n")
    (tmp_path / "big.md").write_bytes(b"x" * 2048)
    store = open_store(tmp_path, max_file_size=1024)

    (baseline,) = store.history.events()

    assert baseline.flags == ("content:too-large",)
    manifest = store.history.manifest(baseline.after_hash or "")
    assert manifest is not None and manifest.files["big.md"] == sha(b"x" * 2048)
    assert store.history.blob(sha(b"x" * 2048)) is None
    assert store.history.blob(sha(b"small\n")) == b"small\n"


def test_links_fifos_and_memtuis_own_folder_are_not_listed(tmp_path: Path) -> None:
    import os

    (tmp_path / "note.md").write_text("note\n")
    (tmp_path / "link.md").symlink_to(tmp_path / "note.md")
    os.mkfifo(tmp_path / "pipe.md")
    store = open_store(tmp_path)

    (baseline,) = store.history.events()

    manifest = store.history.manifest(baseline.after_hash or "")
    assert manifest is not None and list(manifest.files) == ["note.md"]
