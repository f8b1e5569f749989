"""The rename race harness: another process creates a rename's destination the moment memtui
starts on it, between its "already exists" check and its rename.

The racer is a separate process with one inotify instance (through ctypes) on the store's root
and on a control folder outside it. Before each rename the test creates an arm file in the
control folder naming the rename's trigger (the name memtui opens to read the before-state), the
name to plant and its kind. Events of one inotify instance come in order, so only an open that
follows its arm counts: the racer then plants the name with O_EXCL (a file with its own text, or
an empty folder) and reports what it planted, so every planted entry can be checked afterwards:
still there, byte for byte (a folder: the same inode, still empty).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

RACER = r"""
import ctypes, json, os, select, struct, sys, time
root, control, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
IN_OPEN, IN_CREATE, IN_ISDIR = 0x20, 0x100, 0x40000000
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_CLOEXEC)
store_watch = libc.inotify_add_watch(fd, root.encode(), IN_OPEN)
control_watch = libc.inotify_add_watch(fd, control.encode(), IN_CREATE)
if fd < 0 or store_watch < 0 or control_watch < 0:
    sys.exit("inotify: " + os.strerror(ctypes.get_errno()))
armed = {}
planted = []
opens = 0
print("ready", flush=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    if not select.select([fd], [], [], 0.05)[0]:
        continue
    data = os.read(fd, 1 << 16)
    offset = 0
    while offset < len(data):
        wd, mask, _cookie, length = struct.unpack_from("iIII", data, offset)
        name = data[offset + 16 : offset + 16 + length].rstrip(b"\0").decode()
        offset += 16 + length
        if wd == control_watch:
            if name == "stop":
                deadline = 0
                continue
            trigger, target, kind = name.split("__")
            armed = {trigger: (target, kind)}
        elif wd == store_watch and name in armed:
            opens += 1
            target, kind = armed.pop(name)
            path = os.path.join(root, target)
            try:
                if kind == "folder":
                    os.mkdir(path)
                    planted.append([target, kind, os.lstat(path).st_ino, ""])
                else:
                    text = "planted %s by %d at %d\n" % (target, os.getpid(), time.time_ns())
                    new = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    os.write(new, text.encode())
                    os.close(new)
                    planted.append([target, kind, os.lstat(path).st_ino, text])
            except FileExistsError:
                pass
print(json.dumps({"opens": opens, "planted": planted}), flush=True)
"""


@dataclass
class Planted:
    """One entry the racer created: where, a file or folder, its inode, a file's text."""

    name: str
    kind: str
    inode: int
    text: str

    def intact(self, root: Path) -> bool:
        """True if the entry is still there as planted: same inode, same text (or still empty)."""
        path = root / self.name
        try:
            info = path.lstat()
        except FileNotFoundError:
            return False
        if info.st_ino != self.inode:
            return False
        if self.kind == "folder":
            return os.listdir(path) == []
        return path.read_text() == self.text


@dataclass
class RenameFigures:
    """What one race did, per kind of rename: tried, done, refused; and what was planted."""

    tried: dict[str, int] = field(default_factory=dict)
    done: dict[str, int] = field(default_factory=dict)
    refused: dict[str, int] = field(default_factory=dict)
    planted: list[Planted] = field(default_factory=list)
    triggered: int = 0
    seconds: float = 0.0
    lost_planted: list[str] = field(default_factory=list)
    lost_own: list[str] = field(default_factory=list)
    false_successes: list[str] = field(default_factory=list)

    def count(self, kind: str, refused: bool) -> None:
        """Count one rename of `kind` and whether it was refused."""
        self.tried[kind] = self.tried.get(kind, 0) + 1
        bucket = self.refused if refused else self.done
        bucket[kind] = bucket.get(kind, 0) + 1

    def summary(self) -> str:
        """The figures on one line per kind, then the totals."""
        lines = [
            f"  {kind}: {tried} tried, {self.done.get(kind, 0)} done, "
            f"{self.refused.get(kind, 0)} refused"
            for kind, tried in self.tried.items()
        ]
        return (
            f"rename race: {self.seconds:.1f} s, {self.triggered} armed opens seen, "
            f"{len(self.planted)} destinations planted\n"
            + "\n".join(lines)
            + f"\n  lost planted entries: {len(self.lost_planted)}, lost own files: "
            f"{len(self.lost_own)}, successes recorded onto a planted path: "
            f"{len(self.false_successes)}"
        )


class Racer:
    """The racing process and its control folder."""

    def __init__(self, root: Path, control: Path, seconds: float) -> None:
        """Start the racer on `root` and wait until its watches are in place."""
        self.root = root
        self.control = control
        self.arms = 0
        control.mkdir()
        self.process = subprocess.Popen(
            [sys.executable, "-c", RACER, str(root), str(control), str(seconds)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline().strip() == "ready"

    def arm(self, trigger: str, target: str, kind: str = "file") -> None:
        """Plant `target` (a file or an empty folder) when `trigger` is next opened."""
        self.arms += 1
        (self.control / f"{trigger}__{target}__{kind}").mkdir()

    def finish(self, figures: RenameFigures) -> None:
        """Stop the racer and take its report into `figures`."""
        (self.control / "stop").mkdir()
        out, _ = self.process.communicate(timeout=30)
        report = json.loads(out.strip().splitlines()[-1])
        figures.triggered = report["opens"]
        figures.planted = [Planted(*entry) for entry in report["planted"]]

    def kill(self) -> None:
        """Stop the racer if it still runs (a failed test)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextmanager
def racing(root: Path, control: Path, seconds: float = 55.0) -> Iterator[Racer]:
    """A racer on `root` for the block (killed if the block fails)."""
    racer = Racer(root, control, seconds)
    try:
        yield racer
    finally:
        racer.kill()
