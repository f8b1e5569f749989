"""Before/after states of a path for the history: capture a file or folder, and restore one.

Both work on the descriptors of a resolved `Location`: a folder is walked and rebuilt by
descriptor with O_NOFOLLOW, so a link inside is recorded and restored as a link, never followed.
A file bigger than the keep limit is hashed in chunks and not kept (`State.unkept`).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from memtui.core.applying.atomic import FILE_MODE, TempArea, create_at, replace_at
from memtui.core.applying.site import DEFAULT_MAX_FILE_SIZE
from memtui.core.hashing import digest
from memtui.core.recording.blobs import KIND_DIR, KIND_FILE, Manifest
from memtui.core.recording.file_state import UNKNOWN_STAT, FileRecord
from memtui.core.resolving.fd_paths import (
    DIR_MODE,
    Location,
    chmod_fd,
    close_quietly,
    entries,
    entry_lstat,
    fsync_dir_fd,
    make_dir_at,
    open_child_dir,
    remove_tree_at,
)
from memtui.core.resolving.regular import NotRegularFile, read_limited

FLAG_NOT_KEPT = "content:too-large"
"""An event whose file content was over the maximum file size, hashed but not kept (no undo)."""
Stat = tuple[int, int, int]
"""(size, mtime_ns, checked_ns) of a file, taken before its bytes were read."""


class RestoreError(Exception):
    """A state cannot be restored (its content is not in the history, or the disk refused)."""


@dataclass(frozen=True)
class State:
    """What is at a path: a file (hash of its bytes), a folder (hash of its manifest) or nothing."""

    kind: str | None
    hash: str | None
    blobs: dict[str, bytes] = field(default_factory=dict, compare=False)
    """Every blob needed to restore this state: the file's bytes, or the manifest and its files."""
    stats: dict[str, Stat] = field(default_factory=dict, compare=False)
    """Each captured file's stat, by path relative to the captured path ("" for a file itself)."""
    unkept: bool = field(default=False, compare=False)
    """True if a file was over the keep limit: its hash is known, its bytes were not kept."""

    @property
    def pair(self) -> tuple[str | None, str | None]:
        """(kind, hash) as the history stores it."""
        return (self.kind, self.hash)


MISSING = State(None, None)


def file_state(data: bytes) -> State:
    """The state of a file holding `data`."""
    key = digest(data)
    return State(KIND_FILE, key, {key: data})


def file_rows(base: str, state: State) -> dict[str, FileRecord]:
    """The file_state rows a state leaves at virtual path `base` (each file of a folder).

    A file whose stat was not captured gets an unknown stat, so the next check hashes it.
    """
    unknown = (UNKNOWN_STAT, UNKNOWN_STAT, UNKNOWN_STAT)
    if state.kind == KIND_FILE and state.hash is not None:
        return {base: FileRecord(state.hash, *state.stats.get("", unknown))}
    if state.kind != KIND_DIR or state.hash is None or state.hash not in state.blobs:
        return {}
    manifest = Manifest.from_bytes(state.blobs[state.hash])
    return {
        f"{base}/{relative}": FileRecord(digest, *state.stats.get(relative, unknown))
        for relative, digest in manifest.files.items()
    }


def stat_now(location: Location) -> Stat | None:
    """(size, mtime_ns, checked_ns) of the regular file at `location`, or None if there is none."""
    checked = time.time_ns()
    try:
        info = location.lstat()
    except OSError:
        return None
    if info is None or not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, checked)


def put_whole(temps: TempArea, location: Location, data: bytes) -> State:
    """Replace (or create) the file at `location` with `data`, its missing folders made (0700),
    atomically; the state it leaves, with the file's stat. Raises OSError."""
    parent = location.make_parents(DIR_MODE)
    replace_at(temps, parent, location.name, data)
    written = file_state(data)
    written_stat = stat_now(location)
    if written_stat is not None:
        written.stats[""] = written_stat
    return written


