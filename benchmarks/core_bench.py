"""Benchmark: a 3,000-command memory-tool batch through `memtui tool` vs the Anthropic SDK's tool.

Usage: python benchmarks/core_bench.py [--commands N] [--runs R] [--seed S]

Both sides run as whole processes on the same deterministic batch (JSON lines on stdin), each
in a fresh folder, interleaved A B A B; memtui includes its lock, history (SQLite) and fsyncs.
Prints per-run wall times, the medians and the ratio memtui / SDK.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SDK_RUNNER = r"""
import json, sys
from anthropic.lib.tools import ToolError
from anthropic.tools import BetaLocalFilesystemMemoryTool

tool = BetaLocalFilesystemMemoryTool(base_path=sys.argv[1])
out = sys.stdout
for line in sys.stdin:
    if not line.strip():
        continue
    tool_input = json.loads(line)
    try:
        content, is_error = tool.call(tool_input), False
    except ToolError as error:
        content, is_error = error.content, True
    except Exception as error:
        content, is_error = repr(error)[:4096], True
    out.write(json.dumps({"is_error": is_error, "content": content}, ensure_ascii=False) + "\n")
    out.flush()
"""

FOLDERS = ("user", "projects", "sessions", "patterns")
WEIGHTS = {
    "view": 40,
    "view_dir": 6,
    "str_replace": 25,
    "insert": 15,
    "create": 9,
    "rename": 3,
    "delete": 2,
}


class Model:
    """The batch's idea of the store, so generated edits mostly target real text."""

    def __init__(self, rng: random.Random) -> None:
        """An empty store."""
        self.rng = rng
        self.files: dict[str, list[str]] = {}
        self.counter = 0

    def fresh_line(self) -> str:
        """A unique line of note-like text."""
        self.counter += 1
        words = " ".join(
            self.rng.choice(
                (
                    "agent",
                    "memory",
                    "user",
                    "prefers",
                    "project",
                    "deploy",
                    "tests",
                    "note",
                    "fixed",
                    "api",
                )
            )
            for _ in range(self.rng.randint(4, 12))
        )
        return f"- [fact] {words} #{self.counter}"

    def pick(self) -> str:
        """A random existing file path."""
        return self.rng.choice(sorted(self.files))


def make_batch(count: int, seed: int) -> list[dict[str, object]]:
    """`count` deterministic tool inputs in realistic proportions."""
    rng = random.Random(seed)
    model = Model(rng)
    batch: list[dict[str, object]] = []
    kinds = list(WEIGHTS)
    weights = list(WEIGHTS.values())
    while len(batch) < count:
        kind = "create" if len(model.files) < 20 else rng.choices(kinds, weights)[0]
        if kind == "create":
            model.counter += 1
            path = f"/memories/{rng.choice(FOLDERS)}/note-{model.counter}.md"
            lines = [f"# Note {model.counter}", ""] + [
                model.fresh_line() for _ in range(rng.randint(3, 30))
            ]
            model.files[path] = lines
            batch.append({"command": "create", "path": path, "file_text": "\n".join(lines) + "\n"})
        elif kind == "view":
            batch.append({"command": "view", "path": model.pick()})
        elif kind == "view_dir":
            batch.append(
                {
                    "command": "view",
                    "path": rng.choice(["/memories", f"/memories/{rng.choice(FOLDERS)}"]),
                }
            )
        elif kind == "str_replace":
            path = model.pick()
            lines = model.files[path]
            index = rng.randrange(len(lines))
            if not lines[index].startswith("- "):
                continue
            new = model.fresh_line()
            batch.append(
                {"command": "str_replace", "path": path, "old_str": lines[index], "new_str": new}
            )
            lines[index] = new
        elif kind == "insert":
            path = model.pick()
            lines = model.files[path]
            at = rng.randint(0, len(lines))
            new = model.fresh_line()
            batch.append({"command": "insert", "path": path, "insert_line": at, "insert_text": new})
            lines.insert(at, new)
        elif kind == "rename":
            path = model.pick()
            model.counter += 1
            new_path = f"/memories/{rng.choice(FOLDERS)}/renamed-{model.counter}.md"
            batch.append({"command": "rename", "old_path": path, "new_path": new_path})
            model.files[new_path] = model.files.pop(path)
        elif kind == "delete":
            path = model.pick()
            batch.append({"command": "delete", "path": path})
            del model.files[path]
    return batch


def run_once(argv: list[str], stdin: bytes) -> tuple[float, float, bytes]:
    """Wall time and CPU time (user + sys) of one whole process fed `stdin`, and its stdout."""
    usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, check=True)
    wall = time.perf_counter() - started
    usage_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage_after.ru_utime - usage_before.ru_utime) + (
        usage_after.ru_stime - usage_before.ru_stime
    )
    return wall, cpu, done.stdout


def main() -> None:
    """Run the interleaved comparison and print medians and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    batch = make_batch(args.commands, args.seed)
    stdin = "".join(json.dumps(item) + "\n" for item in batch).encode("utf-8")
    counts: dict[str, int] = {}
    for item in batch:
        counts[str(item["command"])] = counts.get(str(item["command"]), 0) + 1
    print(f"batch: {len(batch)} commands {dict(sorted(counts.items()))}")
    memtui_bin = str(Path(sys.executable).with_name("memtui"))
    times: dict[str, list[float]] = {"memtui": [], "sdk": []}
    cpu_times: dict[str, list[float]] = {"memtui": [], "sdk": []}
    commands = {
        "memtui": lambda work: [memtui_bin, "tool", str(Path(work) / "m")],
        "sdk": lambda work: [sys.executable, "-c", SDK_RUNNER, work],
    }
    for run in range(args.runs):
        line = f"run {run + 1}:"
        for name, argv in commands.items():
            with tempfile.TemporaryDirectory() as work:
                wall, cpu, out = run_once(argv(work), stdin)
            times[name].append(wall)
            cpu_times[name].append(cpu)
            errors = out.count(b'"is_error": true')
            line += f" {name} {wall:.3f} s wall, {cpu:.3f} s cpu ({errors} errors);"
        print(line)
    for name in commands:
        wall = statistics.median(times[name])
        cpu = statistics.median(cpu_times[name])
        print(
            f"median {name:<6}: {wall:.3f} s wall ({wall / len(batch) * 1e3:.3f} ms/command), "
            f"{cpu:.3f} s cpu"
        )
    wall_ratio = statistics.median(times["memtui"]) / statistics.median(times["sdk"])
    cpu_ratio = statistics.median(cpu_times["memtui"]) / statistics.median(cpu_times["sdk"])
    print(f"ratio memtui / SDK: {wall_ratio:.2f}x wall (goal <= 1.5x), {cpu_ratio:.2f}x cpu")


if __name__ == "__main__":
    main()
