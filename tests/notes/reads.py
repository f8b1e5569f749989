"""Counting which files the index reads: a spy on the one function every index read goes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.notes import parse_pool


def count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The relpaths the index reads from now on, in order (the list fills as it reads)."""
    read: list[str] = []
    real_read = parse_pool.read_store_head

    def counting_read(root: Path, relpath: str) -> object:
        read.append(relpath)
        return real_read(root, relpath)

    monkeypatch.setattr(parse_pool, "read_store_head", counting_read)
    return read
