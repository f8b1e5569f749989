"""Cross-process mutation lock: `fcntl.flock` on `<root>/.memtui/lock` serialises every change."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from memtui.core.resolving.fd_paths import StoreRoot, close_quietly, open_child_dir

META_DIR_NAME = ".memtui"
POLL_SECONDS = 0.05
"""How often a lock held elsewhere is tried again while waiting with a time limit or a notice."""
NOTICE_AFTER = 0.3
"""Seconds of waiting for the lock before the caller's `waiting` notice is first called."""
NOTICE_EVERY = 5.0
"""Seconds between later calls of the `waiting` notice while the wait goes on."""


class LockBusy(TimeoutError):
    """Another process (or thread) held the store's lock for longer than the caller would wait."""

    def __init__(self, waited: float) -> None:
        """Keep how many seconds were waited."""
        super().__init__(f"another process held the store's lock for {waited:.0f} s")
        self.waited = waited


class UnsafeMetaDir(OSError):
    """`<root>/.memtui` is a symlink or not a folder, so memtui would write outside the store."""


def meta_dir(root: Path, *, create: bool = True) -> Path:
    """`<root>/.memtui`, created with mode 0700 on first use; a symlink or a file there is refused.

    With `create=False` a missing folder is returned as it is (its path), not made.
    """
    path = root / META_DIR_NAME
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        if not create:
            return path
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        raise UnsafeMetaDir(
            f"{path} is a symbolic link; memtui keeps its history only in a real folder "
            "inside the store"
        )
    if not stat.S_ISDIR(mode):
        raise UnsafeMetaDir(
            f"{path} is not a folder; memtui keeps its history in a folder of that name"
        )
    return path


class MutationLock:
    """An exclusive lock shared by every process (flock) and every thread (a mutex) of one store."""

    def __init__(self, root: Path, name: str = "lock") -> None:
        """Prepare the lock `name` of `root` (`lock` serialises changes); the lock file is opened
        lazily and kept open."""
        self.path = root / META_DIR_NAME / name
        self._root = root
        self._fd: int | None = None
        self._mutex = threading.RLock()
        self._depth = 0

    def _open(self) -> int:
        """Open (creating) the lock file once; flock locks belong to this descriptor.

        `.memtui` is opened from the root's descriptor without following a link, and the lock
        file relative to it, so a folder swapped for a link meanwhile is refused, not followed.
        """
        if self._fd is None:
            meta_dir(self._root)
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            with StoreRoot(self._root) as root:
                try:
                    meta = open_child_dir(root.fd, META_DIR_NAME)
                except OSError as error:
                    if error.errno not in (errno.ELOOP, errno.ENOTDIR):
                        raise
                    raise UnsafeMetaDir(
                        f"{self.path.parent} is a symbolic link; memtui keeps its history only "
                        "in a real folder inside the store"
                    ) from error
                try:
                    self._fd = os.open(self.path.name, flags, 0o600, dir_fd=meta)
                except OSError as error:
                    if error.errno != errno.ELOOP:
                        raise
                    raise UnsafeMetaDir(
                        f"{self.path} is a symbolic link; memtui locks only a real file inside "
                        "the store"
                    ) from error
                finally:
                    close_quietly(meta)
        return self._fd

    @contextmanager
    def hold(
        self, timeout: float | None = None, waiting: Callable[[float], object] | None = None
    ) -> Iterator[None]:
        """Hold the lock for the duration of the block; re-entrant within one thread.

        Without `timeout` it waits as long as it takes. With one it raises LockBusy (nothing
        held) once `timeout` seconds pass. `waiting(seconds waited)` is called if the lock is
        still not had after a short moment, and again every few seconds, so a caller can say
        it is waiting.
        """
        if timeout is None and waiting is None:
            self._mutex.acquire()
            try:
                if self._depth == 0:
                    fcntl.flock(self._open(), fcntl.LOCK_EX)
            except BaseException:
                self._mutex.release()
                raise
        else:
            self._acquire_patiently(timeout, waiting)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            try:
                if self._depth == 0:
                    fcntl.flock(self._open(), fcntl.LOCK_UN)
            finally:
                self._mutex.release()

    def _acquire_patiently(
        self, timeout: float | None, waiting: Callable[[float], object] | None
    ) -> None:
        """Take the thread mutex and (at depth 0) the file lock without blocking, trying again
        every `POLL_SECONDS` until `timeout`; says that it waits, now and then."""
        started = time.monotonic()
        next_notice = NOTICE_AFTER
        while not self._try_acquire():
            waited = time.monotonic() - started
            if timeout is not None and waited >= timeout:
                raise LockBusy(waited)
            if waiting is not None and waited >= next_notice:
                next_notice = waited + NOTICE_EVERY
                waiting(waited)
            time.sleep(POLL_SECONDS)

    def _try_acquire(self) -> bool:
        """Take the mutex and (at depth 0) the file lock if both are free now; else hold neither."""
        if not self._mutex.acquire(blocking=False):
            return False
        if self._depth > 0:
            return True
        try:
            fcntl.flock(self._open(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._mutex.release()
            return False
        except BaseException:
            self._mutex.release()
            raise
        return True

    def fileno(self) -> int:
        """The lock file's descriptor (a child process given it holds the lock until it ends)."""
        return self._open()

    def close(self) -> None:
        """Close the lock file descriptor."""
        with self._mutex:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
