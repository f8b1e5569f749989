"""Pickle files tagged with HMAC-SHA256 under a per-user key kept outside every store."""

from __future__ import annotations

import contextlib
import hmac
import io
import os
import pickle
import secrets
import stat
import tempfile
from io import BufferedReader
from pathlib import Path
from typing import IO, Any

from memtui.core.regular import open_regular

KEY_BYTES = 32
MAGIC = b"memtui-sealed-1\n"
STAMP_BYTES = 32
NONCE_BYTES = 16
HEADER_BYTES = len(MAGIC) + STAMP_BYTES + NONCE_BYTES
CHUNK = 1 << 20
"""Payload bytes per tagged chunk; every chunk but the last is full, the last is shorter (maybe empty)."""
TAG_BYTES = 32
DATA_GLOBALS = frozenset({("array", "array"), ("array", "_array_reconstructor")})
"""The only classes or functions a sealed payload may name: caches hold plain data and arrays."""


class SealError(Exception):
    """A sealed file is not one this user's memtui wrote with the current code."""


def key_path() -> Path | None:
    """Where the sealing key lives: `$XDG_CACHE_HOME/memtui/cache-key`; None without a home."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        try:
            base = str(Path.home() / ".cache")
        except RuntimeError:
            return None
    return Path(base) / "memtui" / "cache-key"


def _read_key(path: Path) -> bytes | None:
    """The key stored at `path`, or None when it is missing, malformed or readable by others."""
    try:
        with open(path, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            data = handle.read(KEY_BYTES + 1)
    except OSError:
        return None
    if len(data) != KEY_BYTES or not stat.S_ISREG(mode) or mode & 0o077:
        return None
    return data


def load_key() -> bytes | None:
    """The user's sealing key, or None when there is none yet (nothing sealed can be trusted)."""
    path = key_path()
    return _read_key(path) if path is not None else None


def ensure_key() -> bytes | None:
    """The user's sealing key, created (mode 0600, folder 0700) when missing; None if impossible."""
    path = key_path()
    if path is None:
        return None
    key = _read_key(path)
    if key is not None:
        return key
    tmp_name = ""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".cache-key-", dir=path.parent)
        key = secrets.token_bytes(KEY_BYTES)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp_name, path)
        except FileExistsError:
            existing = _read_key(path)
            if existing is not None:
                return existing
            os.replace(tmp_name, path)
        except OSError:
            os.replace(tmp_name, path)
        return key
    except OSError:
        return None
    finally:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)


def _chunk_mac(key: bytes, header: bytes, name: str) -> Any:
    """An HMAC primed with the file's header and payload name; copy it per chunk."""
    mac = hmac.new(key, digestmod="sha256")
    mac.update(header)
    mac.update(name.encode("utf-8") + b"\0")
    return mac


def _tag(primed: Any, index: int, data: bytes | bytearray | memoryview) -> bytes:
    """The tag of chunk number `index` holding `data`."""
    mac = primed.copy()
    mac.update(index.to_bytes(8, "big"))
    mac.update(data)
    return bytes(mac.digest())


