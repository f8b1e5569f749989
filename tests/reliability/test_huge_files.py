"""A huge or sparse file costs what the cap says in the core: hashed in chunks, never kept whole.

Start-up recovery, `record_external`, the before-state of a delete and `view` of a file over
`max_file_size` (10 MiB by default) never hold the file in memory and never store it in the
history; an event whose content was not kept says so (`content:too-large`), and undoing it is
refused with one line. The normal suite uses a 64 MiB sparse file, the slow step 1 GiB.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore

MIB = 1024 * 1024
PEAK = (
    "def peak_mib():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            return int(line.split()[1]) / 1024\n"
)
"""The process's own peak RSS (VmHWM: unlike ru_maxrss, not inherited from a big parent)."""
PROBE = (
    PEAK
    + r"""
import json, sys, time
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
started = time.perf_counter()
store = MemoryStore(sys.argv[1], actor="agent:probe", settings=Settings())
report = store.recovery
view = store.view("/memories/huge.md")
deleted = store.delete("/memories/huge.md")
undo = store.with_actor("human:probe").revert(deleted.event_id)
store.close()
print(json.dumps({
    "seconds": time.perf_counter() - started,
    "max_rss_mib": peak_mib(),
    "external": report.external_paths,
    "view": view.content,
    "deleted": deleted.content,
    "undo": [undo.content, undo.is_error],
}))
"""
)


def baseline_rss() -> float:
    """Peak RSS (MiB) of the same probe's imports and an empty store, for comparison."""
    code = PEAK + (
        "import sys\nfrom memtui.core.store import MemoryStore\n"
        "from memtui.core.config import Settings\n"
        "s = MemoryStore(sys.argv[1], actor='agent:p', settings=Settings())\ns.recovery\n"
        "print(peak_mib())\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run([sys.executable, "-c", code, empty], capture_output=True, check=True)
    return float(done.stdout)


def history_bytes(root: Path) -> int:
    """Bytes of the history database and its WAL."""
    folder = root / ".memtui"
    return sum(
        (folder / name).stat().st_size
        for name in ("history.db", "history.db-wal")
        if (folder / name).exists()
    )


def run_probe(root: Path, size: int) -> dict[str, object]:
    """Make a sparse file of `size` bytes in the store, then recover, view, delete and undo."""
    with open(root / "huge.md", "wb") as handle:
        handle.truncate(size)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)],
        capture_output=True,
        env={**os.environ, "MEMTUI_CONFIG_FILE": os.devnull},
        timeout=600,
    )
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()[-2000:]
    return dict(json.loads(done.stdout))


def check_huge(tmp_path: Path, size: int) -> dict[str, object]:
    """Every promise about one sparse file of `size` bytes; the probe's figures."""
    root = tmp_path / "store"
    store = MemoryStore(root, actor="agent:t", settings=Settings())
    store.create("/memories/small.md", "small\n")
    store.close()
    before = history_bytes(root)
    figures = run_probe(root, size)
    growth = history_bytes(root) - before
    figures["history_growth"] = growth
    shown = f"{size // MIB}M" if size < 1024 * MIB else f"{size // (1024 * MIB)}G"
    assert figures["external"] == ["/memories/huge.md"]
    assert figures["view"] == (
        f"File /memories/huge.md is {shown} ({size} bytes), over the maximum file size of 10M "
        "(10485760 bytes); memtui does not read files that large"
    )
    assert figures["deleted"] == "Successfully deleted /memories/huge.md"
    undo = figures["undo"]
    assert isinstance(undo, list) and undo[1] is True
    assert str(undo[0]).startswith("Cannot revert event ")
    assert str(undo[0]).endswith(
        "is not in the history (memtui keeps no copy of a file over the maximum file size)"
    )
    assert not (root / "huge.md").exists()
    assert growth < 256 * 1024, growth
    assert float(str(figures["max_rss_mib"])) < baseline_rss() + 64, figures
    history = MemoryStore(root, actor="agent:t", settings=Settings()).history
    flagged = [event.command for event in history.events(newest_first=False) if event.flags]
    assert flagged == ["external", "delete"]
    assert all(
        "content:too-large" in event.flags
        for event in history.events()
        if event.command in ("external", "delete")
    )
    return figures


def test_a_64_mib_sparse_file_is_hashed_never_kept(tmp_path: Path) -> None:
    print(check_huge(tmp_path, 64 * MIB))


@pytest.mark.slow
def test_a_1_gib_sparse_file_is_hashed_never_kept(tmp_path: Path) -> None:
    figures = check_huge(tmp_path, 1024 * MIB)
    print(
        f"1 GiB sparse file: recovery + view + delete + undo {figures['seconds']:.1f} s, "
        f"peak RSS {figures['max_rss_mib']:.0f} MiB (empty store: {baseline_rss():.0f} MiB), "
        f"history grew {figures['history_growth']} bytes"
    )
