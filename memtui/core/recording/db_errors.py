"""Why SQLite could not use one of memtui's databases, in one line that names the cause.

SQLite reports a full disk that stops it growing its shared-memory file as `disk I/O error`, a
`-wal` or `-shm` file that is a symbolic link (which it refuses to open) as `unable to open
database file`, and a `-shm` that is a folder as a read-only database; the line says which, with
SQLite's own words after it.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

SQLITE_READONLY = 8
SQLITE_IOERR = 10
SQLITE_CANTOPEN = 14
FULL_BELOW = 1 << 20
"""Free bytes under which a filesystem counts as full when SQLite fails to write on it."""
COMPANIONS = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database."""


def sqlite_words(error: BaseException) -> str:
    """SQLite's message: its first line, or the exception's name."""
    text = str(error).strip().split("\n", 1)[0]
    return text or type(error).__name__


def explain(error: sqlite3.Error, database: Path) -> str:
    """One line on why `database` could not be used: the cause when it can be named, then
    SQLite's words."""
    words = sqlite_words(error)
    primary = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
    cantopen = primary == SQLITE_CANTOPEN or words == "unable to open database file"
    if cantopen or primary == SQLITE_READONLY:
        companion = odd_companion(database)
        if companion is not None:
            return f"{companion} (SQLite: {words})"
    io_failed = cantopen or primary == SQLITE_IOERR or words == "disk I/O error"
    if io_failed and disk_full(database.parent):
        return f"the disk is full (SQLite: {words})"
    return words


def odd_companion(database: Path) -> str | None:
    """What is wrong with a `-wal`, `-shm` or `-journal` file beside `database`, or None."""
    for suffix in COMPANIONS:
        companion = database.with_name(database.name + suffix)
        try:
            info = companion.lstat()
        except OSError:
            continue
        if stat.S_ISLNK(info.st_mode):
            return f"{companion.name} is a symbolic link, which SQLite will not open: remove it"
        if not stat.S_ISREG(info.st_mode):
            return f"{companion.name} is not a regular file, which SQLite cannot use: remove it"
    return None


def disk_full(folder: Path) -> bool:
    """True if the filesystem holding `folder` has (nearly) no space or no inodes left."""
    try:
        usage = os.statvfs(folder)
    except OSError:
        return False
    no_inodes = usage.f_files > 0 and usage.f_favail == 0
    return usage.f_bavail * usage.f_frsize < FULL_BELOW or no_inodes
