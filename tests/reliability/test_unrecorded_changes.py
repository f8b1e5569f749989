"""A change is recorded, or it did not happen: a history that cannot be written changes nothing.

Causes: a read-only `history.db` (a read-only bind mount, since the tests run as root; chmod
otherwise), a full disk (a real 2 MiB tmpfs holding the store when one can be mounted, and an
injected `database or disk is full` at the sqlite commit, after the file was written), and an
actor name that cannot be encoded. Each gives one line, the bytes on disk stay as they were, no
event is added, and a retry once the history works applies the change exactly once.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memtui.core import store as store_module
from memtui.core.actors import ActorError
from memtui.core.applying import handlers as handlers_module
from memtui.core.config import Settings
from memtui.core.recording import history as history_module
from memtui.core.store import MemoryStore
from tests.core.conftest import snapshot_tree

MEMTUI = str(Path(sys.executable).with_name("memtui"))
READ_ONLY = "attempt to write a readonly database"
FULL = "database or disk is full"


def run_mount(*args: str) -> bool:
    """Run `mount ARGS`; True if it worked."""
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make one file read-only, for root too: a read-only bind mount (chmod 0444 if not root)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if not run_mount("--bind", str(path), str(path)):
        pytest.skip("cannot bind-mount a file read-only here")
    try:
        if not run_mount("-o", "remount,bind,ro", str(path)):
            pytest.skip("cannot remount a bind mount read-only here")
        yield
    finally:
        subprocess.run(["umount", str(path)], check=True)


def seeded(root: Path) -> tuple[list[int], dict[str, object]]:
    """A store with a note, a folder and a change to undo; (ids of its events, its tree)."""
    store = MemoryStore(root, actor="agent:t", settings=Settings())
    ids = [
        store.create("/memories/a.md", "alpha\n").event_id or 0,
        store.create("/memories/d/x.md", "x\n").event_id or 0,
        store.str_replace("/memories/a.md", "alpha", "beta").event_id or 0,
    ]
    store.close()
    return ids, snapshot_tree(root)


def event_count(root: Path) -> int:
    """How many events the history holds (read with a plain connection)."""
    conn = sqlite3.connect(root / ".memtui" / "history.db")
    try:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
    finally:
        conn.close()


CHANGES: dict[str, Callable[[MemoryStore], Any]] = {
    "create": lambda s: s.create("/memories/new.md", "new\n"),
    "str_replace": lambda s: s.str_replace("/memories/a.md", "beta", "gamma"),
    "insert": lambda s: s.insert("/memories/a.md", 0, "top"),
    "delete file": lambda s: s.delete("/memories/a.md"),
    "delete folder": lambda s: s.delete("/memories/d"),
    "rename": lambda s: s.rename("/memories/d", "/memories/e"),
    "write": lambda s: s.with_actor("human:t").write(
        "/memories/a.md", "saved\n", s.revision("/memories/a.md")
    ),
    "revert": lambda s: s.with_actor("human:t").revert(3),
}
WHAT = {
    "create": "create /memories/new.md",
    "str_replace": "edit /memories/a.md",
    "insert": "edit /memories/a.md",
    "delete file": "delete /memories/a.md",
    "delete folder": "delete /memories/d",
    "rename": "rename /memories/d",
    "write": "write /memories/a.md",
    "revert": "revert event 3",
}


@pytest.mark.parametrize("kind", list(CHANGES))
def test_a_read_only_history_refuses_every_change_and_changes_nothing(
    tmp_path: Path, kind: str
) -> None:
    ids, tree = seeded(tmp_path)
    with read_only(tmp_path / ".memtui" / "history.db"):
        store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
        result = CHANGES[kind](store)
        store.history.close()
        assert (result.content, result.is_error, result.event_id) == (
            f"Cannot {WHAT[kind]}: memtui could not record the change in its history "
            f"({READ_ONLY}); nothing changed",
            True,
            None,
        )
        assert snapshot_tree(tmp_path) == tree
    assert event_count(tmp_path) == len(ids)
    retried = CHANGES[kind](MemoryStore(tmp_path, actor="agent:t", settings=Settings()))
    assert not retried.is_error, retried.content
    assert event_count(tmp_path) == len(ids) + 1


def test_a_read_only_history_refuses_a_view_and_records_nothing(tmp_path: Path) -> None:
    ids, _tree = seeded(tmp_path)
    with read_only(tmp_path / ".memtui" / "history.db"):
        store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
        result = store.view("/memories/a.md")
        refused = store.view("/etc/passwd")
        store.history.close()
    assert (result.content, result.is_error) == (
        "Cannot view /memories/a.md: memtui could not record the call in its history "
        f"({READ_ONLY})",
        True,
    )
    assert refused.content == (
        "Path must start with /memories, got: /etc/passwd (memtui could not record this in its "
        f"history: {READ_ONLY})"
    )
    assert event_count(tmp_path) == len(ids)


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Run `memtui ARGS` without a config file."""
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    return subprocess.run([MEMTUI, *args], input=stdin, capture_output=True, env=env, timeout=60)


