"""Hostile paths through all six commands never touch or reveal sentinels beside or above the root.

The fuzz goes through MemoryStore, so every refusal must also be a refused event in the history.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from memtui.core.applying.dispatch import apply_command
from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.paths import FLAG_REFUSED
from memtui.core.parsing.tool_input import parse_command
from memtui.core.recording.history import History
from memtui.core.store import MemoryStore

SECRET = "SENTINEL-SECRET-7f3a"
PREFIXES = [
    "/memories",
    "/memories/",
    "/memories//",
    "/memoriesX",
    "/memories..",
    "/memories%2f",
    "/memories\\",
    "memories/",
    "/Memories/",
    "/",
    "",
    "／memories/",
    "/memories\u200b/",
    "/memories/./",
]
PARTS = [
    "..",
    "...",
    ".",
    "",
    "%2e%2e",
    "%2E%2e",
    "%2e%2e%2f",
    "..%2f",
    "%2e.",
    ".%2e",
    "%252e%252e",
    "..\\",
    "\\..",
    "a\\b",
    "%5c",
    "%5C..",
    "．．",
    "‥",
    "․․",
    "﹒﹒",
    "..\u200b",
    "∕",
    "⁄",
    "／..",
    "out",
    "outfile",
    "abs",
    "d",
    "d/up",
    "loop",
    "sentinel",
    "up2",
    "above",
    "secret.txt",
    ".memtui",
    "a.md",
    "~",
    "$HOME",
    "etc/passwd",
    "\x00",
    "a\x00b",
    "\t",
    "\n",
    "é",
    "\udc80",
]
NEEDLE_TEXT = "PWNED"
REFUSALS = (
    "Path must start with /memories, got: ",
    " would escape /memories directory",
    " is reserved for memtui's history",
    "Path must not contain NUL characters",
    " is not valid Unicode",
)
"""Fragments that mark a result as a refused path."""


PADDING = 5
"""Folders between the test's temp folder and the sandbox: as many as a path has parts, so no
`..` climb (from the root or from where a link leads) gets above the watched temp folder."""
MAX_PARTS = 5
"""Most parts a generated path has."""
WATCHED_SYSTEM_FOLDERS = ("/", "/etc")
"""Real folders an absolute path could reach (`/`, `/etc/...`); their listings must not change."""
LISTING_EVERY = 20
"""How many paths go by between two listings of the whole store and of the system folders."""


def sandbox(tmp: Path) -> Path:
    """The folder holding the root's parent, `PADDING` folders below `tmp`."""
    return tmp.joinpath(*(f"pad{number}" for number in range(PADDING)))


def build(tmp: Path) -> tuple[Path, Path]:
    """A root two levels down a padded sandbox, sentinels beside and above it, escaping links.

    Every padding folder holds a secret too, and `cwd` is where a path taken as relative
    to the working directory would land (the fuzz runs from there).
    """
    base = sandbox(tmp)
    for sentinel in (base / "level" / "sentinel", base / "above"):
        (sentinel / "sub").mkdir(parents=True)
        (sentinel / "secret.txt").write_text(f"{SECRET}\n")
        (sentinel / "sub" / "deep.txt").write_text(f"{SECRET} deep\n")
    folder = tmp
    for number in range(PADDING + 1):
        (folder / "secret.txt").write_text(f"{SECRET} padding {number}\n")
        folder = folder / f"pad{number}"
    (tmp / "cwd").mkdir()
    (tmp / "cwd" / "secret.txt").write_text(f"{SECRET} cwd\n")
    sentinel = base / "level" / "sentinel"
    return reset_root(tmp, sentinel), sentinel


def folder_times(tmp: Path) -> list[int]:
    """The mtime of every sandbox folder outside the root: any entry made or removed changes it."""
    folders = [tmp, tmp / "cwd", *reversed(sandbox(tmp).parents[: PADDING - 1])]
    folders += [sandbox(tmp), sandbox(tmp) / "level"]
    return [os.stat(folder).st_mtime_ns for folder in folders]


def system_state() -> tuple[list[list[str]], bytes]:
    """The listings of the real folders an absolute path could reach, and /etc/passwd's bytes."""
    return [sorted(os.listdir(folder)) for folder in WATCHED_SYSTEM_FOLDERS], Path(
        "/etc/passwd"
    ).read_bytes()


def reset_root(tmp: Path, sentinel: Path) -> Path:
    """(Re)create the root's content, its history kept, with escaping links and a loop."""
    root = sandbox(tmp) / "level" / "memories"
    root.mkdir(mode=0o700, exist_ok=True)
    for entry in os.scandir(root):
        if entry.name == ".memtui":
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
    (root / "a.md").write_text("alpha\n")
    (root / "d").mkdir()
    (root / "out").symlink_to("../sentinel")
    (root / "outfile").symlink_to("../sentinel/secret.txt")
    (root / "abs").symlink_to(sentinel)
    (root / "d" / "up").symlink_to("../../sentinel")
    (root / "up2").symlink_to("../../above")
    (root / "loop").symlink_to("loop")
    return root


def outside_state(tmp: Path) -> dict[str, bytes | None]:
    """Every entry outside the root, with its bytes (None for folders, the target for links)."""
    state: dict[str, bytes | None] = {}
    root = os.path.join(sandbox(tmp), "level", "memories")
    for dirpath, dirnames, filenames in os.walk(tmp):
        dirnames[:] = [name for name in dirnames if os.path.join(dirpath, name) != root]
        for name in dirnames:
            state[os.path.relpath(os.path.join(dirpath, name), tmp)] = None
        for name in filenames:
            full = os.path.join(dirpath, name)
            state[os.path.relpath(full, tmp)] = Path(full).read_bytes()
    return state


