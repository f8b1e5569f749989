"""Machines for sync tests: stores that are clones of one local bare repository, on a machine
where git has no user name or e-mail configured (no global or system config at all)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.sync import SyncReport, sync_store
from memtui.notes.sync.context import committer_for
from memtui.notes.sync.git import Git
from memtui.notes.sync.setup import clone_into_empty
from memtui.notes.sync.state import SyncState


@pytest.fixture(autouse=True)
def no_git_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """git sees no user config: an empty HOME, no global or system config file."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "EMAIL"):
        monkeypatch.delenv(name, raising=False)
    yield


def git(*args: str, cwd: Path | None = None, input: bytes | None = None, check: bool = True) -> str:
    """Plain git, as a person would run it (for setting up and checking)."""
    done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=check)
    return done.stdout.decode()


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository that refuses any push rewriting or deleting a branch (so a
    force push anywhere in a test fails it)."""
    path = tmp_path / "remote.git"
    git("init", "--quiet", "--bare", str(path))
    git("--git-dir", str(path), "config", "receive.denyNonFastForwards", "true")
    git("--git-dir", str(path), "config", "receive.denyDeletes", "true")
    return path


def remote_files(remote: Path, branch: str = "main") -> dict[str, str]:
    """Path -> text of every file on the remote's branch."""
    if not git("--git-dir", str(remote), "branch", "--list", branch):
        return {}
    names = git("--git-dir", str(remote), "ls-tree", "-r", "--name-only", branch).splitlines()
    return {name: git("--git-dir", str(remote), "show", f"{branch}:{name}") for name in names}


def tree_files(root: Path) -> dict[str, bytes]:
    """Relative path -> bytes of every file in a store but memtui's own folder."""
    files: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.split("/")[0] == ".memtui" or not path.is_file():
            continue
        files[relative] = path.read_bytes()
    return files


@dataclass
class Machine:
    """One machine: a store synced with the remote."""

    name: str
    root: Path
    store: MemoryStore
    remote: Path

    def sync(self, *, setup: bool = False) -> SyncReport:
        """One sync (the first one sets the remote up)."""
        return sync_store(
            self.store, remote=str(self.remote) if setup else None, machine=self.name, wait=30
        )

    def agent(self, name: str = "claude") -> MemoryStore:
        """The store as an agent."""
        return self.store.with_actor(f"agent:{name}")

    def text(self, relpath: str) -> str:
        """A note's text."""
        return (self.root / relpath).read_text()

    @property
    def state(self) -> SyncState:
        """The sync tables."""
        return SyncState(self.store.history)

    def git(self, *args: str) -> str:
        """git on the machine's repository."""
        return git("--git-dir", str(self.root / ".memtui" / "git"), *args)


@pytest.fixture
def machine(tmp_path: Path, remote: Path) -> Callable[..., Machine]:
    """Make a machine (its store, synced once to set it up unless `setup` is False)."""
    made: list[Machine] = []

    def make(name: str, *, setup: bool = True, files: dict[str, str] | None = None) -> Machine:
        root = tmp_path / name
        root.mkdir()
        for relpath, text in (files or {}).items():
            (root / relpath).parent.mkdir(parents=True, exist_ok=True)
            (root / relpath).write_text(text)
        if setup and not files:
            runner = Git.for_store(root, committer_for(name))
            clone_into_empty(runner, str(remote))
        store = MemoryStore(root, actor="human:dana", settings=Settings())
        one = Machine(name, root, store, remote)
        if setup:
            one.sync(setup=True)
        made.append(one)
        return one

    yield make  # type: ignore[misc]
    for one in made:
        one.store.close()
