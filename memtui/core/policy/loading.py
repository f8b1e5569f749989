"""Reading a store's `.memtui/policy.toml` on descriptors, kept in memory until the file changes.

A store without the file has the empty policy (every agent may write). A file that cannot be
used (not TOML, a wrong key or value, a link, too big) gives a policy holding only the problem,
so agent commands are refused until a person fixes it; it never falls back to `write`.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
from pathlib import Path

from memtui.core.policy.rules import Policy, PolicyProblem, policy_from_data
from memtui.core.resolving.fd_paths import StoreRoot, close_quietly, open_child_dir
from memtui.core.resolving.lock import META_DIR_NAME
from memtui.core.resolving.regular import read_regular

POLICY_NAME = "policy.toml"
POLICY_SHOWN = f"{META_DIR_NAME}/{POLICY_NAME}"
"""The policy file's path inside the store, as messages name it."""
MAX_POLICY_BYTES = 1 << 20
"""The largest policy file read."""
EMPTY = Policy()

_Signature = tuple[int, int, int, int, int]
_cache: dict[str, tuple[_Signature, Policy]] = {}
_guard = threading.Lock()


def policy_file(root: str | os.PathLike[str]) -> Path:
    """Where a store's policy file is."""
    return Path(root) / META_DIR_NAME / POLICY_NAME


def _signature(info: os.stat_result) -> _Signature:
    """What tells one version of the file from another without reading it."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def parse_policy(data: bytes) -> Policy:
    """The policy in a file's bytes (the problem in it, if it cannot be used)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Policy(problem=f"{POLICY_SHOWN} is not UTF-8 text")
    import tomllib

    try:
        parsed = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        return Policy(problem=f"{POLICY_SHOWN} is not valid TOML: {error}")
    try:
        return policy_from_data(parsed)
    except PolicyProblem as problem:
        return Policy(problem=f"{POLICY_SHOWN}: {problem}")


def load_policy(root: str | os.PathLike[str]) -> Policy:
    """The store's policy as its file says now (read again only when the file changed)."""
    try:
        with StoreRoot(root) as store_root:
            key = store_root.real
            meta = open_child_dir(store_root.fd, META_DIR_NAME)
            try:
                return _load(key, meta)
            finally:
                close_quietly(meta)
    except FileNotFoundError:
        return EMPTY
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            return Policy(problem=f"{META_DIR_NAME} is not a real folder, so {POLICY_SHOWN} is")
        return Policy(problem=f"{POLICY_SHOWN} cannot be read: {error.strerror or error}")


def _load(key: str, meta: int) -> Policy:
    """The policy file in the open `.memtui` folder `meta` (cached under `key`)."""
    info = os.stat(POLICY_NAME, dir_fd=meta, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        return Policy(problem=f"{POLICY_SHOWN} is a symbolic link; memtui reads only a real file")
    if not stat.S_ISREG(info.st_mode):
        return Policy(problem=f"{POLICY_SHOWN} is not a regular file")
    with _guard:
        cached = _cache.get(key)
    if cached is not None and cached[0] == _signature(info):
        return cached[1]
    data, read_info = read_regular(POLICY_NAME, dir_fd=meta, limit=MAX_POLICY_BYTES + 1)
    if len(data) > MAX_POLICY_BYTES:
        return Policy(problem=f"{POLICY_SHOWN} is over {MAX_POLICY_BYTES} bytes")
    policy = parse_policy(data)
    with _guard:
        _cache[key] = (_signature(read_info), policy)
    return policy
