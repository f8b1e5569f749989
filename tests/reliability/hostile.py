"""Builds a store full of hostile files and snapshots trees byte for byte, for the hostile tests."""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

OUTSIDE_MARKER = "OUTSIDE-SECRET-7f3a9c"
"""Text that lives only outside the store; it must never appear in any memtui output."""

GOOD_NOTE = """---
title: Good Note
type: note
tags: [ok]
---

# Good Note

- [fact] this store still has one well-formed note #ok
- relates_to [[Other Good]]
"""

OTHER_NOTE = """---
title: Other Good
---

- [fact] the second well-formed note
"""

ALIAS_BOMB = """---
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
title: bomb
---

- [fact] a billion laughs in the frontmatter
"""

NOT_A_MAPPING = """---
- just
- a list
---

- [fact] frontmatter that is a YAML list
"""

DEPTH = 200
"""How many nested folders the deep-folder entry has."""


@dataclass
class HostileStore:
    """A store of hostile entries, the outside folder it links to, and the names of each entry."""

    root: Path
    outside: Path
    good: list[str] = field(default_factory=list)
    bad_text: list[str] = field(default_factory=list)
    big: list[str] = field(default_factory=list)
    bad_yaml: list[str] = field(default_factory=list)
    links_out: list[str] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    special: list[str] = field(default_factory=list)
    odd_names: list[bytes] = field(default_factory=list)
    deep_note: str = ""


