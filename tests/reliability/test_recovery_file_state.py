"""file_state: kept in step with the disk by every change, so recovery needs no history replay."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

import memtui.core.opening.recovery as recovery
from memtui.core.config import Settings
from memtui.core.opening.recovery import RecoveryReport, recover
from memtui.core.recording.database import SCHEMA_VERSION
from memtui.core.recording.file_state import FileRecord
from memtui.core.store import MemoryStore

HOUR_NS = 3600 * 1_000_000_000


def sha(data: bytes) -> str:
    """sha256 hex."""
    return hashlib.sha256(data).hexdigest()


def make_store(root: Path, actor: str = "agent:a") -> MemoryStore:
    """A store on `root` with default settings."""
    return MemoryStore(root, actor=actor, settings=Settings())


def disk(root: Path) -> dict[str, tuple[str, int, int]]:
    """Virtual path -> (sha256, size, mtime_ns) of every regular file outside `.memtui`."""
    found: dict[str, tuple[str, int, int]] = {}
    for directory, dirnames, filenames in os.walk(root):
        if directory == str(root):
            dirnames[:] = [name for name in dirnames if name != ".memtui"]
        for name in filenames:
            path = Path(directory) / name
            info = path.stat()
            virtual = "/memories/" + path.relative_to(root).as_posix()
            found[virtual] = (sha(path.read_bytes()), info.st_size, info.st_mtime_ns)
    return found


def recorded(store: MemoryStore) -> dict[str, tuple[str, int, int]]:
    """Virtual path -> (sha256, size, mtime_ns) of every file_state row."""
    return {
        path: (row.sha256, row.size, row.mtime_ns)
        for path, row in store.history.file_records().items()
    }


def start_up(root: Path) -> RecoveryReport:
    """The report of a fresh process's start-up recovery on `root`."""
    report = make_store(root).recovery
    assert report is not None
    return report


def age_files(root: Path) -> None:
    """Set every file's mtime an hour back, so its next recorded stat is trusted."""
    for virtual in disk(root):
        path = root / virtual[len("/memories/") :]
        mtime = path.stat().st_mtime_ns - HOUR_NS
        os.utime(path, ns=(mtime, mtime))


def test_file_state_agrees_with_disk_after_each_command_kind(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    human = store.with_actor("human:ann")
    steps = [
        lambda: store.create("/memories/a.md", "alpha\n"),
        lambda: store.create("/memories/f/one.md", "one\n"),
        lambda: store.create("/memories/f/sub/two.md", "two\n"),
        lambda: store.str_replace("/memories/a.md", "alpha", "beta"),
        lambda: store.insert("/memories/a.md", 0, "top"),
        lambda: store.rename("/memories/a.md", "/memories/b.md"),
        lambda: store.rename("/memories/f", "/memories/g"),
        lambda: human.write(
            "/memories/g/one.md", "written\n", human.revision("/memories/g/one.md")
        ),
        lambda: store.delete("/memories/g/sub"),
        lambda: store.delete("/memories/b.md"),
    ]
    ids: list[int | None] = []
    for step in steps:
        result = step()
        assert result.is_error is False, result.content
        ids.append(result.event_id)
        assert recorded(store) == disk(tmp_path)
    assert recorded(store) == {
        "/memories/g/one.md": (sha(b"written\n"), 8, (tmp_path / "g/one.md").stat().st_mtime_ns)
    }

    reverts = [ids[9], ids[8], ids[7], ids[6], ids[5]]  # both deletes, write, both renames
    for event_id in reverts:
        assert event_id is not None
        result = human.revert(event_id)
        assert result.is_error is False, result.content
        assert recorded(store) == disk(tmp_path)
    assert sorted(recorded(store)) == [
        "/memories/a.md",
        "/memories/f/one.md",
        "/memories/f/sub/two.md",
    ]

    (tmp_path / "f" / "one.md").write_bytes(b"outside\n")
    (tmp_path / "new.md").write_bytes(b"new\n")
    (tmp_path / "a.md").unlink()
    assert len(store.record_external(["f/one.md", "new.md", "a.md"])) == 3
    assert recorded(store) == disk(tmp_path)
    assert recovery.recover(store).external_event_ids == []


def test_failed_and_read_only_commands_leave_file_state_alone(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "a\n")
    before = store.history.file_records()
    assert store.create("/memories/a.md", "again\n").is_error
    assert store.view("/memories/a.md").is_error is False
    assert store.rename("/memories/missing.md", "/memories/x.md").is_error
    assert store.history.file_records() == before


def test_change_made_while_closed_is_found_by_stat_without_replaying_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path)
    for name in ("a", "b", "c"):
        assert not store.create(f"/memories/{name}.md", f"{name} one\n").is_error
    age_files(tmp_path)
    assert start_up(tmp_path).hashed_files == 3
    assert start_up(tmp_path).hashed_files == 0

    def no_replay(history: object) -> dict[str, str]:
        raise AssertionError("the history was replayed")

    monkeypatch.setattr(recovery, "known_files", no_replay)
    (tmp_path / "b.md").write_bytes(b"b two\n")
    (tmp_path / "d.md").write_bytes(b"d\n")

    reopened = make_store(tmp_path, actor="human:t")
    externals = reopened.history.events(command="external", newest_first=False)

    assert [(e.path, e.result, e.before_hash, e.after_hash) for e in externals] == [
        (
            "/memories/b.md",
            "/memories/b.md was changed outside memtui",
            sha(b"b one\n"),
            sha(b"b two\n"),
        ),
        ("/memories/d.md", "/memories/d.md was created outside memtui", None, sha(b"d\n")),
    ]
    assert recorded(reopened) == disk(tmp_path)


