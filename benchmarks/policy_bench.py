"""Benchmark what the access policy costs an agent's commands, against the same commands in the
same run on a store without a policy.

Usage: python benchmarks/policy_bench.py [--files 1000] [--rules 50] [--repeat 30]

The store holds `--files` notes in 20 folders. The policy has `--rules` rules (globs with `*` and
`**`, a third of them `none`, the last `review` on one folder). Printed: medians of an agent's
`view` of a note, `view` of a folder (listing, sizes evened out; again right after the policy
file changed, so every check is made afresh), `str_replace` (applied), a held `str_replace`
(review), and the check of a glob with many `*` against a long name and of `**` against a deep
path.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from memtui.core.config import Settings
from memtui.core.policy.loading import parse_policy
from memtui.core.store import MemoryStore

FOLDERS = 20


def median(
    repeat: int, func: Callable[[int], object], before: Callable[[], object] | None = None
) -> float:
    """Median wall time of `func(i)` over `repeat` runs (`before()` runs untimed first)."""
    times = []
    for number in range(repeat):
        if before is not None:
            before()
        started = time.perf_counter()
        func(number)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def make_store(root: Path, files: int) -> None:
    """`files` notes spread over FOLDERS folders, written directly (a baseline event records
    them on first open)."""
    for number in range(files):
        path = root / f"f{number % FOLDERS:02}" / f"note-{number:05}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {number}\n\nline one\nline two\n")


def policy_text(rules: int) -> str:
    """`rules` rules: folder globs, `**` globs with `*` in names; a third `none`; the last puts
    `f01/` under review."""
    lines = []
    for number in range(rules - 1):
        access = ("read", "none", "write")[number % 3]
        glob = (f"x{number}/**", f"**/secret-{number}-*.md", f"f{number % FOLDERS:02}/n*-9{number}")
        lines.append(
            f'[[rule]]\npaths = ["{glob[number % 3]}"]\naccess = "{access}"\n'
            f'actors = ["agent:bench*"]\n'
        )
    lines.append('[[rule]]\npaths = ["f01/**"]\naccess = "review"\n')
    return "\n".join(lines)


def measure(root: Path, repeat: int) -> dict[str, float]:
    """Medians of the agent's commands on the store at `root`."""
    agent = MemoryStore(root, actor="agent:bench", settings=Settings())
    agent.view("/memories")
    out = {
        "view a note": median(repeat, lambda i: agent.view("/memories/f00/note-00000.md")),
        "view a folder": median(repeat, lambda _i: agent.view("/memories/f02")),
    }
    policy = root / ".memtui/policy.toml"

    def edited() -> None:
        if policy.exists():
            policy.write_text(policy.read_text())
            os.utime(policy, ns=(time.time_ns(), time.time_ns()))

    out["view a folder, policy edited"] = median(
        repeat, lambda _i: agent.view("/memories/f02"), edited
    )

    def edit(number: int) -> None:
        result = agent.str_replace(
            f"/memories/f00/note-{number * FOLDERS:05}.md", "line one", "line 1"
        )
        assert not result.is_error, result.content

    out["str_replace (applied)"] = median(repeat, edit)

    def held(number: int) -> None:
        path = f"/memories/f01/note-{number * FOLDERS + 1:05}.md"
        agent.str_replace(path, "line one", "line 1")

    out["str_replace (f01: review)"] = median(repeat, held)
    return out


def main() -> None:
    """Run the benchmark and print medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rules", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    if args.files < FOLDERS * args.repeat:
        sys.exit(f"--files must be at least {FOLDERS * args.repeat}")
    work = Path(tempfile.mkdtemp(prefix="memtui-policy-bench-"))
    try:
        results = {}
        for name, text in (("no policy", None), (f"{args.rules} rules", policy_text(args.rules))):
            root = work / name.replace(" ", "-")
            make_store(root, args.files)
            MemoryStore(root, actor="human:bench", settings=Settings()).view("/memories")
            if text is not None:
                (root / ".memtui/policy.toml").write_text(text)
            results[name] = measure(root, args.repeat)
    finally:
        shutil.rmtree(work)
    print(f"{args.files} notes, medians of {args.repeat}")
    names = list(results)
    print(f"{'command':28}" + "".join(f"{name:>14}" for name in names))
    for command in results[names[0]]:
        row = "".join(f"{results[name][command] * 1000:>11.2f} ms" for name in names)
        print(f"{command:28}{row}")
    rules = parse_policy(b'[[rule]]\npaths = ["*-*-*-*-*-*-*.md", "**/**/**/z"]\naccess = "none"\n')
    name = "-" * 250 + "x"
    deep = "/".join(["a"] * 2000)
    forget = rules._decided.clear  # each check found afresh, not remembered
    glob = median(args.repeat, lambda _i: rules.access(name, "agent:x"), forget)
    deep_time = median(args.repeat, lambda _i: rules.access(deep, "agent:x"), forget)
    print(f"glob *-*-*-*-*-*-*.md against a 251-character name: {glob * 1000:.2f} ms")
    print(f"glob **/**/**/z against a path 2000 folders deep: {deep_time * 1000:.2f} ms")


if __name__ == "__main__":
    main()