class _SealingWriter:
    """A write-only stream that cuts what it is given into chunks and writes each with its tag."""

    def __init__(self, handle: IO[bytes], primed: Any) -> None:
        """Write sealed chunks to `handle` (positioned after the header)."""
        self._handle = handle
        self._primed = primed
        self._pending = bytearray()
        self._index = 0

    def _emit(self, data: bytes | bytearray | memoryview) -> None:
        """Write one chunk and its tag."""
        self._handle.write(data)
        self._handle.write(_tag(self._primed, self._index, data))
        self._index += 1

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Take `data` (as `pickle.dump` hands it over); returns its length."""
        view = memoryview(data).cast("B")
        size = len(view)
        if self._pending:
            take = min(CHUNK - len(self._pending), size)
            self._pending += view[:take]
            view = view[take:]
            if len(self._pending) < CHUNK:
                return size
            self._emit(self._pending)
            self._pending = bytearray()
        while len(view) >= CHUNK:
            self._emit(view[:CHUNK])
            view = view[CHUNK:]
        self._pending += view
        return size

    def close(self) -> None:
        """Write the last, short chunk (empty when the data filled every chunk)."""
        self._emit(self._pending)
        self._pending = bytearray()


class _UnsealingReader:
    """A read-only stream of a sealed file's payload; a chunk's bytes are handed out once its tag checked."""

    def __init__(self, handle: BufferedReader, primed: Any) -> None:
        """Read sealed chunks from `handle` (positioned after the header)."""
        self._handle = handle
        self._primed = primed
        self._buffer = bytearray(CHUNK + TAG_BYTES)
        self._chunk = memoryview(b"")
        self._pos = 0
        self._index = 0
        self._last_seen = False

    def _next_chunk(self) -> bool:
        """Load and check the next chunk; False after the last one."""
        if self._last_seen:
            return False
        raw = memoryview(self._buffer)[: self._fill()]
        if len(raw) < TAG_BYTES:
            raise SealError("sealed file is truncated")
        data = raw[:-TAG_BYTES]
        if not hmac.compare_digest(raw[-TAG_BYTES:], _tag(self._primed, self._index, data)):
            raise SealError("sealed chunk does not match its tag")
        self._index += 1
        self._last_seen = len(data) < CHUNK
        self._chunk, self._pos = data, 0
        return True

    def _fill(self) -> int:
        """Read the next chunk and its tag into the (reused) buffer; how many bytes came."""
        view = memoryview(self._buffer)
        filled = 0
        while filled < len(view):
            count = self._handle.readinto(view[filled:])
            if not count:
                break
            filled += count
        return filled

    def read(self, size: int = -1) -> bytes:
        """Up to `size` checked bytes (all the rest when `size` is negative)."""
        parts: list[bytes] = []
        wanted = size if size >= 0 else -1
        while wanted != 0:
            if self._pos >= len(self._chunk) and not self._next_chunk():
                break
            end = len(self._chunk) if wanted < 0 else min(len(self._chunk), self._pos + wanted)
            parts.append(bytes(self._chunk[self._pos : end]))
            if wanted > 0:
                wanted -= end - self._pos
            self._pos = end
        return b"".join(parts)

    def readline(self) -> bytes:
        """Checked bytes up to and including the next newline."""
        parts: list[bytes] = []
        while True:
            if self._pos >= len(self._chunk) and not self._next_chunk():
                break
            rest = bytes(self._chunk[self._pos :])
            newline = rest.find(b"\n")
            if newline >= 0:
                parts.append(rest[: newline + 1])
                self._pos += newline + 1
                break
            parts.append(rest)
            self._pos = len(self._chunk)
        return b"".join(parts)

    def finish(self) -> None:
        """Check that the payload ended exactly at the last chunk and nothing follows it.

        A payload that fills its last full chunk is followed by an empty last chunk, read here.
        """
        if self._pos < len(self._chunk) or (self._next_chunk() and len(self._chunk)):
            raise SealError("sealed file holds more than its payload")
        if self._handle.read(1):
            raise SealError("sealed file has bytes after its last chunk")


class _DataUnpickler(pickle.Unpickler):
    """An unpickler that builds plain data and arrays, and refuses every other class or function."""

    def find_class(self, module: str, name: str) -> Any:
        """The class or function `module.name` when it is in DATA_GLOBALS."""
        if (module, name) not in DATA_GLOBALS:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a sealed file")
        return super().find_class(module, name)


def loads_data(data: bytes) -> Any:
    """Unpickle `data` from a sealed payload (a nested blob) with the same data-only rules."""
    return _DataUnpickler(io.BytesIO(data)).load()


def dump(path: Path, name: str, stamp: bytes, payload: Any) -> bool:
    """Seal and pickle `payload` to `path` atomically (temp file + rename); False on failure."""
    key = ensure_key()
    if key is None:
        return False
    header = MAGIC + stamp + secrets.token_bytes(NONCE_BYTES)
    tmp_name = ""
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(header)
            writer = _SealingWriter(handle, _chunk_mac(key, header, name))
            pickle.dump(payload, writer, protocol=pickle.HIGHEST_PROTOCOL)
            writer.close()
        os.replace(tmp_name, path)
        return True
    except OSError:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        return False


def load(path: Path, name: str, stamp: bytes) -> Any:
    """The payload `dump` sealed at `path` as `name` with `stamp`; SealError if it is not that."""
    key = load_key()
    if key is None:
        raise SealError("no sealing key")
    try:
        with open_regular(path) as (handle, _info):
            header = handle.read(HEADER_BYTES)
            if len(header) != HEADER_BYTES or not header.startswith(MAGIC):
                raise SealError("not a sealed file")
            if not hmac.compare_digest(header[len(MAGIC) : len(MAGIC) + STAMP_BYTES], stamp):
                raise SealError("sealed by other code")
            reader = _UnsealingReader(handle, _chunk_mac(key, header, name))
            payload = _DataUnpickler(reader).load()
            reader.finish()
            return payload
    except OSError as error:
        raise SealError(f"cannot read: {error}") from error
