"""Benchmark `memtui sync` against the plain git commands doing the same on a twin clone.

Usage: python benchmarks/sync_bench.py [--sizes 1000,5000] [--runs 7] [--profile]

For each size, a store of N notes (about 1 KB each, in 100 folders) is pushed to a local bare
repository; a second memtui store ("the peer") is its clone. A twin of both is made with plain
git: the same notes committed by `git add -A && git commit` to a second bare repository, with two
plain clones. Then, `--runs` times, in the same run, each side syncs one changed file:

- memtui: an agent edits one note through the store, the peer changes another note and syncs,
  then `sync_store` runs (in-process, as the app and `memtui mcp` run it: the store already
  open); also `memtui sync PATH` as a fresh process (Python start-up and the store's start-up
  recovery included; memtui's modules compiled to bytecode first, as an installed package
  has them).
- plain git: the same edit written to the file, the peer's change pushed, then `git add -A`,
  `git commit`, `git pull --no-rebase`, `git push` (four processes).

Each sync merges the peer's change and pushes the merge. It prints the medians and the ratios;
the goal is memtui at most 2x plain git. A final line compares the medians at the sizes given,
to show the sync's work grows with the store as git's own does (git's status walk), no more.
"""

from __future__ import annotations

import argparse
import compileall
import cProfile
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.sync import sync_store
from memtui.notes.sync.context import committer_for
from memtui.notes.sync.git import Git
from memtui.notes.sync.setup import clone_into_empty

MEMTUI = str(Path(sys.executable).with_name("memtui"))
IDENTITY = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
SETTLE_SECONDS = 2.1
"""Pause after writing the notes, so they are older than the racy windows of git and memtui."""


def git(*args: str, cwd: Path | None = None) -> None:
    """Plain git, quietly."""
    subprocess.run(["git", *IDENTITY, *args], cwd=cwd, check=True, capture_output=True)


def write_notes(root: Path, count: int) -> None:
    """`count` notes of about 1 KB in 100 folders."""
    for number in range(count):
        folder = root / f"folder{number % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{number}.md").write_text(
            "".join(f"- [fact] note {number} line {line}\n" for line in range(30)),
            encoding="utf-8",
        )


def note(number: int, count: int) -> str:
    """The relative path of note `number` (modulo `count`)."""
    number %= count
    return f"folder{number % 100}/note{number}.md"


def memtui_pair(base: Path, count: int) -> tuple[MemoryStore, MemoryStore]:
    """A memtui store with `count` notes pushed to a bare repository, and its clone."""
    remote = base / "memtui-remote.git"
    git("init", "--quiet", "--bare", str(remote))
    root = base / "memtui-a"
    write_notes(root, count)
    time.sleep(SETTLE_SECONDS)
    store = MemoryStore(root, actor="human:bench", settings=Settings())
    sync_store(store, remote=str(remote), machine="a")
    peer_root = base / "memtui-b"
    clone_into_empty(Git.for_store(peer_root, committer_for("b")), str(remote))
    peer = MemoryStore(peer_root, actor="human:bench", settings=Settings())
    sync_store(peer, machine="b")
    return store, peer


def git_pair(base: Path, count: int) -> tuple[Path, Path]:
    """Two plain clones of a bare repository holding `count` notes."""
    remote = base / "git-remote.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    one = base / "git-a"
    git("clone", "--quiet", str(remote), str(one))
    write_notes(one, count)
    git("add", "-A", cwd=one)
    git("commit", "--quiet", "-m", "notes", cwd=one)
    git("push", "--quiet", "origin", "HEAD:main", cwd=one)
    two = base / "git-b"
    git("clone", "--quiet", str(remote), str(two))
    time.sleep(SETTLE_SECONDS)
    git("status", "--porcelain", cwd=one)
    git("status", "--porcelain", cwd=two)
    return one, two


def timed(action: object) -> float:
    """Seconds `action()` takes."""
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - started


def memtui_round(store: MemoryStore, peer: MemoryStore, run: int, count: int) -> float:
    """The peer changes a note and syncs; an agent changes another here; the sync's time."""
    peer.with_actor("agent:peer").insert(
        f"/memories/{note(run * 7 + 1, count)}", 1, f"- [peer] run {run}"
    )
    sync_store(peer, machine="b")
    store.with_actor("agent:bench").insert(
        f"/memories/{note(run * 7 + 2, count)}", 1, f"- [bench] run {run}"
    )
    return timed(lambda: sync_store(store, machine="a"))


def memtui_cli_round(store: MemoryStore, peer: MemoryStore, run: int, count: int) -> float:
    """As `memtui_round`, the sync run as `memtui sync PATH` in a fresh process."""
    peer.with_actor("agent:peer").insert(
        f"/memories/{note(run * 7 + 3, count)}", 1, f"- [peer cli] run {run}"
    )
    sync_store(peer, machine="b")
    store.with_actor("agent:bench").insert(
        f"/memories/{note(run * 7 + 4, count)}", 1, f"- [bench cli] run {run}"
    )
    command = [MEMTUI, "sync", str(store.root), "--machine", "a"]
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    return timed(lambda: subprocess.run(command, check=True, capture_output=True, env=env))


