"""Virtual `/memories/...` path validation and resolution onto a real root (spec 3, M1-M3)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

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
    """A validated path: its real location and its normalised virtual spelling."""

    real: Path
    virtual: str


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


def is_within(path: Path, root: Path) -> bool:
    """True if `path` is `root` or below it (both already resolved)."""
    return path == root or path.is_relative_to(root)


def is_reserved(path: Path, root: Path) -> bool:
    """True if a resolved path is memtui's own `<root>/.memtui` or anything below it."""
    reserved = root / RESERVED_NAME
    return path == reserved or path.is_relative_to(reserved)


def to_virtual(path: Path, root: Path) -> str:
    """The normalised virtual path of a resolved in-root path: `/memories` or `/memories/a/b`."""
    if path == root:
        return VIRTUAL_ROOT
    return f"{VIRTUAL_ROOT}/{path.relative_to(root).as_posix()}"


def has_traversal(path: str) -> bool:
    """True for a `..` component, a backslash or a percent-encoded `.`, `/` or `\\` (rule M3)."""
    if "\\" in path or _ENCODED_SEPARATOR.search(path):
        return True
    return ".." in path.split("/")


def check_path(root: Path, path: str) -> ResolvedPath | PathRefusal:
    """Validate one path argument in the spec's order and resolve it, touching nothing on disk.

    Order: prefix, M2 lookalike, M3 traversal, NUL, resolve, escape (symlinks), M1 reserved.
    """
    if not path.startswith(VIRTUAL_ROOT) or (
        path != VIRTUAL_ROOT and not path.startswith(VIRTUAL_ROOT + "/")
    ):
        flag = FLAG_TRAVERSAL if has_traversal(path) else None
        return PathRefusal(f"Path must start with /memories, got: {path}", flag)
    if has_traversal(path):
        return PathRefusal(f"Path {path} would escape /memories directory", FLAG_TRAVERSAL)
    if "\x00" in path:
        return PathRefusal("Path must not contain NUL characters")
    if _SURROGATE.search(path):
        return PathRefusal(f"Path {path} is not valid Unicode")
    root_real = real_root(root)
    relative = path[len(VIRTUAL_ROOT) :].lstrip("/")
    joined = root_real / relative if relative else root_real
    resolved = Path(os.path.realpath(joined))
    if not is_within(resolved, root_real):
        lexical = Path(os.path.normpath(joined))
        flag = FLAG_OUTSIDE if is_within(lexical, root_real) else FLAG_TRAVERSAL
        return PathRefusal(f"Path {path} would escape /memories directory", flag)
    if is_reserved(resolved, root_real):
        return PathRefusal(f"The path {path} is reserved for memtui's history", FLAG_RESERVED)
    return ResolvedPath(resolved, to_virtual(resolved, root_real))