def hostile_paths(count: int, seed: int) -> list[str]:
    """`count` generated paths mixing lookalike prefixes with traversal pieces and link names."""
    rng = random.Random(seed)
    paths = []
    for _ in range(count):
        parts = [rng.choice(PARTS) for _ in range(rng.randint(1, MAX_PARTS))]
        paths.append(rng.choice(PREFIXES) + "/".join(parts) + rng.choice(["", "/", "/.", "/x.md"]))
    return paths


def commands_for(path: str) -> list[dict[str, object]]:
    """All six commands aimed at one path (rename both from and to it)."""
    return [
        {"command": "view", "path": path},
        {"command": "create", "path": path, "file_text": NEEDLE_TEXT},
        {"command": "str_replace", "path": path, "old_str": "SECRET", "new_str": NEEDLE_TEXT},
        {"command": "insert", "path": path, "insert_line": 0, "insert_text": NEEDLE_TEXT},
        {"command": "rename", "old_path": path, "new_path": "/memories/moved"},
        {"command": "rename", "old_path": "/memories/a.md", "new_path": path},
        {"command": "delete", "path": path},
    ]


def run(root: Path, tool_input: object) -> CommandOutcome:
    """Parse and apply like the store, without recording."""
    parsed = parse_command(root, tool_input)
    return parsed if isinstance(parsed, CommandOutcome) else apply_command(root, parsed)


def fuzz(tmp: Path, count: int, seed: int) -> tuple[int, int, int]:
    """Run every command on `count` hostile paths through MemoryStore; (paths, commands, refusals).

    Runs from the sandbox's `cwd` folder. Checks each result, the sandbox folders' mtimes after
    every path, the system folders every `LISTING_EVERY` paths, everything in `tmp` and the
    system files at the end, and that every refused path is a refused event in the history.
    """
    root, sentinel = build(tmp)
    before = outside_state(tmp), system_state()
    times = folder_times(tmp)
    store = MemoryStore(root, actor="agent:core-fuzz")
    refused: Counter[str] = Counter()
    refusals = commands = 0
    with contextlib.chdir(tmp / "cwd"):
        for number, path in enumerate(hostile_paths(count, seed)):
            for tool_input in commands_for(path):
                result = store.execute(tool_input)
                commands += 1
                refusals += result.is_error
                if result.is_error and any(fragment in result.content for fragment in REFUSALS):
                    refused[result.content] += 1
                assert SECRET not in result.content, (tool_input, result)
                assert "Traceback" not in result.content and "Error(" not in result.content
            assert folder_times(tmp) == times, path
            if number % LISTING_EVERY == 0:
                assert SECRET not in store.view("/memories").content
                assert system_state() == before[1], path
            if not all((root / link).is_symlink() for link in ("out", "d/up", "up2")):
                reset_root(tmp, sentinel)
    assert (outside_state(tmp), system_state()) == before
    recorded = Counter(
        event.result
        for event in History(root).events(newest_first=False)
        if event.is_error and FLAG_REFUSED in event.flags
    )
    missing = refused - recorded
    assert missing == Counter(), list(missing.items())[:5]
    assert sum(refused.values()) > commands // 2
    return count, commands, refusals


def test_no_generated_path_can_climb_above_the_watched_folder(tmp_path: Path) -> None:
    root, _ = build(tmp_path)
    climbs = [
        root,
        root / "up2",
        root / "abs",
        root / "d" / "up",
        root / "out",
    ]
    for start in climbs:
        top = Path(os.path.realpath(start)).joinpath(*([".."] * MAX_PARTS))
        assert Path(os.path.normpath(top)).is_relative_to(tmp_path), start
    assert sorted(os.listdir(tmp_path)) == ["cwd", "pad0", "secret.txt"]


def test_a_few_thousand_hostile_paths(tmp_path: Path) -> None:
    paths, commands, refusals = fuzz(tmp_path, 3000, seed=20251)
    assert commands == 7 * paths
    assert refusals > commands // 2


def test_every_single_part_alone(tmp_path: Path) -> None:
    root, sentinel = build(tmp_path)
    before = outside_state(tmp_path)
    for prefix in PREFIXES:
        for part in PARTS:
            for tool_input in commands_for(prefix + part):
                assert SECRET not in run(root, tool_input).content
            reset_root(tmp_path, sentinel)
    assert outside_state(tmp_path) == before


def test_known_escapes_are_refused_with_flags(tmp_path: Path) -> None:
    root, _ = build(tmp_path)
    cases = {
        "/memories/out/secret.txt": ("security:refused", "security:outside"),
        "/memories/outfile": ("security:refused", "security:outside"),
        "/memories/abs/sub/deep.txt": ("security:refused", "security:outside"),
        "/memories/d/up/secret.txt": ("security:refused", "security:outside"),
        "/memories/up2/secret.txt": ("security:refused", "security:outside"),
        "/memories/../sentinel/secret.txt": ("security:refused", "security:traversal"),
        "/memories/../../above/secret.txt": ("security:refused", "security:traversal"),
        "/memories/%2e%2e/sentinel/secret.txt": ("security:refused", "security:traversal"),
        "/memories/..\\sentinel\\secret.txt": ("security:refused", "security:traversal"),
    }
    for path, flags in cases.items():
        outcome = run(root, {"command": "view", "path": path})
        assert (outcome.is_error, outcome.flags) == (True, flags), path


@pytest.mark.slow
def test_hundred_thousand_hostile_paths(tmp_path: Path) -> None:
    started = time.perf_counter()
    paths, commands, refusals = fuzz(tmp_path, 100_000, seed=7)
    seconds = time.perf_counter() - started
    print(f"path fuzz: {paths} paths, {commands} commands, {refusals} refusals, {seconds:.1f} s")
    assert paths >= 100_000