def test_tool_log_and_undo_on_a_read_only_history_answer_in_one_line(tmp_path: Path) -> None:
    ids, tree = seeded(tmp_path)
    with read_only(tmp_path / ".memtui" / "history.db"):
        create = b'{"command": "create", "path": "/memories/b.md", "file_text": "b"}\n'
        tool = cli("tool", str(tmp_path), stdin=create)
        log = cli("log", str(tmp_path), "--json")
        undo = cli("undo", str(tmp_path), str(ids[-1]), "--actor", "dana")
        approve = cli("approve", str(tmp_path), str(ids[-1]), "--actor", "dana")
        waiting = cli("changes", str(tmp_path), "--json")
        assert snapshot_tree(tmp_path) == tree
    assert (approve.returncode, approve.stdout) == (1, b"")
    assert approve.stderr.decode() == (
        f"memtui approve: {tmp_path}: cannot record the review ({READ_ONLY}); nothing approved\n"
    )
    assert [json.loads(line)["id"] for line in waiting.stdout.splitlines()] == ids[::-1]
    assert (tool.returncode, tool.stderr) == (0, b"")
    assert json.loads(tool.stdout) == {
        "is_error": True,
        "content": "Cannot create /memories/b.md: memtui could not record the change in its "
        f"history ({READ_ONLY}); nothing changed",
    }
    assert (log.returncode, log.stderr) == (0, b"")
    assert [json.loads(line)["id"] for line in log.stdout.splitlines()] == ids[::-1]
    assert (undo.returncode, undo.stdout) == (1, b"")
    assert undo.stderr.decode() == (
        f"memtui undo: Cannot revert event {ids[-1]}: memtui could not record the change in its "
        f"history ({READ_ONLY}); nothing changed\n"
    )
    assert event_count(tmp_path) == len(ids)


def test_a_history_on_a_read_only_filesystem_is_read_and_never_written(tmp_path: Path) -> None:
    ids, tree = seeded(tmp_path)
    with read_only(tmp_path / ".memtui"):
        log = cli("log", str(tmp_path), "--json")
        undo = cli("undo", str(tmp_path), str(ids[-1]), "--actor", "dana")
        tool = cli("tool", str(tmp_path), stdin=b'{"command": "view", "path": "/memories"}\n')
        assert snapshot_tree(tmp_path) == tree
    assert (log.returncode, log.stderr) == (0, b"")
    assert [json.loads(line)["id"] for line in log.stdout.splitlines()] == ids[::-1]
    reason = "read-only file system" if os.geteuid() == 0 else "permission denied"
    assert (undo.returncode, undo.stdout) == (1, b""), undo
    assert undo.stderr.decode() == (
        f"memtui undo: Cannot revert event {ids[-1]}: the memory folder cannot be written "
        f"({reason}); nothing changed\n"
    )
    assert (tool.returncode, tool.stderr) == (0, b""), tool
    assert json.loads(tool.stdout)["is_error"] is False


