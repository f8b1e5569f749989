"""A store whose folder cannot hold memtui's history (a full disk, a read-only folder) opens
read-only: reads work, every change is refused in one line, nothing is written or raised."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.result import REFUSED
from memtui.core.store import MemoryStore


@pytest.mark.parametrize(
    ("code", "reason"),
    [(errno.ENOSPC, "no space left on device"), (errno.EROFS, "read-only file system")],
)
def test_a_folder_that_cannot_hold_the_history_opens_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, reason: str
) -> None:
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    real_mkdir = Path.mkdir

    def failing_mkdir(self: Path, *args: object, **kwargs: object) -> None:
        if self.name == ".memtui":
            raise OSError(code, os.strerror(code), str(self))
        real_mkdir(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "mkdir", failing_mkdir)
    store = MemoryStore(tmp_path, actor="human:ann", settings=Settings())
    assert store.read_only == reason
    assert store.read("/memories/a.md")[0] == "# A\n"
    assert not store.view("/memories/a.md").is_error
    assert store.history.events() == []
    assert store.recovery is not None and store.recovery.unrecorded == reason
    for result in (
        store.create("/memories/b.md", "b\n"),
        store.write("/memories/a.md", "x\n", None),
        store.with_actor("agent:claude").str_replace("/memories/a.md", "A", "B"),
    ):
        assert result.is_error and result.kind == REFUSED
        assert result.content.endswith(
            f": the memory folder cannot be written ({reason}); nothing changed"
        )
    assert store.record_external(["a.md"]) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "# A\n"