def capture(location: Location, keep: int = DEFAULT_MAX_FILE_SIZE) -> State:
    """The current state of `location`, with the blobs to restore it (files up to `keep` bytes).

    A file that cannot be read raises OSError whose `filename` is its path below `location`
    (None for the location itself). Each file's stat is taken before its bytes are read, so a
    change racing the read shows up later as a stat that differs from the recorded one.
    """
    checked = time.time_ns()
    try:
        info = location.lstat()
    except OSError as problem:
        if problem.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            return MISSING
        raise
    if info is None:
        return MISSING
    if stat.S_ISREG(info.st_mode):
        parent = location.parent_fd()
        if parent is None:
            return MISSING
        try:
            return capture_file(parent, location.name, checked, keep) or MISSING
        except OSError as problem:
            problem.filename = None
            raise
    if stat.S_ISDIR(info.st_mode):
        folder = location.open_dir()
        try:
            return _capture_dir(folder, info.st_mode, keep)
        finally:
            close_quietly(folder)
    return MISSING


def capture_file(folder: int, name: str, checked: int, keep: int) -> State | None:
    """A file's state (its bytes kept up to `keep`; its stat with `checked`, the time taken just
    before it), or None if it is not a regular file now."""
    try:
        read = read_limited(folder, name, keep)
    except NotRegularFile:
        return None
    except OSError as problem:
        if problem.errno in (errno.ELOOP, errno.ENOENT):
            return None
        raise
    blobs = {} if read.data is None else {read.digest: read.data}
    stats = {"": (read.size, read.info.st_mtime_ns, checked)}
    return State(KIND_FILE, read.digest, blobs, stats, unkept=read.data is None)


def _note_mode(modes: dict[str, int], relative: str, st_mode: int, default: int) -> None:
    """Record the permission bits of `relative` if they differ from memtui's `default`."""
    mode = stat.S_IMODE(st_mode) & 0o777
    if mode != default:
        modes[relative] = mode


@dataclass
class _Folder:
    """What a folder walk collects for its manifest."""

    keep: int
    dirs: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    stats: dict[str, Stat] = field(default_factory=dict)
    modes: dict[str, int] = field(default_factory=dict)
    unkept: bool = False

    def walk(self, folder: int, prefix: str) -> None:
        """Collect every entry below `folder` (subfolders entered by descriptor, links read)."""
        for name in entries(folder):
            relative = prefix + name
            info = entry_lstat(folder, name)
            if info is None:
                continue
            if stat.S_ISLNK(info.st_mode):
                self.links[relative] = os.readlink(name, dir_fd=folder)
            elif stat.S_ISDIR(info.st_mode):
                self.dirs.append(relative)
                _note_mode(self.modes, relative, info.st_mode, DIR_MODE)
                child = open_child_dir(folder, name)
                try:
                    self.walk(child, relative + "/")
                finally:
                    close_quietly(child)
            elif stat.S_ISREG(info.st_mode):
                self.add_file(folder, name, relative, info.st_mode)

    def add_file(self, folder: int, name: str, relative: str, st_mode: int) -> None:
        """Hash one file (keeping its bytes up to the limit) and note its stat and mode."""
        try:
            state = capture_file(folder, name, time.time_ns(), self.keep)
        except OSError as problem:
            problem.filename = relative
            raise
        if state is None or state.hash is None:
            return
        size, mtime, checked = state.stats[""]
        self.stats[relative] = (size, mtime, checked)
        _note_mode(self.modes, relative, st_mode, FILE_MODE)
        self.files[relative] = state.hash
        self.blobs.update(state.blobs)
        self.unkept = self.unkept or state.unkept


def _capture_dir(folder: int, st_mode: int, keep: int) -> State:
    """A folder's manifest state: every subfolder, regular file and symlink below it."""
    collected = _Folder(keep)
    _note_mode(collected.modes, "", st_mode, DIR_MODE)
    collected.walk(folder, "")
    manifest = Manifest(
        tuple(sorted(collected.dirs)),
        dict(sorted(collected.files.items())),
        dict(sorted(collected.links.items())),
        dict(sorted(collected.modes.items())),
    )
    encoded = manifest.to_bytes()
    key = digest(encoded)
    collected.blobs[key] = encoded
    return State(KIND_DIR, key, collected.blobs, collected.stats, unkept=collected.unkept)


