"""A random write workload through MemoryStore whose file contents prove themselves whole.

Run as `python -m tests.reliability.workload ROOT SEED` it writes forever (the crash test kills
it); every file it writes is `content_for(token)`, so a torn write is detectable from the bytes.
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
from pathlib import Path

FOLDERS = ("alpha", "beta", "gamma", "delta")
NAMES = ("one.md", "two.md", "three.md", "four.md", "five.md")


def content_for(token: str) -> str:
    """A file body of 1 to 64 KiB determined by `token`, starting and ending with it."""
    seed = hashlib.sha256(token.encode()).digest()
    lines = 16 + int.from_bytes(seed[:2], "big") % 1000
    filler = seed.hex()
    body = "".join(f"{number:05d} {filler}\n" for number in range(lines))
    return f"TOKEN {token}\n{body}END {token}\n"


def is_whole(text: str) -> bool:
    """True if `text` is exactly `content_for` of the token on its first line."""
    first, _, _ = text.partition("\n")
    if not first.startswith("TOKEN "):
        return False
    return text == content_for(first[len("TOKEN ") :])


def memory_files(root: Path) -> list[str]:
    """Relative paths of every visible regular file in the store (dot-names skipped)."""
    found: list[str] = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if not name.startswith(".")]
        for name in filenames:
            if not name.startswith("."):
                found.append(os.path.relpath(os.path.join(directory, name), root))
    return sorted(found)


def random_path(rng: random.Random) -> str:
    """A virtual path in one of the workload's folders."""
    return f"/memories/{rng.choice(FOLDERS)}/{rng.choice(NAMES)}"


def step(store: object, root: Path, rng: random.Random, counter: int) -> str:
    """Run one random mutation (create, edit, write, rename, folder delete, revert)."""
    from memtui.core.store import MemoryStore

    assert isinstance(store, MemoryStore)
    token = f"{os.getpid()}-{counter}"
    existing = memory_files(root)
    kind = rng.choices(
        ("create", "str_replace", "write", "rename", "delete_folder", "revert"),
        weights=(5, 4, 3, 2, 1, 2),
    )[0]
    if kind == "create" or not existing:
        store.create(random_path(rng), content_for(token))
        return "create"
    relpath = rng.choice(existing)
    virtual = "/memories/" + relpath
    if kind == "str_replace":
        text = (root / relpath).read_text(encoding="utf-8")
        store.str_replace(virtual, text, content_for(token))
    elif kind == "write":
        text, revision = store.read(virtual)
        store.write(virtual, content_for(token), revision)
    elif kind == "rename":
        store.rename(virtual, random_path(rng))
    elif kind == "delete_folder":
        store.delete("/memories/" + relpath.split("/")[0])
    else:
        events = store.history.events(limit=10)
        if events:
            store.revert(rng.choice(events).id)
    return kind


def main(argv: list[str]) -> int:
    """Say "ready" once the store is open, then mutate until killed, naming each finished step."""
    from memtui.core.store import MemoryStore

    root = Path(argv[0])
    rng = random.Random(int(argv[1]))
    steps = int(argv[2]) if len(argv) > 2 else -1
    store = MemoryStore(root, actor="agent:crash-test", session=f"crash-{argv[1]}")
    print("ready", flush=True)
    counter = 0
    while steps < 0 or counter < steps:
        print(step(store, root, rng, counter), flush=True)
        counter += 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
