"""One walk of a store for the watcher: its folders (each by a path Rust can take as text), the
entries changed since a moment, and the entries of folders that are new.

watchfiles takes paths as text, so a folder whose path is not UTF-8 is given as its open
descriptor's `/proc/self/fd/N` alias, which `real` turns back into the folder's path.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Collection
from pathlib import Path

from memtui.core.resolving.fd_paths import StoreRoot, close_quietly, open_child_dir, walk_tree

FD_ALIAS = "/proc/self/fd/"
"""Where a folder whose path is not UTF-8 is watched, by its open descriptor."""


class StoreWalk:
    """One walk of the store: the folders to watch, a descriptor of each one whose name is not
    UTF-8 (its alias), the entries whose ctime is at or after `since_ns`, and the entries of
    folders not in `known` (with those folders)."""

    def __init__(
        self,
        root: Path,
        enter: Callable[[str], bool],
        since_ns: int | None = None,
        known: Collection[str] = (),
    ) -> None:
        """Walk `root` now, on descriptors, without following links, entering (and listing as
        folders to watch) the folders `enter` accepts."""
        self.root = root
        self.enter = enter
        self.folders: list[str] = [""]
        self.recent: set[str] = set()
        self.new: set[str] = set()
        self.fds: dict[str, int] = {}
        try:
            self._walk(since_ns, known)
        except BaseException:
            self.close()
            raise

    def _walk(self, since_ns: int | None, known: Collection[str]) -> None:
        """Collect what `__init__` says, on descriptors."""
        with StoreRoot(self.root) as store_root:
            if not is_utf8(str(self.root)):
                self.fds[""] = os.dup(store_root.fd)
            for relative, folder, name, info in walk_tree(store_root, self.enter):
                if since_ns is not None and info.st_ctime_ns >= since_ns:
                    self.recent.add(relative)
                is_folder = stat.S_ISDIR(info.st_mode) and self.enter(relative)
                in_new = is_folder or relative.rpartition("/")[0] not in known
                if known and in_new and relative not in known:
                    self.new.add(relative)
                if is_folder:
                    self.folders.append(relative)
                    self._alias(relative, folder, name)

    def _alias(self, relative: str, folder: int, name: str) -> None:
        """Keep a descriptor of a folder whose path Rust cannot take as text."""
        if not is_utf8(absolute(self.root, relative)):
            with contextlib.suppress(OSError):
                self.fds[relative] = open_child_dir(folder, name)

    def paths(self) -> list[str]:
        """The paths to give watchfiles: each folder's own, or its descriptor's alias."""
        return [
            f"{FD_ALIAS}{self.fds[folder]}" if folder in self.fds else absolute(self.root, folder)
            for folder in self.folders
            if folder in self.fds or is_utf8(absolute(self.root, folder))
        ]

    def real(self, raw: str) -> str:
        """An event's path with a descriptor alias replaced by the folder's real path."""
        if not raw.startswith(FD_ALIAS):
            return raw
        number, slash, rest = raw[len(FD_ALIAS) :].partition("/")
        for folder, fd in self.fds.items():
            if str(fd) == number:
                return absolute(self.root, folder) + slash + rest
        return raw

    def close(self) -> None:
        """Close the aliases' descriptors."""
        for fd in self.fds.values():
            close_quietly(fd)
        self.fds = {}

    def __enter__(self) -> StoreWalk:
        """Use as a context manager: closed at the end."""
        return self

    def __exit__(self, *_exc: object) -> None:
        """Close the descriptors."""
        self.close()


def is_utf8(text: str) -> bool:
    """True if `text` holds no byte that is not UTF-8 (no lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def absolute(root: Path, folder: str) -> str:
    """The absolute path of a store folder (`""` is the root)."""
    return str(root / folder) if folder else str(root)
