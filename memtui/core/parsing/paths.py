"""Virtual `/memories/...` path validation and resolution onto a real root (spec 3, M1-M3)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.parsing.command_types import only_name_bytes
from memtui.core.parsing.echo import echo
from memtui.core.resolving.fd_paths import OutsideStore, StoreRoot

VIRTUAL_ROOT = "/memories"
RESERVED_NAME = ".memtui"

FLAG_REFUSED = "security:refused"
FLAG_TRAVERSAL = "security:traversal"
FLAG_OUTSIDE = "security:outside"
FLAG_RESERVED = "security:reserved"

_ENCODED_SEPARATOR = re.compile(r"%(2e|2f|5c)", re.IGNORECASE)
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ResolvedPath:
    """A validated path: its real location, its normalised virtual spelling, its parts.

    `parts` is the path relative to the root with every link resolved: what the core acts on,
    walked again on descriptors (never used as a name) at the moment it acts.
    """

    real: Path
    virtual: str
    parts: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class PathRefusal:
    """Why a path was refused: the exact tool message and the kind of refusal, if it has one."""

    message: str
    flag: str | None = None

    @property
    def flags(self) -> tuple[str, ...]:
        """The history flags: `security:refused` always, then the kind (traversal, outside...)."""
        return (FLAG_REFUSED, self.flag) if self.flag else (FLAG_REFUSED,)


def real_root(root: Path) -> Path:
    """The fully resolved root directory that `/memories` maps to."""
    return Path(os.path.realpath(root))


def virtual_of(parts: tuple[str, ...] | list[str]) -> str:
    """The virtual path of resolved parts: `/memories` or `/memories/a/b`."""
    return f"{VIRTUAL_ROOT}/{'/'.join(parts)}" if parts else VIRTUAL_ROOT


def from_relpath(relpath: str) -> str:
    """The virtual path of a path relative to the root: `a/b.md` -> `/memories/a/b.md`."""
    relpath = relpath.strip("/")
    return f"{VIRTUAL_ROOT}/{relpath}" if relpath else VIRTUAL_ROOT


def to_relpath(virtual: str) -> str:
    """The path relative to the root of a virtual path: `/memories/a/b.md` -> `a/b.md` (the
    root is ``); a path without the prefix is taken as relative already."""
    if virtual == VIRTUAL_ROOT or virtual.startswith(VIRTUAL_ROOT + "/"):
        return virtual[len(VIRTUAL_ROOT) :].strip("/")
    return virtual.strip("/")


def under_root(virtual: str) -> str | None:
    """The part after `/memories/` of a virtual path written below the root, as written; None
    for the root itself and for any path outside it (nothing is resolved)."""
    prefix = VIRTUAL_ROOT + "/"
    return virtual[len(prefix) :] if virtual.startswith(prefix) else None


def written_relpath(path: str) -> str:
    """A checked path as written, relative to the root and without following links: `.` and
    empty segments dropped (`/memories/./a//b` -> `a/b`; the root is ``)."""
    rest = path[len(VIRTUAL_ROOT) :] if path.startswith(VIRTUAL_ROOT) else path
    return "/".join(part for part in rest.split("/") if part not in ("", "."))


def as_virtual(path: str) -> str:
    """A virtual path from one a person typed: `/memories/...` kept (less a trailing `/`), a
    path relative to the root made virtual (`a.md` -> `/memories/a.md`)."""
    if path == VIRTUAL_ROOT or path.startswith(VIRTUAL_ROOT + "/"):
        return path.rstrip("/") or VIRTUAL_ROOT
    return from_relpath(path)


def resolve_parts(root: Path, relative: str) -> tuple[str, ...]:
    """`relative` resolved below `root` on descriptors (links followed); OutsideStore if it leaves.

    A root that does not exist yet has no links: its paths are taken as written.
    """
    try:
        store_root = StoreRoot(root)
    except (FileNotFoundError, NotADirectoryError):
        return tuple(part for part in relative.split("/") if part not in ("", "."))
    with store_root, store_root.locate_relative(relative) as location:
        return tuple(location.parts)


def has_traversal(path: str) -> bool:
    """True for a `..` component, a backslash or a percent-encoded `.`, `/` or `\\` (rule M3)."""
    if "\\" in path or _ENCODED_SEPARATOR.search(path):
        return True
    return ".." in path.split("/")


def check_path(root: Path, path: str, *, any_name: bool = False) -> ResolvedPath | PathRefusal:
    """Validate one path argument in the spec's order and resolve it, touching nothing on disk.

    Order: prefix, M2 lookalike, M3 traversal, NUL, resolve, escape (symlinks), M1 reserved.
    Resolution walks the store on descriptors and only reads (lstat, readlink). An agent's path
    (JSON text) holding a lone surrogate is refused; with `any_name` (a name read from disk, or
    given by a person or the history) one that stands for a byte that is not UTF-8 is a name.
    """
    if not path.startswith(VIRTUAL_ROOT) or (
        path != VIRTUAL_ROOT and not path.startswith(VIRTUAL_ROOT + "/")
    ):
        flag = FLAG_TRAVERSAL if has_traversal(path) else None
        return PathRefusal(f"Path must start with /memories, got: {echo(path)}", flag)
    if has_traversal(path):
        return PathRefusal(f"Path {echo(path)} would escape /memories directory", FLAG_TRAVERSAL)
    if "\x00" in path:
        return PathRefusal("Path must not contain NUL characters")
    if _SURROGATE.search(path) and not (any_name and only_name_bytes(path)):
        return PathRefusal(f"Path {echo(path)} is not valid Unicode")
    root_real = real_root(root)
    try:
        parts = resolve_parts(root_real, path[len(VIRTUAL_ROOT) :].lstrip("/"))
    except OutsideStore:
        return PathRefusal(f"Path {echo(path)} would escape /memories directory", FLAG_OUTSIDE)
    if parts[:1] == (RESERVED_NAME,):
        return PathRefusal(f"The path {echo(path)} is reserved for memtui's history", FLAG_RESERVED)
    return ResolvedPath(root_real.joinpath(*parts), virtual_of(parts), parts)