def test_recovery_hashes_only_files_whose_stat_changed(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    for number in range(20):
        store.create(f"/memories/n{number}.md", f"note {number}\n")
    age_files(tmp_path)
    start_up(tmp_path)
    touched = tmp_path / "n7.md"
    mtime = touched.stat().st_mtime_ns
    os.utime(touched, ns=(mtime + 10**9, mtime + 10**9))

    report = start_up(tmp_path)

    assert (report.hashed_files, report.external_event_ids) == (1, [])
    row = make_store(tmp_path).history.file_record("/memories/n7.md")
    assert row is not None and (row.sha256, row.mtime_ns) == (sha(b"note 7\n"), mtime + 10**9)
    assert start_up(tmp_path).hashed_files == 0


def test_same_size_rewrite_in_the_same_mtime_tick_is_still_detected(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "aaaa\n")
    path = tmp_path / "a.md"
    info = path.stat()
    path.write_bytes(b"bbbb\n")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size

    report = start_up(tmp_path)

    assert report.external_paths == ["/memories/a.md"]


def test_crash_between_write_and_record_is_found_at_reopen(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create("/memories/a.md", "recorded\n")
    age_files(tmp_path)
    recover(make_store(tmp_path))
    (tmp_path / "a.md").write_bytes(b"written, never recorded\n")

    event = make_store(tmp_path).history.events(command="external")[0]

    assert (event.path, event.before_hash, event.after_hash) == (
        "/memories/a.md",
        sha(b"recorded\n"),
        sha(b"written, never recorded\n"),
    )


def downgrade_to_schema_1(root: Path) -> None:
    """Make history.db look like one written before file_state existed."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    conn.executescript("DROP TABLE file_state; DROP TABLE meta; PRAGMA user_version = 1;")
    conn.close()


def test_old_history_without_file_state_is_migrated_once_from_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = make_store(tmp_path)
    store.create("/memories/keep.md", "keep\n")
    store.create("/memories/f/edit.md", "v1\n")
    store.create("/memories/f/gone.md", "gone\n")
    store.rename("/memories/f", "/memories/g")
    store.history.close()
    downgrade_to_schema_1(tmp_path)
    (tmp_path / "g" / "edit.md").write_bytes(b"v2\n")
    (tmp_path / "g" / "gone.md").unlink()
    replays: list[int] = []
    real_known_files = recovery.known_files

    def counted(history: object) -> dict[str, str]:
        replays.append(1)
        return real_known_files(history)  # type: ignore[arg-type]

    monkeypatch.setattr(recovery, "known_files", counted)

    reopened = make_store(tmp_path, actor="human:t")
    externals = reopened.history.events(command="external", newest_first=False)

    assert [(e.path, e.result) for e in externals] == [
        ("/memories/g/edit.md", "/memories/g/edit.md was changed outside memtui"),
        ("/memories/g/gone.md", "/memories/g/gone.md was deleted outside memtui"),
    ]
    assert recorded(reopened) == disk(tmp_path)
    conn = sqlite3.connect(tmp_path / ".memtui" / "history.db")
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    conn.close()
    assert reopened.recovery is not None and reopened.recovery.migrated is True
    again = start_up(tmp_path)
    assert (again.migrated, again.external_event_ids, len(replays)) == (False, [], 1)


def test_file_record_trusts_a_stat_only_when_taken_well_after_the_mtime() -> None:
    row = FileRecord("x" * 64, size=5, mtime_ns=10 * 10**9, checked_ns=12 * 10**9)
    assert row.matches(5, 10 * 10**9) is True
    assert row.matches(6, 10 * 10**9) is False
    assert row.matches(5, 11 * 10**9) is False
    racy = FileRecord("x" * 64, size=5, mtime_ns=10 * 10**9, checked_ns=11 * 10**9)
    assert racy.matches(5, 10 * 10**9) is False
