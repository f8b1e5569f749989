"""The symlink race harness: a second process swaps a store folder with a link out of the store.

While the swapper exchanges `<store>/d` (a real folder) and `<store>/l` (a symlink to a folder
outside the store) as fast as it can, every command kind runs through the core against paths
below `/memories/d`. The outside folder holds files with the same names as the store folder,
each carrying a canary text, so any read, write, create, delete or rename that follows the link
shows: in the outside folder's listing (names, bytes, mtimes), in a command's output, or in the
history (every text column and every decompressed blob).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SWAPPER = r"""
import ctypes, ctypes.util, os, sys, time
AT_FDCWD = -100
RENAME_EXCHANGE = 2
first, second, stop_file, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
a, b = first.encode(), second.encode()

def exchange_libc():
    return libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)

SYSCALLS = {"x86_64": 316, "aarch64": 276}

def exchange_syscall():
    return libc.syscall(SYSCALLS[os.uname().machine], AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)

def exchange_pairs():
    os.rename(first, first + ".swap")
    os.rename(second, first)
    os.rename(first + ".swap", second)
    return 0

exchange = None
for candidate in (exchange_libc, exchange_syscall):
    try:
        if candidate() == 0:
            exchange = candidate
            break
    except (AttributeError, KeyError):
        continue
method = "renameat2" if exchange is not None else "rename pairs"
exchange = exchange or exchange_pairs
swaps = 1 if method == "renameat2" else 0
deadline = time.monotonic() + seconds
while time.monotonic() < deadline and not os.path.exists(stop_file):
    for _ in range(200):
        if exchange() == 0:
            swaps += 1
print(method, swaps, flush=True)
"""


@dataclass
class RaceFigures:
    """What one race run did and every effect it found outside the store."""

    seconds: float = 0.0
    method: str = ""
    swaps: int = 0
    commands: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    outside_created: list[str] = field(default_factory=list)
    outside_deleted: list[str] = field(default_factory=list)
    outside_changed: list[str] = field(default_factory=list)
    canary_in_outputs: int = 0
    canary_in_history: int = 0

    @property
    def total_commands(self) -> int:
        """Every command run, all kinds."""
        return sum(self.commands.values())

    @property
    def outside_effects(self) -> int:
        """Files created, deleted or changed outside, plus outputs and history rows with
        the canary."""
        return (
            len(self.outside_created)
            + len(self.outside_deleted)
            + len(self.outside_changed)
            + self.canary_in_outputs
            + self.canary_in_history
        )

    def summary(self) -> str:
        """The figures on a few lines."""
        kinds = ", ".join(f"{name} {count}" for name, count in sorted(self.commands.items()))
        return (
            f"symlink race: {self.seconds:.0f} s, {self.swaps} swaps ({self.method}), "
            f"{self.total_commands} commands ({kinds}); outside effects: "
            f"{len(self.outside_created)} created, {len(self.outside_deleted)} deleted, "
            f"{len(self.outside_changed)} changed, canary in {self.canary_in_outputs} outputs "
            f"and {self.canary_in_history} history rows; exceptions: {len(self.exceptions)}"
        )


NAMES = ("a.md", "b.md", "keep.md")
"""Files present both in the store folder and, with canary text, in the outside folder."""


def listing(folder: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every entry below `folder`: kind, bytes (files) or link target, and mtime_ns (lstat)."""
    entries: dict[str, tuple[str, bytes, int]] = {}
    for directory, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            full = os.path.join(directory, name)
            info = os.lstat(full)
            relative = os.path.relpath(full, folder)
            if os.path.islink(full):
                entries[relative] = ("link", os.readlink(full).encode(), info.st_mtime_ns)
            elif os.path.isdir(full):
                entries[relative] = ("dir", b"", info.st_mtime_ns)
            else:
                entries[relative] = ("file", Path(full).read_bytes(), info.st_mtime_ns)
    return entries


def prepare(base: Path, canary: str) -> tuple[Path, Path]:
    """A store with folder `d` and link `l`, and the outside folder `l` points to; (root,
    outside)."""
    root = base / "store"
    outside = base / "outside"
    for folder, text in ((root / "d", "inside"), (outside, canary)):
        (folder / "sub").mkdir(parents=True)
        for name in NAMES:
            (folder / name).write_text(f"{text} {name}\nline two\n")
        (folder / "sub" / "deep.md").write_text(f"{text} deep\n")
    (root / "l").symlink_to(outside)
    return root, outside


def history_canary_rows(root: Path, canary: str) -> int:
    """Rows of history.db (text columns, or decompressed blobs) that hold the canary text."""
    database = root / ".memtui" / "history.db"
    if not database.exists():
        return 0
    conn = sqlite3.connect(database)
    try:
        hits = 0
        for row in conn.execute("SELECT actor, path, new_path, args, result FROM events"):
            hits += any(canary in (cell or "") for cell in row)
        for (data,) in conn.execute("SELECT data FROM blobs"):
            hits += canary.encode() in zlib.decompress(data)
        for (path,) in conn.execute("SELECT path FROM file_state"):
            hits += canary in path
        return hits
    finally:
        conn.close()


