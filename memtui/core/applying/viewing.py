"""The `view` command on descriptors: a file with line numbers, or a folder two levels deep."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import replace
from typing import Any

from memtui.core.applying.site import Site
from memtui.core.applying.sizes import format_size
from memtui.core.hashing import digest
from memtui.core.parsing.command_types import (
    MAX_LINES,
    CommandOutcome,
    ParsedCommand,
    ReadSource,
    error,
    not_found,
    numbered_lines,
    success,
)
from memtui.core.parsing.paths import RESERVED_NAME, written_relpath
from memtui.core.resolving.fd_paths import (
    Location,
    OutsideStore,
    close_quietly,
    entries,
    entry_lstat,
    open_child_dir,
)
from memtui.core.resolving.regular import NotRegularFile, open_regular

SKIPPED_DIRECTORY = "node_modules"


def not_found_message(path: str) -> str:
    """The view/str_replace 'missing path' text."""
    return f"The path {path} does not exist. Please provide a valid path."


def too_big_to_read(path: str, size: int, limit: int) -> str:
    """Rule M6: a file over the maximum file size is not read (so not shown, nor edited)."""
    return (
        f"File {path} is {format_size(size)} ({size} bytes), over the maximum file size of "
        f"{format_size(limit)} ({limit} bytes); memtui does not read files that large"
    )


def read_text(location: Location, path: str, limit: int) -> str | CommandOutcome:
    """A regular file's text (strict UTF-8), read by descriptor without following a final link.

    A file over `limit` bytes is refused before it is read (rule M6).
    """
    data = read_bytes(location, path, limit)
    return data if isinstance(data, CommandOutcome) else decoded(data, path)


def decoded(data: bytes, path: str) -> str | CommandOutcome:
    """A file's bytes as strict UTF-8 text, or the tool's error naming `path`."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return error(f"The file {path} is not valid UTF-8 text")


def read_bytes(location: Location, path: str, limit: int) -> bytes | CommandOutcome:
    """A regular file's bytes, as `read_text` reads them (files over `limit` refused)."""
    parent = location.parent_fd()
    if parent is None:
        return not_found(not_found_message(path))
    try:
        with open_regular(location.name, dir_fd=parent) as (handle, info):
            if info.st_size > limit:
                return error(too_big_to_read(path, info.st_size, limit))
            data = handle.read(limit + 1)
    except FileNotFoundError:
        return error(
            f"The file {path} no longer exists (may have been deleted or renamed concurrently)."
        )
    except NotRegularFile:
        return error(f"path {path!r} is not a regular file")
    except OSError as problem:
        if problem.errno == errno.ELOOP:
            return error(f"path {path!r} is a symlink")
        raise
    if len(data) > limit:
        return error(too_big_to_read(path, len(data), limit))
    return data


def view(cmd: ParsedCommand, site: Site) -> CommandOutcome:
    """List a directory two levels deep, or show a file with line numbers."""
    path, location = cmd.echoed[0], site.locations[0]
    leaf = location.lstat()
    if leaf is None:
        return not_found(not_found_message(path))
    if stat.S_ISDIR(leaf.st_mode):
        return success(_listing(site, location, path, leaf.st_size, cmd.raw_paths[0]))
    if stat.S_ISREG(leaf.st_mode):
        return _view_file(location, path, cmd.args.get("view_range"), site.max_size)
    return error(f"Unsupported file type for {path}")


class _Listing:
    """One listing's walk: where it started, what it has found, and what the agent may see."""

    def __init__(self, site: Site, written: str) -> None:
        """A listing in `site` of the folder written as `written` (relative to the root)."""
        self.site = site
        self.written = written
        self.collected: list[tuple[str, str]] = []
        gate = site.gate
        self.folder_size: int | None = None
        """Every folder's shown size when some rule hides paths from the agent (the
        filesystem's block size), so a size never tells how many hidden entries a folder holds."""
        if gate is not None and gate.hides_any:
            self.folder_size = os.fstatvfs(site.root.fd).f_bsize

    def hidden(self, relative: str, real: tuple[str, ...]) -> bool:
        """Whether the entry at `relative` below the listed folder (really at `real`) is hidden
        from the agent, as written or where it resolves to."""
        gate = self.site.gate
        if gate is None:
            return False
        written = f"{self.written}/{relative}" if self.written else relative
        return gate.hidden(written) or gate.hidden("/".join(real))

    def size(self, info: os.stat_result) -> str:
        """An entry's size as the listing shows it."""
        if self.folder_size is not None and stat.S_ISDIR(info.st_mode):
            return format_size(self.folder_size)
        return format_size(info.st_size)


