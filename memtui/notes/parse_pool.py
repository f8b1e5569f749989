"""Reading and parsing many files in helper processes (`python -m memtui.notes.parse_pool ROOT`)
while this one writes the index: a first index of a large store uses every core.

The helpers get lines of JSON (a list of paths) on stdin and answer each with a line of JSON
(the records, in order); nothing but plain JSON values crosses the pipes.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from memtui.notes.reading import read_store_head
from memtui.notes.records import FileRecord, build_record, decode_record, encode_record

POOL_MIN_FILES = 2000
"""Fewer files are read in this process: starting helpers costs a few tenths of a second."""
CHUNK_FILES = 64
MAX_HELPERS = 4

Outcome = tuple[FileRecord | None, int, str | None]
"""A file's record (None when it could not be read), its bytes read, and the problem if any."""


def helpers_for(count: int) -> int:
    """How many helper processes to use for `count` files (0: read them here)."""
    cores = os.cpu_count() or 1
    if count < POOL_MIN_FILES or cores < 2:
        return 0
    return min(MAX_HELPERS, cores)


def read_record(root: Path, relpath: str) -> Outcome:
    """Read and build one file's record."""
    try:
        head = read_store_head(root, relpath)
    except OSError as error:
        return None, 0, f"{relpath}: cannot read ({error.strerror or error})"
    return build_record(relpath, head), len(head.data), None


def pooled_records(root: Path, relpaths: Sequence[str], helpers: int) -> Iterator[Outcome]:
    """Each file's outcome in order, read and built by `helpers` processes; a helper that fails
    leaves its files to this process.

    A thread takes the helpers' answers off their pipes as they come (up to `AHEAD_CHUNKS`
    chunks ahead), so the helpers go on while this process writes the index.
    """
    chunks = [list(relpaths[i : i + CHUNK_FILES]) for i in range(0, len(relpaths), CHUNK_FILES)]
    procs = [_start(root) for _ in range(helpers)]
    feeders = [
        threading.Thread(target=_feed, args=(proc, chunks[n::helpers]), daemon=True)
        for n, proc in enumerate(procs)
    ]
    answers: queue.Queue[list[Outcome] | None] = queue.Queue(AHEAD_CHUNKS)
    stop = threading.Event()
    reader = threading.Thread(
        target=_collect, args=(procs, [len(chunk) for chunk in chunks], answers, stop), daemon=True
    )
    for thread in (*feeders, reader):
        thread.start()
    try:
        for chunk in chunks:
            answer = answers.get()
            if answer is None:
                yield from (read_record(root, relpath) for relpath in chunk)
            else:
                yield from answer
    finally:
        stop.set()
        for proc in procs:
            proc.kill()
            proc.wait()
        reader.join()


AHEAD_CHUNKS = 64
"""Chunks of answers taken off the helpers' pipes before this process uses them."""


def _collect(
    procs: list[subprocess.Popen[bytes]],
    sizes: list[int],
    answers: queue.Queue[list[Outcome] | None],
    stop: threading.Event,
) -> None:
    """Take each chunk's answer (None: its helper failed) off the helpers' pipes in order."""
    for number, size in enumerate(sizes):
        answer = _answer(procs[number % len(procs)], size)
        while not stop.is_set():
            try:
                answers.put(answer, timeout=0.1)
                break
            except queue.Full:
                continue
        if stop.is_set():
            return


def _start(root: Path) -> subprocess.Popen[bytes]:
    """One helper process for `root`."""
    return subprocess.Popen(
        [sys.executable, "-m", "memtui.notes.parse_pool", os.fspath(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        close_fds=True,
    )


def _feed(proc: subprocess.Popen[bytes], chunks: list[list[str]]) -> None:
    """Send a helper its chunks of paths, one line each, then close its input."""
    stdin = proc.stdin
    assert stdin is not None
    try:
        for chunk in chunks:
            stdin.write(json.dumps(chunk).encode("ascii") + b"\n")
        stdin.close()
    except OSError:
        pass


def _answer(proc: subprocess.Popen[bytes], count: int) -> list[Outcome] | None:
    """A helper's answer for its next chunk, or None when it has none (it failed)."""
    stdout = proc.stdout
    assert stdout is not None
    try:
        line = stdout.readline()
        values = json.loads(line) if line else None
    except (OSError, ValueError):
        return None
    if not isinstance(values, list) or len(values) != count:
        return None
    outcomes: list[Outcome] = []
    for value in values:
        if value[0] == "!":
            outcomes.append((None, 0, value[1]))
        else:
            outcomes.append((decode_record(value[1]), value[2], None))
    return outcomes


def serve(root: Path, requests: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's loop: answer each line of paths with a line of records."""
    for line in requests:
        answer: list[object] = []
        for relpath in json.loads(line):
            record, nbytes, problem = read_record(root, relpath)
            if record is None:
                answer.append(["!", problem])
            else:
                answer.append(["r", encode_record(record), nbytes])
        answers.write(json.dumps(answer).encode("ascii") + b"\n")
        answers.flush()


if __name__ == "__main__":
    serve(Path(sys.argv[1]), sys.stdin.buffer, sys.stdout.buffer)
