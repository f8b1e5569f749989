"""Hostile paths through all six commands never touch or reveal a sentinel folder beside the root."""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

from memtui.core.commands import CommandOutcome, apply_command, parse_command

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


def build(tmp: Path) -> tuple[Path, Path]:
    """A root with escaping symlinks and a sentinel folder beside it holding the secret."""
    sentinel = tmp / "sentinel"
    sentinel.mkdir()
    (sentinel / "secret.txt").write_text(f"{SECRET}\n")
    (sentinel / "sub").mkdir()
    (sentinel / "sub" / "deep.txt").write_text(f"{SECRET} deep\n")
    return reset_root(tmp, sentinel), sentinel


def reset_root(tmp: Path, sentinel: Path) -> Path:
    """(Re)create the root with its links: out, outfile, abs, d/up and a loop."""
    root = tmp / "memories"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(mode=0o700)
    (root / "a.md").write_text("alpha\n")
    (root / "d").mkdir()
    (root / "out").symlink_to("../sentinel")
    (root / "outfile").symlink_to("../sentinel/secret.txt")
    (root / "abs").symlink_to(sentinel)
    (root / "d" / "up").symlink_to("../../sentinel")
    (root / "loop").symlink_to("loop")
    return root


def sentinel_state(sentinel: Path) -> dict[str, bytes | None]:
    """Every entry of the sentinel folder with its bytes (None for directories)."""
    state: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(sentinel):
        for name in dirnames:
            state[os.path.relpath(os.path.join(dirpath, name), sentinel)] = None
        for name in filenames:
            full = os.path.join(dirpath, name)
            state[os.path.relpath(full, sentinel)] = Path(full).read_bytes()
    return state


def hostile_paths(count: int, seed: int) -> list[str]:
    """`count` generated paths mixing lookalike prefixes with traversal pieces and link names."""
    rng = random.Random(seed)
    paths = []
    for _ in range(count):
        parts = [rng.choice(PARTS) for _ in range(rng.randint(1, 5))]
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
    """Parse and apply like the store."""
    parsed = parse_command(root, tool_input)
    return parsed if isinstance(parsed, CommandOutcome) else apply_command(root, parsed)


def fuzz(tmp: Path, count: int, seed: int) -> tuple[int, int, int]:
    """Run every command on `count` hostile paths; returns (paths, commands, refusals)."""
    root, sentinel = build(tmp)
    before = sentinel_state(sentinel)
    refusals = commands = 0
    for path in hostile_paths(count, seed):
        for tool_input in commands_for(path):
            outcome = run(root, tool_input)
            commands += 1
            refusals += outcome.is_error
            assert SECRET not in outcome.content, (tool_input, outcome)
            assert "Traceback" not in outcome.content and "Error(" not in outcome.content, outcome
        listing = run(root, {"command": "view", "path": "/memories"})
        assert SECRET not in listing.content
        assert sorted(os.listdir(tmp)) == ["memories", "sentinel"], path
        if os.path.islink(root / "out") is False or not (root / "d" / "up").is_symlink():
            reset_root(tmp, sentinel)
    assert sentinel_state(sentinel) == before
    return count, commands, refusals


def test_a_few_thousand_hostile_paths(tmp_path: Path) -> None:
    paths, commands, refusals = fuzz(tmp_path, 3000, seed=20251)
    assert commands == 7 * paths
    assert refusals > commands // 2


def test_every_single_part_alone(tmp_path: Path) -> None:
    root, sentinel = build(tmp_path)
    before = sentinel_state(sentinel)
    for prefix in PREFIXES:
        for part in PARTS:
            for tool_input in commands_for(prefix + part):
                assert SECRET not in run(root, tool_input).content
            reset_root(tmp_path, sentinel)
    assert sentinel_state(sentinel) == before


def test_known_escapes_are_refused_with_flags(tmp_path: Path) -> None:
    root, _ = build(tmp_path)
    cases = {
        "/memories/out/secret.txt": ("security:refused", "security:outside"),
        "/memories/outfile": ("security:refused", "security:outside"),
        "/memories/abs/sub/deep.txt": ("security:refused", "security:outside"),
        "/memories/d/up/secret.txt": ("security:refused", "security:outside"),
        "/memories/../sentinel/secret.txt": ("security:refused", "security:traversal"),
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
