"""Before/after states of a path for the history: capture a file or folder, and restore one."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.atomic import DIR_MODE, FILE_MODE, TEMP_PREFIX, atomic_write, fsync_dir, make_dirs
from memtui.core.hashing import digest
from memtui.core.history import KIND_DIR, KIND_FILE, UNKNOWN_STAT, FileRecord, Manifest
from memtui.core.regular import NotRegularFile, read_regular

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


def stat_now(path: Path) -> Stat | None:
    """(size, mtime_ns, checked_ns) of the regular file at `path`, or None if there is none."""
    checked = time.time_ns()
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_size, info.st_mtime_ns, checked)


def capture(path: Path) -> State:
    """The current state of `path` (following a final symlink), with the blobs to restore it.

    Each file's stat is taken before its bytes are read, so a change racing the read shows up
    later as a stat that differs from the recorded one.
    """
    checked = time.time_ns()
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return MISSING
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            return MISSING
        raise
    if stat.S_ISREG(info.st_mode):
        try:
            data, info = read_regular(path, follow_symlinks=True)
        except NotRegularFile:
            return MISSING
        state = file_state(data)
        state.stats[""] = (info.st_size, info.st_mtime_ns, checked)
        return state
    if stat.S_ISDIR(info.st_mode):
        return _capture_dir(path, info.st_mode)
    return MISSING


def _note_mode(modes: dict[str, int], relative: str, st_mode: int, default: int) -> None:
    """Record the permission bits of `relative` if they differ from memtui's `default`."""
    mode = stat.S_IMODE(st_mode) & 0o777
    if mode != default:
        modes[relative] = mode


def _capture_dir(path: Path, st_mode: int) -> State:
    """A folder's manifest state: every subfolder, regular file and symlink below it.

    Temp files of in-flight or crashed atomic writes are not part of the folder's content.
    """
    dirs: list[str] = []
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    blobs: dict[str, bytes] = {}
    stats: dict[str, Stat] = {}
    modes: dict[str, int] = {}
    _note_mode(modes, "", st_mode, DIR_MODE)
    pending = [("", path)]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith(TEMP_PREFIX):
                    continue
                relative = prefix + entry.name
                if entry.is_symlink():
                    links[relative] = os.readlink(entry.path)
                elif entry.is_dir(follow_symlinks=False):
                    dirs.append(relative)
                    _note_mode(modes, relative, entry.stat(follow_symlinks=False).st_mode, DIR_MODE)
                    pending.append((relative + "/", Path(entry.path)))
                elif entry.is_file(follow_symlinks=False):
                    checked = time.time_ns()
                    try:
                        data, info = read_regular(entry.path)
                    except NotRegularFile:
                        continue
                    stats[relative] = (info.st_size, info.st_mtime_ns, checked)
                    _note_mode(modes, relative, info.st_mode, FILE_MODE)
                    key = digest(data)
                    files[relative] = key
                    blobs[key] = data
    manifest = Manifest(
        tuple(sorted(dirs)),
        dict(sorted(files.items())),
        dict(sorted(links.items())),
        dict(sorted(modes.items())),
    )
    encoded = manifest.to_bytes()
    key = digest(encoded)
    blobs[key] = encoded
    return State(KIND_DIR, key, blobs, stats)


def remove(path: Path) -> None:
    """Remove whatever is at `path` (file, link or folder tree); nothing there is fine."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        os.unlink(path)
    fsync_dir(path.parent)


def restore(
    path: Path, kind: str | None, key: str | None, blob: Callable[[str], bytes | None]
) -> None:
    """Make `path` hold the given state, replacing what is there; checks every blob first."""
    if kind == KIND_FILE:
        data = _need(blob, key)
        if os.path.isdir(path) and not os.path.islink(path):
            remove(path)
        make_dirs(path.parent)
        atomic_write(path, data)
        return
    if kind == KIND_DIR:
        manifest = Manifest.from_bytes(_need(blob, key))
        contents = {name: _need(blob, value) for name, value in manifest.files.items()}
        remove(path)
        make_dirs(path)
        for name in manifest.dirs:
            make_dirs(path / name)
        for name, data in contents.items():
            make_dirs((path / name).parent)
            atomic_write(path / name, data, manifest.modes.get(name, FILE_MODE))
        for name, target in manifest.links.items():
            make_dirs((path / name).parent)
            os.symlink(target, path / name)
        _restore_dir_modes(path, manifest)
        return
    remove(path)


def _restore_dir_modes(path: Path, manifest: Manifest) -> None:
    """Give restored folders their recorded modes once filled, deepest first, `path` last."""
    for name in sorted(manifest.dirs, key=lambda name: name.count("/"), reverse=True):
        if name in manifest.modes:
            os.chmod(path / name, manifest.modes[name])
    if "" in manifest.modes:
        os.chmod(path, manifest.modes[""])


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
        raise RestoreError(f"the content {str(key)[:12]} is not in the history")
    return data
