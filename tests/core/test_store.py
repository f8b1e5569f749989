"""MemoryStore: every call recorded with actor, session and clock; listings unchanged; outside
edits."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from memtui.core.config import Settings, load_settings
from memtui.core.store import MemoryStore


def make_store(root: Path, actor: str = "agent:claude", **kwargs: object) -> MemoryStore:
    """A store on `root` with default settings."""
    return MemoryStore(root, actor=actor, settings=Settings(actor="tester"), **kwargs)  # type: ignore[arg-type]


def sha(data: bytes) -> str:
    """sha256 hex."""
    return hashlib.sha256(data).hexdigest()


def test_every_call_is_one_event_with_its_result(tmp_path: Path) -> None:
    ticks = iter(range(100, 200))
    store = make_store(tmp_path, session="s-1", clock=lambda: float(next(ticks)))
    results = [
        store.create("/memories/a.md", "hello\n"),
        store.view("/memories/a.md"),
        store.str_replace("/memories/a.md", "hello", "bye"),
        store.insert("/memories/a.md", 0, "top"),
        store.rename("/memories/a.md", "/memories/b.md"),
        store.delete("/memories/b.md"),
        store.view("/memories/../secret"),
        store.execute({"command": "explode"}),
        store.execute("not a dict"),
    ]
    events = store.history.events(newest_first=False)
    assert [event.id for event in events] == [result.event_id for result in results]
    assert [(e.command, e.path, e.new_path, e.is_error, e.flags) for e in events] == [
        ("create", "/memories/a.md", None, False, ()),
        ("view", "/memories/a.md", None, False, ()),
        ("str_replace", "/memories/a.md", None, False, ()),
        ("insert", "/memories/a.md", None, False, ()),
        ("rename", "/memories/a.md", "/memories/b.md", False, ()),
        ("delete", "/memories/b.md", None, False, ()),
        ("view", "/memories/../secret", None, True, ("security:refused", "security:traversal")),
        ("explode", None, None, True, ()),
        ("invalid", None, None, True, ()),
    ]
    assert [e.result for e in events] == [r.content for r in results]
    assert [e.time for e in events] == [100.0 + n for n in range(9)]
    assert {(e.actor, e.session) for e in events} == {("agent:claude", "s-1")}
    assert events[0].args == {"command": "create", "path": "/memories/a.md", "file_text": "hello\n"}
    assert (events[0].before_hash, events[0].after_hash) == (None, sha(b"hello\n"))
    assert (events[2].before_hash, events[2].after_hash) == (sha(b"hello\n"), sha(b"bye\n"))
    assert events[1].before_hash is None and events[1].after_hash is None
    assert events[8].args == {"input": "'not a dict'"}
    assert results[7].content == (
        "Unknown command: explode. Expected one of: view, create, str_replace, insert, delete, "
        "rename"
    )


def test_render_view_is_the_view_output_without_an_event(tmp_path: Path) -> None:
    store = make_store(tmp_path, actor="human:ann")
    store.create("/memories/a.md", "one\ntwo\n")
    paths = ("/memories/a.md", "/memories", "/memories/missing.md", "/memories/../x")
    expected = [store.with_actor("agent:probe").view(path).content for path in paths]
    recorded = len(store.history.events())
    assert [store.render_view(path) for path in paths] == expected
    assert len(store.history.events()) == recorded
    assert store.render_view("/memories/a.md").splitlines()[1] == "     1\tone"


def test_listing_skips_memtui_folder_exactly(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.txt", "12345")
    result = store.view("/memories")
    assert (tmp_path / ".memtui" / "history.db").is_file()
    assert result.content == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden "
        "items and node_modules:\n4K\t/memories\n5B\t/memories/a.txt"
    )
    assert oct((tmp_path / ".memtui").stat().st_mode & 0o777) == "0o700"


def test_failed_command_records_error_and_no_hashes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "x\n")
    result = store.create("/memories/a.md", "y\n")
    assert (result.content, result.is_error) == ("Error: File /memories/a.md already exists", True)
    event = store.history.event(result.event_id)
    assert event is not None and event.is_error
    assert (event.before_hash, event.after_hash) == (None, None)
    assert (tmp_path / "a.md").read_bytes() == b"x\n"


def test_with_actor_shares_history_and_clock(tmp_path: Path) -> None:
    store = make_store(tmp_path, clock=lambda: 42.0)
    human = store.with_actor("human:ann", session="edit")
    assert human.history is store.history
    assert human.clock is store.clock
    result = human.create("/memories/h.md", "h")
    event = store.history.event(result.event_id)
    assert event is not None
    assert (event.actor, event.session, event.time) == ("human:ann", "edit", 42.0)
    assert store.history.last_change_actors() == {"/memories/h.md": "human:ann"}


def test_reserved_paths_refused_with_security_flag(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.view("/memories")
    result = store.delete("/memories/.memtui")
    assert result.content == "The path /memories/.memtui is reserved for memtui's history"
    event = store.history.event(result.event_id)
    assert event is not None and event.flags == ("security:refused", "security:reserved")
    assert (tmp_path / ".memtui" / "history.db").is_file()


def test_lone_surrogate_path_is_recorded_safely(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    result = store.view("/memories/\udcff.md")
    assert result.is_error is True
    event = store.history.event(result.event_id)
    assert event is not None and event.path == "/memories/\ufffd.md"


def test_record_external_change_delete_create_and_unchanged(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/same.md", "same\n")
    store.create("/memories/changed.md", "v1\n")
    store.create("/memories/gone.md", "bye\n")
    (tmp_path / "changed.md").write_bytes(b"v2\n")
    (tmp_path / "gone.md").unlink()
    (tmp_path / "new.md").write_bytes(b"new\n")

    external = store.with_actor("external")
    ids = external.record_external(["same.md", "changed.md", "gone.md", "new.md", "never.md"])

    events = [store.history.event(event_id) for event_id in ids]
    assert [(e.command, e.actor, e.path, e.result) for e in events if e] == [
        (
            "external",
            "external",
            "/memories/changed.md",
            "/memories/changed.md was changed outside memtui",
        ),
        (
            "external",
            "external",
            "/memories/gone.md",
            "/memories/gone.md was deleted outside memtui",
        ),
        ("external", "external", "/memories/new.md", "/memories/new.md was created outside memtui"),
    ]
    changed, gone, new = (e for e in events if e)
    assert (changed.before_hash, changed.after_hash) == (sha(b"v1\n"), sha(b"v2\n"))
    assert store.history.texts(changed) == ("v1\n", "v2\n")
    assert (gone.before_hash, gone.after_hash) == (sha(b"bye\n"), None)
    assert (new.before_hash, new.after_hash) == (None, sha(b"new\n"))
    assert store.record_external(["same.md", "changed.md", "gone.md", "new.md"]) == []


def test_record_external_knows_files_inside_restored_and_moved_folders(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/p/a.md", "a\n")
    moved = store.rename("/memories/p", "/memories/q")
    assert moved.is_error is False
    assert store.record_external(["q/a.md", "p/a.md"]) == []
    deleted = store.delete("/memories/q")
    assert store.record_external(["q/a.md"]) == []
    store.revert(deleted.event_id)
    assert store.record_external(["q/a.md"]) == []
    (tmp_path / "q" / "a.md").unlink()
    (event_id,) = store.record_external(["q/a.md"])
    event = store.history.event(event_id)
    assert event is not None and event.before_hash == sha(b"a\n") and event.after_hash is None


def test_settings_default_actor_from_environment(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("MEMTUI_ACTOR", "zoe")
    assert MemoryStore(tmp_path).actor == "human:zoe"
    assert MemoryStore(tmp_path, settings=load_settings()).actor == "human:zoe"
    assert MemoryStore(tmp_path, settings=Settings(actor="yan")).actor == "human:yan"
