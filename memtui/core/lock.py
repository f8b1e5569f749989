"""Cross-process mutation lock: `fcntl.flock` on `<root>/.memtui/lock` serialises every change."""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

META_DIR_NAME = ".memtui"


def meta_dir(root: Path) -> Path:
    """`<root>/.memtui`, created with mode 0700 on first use."""
    path = root / META_DIR_NAME
    if not path.is_dir():
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


class MutationLock:
    """An exclusive lock shared by every process (flock) and every thread (a mutex) of one store."""

    def __init__(self, root: Path) -> None:
        """Prepare the lock for `root`; the lock file is opened lazily and kept open."""
        self.path = root / META_DIR_NAME / "lock"
        self._root = root
        self._fd: int | None = None
        self._mutex = threading.RLock()
        self._depth = 0

    def _open(self) -> int:
        """Open (creating) the lock file once; flock locks belong to this descriptor."""
        if self._fd is None:
            meta_dir(self._root)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        return self._fd

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lock for the duration of the block; re-entrant within one thread."""
        with self._mutex:
            if self._depth == 0:
                fcntl.flock(self._open(), fcntl.LOCK_EX)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fcntl.flock(self._open(), fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the lock file descriptor."""
        with self._mutex:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