def remove(location: Location) -> None:
    """Remove whatever is at `location` (file, link or folder tree); nothing there is fine."""
    parent = location.parent_fd()
    if parent is None:
        return
    remove_tree_at(parent, location.name)
    fsync_dir_fd(parent)


def restore(
    location: Location,
    kind: str | None,
    key: str | None,
    blob: Callable[[str], bytes | None],
    temps: TempArea,
    *,
    replace: bool = True,
) -> None:
    """Make `location` hold the given state, replacing what is there; checks every blob first.

    Without `replace` (the location was checked empty), FileExistsError if anything is there
    now: what another process put there meanwhile is never replaced.
    """
    if kind == KIND_FILE:
        data = _need(blob, key)
        info = location.lstat() if replace else None
        if info is not None and stat.S_ISDIR(info.st_mode):
            remove(location)
        parent = location.make_parents(DIR_MODE)
        (replace_at if replace else create_at)(temps, parent, location.name, data)
        return
    if kind == KIND_DIR:
        manifest = Manifest.from_bytes(_need(blob, key))
        contents = {name: _need(blob, value) for name, value in manifest.files.items()}
        if replace:
            remove(location)
        parent = location.make_parents(DIR_MODE)
        top = make_dir_at(parent, location.name, DIR_MODE, exclusive=not replace)
        try:
            _fill_folder(top, manifest, contents, temps)
        finally:
            close_quietly(top)
        return
    if replace:
        remove(location)


def _fill_folder(top: int, manifest: Manifest, contents: dict[str, bytes], temps: TempArea) -> None:
    """Recreate a manifest's folders, files and links below the open folder `top`, then modes."""
    for name in sorted(manifest.dirs):
        close_quietly(_folder_below(top, name))
    for name, data in contents.items():
        folder_name, _, file_name = name.rpartition("/")
        folder = _folder_below(top, folder_name)
        try:
            replace_at(temps, folder, file_name, data, manifest.modes.get(name, FILE_MODE))
        finally:
            close_quietly(folder)
    for name, target in manifest.links.items():
        folder_name, _, link_name = name.rpartition("/")
        folder = _folder_below(top, folder_name)
        try:
            os.symlink(target, link_name, dir_fd=folder)
        finally:
            close_quietly(folder)
    for name in sorted(manifest.dirs, key=lambda name: name.count("/"), reverse=True):
        if name in manifest.modes:
            folder = _folder_below(top, name)
            try:
                chmod_fd(folder, manifest.modes[name])
            finally:
                close_quietly(folder)
    if "" in manifest.modes:
        chmod_fd(top, manifest.modes[""])


def _folder_below(top: int, relative: str) -> int:
    """A new descriptor of folder `relative` below `top`, each missing folder made (0700)."""
    current = os.dup(top)
    for name in relative.split("/") if relative else ():
        try:
            child = make_dir_at(current, name, DIR_MODE)
        finally:
            close_quietly(current)
        current = child
    return current


def same_state(
    state: State, kind: str | None, key: str | None, blob: Callable[[str], bytes | None]
) -> bool:
    """True if `state` is the recorded (kind, key); a folder's modes do not count."""
    if state.pair == (kind, key):
        return True
    if state.kind != KIND_DIR or kind != KIND_DIR or state.hash is None or key is None:
        return False
    recorded = blob(key)
    current = state.blobs.get(state.hash)
    if recorded is None or current is None:
        return False
    return Manifest.from_bytes(current).same_content(Manifest.from_bytes(recorded))


def _need(blob: Callable[[str], bytes | None], key: str | None) -> bytes:
    """The blob for `key`, or RestoreError if the history does not have it."""
    data = None if key is None else blob(key)
    if data is None:
        raise RestoreError(
            f"the content {str(key)[:12]} is not in the history (memtui keeps no copy of a file "
            "over the maximum file size)"
        )
    return data


def describe(state: State) -> str:
    """`missing`, `a file (abc123...)` or `a folder`, for conflict messages."""
    if state.kind is None:
        return "missing"
    if state.kind == KIND_DIR:
        return "a different folder"
    return f"a file at revision {(state.hash or '')[:12]}"
