"""The crash harness: SIGKILL a writing process at random moments and check what it left."""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.applying.atomic import TEMP_DIR_NAME, TEMP_PREFIX
from memtui.core.resolving.lock import META_DIR_NAME
from tests.reliability.workload import content_for, is_whole, memory_files

REPO = Path(__file__).resolve().parents[2]


@dataclass
class CrashFigures:
    """What a crash run saw, for the test's assertions and the printed figures."""

    kills: int = 0
    steps_before_kill: list[int] = field(default_factory=list)
    rounds_hit: int = 0
    """Kills that left a temp file or a change the history missed, i.e. hit a write."""
    torn_files: list[str] = field(default_factory=list)
    temp_files_left: int = 0
    temp_files_planted: int = 0
    """One temp file per kill left as the killed writer would, so every listing check has one."""
    temp_files_visible: list[str] = field(default_factory=list)
    external_events: int = 0
    disagreements: list[str] = field(default_factory=list)
    second_pass_events: int = 0
    reopen_seconds: list[float] = field(default_factory=list)


def temp_files(root: Path) -> list[str]:
    """Relative paths of every temp file: in `.memtui/tmp`, and any `.tmp-` file in the store."""
    area = root / META_DIR_NAME / TEMP_DIR_NAME
    found = (
        [f"{META_DIR_NAME}/{TEMP_DIR_NAME}/{name}" for name in os.listdir(area)]
        if (area.is_dir())
        else []
    )
    for directory, dirnames, filenames in os.walk(root):
        if directory == str(root):
            dirnames[:] = [name for name in dirnames if name != META_DIR_NAME]
        found += [
            os.path.relpath(os.path.join(directory, name), root)
            for name in filenames
            if name.startswith(TEMP_PREFIX)
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
    """What `view /memories` lists as the store stands, before start-up recovery runs."""
    from memtui.core.store import MemoryStore

    store = MemoryStore(root, actor="agent:observer")
    listing = store.render_view("/memories")
    assert store._shared.recovery is None and not store._shared.recovered
    return listing


def plant_killed_temp(root: Path, pid: int) -> str:
    """Leave a half-written temp file as writer `pid`, killed mid-write, would; its relpath."""
    area = root / META_DIR_NAME / TEMP_DIR_NAME
    area.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = area / f"{TEMP_PREFIX}{pid}-{uuid.uuid4()}"
    temp.write_bytes(content_for(f"planted-{pid}").encode()[:1000])
    return os.path.relpath(temp, root)


def run_crash_rounds(
    root: Path, rounds: int, *, seed: int = 7, max_delay: float = 0.3, min_hits: int = 0
) -> CrashFigures:
    """Kill a writer `rounds` times at random moments; check and recover the store after each.

    With `min_hits`, more rounds follow (up to five times `rounds`) until that many kills have
    hit a write, so a slow machine cannot make the run test nothing.
    """
    from memtui.core.opening.recovery import recover
    from memtui.core.store import MemoryStore

    rng = random.Random(seed)
    figures = CrashFigures()
    seed_store(root)
    round_number = 0
    while round_number < rounds or (figures.rounds_hit < min_hits and round_number < 5 * rounds):
        child = start_writer(root, seed * 100_000 + round_number)
        time.sleep(rng.uniform(0.0, max_delay))
        child.kill()
        finished, _ = child.communicate()
        figures.kills += 1
        figures.steps_before_kill.append(len(finished.splitlines()))

        for relpath in memory_files(root):
            if not is_whole((root / relpath).read_text(encoding="utf-8", errors="replace")):
                figures.torn_files.append(relpath)
        left = temp_files(root)
        figures.temp_files_left += len(left)
        figures.temp_files_planted += 1
        present = sorted([*left, plant_killed_temp(root, child.pid)])
        listing = listing_names(root)
        assert sorted(temp_files(root)) == present, "the listing removed temp files"
        figures.temp_files_visible += [
            name for name in present if os.path.basename(name) in listing
        ]

        started = time.perf_counter()
        store = MemoryStore(root, actor="human:tester")
        first = store.recovery
        figures.reopen_seconds.append(time.perf_counter() - started)
        assert first is not None
        figures.rounds_hit += bool(left or first.external_event_ids)
        assert temp_files(root) == [], temp_files(root)
        second = recover(store)
        figures.second_pass_events += len(second.external_event_ids)
        figures.disagreements += [f"round {round_number}: {path}" for path in second.external_paths]
        figures.disagreements += history_disagreements(store, round_number)
        round_number += 1
    figures.external_events = len(MemoryStore(root).history.events(command="external"))
    return figures


def history_disagreements(store: object, round_number: int) -> list[str]:
    """Files whose bytes differ from the after-state of their last event or their file_state row.

    The last event may be at the file itself, at a folder above it (its after-state is the
    folder's manifest) or a rename (the after-state is at the new path).
    """
    from memtui.core.store import MemoryStore

    assert isinstance(store, MemoryStore)
    found: list[str] = []
    for path, digest in disk_state(store.root).items():
        parts = path.split("/")
        event = store.history.last_change("/".join(parts[:end]) for end in range(3, len(parts) + 1))
        problem = (
            "has no event" if event is None else after_state_problem(store, event, path, digest)
        )
        record = store.history.file_record(path)
        if problem is None and (record is None or record.sha256 != digest):
            problem = "differs from its file_state row"
        if problem is not None:
            found.append(f"round {round_number}: {path} {problem}")
    return found


def after_state_problem(store: object, event: object, path: str, digest: str) -> str | None:
    """Why `path` holding `digest` disagrees with the after-state `event` left, or None."""
    from memtui.core.recording.blobs import KIND_DIR, KIND_FILE, Manifest
    from memtui.core.recording.events import Event
    from memtui.core.store import MemoryStore

    assert isinstance(store, MemoryStore) and isinstance(event, Event)
    location = event.new_path if event.new_path is not None else event.path
    if location == path:
        if (event.after_kind, event.after_hash) != (KIND_FILE, digest):
            return f"differs from event {event.id} ({event.command})"
        return None
    if location is None or not path.startswith(location + "/"):
        return f"was moved away by event {event.id} ({event.command}) yet is there"
    if event.after_kind != KIND_DIR or event.after_hash is None:
        return f"is below {location}, which event {event.id} ({event.command}) left empty"
    manifest = store.history.blob(event.after_hash)
    if manifest is None:
        return f"has no stored manifest for event {event.id}"
    if Manifest.from_bytes(manifest).files.get(path[len(location) + 1 :]) != digest:
        return f"differs from the folder manifest of event {event.id} ({event.command})"
    return None


def print_figures(figures: CrashFigures) -> None:
    """Print the crash run's figures (shown in CI's slow step)."""
    reopen = sorted(figures.reopen_seconds)
    median = reopen[len(reopen) // 2] if reopen else 0.0
    print(
        f"\ncrash safety: {figures.kills} SIGKILLs after {sum(figures.steps_before_kill)} "
        f"finished steps ({figures.rounds_hit} kills hit a write), "
        f"torn files {len(figures.torn_files)}, "
        f"temp files left by kills {figures.temp_files_left} plus {figures.temp_files_planted} "
        f"planted as a killed writer's (all removed on reopen, "
        f"{len(figures.temp_files_visible)} shown by a view before recovery), external events "
        "recorded "
        f"{figures.external_events}, history/disk disagreements {len(figures.disagreements)}, "
        f"reopen+recovery median {median * 1000:.1f} ms"
    )
