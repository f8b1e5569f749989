"""A huge or sparse file costs what the cap says: search, export, stale and the MCP notes tools read
at most its first MiB, and the index grows by at most that much."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.notes.file_checks import LARGE_NOTE_BYTES
from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher

ROOT = Path(__file__).resolve().parents[2]
GIB = 1 << 30

PEAK = """
import contextlib, io, sys
from memtui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
with open("/proc/self/status") as status:
    print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")))
"""


def make_store(root: Path) -> Path:
    """Two hundred ordinary notes."""
    root.mkdir(parents=True)
    for i in range(200):
        (root / f"n{i:03}.md").write_text(
            f"# Note {i}\n\n- [fact] kiwi {i} ripens #fruit\n" + "filler words here\n" * 40,
            encoding="utf-8",
        )
    return root


def with_sparse_files(source: Path, target: Path) -> Path:
    """A copy of `source` plus a sparse 1 GiB note and a sparse 1 GiB text file."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".memtui"))
    for name in ("huge.md", "huge.txt"):
        with open(target / name, "wb") as handle:
            handle.write(b"# Huge\n\nkiwi at the start\n")
            handle.truncate(GIB)
    return target


def peak_kib(*args: str) -> int:
    """The peak resident memory (KiB) of a `memtui` process run with `args`."""
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def index_bytes(root: Path) -> int:
    """The index's size on disk with its journal."""
    folder = root / ".memtui"
    return sum((folder / name).stat().st_size for name in os.listdir(folder) if "index" in name)


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A store, and the same store with sparse 1 GiB files."""
    base = tmp_path_factory.mktemp("sparse")
    plain = make_store(base / "plain")
    return plain, with_sparse_files(plain, base / "sparse")


@pytest.mark.parametrize(
    "command",
    [["search", "{root}", "kiwi"], ["export", "{root}", "--warnings"], ["stale", "{root}"]],
    ids=["search", "export", "stale"],
)
def test_a_sparse_gigabyte_costs_at_most_the_cap(
    stores: tuple[Path, Path], command: list[str]
) -> None:
    plain, sparse = stores
    for root in stores:
        shutil.rmtree(root / ".memtui", ignore_errors=True)
    without = peak_kib(*(part.format(root=plain) for part in command))
    with_huge = peak_kib(*(part.format(root=sparse) for part in command))
    assert with_huge < 1.5 * without, (with_huge, without)


def test_the_index_grows_by_at_most_the_cap(stores: tuple[Path, Path]) -> None:
    plain, sparse = stores
    for root in stores:
        shutil.rmtree(root / ".memtui", ignore_errors=True)
        NoteIndex.load(root).close()
    assert index_bytes(sparse) - index_bytes(plain) <= LARGE_NOTE_BYTES


def test_search_and_the_mcp_tools_see_only_the_first_mib(stores: tuple[Path, Path]) -> None:
    from memtui.agents.notes_access import NotesAccess
    from memtui.core.store import MemoryStore
    from memtui.notes.workspace import Workspace

    _plain, sparse = stores
    index = NoteIndex.load(sparse)
    assert "huge.txt: binary file (a NUL byte at 26), skipped" in index.problems
    assert [w.split(";")[0] for w in index.warnings("huge.md")] == [
        "large note: 1,073,741,824 bytes, over 1 MiB",
        f"contains {LARGE_NOTE_BYTES - 26} NUL bytes",
    ]
    found = Searcher(index).search("kiwi", limit=300)
    assert ("huge.md", 3) in {(hit.path, hit.line) for hit in found}
    assert len(index.texts["huge.md"]) <= LARGE_NOTE_BYTES
    index.close()
    notes = NotesAccess(Workspace(MemoryStore(sparse, actor="agent:test")))
    assert "/memories/huge.md (huge)" in notes.search_text("kiwi", limit=300)
    assert notes.context_text("huge.md").startswith("# huge (/memories/huge.md)")
    assert "huge.md" in notes.activity_text("1d", limit=300)