def _listing(site: Site, location: Location, path: str, own_size: int, raw: str) -> str:
    """The directory listing: header, the directory's own line, then entries pre-order."""
    listing = _Listing(site, written_relpath(raw))
    try:
        folder = location.open_dir()
    except OSError:
        folder = None
    if folder is not None:
        try:
            _collect(listing, folder, tuple(location.parts), "", 1)
        finally:
            close_quietly(folder)
    header = (
        f"Here're the files and directories up to 2 levels deep in {path}, "
        "excluding hidden items and node_modules:"
    )
    shown_size = own_size if listing.folder_size is None else listing.folder_size
    lines = [f"{format_size(shown_size)}\t{path}"]
    lines.extend(f"{size}\t{path}/{relative}" for size, relative in listing.collected)
    return f"{header}\n" + "\n".join(lines)


def _collect(
    listing: _Listing, folder: int, parts: tuple[str, ...], relative: str, depth: int
) -> None:
    """Append (size, relative path) for the visible children of `folder`, one level further."""
    try:
        names = sorted(entries(folder))
    except OSError:
        return
    for name in names:
        if name.startswith(".") or name == SKIPPED_DIRECTORY:
            continue
        child_relative = f"{relative}/{name}" if relative else name
        child = _open_child(listing.site, folder, (*parts, name))
        if child is None:
            continue
        info, child_fd, child_parts = child
        try:
            if listing.hidden(child_relative, child_parts):
                continue
            if child_fd is not None:
                listing.collected.append((listing.size(info), f"{child_relative}/"))
                if depth < 2:
                    _collect(listing, child_fd, child_parts, child_relative, depth + 1)
            elif stat.S_ISREG(info.st_mode):
                listing.collected.append((listing.size(info), child_relative))
        finally:
            if child_fd is not None:
                close_quietly(child_fd)


def _open_child(
    site: Site, folder: int, parts: tuple[str, ...]
) -> tuple[os.stat_result, int | None, tuple[str, ...]] | None:
    """What one listing entry shows: its stat, a descriptor if it is a folder, its real parts.

    A link is resolved from the root on descriptors: one that leads out of the store, into
    memtui's folder, nowhere or round in a loop is skipped (None).
    """
    info = entry_lstat(folder, parts[-1])
    if info is None:
        return None
    if stat.S_ISLNK(info.st_mode):
        return _open_link_target(site, parts)
    if not stat.S_ISDIR(info.st_mode):
        return info, None, parts
    try:
        return info, open_child_dir(folder, parts[-1]), parts
    except OSError:
        return None


def _open_link_target(
    site: Site, parts: tuple[str, ...]
) -> tuple[os.stat_result, int | None, tuple[str, ...]] | None:
    """The stat (and folder descriptor) of an in-store link's target, or None to skip it."""
    try:
        with site.root.locate(parts) as target:
            if target.looped or target.parts[:1] == [RESERVED_NAME]:
                return None
            info = target.lstat()
            if info is None or stat.S_ISLNK(info.st_mode):
                return None
            if not stat.S_ISDIR(info.st_mode):
                return info, None, tuple(target.parts)
            return info, target.open_dir(), tuple(target.parts)
    except (OutsideStore, OSError):
        return None


def select_lines(lines: list[str], view_range: Any) -> tuple[int, list[str]] | None:
    """The SDK's view_range rule: (first line number, shown lines), or None where the SDK crashes.

    A falsy value or one whose length is not 2 shows every line; `[a, b]` shows the slice
    `lines[max(1, a) - 1 : b]` (`b == -1`: to the end). A value the tool's schema does not
    accept is applied as sent, exactly as the SDK applies it.
    """
    try:
        if not view_range or len(view_range) != 2:
            return 1, lines
        start = max(1, view_range[0]) - 1
        end = len(lines) if view_range[1] == -1 else view_range[1]
        return start + 1, lines[start:end]
    except Exception:
        return None


def _view_file(location: Location, path: str, view_range: Any, limit: int) -> CommandOutcome:
    """Show a file's lines, optionally a `[start, end]` slice of them, with numbers."""
    data = read_bytes(location, path, limit)
    if isinstance(data, CommandOutcome):
        return data
    text = decoded(data, path)
    if isinstance(text, CommandOutcome):
        return text
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        return error(f"File {path} exceeds maximum line limit of 999,999 lines.")
    selection = select_lines(lines, view_range)
    if selection is None:
        return error("Invalid input for view: `view_range` must be a list of two integers")
    first, lines = selection
    shown = success(file_view_text(path, lines, first))
    return replace(shown, read=ReadSource(data, digest(data), first, first + len(lines) - 1))


def file_view_text(path: str, lines: list[str], first: int = 1) -> str:
    """What `view` shows of a file's `lines`, numbered from `first` (also the app's raw view of
    a huge file's first lines)."""
    return f"Here's the content of {path} with line numbers:\n" + numbered_lines(lines, first)