def build_hostile_store(
    base: Path, *, big_mb: int = 20, million_lines: int = 1_000_000, long_line_mb: int = 5
) -> HostileStore:
    """Create `base/store` with every hostile entry of the reliability issue and `base/outside`."""
    root = base / "store"
    outside = base / "outside"
    root.mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text(f"# Secret\n\n{OUTSIDE_MARKER}\n", encoding="utf-8")
    (outside / "folder").mkdir()
    (outside / "folder" / "inner.md").write_text(f"{OUTSIDE_MARKER} inner\n", encoding="utf-8")
    store = HostileStore(root=root, outside=outside)

    (root / "good.md").write_text(GOOD_NOTE, encoding="utf-8")
    (root / "notes").mkdir()
    (root / "notes" / "other-good.md").write_text(OTHER_NOTE, encoding="utf-8")
    store.good += ["good.md", "notes/other-good.md"]

    (root / "invalid-utf8.md").write_bytes(b"# Broken\n\n\xff\xfe\xfa not utf-8 \xc3\x28\n")
    (root / "nul-bytes.md").write_bytes(b"# Nul\n\nbefore\x00after\x00\x00\n")
    store.bad_text += ["invalid-utf8.md", "nul-bytes.md"]

    line = b"- [fact] filler line for a very large note #big\n"
    with open(root / "huge-20mb.md", "wb") as handle:
        chunk = line * (1024 * 1024 // len(line) + 1)
        for _ in range(big_mb):
            handle.write(chunk[: 1024 * 1024])
    (root / "million-lines.md").write_bytes(b"x\n" * million_lines)
    (root / "one-long-line.md").write_bytes(
        b"# Long\n" + b"y" * (long_line_mb * 1024 * 1024) + b"\n"
    )
    store.big += ["huge-20mb.md", "million-lines.md", "one-long-line.md"]

    (root / "alias-bomb.md").write_text(ALIAS_BOMB, encoding="utf-8")
    (root / "not-a-mapping.md").write_text(NOT_A_MAPPING, encoding="utf-8")
    store.bad_yaml += ["alias-bomb.md", "not-a-mapping.md"]

    os.symlink("loop-a.md", root / "loop-b.md")
    os.symlink("loop-b.md", root / "loop-a.md")
    os.symlink("self-loop.md", root / "self-loop.md")
    os.symlink(".", root / "folder-loop")
    store.loops += ["loop-a.md", "loop-b.md", "self-loop.md", "folder-loop"]

    os.symlink(outside / "secret.md", root / "link-out.md")
    os.symlink(outside / "folder", root / "link-out-folder")
    os.symlink("../../outside/secret.md", root / "notes" / "relative-link-out.md")
    store.links_out += ["link-out.md", "link-out-folder", "notes/relative-link-out.md"]

    os.mkfifo(root / "fifo.md")
    unreadable = root / "unreadable.md"
    unreadable.write_text("# Unreadable\n", encoding="utf-8")
    unreadable.chmod(0)
    store.special += ["fifo.md", "unreadable.md"]

    for name in (b"new\nline.md", b"bad-\xff\xfe-name.md", b"tab\there.md"):
        with open(os.path.join(bytes(root), name), "wb") as handle:
            handle.write(b"# Odd name\n\n- [fact] the file name is hostile\n")
        store.odd_names.append(name)

    deep = root.joinpath(*(["d"] * DEPTH))
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("# Bottom\n\n- [fact] 200 folders down\n", encoding="utf-8")
    store.deep_note = "/".join(["d"] * DEPTH) + "/bottom.md"
    return store


def _entry_state(path: bytes, lst: os.stat_result) -> tuple[object, ...]:
    """What identifies one entry's bytes: type, mode, and content hash or link target."""
    mode = lst.st_mode
    if stat.S_ISLNK(mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(mode):
        return ("dir", stat.S_IMODE(mode))
    if stat.S_ISREG(mode):
        digest = hashlib.sha256()
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        try:
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
        finally:
            os.close(fd)
        return ("file", stat.S_IMODE(mode), lst.st_size, lst.st_mtime_ns, digest.hexdigest())
    return ("other", stat.S_IFMT(mode), stat.S_IMODE(mode), lst.st_mtime_ns)


def snapshot(
    root: Path, *, skip: tuple[bytes, ...] = (b".memtui",)
) -> dict[bytes, tuple[object, ...]]:
    """Every entry below `root` (links not followed, `skip` top-level names left out) ->
    its state."""
    result: dict[bytes, tuple[object, ...]] = {}
    base = bytes(root)
    for directory, dirnames, filenames in os.walk(base):
        if directory == base:
            dirnames[:] = [name for name in dirnames if name not in skip]
        for name in dirnames + filenames:
            full = os.path.join(directory, name)
            result[os.path.relpath(full, base)] = _entry_state(full, os.lstat(full))
    return result


SKIPPED = {
    "fifo.md": "not a regular file, skipped",
    "folder-loop": "symlink loops back to a folder that holds it, skipped",
    "link-out-folder": "symlink points outside the store, skipped",
    "link-out.md": "symlink points outside the store, skipped",
    "loop-a.md": "broken or looping symlink, skipped",
    "loop-b.md": "broken or looping symlink, skipped",
    "notes/relative-link-out.md": "symlink points outside the store, skipped",
    "self-loop.md": "broken or looping symlink, skipped",
}
"""Every entry the index skips, with the reason it must name (as root, mode 000 is readable)."""

WARNED = {
    "invalid-utf8.md": "not valid UTF-8 (byte 10)",
    "nul-bytes.md": "contains 3 NUL bytes; they are left out",
    "huge-20mb.md": "over 1 MiB; the app shows only its first 1 MiB",
    "one-long-line.md": "over 1 MiB; the app shows only its first 1 MiB",
    "million-lines.md": "over 20,000; the app shows only its first 20,000 lines",
    "alias-bomb.md": "frontmatter YAML expands to more than 10000 values",
    "not-a-mapping.md": "frontmatter is a YAML list, not a mapping",
    "new\nline.md": "file name contains a control character (U+000A)",
    "tab\there.md": "file name contains a control character (U+0009)",
    os.fsdecode(b"bad-\xff\xfe-name.md"): "file name is not valid UTF-8 (byte 0xff)",
}
"""Every bad note the index keeps, with a fragment of the warning it must carry (both sizes)."""


def skipped_lines() -> list[str]:
    """The skipped entries as the index reports them, sorted."""
    return sorted(f"{name}: {reason}" for name, reason in SKIPPED.items())