def git_round(one: Path, two: Path, run: int, count: int) -> float:
    """The twin peer changes a note and pushes; the same edit here; add, commit, pull, push."""
    peer_note = two / note(run * 7 + 1, count)
    peer_note.write_text(f"- [peer] run {run}\n" + peer_note.read_text())
    git("commit", "--quiet", "-am", "peer", cwd=two)
    git("pull", "--quiet", "--no-rebase", cwd=two)
    git("push", "--quiet", cwd=two)
    changed = one / note(run * 7 + 2, count)
    changed.write_text(f"- [bench] run {run}\n" + changed.read_text())

    def plain() -> None:
        git("add", "-A", cwd=one)
        git("commit", "--quiet", "-m", "change", cwd=one)
        git("pull", "--quiet", "--no-rebase", cwd=one)
        git("push", "--quiet", cwd=one)

    return timed(plain)


def bench(count: int, runs: int, profile: bool) -> dict[str, float]:
    """Medians of each way of syncing one changed file, at `count` notes."""
    base = Path(tempfile.mkdtemp(prefix=f"memtui-sync-bench-{count}-"))
    try:
        store, peer = memtui_pair(base, count)
        one, two = git_pair(base, count)
        memtui_round(store, peer, 0, count)
        git_round(one, two, 0, count)
        times: dict[str, list[float]] = {"memtui": [], "memtui CLI": [], "plain git": []}
        profiler = cProfile.Profile() if profile else None
        for run in range(1, runs + 1):
            times["plain git"].append(git_round(one, two, run, count))
            if profiler is not None:
                profiler.enable()
            times["memtui"].append(memtui_round(store, peer, run, count))
            if profiler is not None:
                profiler.disable()
            times["memtui CLI"].append(memtui_cli_round(store, peer, run, count))
        if profiler is not None:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        store.close()
        peer.close()
        return {name: statistics.median(values) for name, values in times.items()}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def granularity(events: int = 500, every: int = 50) -> None:
    """What one commit per history event would cost against one per sync: an agent appends
    `events` observations to one note, a sync every `every` events."""
    from memtui.notes.sync.git import Identity
    from memtui.notes.sync.repo import NewCommit, fast_import

    text = "".join(
        f"- [fact] line {n} of a note that agents keep appending to\n" for n in range(16)
    )
    states = []
    for n in range(events):
        text += f"- [obs] observation {n}: the agent noticed something worth keeping\n"
        states.append(text.encode())
    for label, kept in (("per event", states), ("per sync", states[every - 1 :: every])):
        base = Path(tempfile.mkdtemp(prefix="memtui-granularity-"))
        try:
            runner = Git(base, base / ".git")
            runner.run("init", "--quiet")
            commits = [
                NewCommit(
                    author=Identity("agent:bench", "bench@example.com"),
                    when=1_700_000_000 + n,
                    message=f"change {n}\n",
                    parents=[f":{n}"] if n else [],
                    files={"log.md": data},
                )
                for n, data in enumerate(kept)
            ]
            started = time.perf_counter()
            fast_import(runner, commits, "refs/heads/main")
            seconds = time.perf_counter() - started
            loose = _size(base / ".git" / "objects")
            runner.run("gc", "--quiet", "--aggressive")
            packed = _size(base / ".git" / "objects")
            print(
                f"  {label:9} {len(kept):4} commits: written in {seconds * 1000:6.1f} ms, "
                f"objects {loose / 1024:7.0f} KiB as written, {packed / 1024:5.0f} KiB after gc"
            )
        finally:
            shutil.rmtree(base, ignore_errors=True)


def _size(folder: Path) -> int:
    """Bytes of every file below `folder`."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main() -> None:
    """Run the benchmark for each size and print the medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="profile the in-process syncs")
    parser.add_argument(
        "--granularity", action="store_true", help="only compare commits per event and per sync"
    )
    args = parser.parse_args()
    import memtui

    compileall.compile_dir(Path(memtui.__file__).parent, quiet=1)
    print("500 appends to one note, one commit per history event or per sync (every 50):")
    granularity()
    if args.granularity:
        return
    results: dict[int, dict[str, float]] = {}
    for count in (int(size) for size in args.sizes.split(",")):
        medians = bench(count, args.runs, args.profile)
        results[count] = medians
        plain = medians["plain git"]
        print(f"{count:,} notes, median of {args.runs} syncs of one changed file (and a merge):")
        for name, seconds in medians.items():
            print(f"  {name:11} {seconds * 1000:8.1f} ms  {seconds / plain:5.2f}x plain git")
    if len(results) > 1:
        small, large = min(results), max(results)
        for name in ("memtui", "plain git"):
            growth = results[large][name] / results[small][name]
            print(f"{name}: {large:,} notes take {growth:.2f}x the time of {small:,}")


if __name__ == "__main__":
    main()