class CommandLoop:
    """Runs every command kind in turn through the core, counting kinds, errors and outputs."""

    def __init__(self, root: Path, canary: str, figures: RaceFigures) -> None:
        """Stores acting as an agent and as a person on `root`."""
        from memtui.core.config import Settings
        from memtui.core.store import MemoryStore

        settings = Settings()
        self.root = root
        self.canary = canary
        self.figures = figures
        self.agent = MemoryStore(root, actor="agent:racer", settings=settings)
        self.human = self.agent.with_actor("human:racer")
        self.counter = 0
        self.last_change: int | None = None
        self.steps: list[tuple[str, Callable[[], object]]] = [
            ("view file", lambda: self.agent.view("/memories/d/a.md")),
            ("view dir", lambda: self.agent.view("/memories/d")),
            ("create", self.create),
            ("str_replace", self.str_replace),
            ("insert", lambda: self.agent.insert("/memories/d/b.md", 1, "inserted")),
            ("delete file", self.delete_file),
            ("delete dir", self.delete_dir),
            ("rename file", self.rename_file),
            ("rename dir", self.rename_dir),
            ("human write", self.human_write),
            ("revert", self.revert),
            ("read", lambda: self.human.read("/memories/d/keep.md")),
            ("record_external", self.record_external),
            ("recovery", self.recovery),
        ]

    def fresh(self, stem: str) -> str:
        """A new name below `/memories/d`."""
        self.counter += 1
        return f"/memories/d/{stem}-{self.counter}"

    def create(self) -> object:
        """Create a new file below the raced folder."""
        return self.agent.create(self.fresh("new") + ".md", "created\n")

    def str_replace(self) -> object:
        """Edit a line both copies of a.md hold."""
        return self.agent.str_replace("/memories/d/a.md", "line two", "line two")

    def delete_file(self) -> object:
        """Create a file, then delete it."""
        path = self.fresh("gone") + ".md"
        self.agent.create(path, "x\n")
        return self.agent.delete(path)

    def delete_dir(self) -> object:
        """Create a folder with a file, then delete the folder."""
        path = self.fresh("folder")
        self.agent.create(path + "/f.md", "x\n")
        return self.agent.delete(path)

    def rename_file(self) -> object:
        """Move keep.md away and back."""
        target = self.fresh("moved") + ".md"
        result = self.agent.rename("/memories/d/keep.md", target)
        self.agent.rename(target, "/memories/d/keep.md")
        return result

    def rename_dir(self) -> object:
        """Move the subfolder away and back."""
        target = self.fresh("subdir")
        result = self.agent.rename("/memories/d/sub", target)
        self.agent.rename(target, "/memories/d/sub")
        return result

    def human_write(self) -> object:
        """Save b.md as a person would, at the revision just read."""
        revision = self.human.revision("/memories/d/b.md")
        return self.human.write("/memories/d/b.md", "saved by a person\n", revision)

    def revert(self) -> object:
        """Undo the newest change."""
        events = self.agent.history.events(limit=20)
        change = next((event for event in events if event.changed), None)
        if change is None:
            return None
        return self.human.revert(change.id, force=True)

    def record_external(self) -> object:
        """Log outside changes of the raced files, as the watcher does."""
        return self.agent.record_external(["d/a.md", "d/b.md", "d/sub"])

    def recovery(self) -> object:
        """Start-up recovery of a fresh store instance."""
        from memtui.core.config import Settings
        from memtui.core.store import MemoryStore

        return MemoryStore(self.root, actor="agent:racer", settings=Settings()).recovery

    def run(self, seconds: float) -> None:
        """Cycle through every step until `seconds` have passed."""
        from memtui.core.store import StoreError

        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, step in self.steps:
                self.figures.commands[name] = self.figures.commands.get(name, 0) + 1
                try:
                    result = step()
                except StoreError as error:
                    result = error
                    self.figures.errors[name] = self.figures.errors.get(name, 0) + 1
                except Exception as error:
                    self.figures.exceptions.append(f"{name}: {type(error).__name__}: {error}")
                    continue
                self.inspect(name, result)

    def inspect(self, name: str, result: object) -> None:
        """Count an error result and any canary text in what the step returned."""
        text = repr(result)
        if getattr(result, "is_error", False):
            self.figures.errors[name] = self.figures.errors.get(name, 0) + 1
        if self.canary in text:
            self.figures.canary_in_outputs += 1


def run_race(base: Path, seconds: float) -> RaceFigures:
    """Race the swapper against every command kind for `seconds`; report what leaked outside."""
    canary = f"CANARY-{uuid.uuid4().hex}"
    root, outside = prepare(base, canary)
    before = listing(outside)
    figures = RaceFigures(seconds=seconds)
    loop = CommandLoop(root, canary, figures)
    loop.agent.history  # noqa: B018 - open (and recover) before the race starts
    stop_file = base / "stop"
    swapper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SWAPPER,
            str(root / "d"),
            str(root / "l"),
            str(stop_file),
            str(seconds + 30),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        loop.run(seconds)
    finally:
        stop_file.touch()
        output, _ = swapper.communicate(timeout=60)
    method, swaps = output.split()[:-1], output.split()[-1]
    figures.method = " ".join(method)
    figures.swaps = int(swaps)
    if (root / "d").is_symlink():
        os.rename(root / "d", root / "d.swap")
        os.rename(root / "l", root / "d")
        os.rename(root / "d.swap", root / "l")
    after = listing(outside)
    figures.outside_created = sorted(set(after) - set(before))
    figures.outside_deleted = sorted(set(before) - set(after))
    figures.outside_changed = sorted(
        name for name in set(before) & set(after) if before[name] != after[name]
    )
    figures.canary_in_history = history_canary_rows(root, canary)
    return figures
