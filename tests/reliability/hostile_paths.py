"""Generates hostile path strings: traversal in every spelling, lookalikes, NUL, absolute paths."""

from __future__ import annotations

import random
from collections.abc import Iterator

DOT_DOT = (
    "..",
    "%2e%2e",
    "%2E%2E",
    "%2e.",
    ".%2E",
    "%252e%252e",
    "..%00",
    "..\\",
    "\\..",
    "..%5c",
    "..%5C",
    "..%2f",
    "..%2F",
    "%2e%2e%2f",
    "．．",
    "‥",
    "..\u200b",
    "\u202e..",
    ".\u0307.",
    "...",
    "....",
    ". .",
    ".. ",
    " ..",
    "..;",
    "..\t",
    "..\n",
    "%c0%ae%c0%ae",
    "%u002e%u002e",
    "..\x00",
)
"""Spellings of a parent-directory step, real and lookalike."""

SEPARATORS = (
    "/",
    "//",
    "\\",
    "%2f",
    "%2F",
    "%5c",
    "／",
    "\u2215",
    "\u29f8",
    "/./",
    "\\\\",
    "%252f",
)

PREFIXES = (
    "/memories/",
    "/memories",
    "/memories//",
    "/memories/./",
    "/memories_x/",
    "/memoriesfoo/",
    "/memories..",
    "/Memories/",
    "/MEMORIES/",
    "memories/",
    "//memories/",
    " /memories/",
    "/memories\x00/",
    "/ｍemories/",
    "/memories%2f",
    "\\memories\\",
    "",
    "/",
    "~/",
    "file:///memories/",
    "/memories/linkout/",
    "/memories/inner/linkup/",
    "/memories/.memtui/",
    "/memories/inner/../.memtui/",
)
"""How a hostile path starts: the real prefix, lookalikes, symlinked folders, the reserved
folder."""

TARGETS = (
    "etc/passwd",
    "outside/secret.md",
    "secret.md",
    "history.db",
    ".memtui/history.db",
    "inner/note.md",
    "new.md",
    "",
    "a\x00b.md",
    "con",
    "x" * 300,
)
"""What a hostile path ends with: files outside, memtui's own files, odd names."""

ABSOLUTE = (
    "/etc/passwd",
    "/tmp",
    "/",
    "",
    ".",
    "..",
    "/memories/../../../../etc/passwd",
    "/proc/self/environ",
    "\x00",
    "/memories\x00",
)


def hostile_paths(count: int, *, seed: int = 20251122) -> Iterator[str]:
    """Yield `count` hostile path strings, every fixed pattern first, then random combinations."""
    yield from ABSOLUTE
    produced = len(ABSOLUTE)
    rng = random.Random(seed)
    while produced < count:
        prefix = rng.choice(PREFIXES)
        parts: list[str] = []
        for _ in range(rng.randint(1, 6)):
            parts.append(
                rng.choice(DOT_DOT) if rng.random() < 0.6 else rng.choice(("inner", "a", ".", ""))
            )
            parts.append(rng.choice(SEPARATORS))
        parts.append(rng.choice(TARGETS))
        yield prefix + "".join(parts)
        produced += 1
