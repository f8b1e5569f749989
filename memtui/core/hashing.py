"""Content hashes: a file's revision is the sha256 hex digest of its bytes."""

from __future__ import annotations

import hashlib


def digest(data: bytes) -> str:
    """The sha256 hex digest of `data`, used as revision and blob key."""
    return hashlib.sha256(data).hexdigest()
