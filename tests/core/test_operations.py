"""Operations in the core: events that share a group are undone as one, typed result kinds, and a
lock that another process holds too long makes a change give up (nothing changed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.resolving.lock import LockBusy, MutationLock
from memtui.core.store import LockPolicy, MemoryStore


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    """A store acting as a person, with two notes, one linking to the other."""
    store = MemoryStore(tmp_path / "s", actor="human:ana", settings=Settings(actor="ana"))
    store.create("/memories/a.md", "# A\n")
    store.create("/memories/c.md", "see [[a]]\n")
    return store


def rename_with_rewrite(store: MemoryStore) -> MemoryStore:
    """Move a.md to b.md and rewrite c.md's link, as one operation; the operation's store."""
    operation = store.operation("rename", "rename /memories/a.md to /memories/b.md")
    assert not operation.rename("/memories/a.md", "/memories/b.md").is_error
    text, revision = operation.read("/memories/c.md")
    assert not operation.write("/memories/c.md", text.replace("[[a]]", "[[b]]"), revision).is_error
    return operation


def test_the_events_of_an_operation_share_its_group(store: MemoryStore) -> None:
    operation = rename_with_rewrite(store)
    history = store.history
    group = history.group(operation.group_id or 0)
    assert group is not None
    assert (group.actor, group.kind, group.summary) == (
        "human:ana",
        "rename",
        "rename /memories/a.md to /memories/b.md",
    )
    parts = history.group_events(group.id)
    assert [(e.command, e.path, e.group_id) for e in parts] == [
        ("rename", "/memories/a.md", group.id),
        ("write", "/memories/c.md", group.id),
    ]
    assert [e.group_id for e in history.events(command="create")] == [None, None]


def test_undoing_an_operation_undoes_every_part_as_a_new_operation(store: MemoryStore) -> None:
    operation = rename_with_rewrite(store)
    group_id = operation.group_id or 0
    result = store.revert_group(group_id)
    assert (result.content, result.is_error, result.kind) == (
        f"Undid operation {group_id} (rename /memories/a.md to /memories/b.md): 2 changes",
        False,
        "ok",
    )
    assert (store.root / "a.md").read_bytes() == b"# A\n"
    assert not (store.root / "b.md").exists()
    assert (store.root / "c.md").read_bytes() == b"see [[a]]\n"
    undo = store.history.event(result.event_id or 0)
    assert undo is not None and undo.group_id is not None
    undo_group = store.history.group(undo.group_id)
    assert undo_group is not None and undo_group.kind == "revert"
    assert [e.args["event_id"] for e in store.history.group_events(undo.group_id)] == [
        part.id for part in reversed(store.history.group_events(group_id))
    ]
    redo = store.revert_group(undo.group_id)
    assert not redo.is_error
    assert (store.root / "c.md").read_bytes() == b"see [[b]]\n"
    assert (store.root / "b.md").read_bytes() == b"# A\n"


def test_a_part_changed_since_is_a_conflict_and_nothing_is_undone(store: MemoryStore) -> None:
    operation = rename_with_rewrite(store)
    group_id = operation.group_id or 0
    agent = store.with_actor("agent:claude")
    assert not agent.str_replace("/memories/c.md", "[[b]]", "[[b]] and more").is_error
    result = store.revert_group(group_id)
    write = store.history.group_events(group_id)[1]
    assert result.kind == "conflict" and result.is_error
    assert result.content.startswith(
        f"Conflict: /memories/c.md changed since event {write.id} (write); it is now a file at "
        "revision "
    )
    assert result.content.endswith(
        f". Nothing of operation {group_id} (rename /memories/a.md to /memories/b.md) was undone."
    )
    assert (store.root / "b.md").exists() and not (store.root / "a.md").exists()
    assert (store.root / "c.md").read_bytes() == b"see [[b]] and more\n"
    forced = store.revert_group(group_id, force=True)
    assert not forced.is_error
    assert (store.root / "c.md").read_bytes() == b"see [[a]]\n"
    assert (store.root / "a.md").exists()


def test_an_operation_undone_twice_is_refused(store: MemoryStore) -> None:
    operation = rename_with_rewrite(store)
    group_id = operation.group_id or 0
    assert not store.revert_group(group_id).is_error
    again = store.revert_group(group_id)
    assert again.kind == "conflict" and "was already reverted by event" in again.content
    missing = store.revert_group(999)
    assert (missing.content, missing.kind) == ("There is no operation 999 to undo", "not_found")


def test_a_part_that_fails_midway_puts_back_the_parts_already_undone(store: MemoryStore) -> None:
    """The rename's destination is taken again after the check: the rewrite is undone first,
    then the move back fails, and the rewrite is redone, so the operation stays whole."""
    operation = rename_with_rewrite(store)
    group_id = operation.group_id or 0
    original = store.revert

    def revert_after_a_file_reappears(event_id: int, force: bool = False) -> object:
        event = store.history.event(event_id)
        if event is not None and event.command == "rename":
            (store.root / "a.md").write_text("someone else\n", encoding="utf-8")
        return original(event_id, force)

    part_store = store.operation
    stores: list[MemoryStore] = []

    def operation_with_patched_revert(kind: str, summary: str) -> MemoryStore:
        made = part_store(kind, summary)
        made.revert = revert_after_a_file_reappears  # type: ignore[method-assign]
        stores.append(made)
        return made

    store.operation = operation_with_patched_revert  # type: ignore[method-assign]
    result = store.revert_group(group_id)
    assert result.is_error and result.kind == "conflict"
    assert result.content.startswith(f"Cannot undo operation {group_id} (rename ")
    assert result.content.endswith("Nothing changed.")
    assert (store.root / "c.md").read_bytes() == b"see [[b]]\n"
    assert (store.root / "b.md").read_bytes() == b"# A\n"


def test_result_kinds(store: MemoryStore, tmp_path: Path) -> None:
    _text, revision = store.read("/memories/a.md")
    assert store.write("/memories/a.md", "# A2\n", revision).kind == "ok"
    stale = store.write("/memories/a.md", "# A3\n", revision)
    assert (stale.kind, stale.conflict) == ("conflict", True)
    assert store.delete("/memories/nope.md").kind == "not_found"
    assert store.view("/memories/nope.md").kind == "not_found"
    assert store.view("/memories/../etc/passwd").kind == "refused"
    assert store.write("/memories/../x.md", "x", None).kind == "refused"
    assert store.create("/memories/a.md", "again").kind == "error"
    big = MemoryStore(tmp_path / "s", actor="human:ana", settings=Settings(max_file_size=4))
    assert big.write("/memories/big.md", "more than four bytes", None).kind == "refused"
    assert store.revert(12345).kind == "not_found"


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def hold_lock(root: Path, seconds: float) -> subprocess.Popen[str]:
    """Another process holding the store's lock for `seconds` (returns once it holds it)."""
    (root / ".memtui").mkdir(exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(root / ".memtui" / "lock"), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.serial
def test_a_change_gives_up_after_the_lock_timeout_and_says_so(store: MemoryStore) -> None:
    waited: list[float] = []
    store.lock_policy = LockPolicy(0.6, waited.append)
    _text, revision = store.read("/memories/a.md")
    holder = hold_lock(store.root, 5)
    try:
        started = time.monotonic()
        result = store.write("/memories/a.md", "# changed\n", revision)
        took = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert 0.6 <= took < 3
    assert result.is_error and result.kind == "busy"
    assert result.content == (
        "Cannot write /memories/a.md: another process (an agent or another memtui) has held "
        "the store's lock for 1 s; nothing changed, try again in a moment"
    )
    assert len(waited) == 1 and waited[0] >= 0.3
    assert (store.root / "a.md").read_bytes() == b"# A\n"
    assert store.history.events(limit=1)[0].result == result.content
    assert not store.write("/memories/a.md", "# changed\n", revision).is_error


@pytest.mark.serial
def test_a_change_waits_for_the_lock_and_lands_once_it_is_free(store: MemoryStore) -> None:
    waited: list[float] = []
    store.lock_policy = LockPolicy(30, waited.append)
    holder = hold_lock(store.root, 1.5)
    try:
        result = store.rename("/memories/a.md", "/memories/z.md")
    finally:
        holder.wait()
    assert not result.is_error and (store.root / "z.md").exists()
    assert waited and waited[0] < 1.5


def test_agents_and_the_command_line_wait_without_a_limit(store: MemoryStore) -> None:
    """The default policy blocks until the lock is free, however long (no timeout)."""
    assert store.lock_policy == LockPolicy()
    holder = hold_lock(store.root, 1.0)
    try:
        started = time.monotonic()
        assert not store.with_actor("agent:x").create("/memories/n.md", "x\n").is_error
        assert time.monotonic() - started >= 0.5
    finally:
        holder.wait()


def test_the_lock_with_a_timeout_is_still_reentrant_and_thread_safe(tmp_path: Path) -> None:
    lock = MutationLock(tmp_path)
    with lock.hold(), lock.hold(timeout=0.1):
        pass
    holder = hold_lock(tmp_path, 3)
    try:
        with pytest.raises(LockBusy), lock.hold(timeout=0.2):
            pass
    finally:
        holder.kill()
        holder.wait()
    with lock.hold(timeout=1):
        assert os.path.exists(tmp_path / ".memtui" / "lock")