def fail_commit_once(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make the next change's commit fail as a full disk does, after the disk was changed."""
    failures: list[str] = []
    real = history_module.History._replace_event

    def replace(self: Any, conn: sqlite3.Connection, *args: Any) -> None:
        real(self, conn, *args)
        if not failures:
            failures.append(FULL)
            raise sqlite3.OperationalError(FULL)

    monkeypatch.setattr(history_module.History, "_replace_event", replace)
    return failures


@pytest.mark.parametrize("kind", list(CHANGES))
def test_a_commit_that_fails_after_the_write_puts_the_disk_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    ids, tree = seeded(tmp_path)
    store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    store.history  # noqa: B018 - recover before the failure is injected
    failures = fail_commit_once(monkeypatch)
    result = CHANGES[kind](store)
    assert failures == [FULL]
    assert (result.content, result.is_error, result.event_id) == (
        f"Cannot {WHAT[kind]}: memtui could not record the change in its history ({FULL}), "
        "so it undid it; nothing changed",
        True,
        None,
    )
    assert {k: v for k, v in snapshot_tree(tmp_path).items()} == tree
    assert event_count(tmp_path) == len(ids)
    retried = CHANGES[kind](store)
    assert not retried.is_error, retried.content
    assert event_count(tmp_path) == len(ids) + 1
    assert (
        MemoryStore(tmp_path, actor="agent:t", settings=Settings()).recovery.external_event_ids
        == []
    )  # type: ignore[union-attr]


def test_a_change_that_cannot_be_undone_either_says_so_and_is_recorded_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(tmp_path)
    store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    store.history  # noqa: B018 - recover before the failures are injected
    fail_commit_once(monkeypatch)

    def cannot_undo(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(handlers_module, "undo_command", cannot_undo)
    result = store.str_replace("/memories/a.md", "beta", "gamma")
    assert (result.content, result.is_error) == (
        f"Cannot edit /memories/a.md: memtui could not record the change in its history ({FULL}) "
        "nor undo it ([Errno 28] No space left on device); the change stays on disk and will be "
        "recorded as an outside change",
        True,
    )
    assert (tmp_path / "a.md").read_text() == "gamma\n"
    report = MemoryStore(tmp_path, actor="agent:t", settings=Settings()).recovery
    assert report is not None and report.external_paths == ["/memories/a.md"]


@contextmanager
def small_disk(folder: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs mounted at `folder` (skipped where tmpfs cannot be mounted)."""
    folder.mkdir()
    if not run_mount("-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)):
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)]).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fill the filesystem of `folder` to the last byte; the filler file."""
    filler = folder / ".filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            try:
                while os.write(fd, b"\0" * size):
                    pass
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler


def test_a_full_disk_refuses_changes_in_one_line_and_a_retry_applies_once(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        root = disk / "store"
        ids, _tree = seeded(root)
        store = MemoryStore(root, actor="agent:t", settings=Settings())
        store.history  # noqa: B018 - a server already running when the disk fills up
        filler = fill(disk)
        tree = snapshot_tree(root)
        results = [
            store.create("/memories/new.md", "new\n" * 1000),
            store.str_replace("/memories/a.md", "beta", "gamma" * 1000),
        ]
        for result in results:
            print(result.content)
            assert result.is_error and result.event_id is None, result.content
            assert "\n" not in result.content and "Traceback" not in result.content
            assert f"({FULL})" in result.content and result.content.endswith("nothing changed")
        assert snapshot_tree(root) == tree
        store.close()
        filler.unlink()
        assert event_count(root) == len(ids)
        again = MemoryStore(root, actor="agent:t", settings=Settings())
        assert not again.str_replace("/memories/a.md", "beta", "gamma").is_error
        again.close()
        assert (root / "a.md").read_text() == "gamma\n"
        assert event_count(root) == len(ids) + 1


@pytest.mark.parametrize("actor", ["agent:bot\udcff", "agent:bot\x1b]0;x\x07", "human:\udcff"])
def test_an_actor_that_cannot_be_encoded_is_refused_before_anything(
    tmp_path: Path, actor: str
) -> None:
    with pytest.raises(ActorError, match="holds control characters or bytes that are not UTF-8"):
        MemoryStore(tmp_path / "store", actor=actor, settings=Settings())
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("kind", ["create", "str_replace", "insert"])
def test_a_change_whose_new_state_cannot_be_read_is_put_back_and_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    ids, tree = seeded(tmp_path)
    store = MemoryStore(tmp_path, actor="agent:t", settings=Settings())
    store.history  # noqa: B018 - recover before the failure is injected
    real_capture, real_run = store_module.capture, handlers_module.run_plan
    written: list[str] = []

    def run_and_note(*args: Any) -> Any:
        written.append(kind)
        return real_run(*args)

    def capture_failing_after_the_write(*args: Any) -> Any:
        if written:
            raise PermissionError(13, "Permission denied")
        return real_capture(*args)

    monkeypatch.setattr(handlers_module, "run_plan", run_and_note)
    monkeypatch.setattr(store_module, "capture", capture_failing_after_the_write)
    with pytest.raises(PermissionError):
        CHANGES[kind](store)
    assert written == [kind]
    assert snapshot_tree(tmp_path) == tree
    assert event_count(tmp_path) == len(ids)
