"""The crash harness: SIGKILL a writing process at random moments and check what it left."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.reliability.workload import content_for, is_whole, memory_files

REPO = Path(__file__).resolve().parents[2]


@dataclass
class CrashFigures:
    """What a crash run saw, for the test's assertions and the printed figures."""

    kills: int = 0
    steps_before_kill: list[int] = field(default_factory=list)
    torn_files: list[str] = field(default_factory=list)
    temp_files_left: int = 0
    temp_files_visible: list[str] = field(default_factory=list)
    external_events: int = 0
    disagreements: list[str] = field(default_factory=list)
    second_pass_events: int = 0
    reopen_seconds: list[float] = field(default_factory=list)


def temp_files(root: Path) -> list[str]:
    """Relative paths of every `.tmp-` file in the store (outside `.memtui`)."""
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        if directory == str(root):
            dirnames[:] = [name for name in dirnames if name != ".memtui"]
        found += [
            os.path.relpath(os.path.join(directory, name), root)
            for name in filenames
            if name.startswith(".tmp-")
        ]
    return found


def disk_state(root: Path) -> dict[str, str]:
    """Virtual path -> sha256 of every visible memory file."""
    return {
        "/memories/" + relpath: hashlib.sha256((root / relpath).read_bytes()).hexdigest()
        for relpath in memory_files(root)
    }


def seed_store(root: Path) -> None:
    """A store with a few files, created through the store so the history knows them."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(root, actor="human:seed")
    for index, folder in enumerate(("alpha", "beta", "gamma", "delta")):
        result = store.create(f"/memories/{folder}/one.md", content_for(f"seed-{index}"))
        assert not result.is_error, result.content


def start_writer(root: Path, seed: int) -> subprocess.Popen[bytes]:
    """Start the workload in a child process and wait until it has opened the store."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.workload", str(root), str(seed)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    line = child.stdout.readline()
    if line != b"ready\n":
        child.kill()
        _, errors = child.communicate()
        raise AssertionError(f"writer did not start: {line!r} {errors.decode(errors='replace')}")
    return child


def listing_names(root: Path) -> str:
    """What an agent's `view /memories` shows, through the store."""
    from memtui.core.store import MemoryStore

    return MemoryStore(root, actor="agent:observer").view("/memories").content


def run_crash_rounds(
    root: Path, rounds: int, *, seed: int = 7, max_delay: float = 0.3
) -> CrashFigures:
    """Kill a writer `rounds` times at random moments; check and recover the store after each."""
    from memtui.core.recovery import recover
    from memtui.core.store import MemoryStore

    rng = random.Random(seed)
    figures = CrashFigures()
    seed_store(root)
    for round_number in range(rounds):
        child = start_writer(root, seed * 100_000 + round_number)
        time.sleep(rng.uniform(0.0, max_delay))
        child.kill()
        child.communicate()
        figures.kills += 1

        for relpath in memory_files(root):
            if not is_whole((root / relpath).read_text(encoding="utf-8", errors="replace")):
                figures.torn_files.append(relpath)
        left = temp_files(root)
        figures.temp_files_left += len(left)
        listing = listing_names(root) if left else ""
        figures.temp_files_visible += [name for name in left if os.path.basename(name) in listing]

        started = time.perf_counter()
        store = MemoryStore(root, actor="human:tester")
        recover(store)
        figures.reopen_seconds.append(time.perf_counter() - started)
        assert temp_files(root) == [], temp_files(root)
        second = recover(store)
        figures.second_pass_events += len(second.external_event_ids)
        figures.disagreements += [f"round {round_number}: {path}" for path in second.external_paths]
        figures.disagreements += history_disagreements(store, round_number)
    figures.external_events = len(MemoryStore(root).history.events(command="external"))
    return figures


def history_disagreements(store: object, round_number: int) -> list[str]:
    """Files without any event, or whose bytes differ from their own last event's after-hash."""
    from memtui.core.store import MemoryStore

    assert isinstance(store, MemoryStore)
    found: list[str] = []
    for path, digest in disk_state(store.root).items():
        parts = path.split("/")
        event = store.history.last_change("/".join(parts[:end]) for end in range(3, len(parts) + 1))
        if event is None:
            found.append(f"round {round_number}: {path} has no event")
        elif event.path == path and event.new_path is None and event.after_hash != digest:
            found.append(f"round {round_number}: {path} differs from event {event.id}")
    return found


def print_figures(figures: CrashFigures) -> None:
    """Print the crash run's figures (shown in CI's slow step)."""
    reopen = sorted(figures.reopen_seconds)
    median = reopen[len(reopen) // 2] if reopen else 0.0
    print(
        f"\ncrash safety: {figures.kills} SIGKILLs, torn files {len(figures.torn_files)}, "
        f"temp files left by kills {figures.temp_files_left} (all removed on reopen, "
        f"{len(figures.temp_files_visible)} visible), external events recorded "
        f"{figures.external_events}, history/disk disagreements {len(figures.disagreements)}, "
        f"reopen+recovery median {median * 1000:.1f} ms"
    )
