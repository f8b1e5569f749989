"""A warm load (the index on disk, updated for what changed) answers as a cold load does, and an
index updated path by path answers as one built from scratch."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.notes.index import NoteIndex
from memtui.notes.scan import scan_files
from tests.notes.reads import count_reads

FOLDERS = ("", "a/", "a/b/", "A/")
NAMES = ("alpha", "Alpha", "beta", "gamma_ray", "gamma-ray", "Delta", "e")
PATHS = tuple(folder + name + ".md" for folder in FOLDERS for name in NAMES)
TITLES = ("Alpha", "alpha", "Beta", "Gamma Ray", "gamma_ray", "a/beta", "Delta", "E", "shared")
PERMALINKS = ("alpha", "a/beta", "shared", "gamma-ray", "Delta", "a/b/e")
TARGETS = (
    *TITLES,
    *PERMALINKS,
    "alpha.md",
    "a/beta",
    "A/alpha",
    "GAMMA_RAY",
    "a/gamma-ray",
    "A/Delta.md",
    "missing",
    "Ghost Note",
)
RELATIVE = ("./beta.md", "../alpha.md", "./b/e.md", "../../Delta.md", "./missing.md")
EXTRA_KEYS = (*TARGETS, *RELATIVE, "a/b/e", "A", "")


@st.composite
def note_texts(draw: st.DrawFn) -> str:
    """A note whose title, permalink and links collide often with other notes' keys."""
    lines = ["---", f"title: {draw(st.sampled_from(TITLES))}"]
    permalink = draw(st.none() | st.sampled_from(PERMALINKS))
    if permalink is not None:
        lines.append(f"permalink: {permalink}")
    if draw(st.booleans()):
        lines.append(f"type: {draw(st.sampled_from(('person', 'project')))}")
    lines += ["---", ""]
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            lines.append(f"- relates_to [[{draw(st.sampled_from(TARGETS))}]]")
        elif kind == 1:
            lines.append(f"See [[{draw(st.sampled_from(TARGETS))}]] here.")
        elif kind == 2:
            lines.append(f"Link [x]({draw(st.sampled_from(RELATIVE))}).")
        else:
            lines.append(
                f"- [{draw(st.sampled_from(('fact', 'idea')))}] point #t{draw(st.integers(0, 2))}"
            )
    return "\n".join(lines) + "\n"


OPERATION = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(PATHS), note_texts()),
    st.tuples(st.just("delete"), st.sampled_from(PATHS), st.just("")),
    st.tuples(st.just("rename"), st.sampled_from(PATHS), st.sampled_from(PATHS)),
)


class Store:
    """A folder of notes on disk, each write with its own mtime so every change is seen."""

    def __init__(self, root: Path) -> None:
        """An empty store at `root`."""
        self.root = root
        self.clock = 1_600_000_000 * 10**9

    def write(self, relpath: str, text: str) -> None:
        """Create or replace one note."""
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.clock += 1_000_000
        os.utime(path, ns=(self.clock, self.clock))

    def apply(self, operation: tuple[str, str, str]) -> None:
        """Write, delete or rename one note (deleting or renaming a missing note does nothing)."""
        what, relpath, arg = operation
        path = self.root / relpath
        if what == "write":
            self.write(relpath, arg)
        elif path.exists() and what == "delete":
            path.unlink()
        elif path.exists() and arg != relpath:
            target = self.root / arg
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)


def answers(index: NoteIndex, ordered: bool = True) -> dict[str, Any]:
    """Every public query of the index, for every note and every key the notes use."""
    paths = list(index.notes)
    targets = {r.target for p in paths for r, _ in index.outgoing(p)} | set(EXTRA_KEYS)
    return {
        "order": paths if ordered else sorted(paths),
        "titles": index.titles(),
        "title": {p: index.title(p) for p in (*paths, "missing.md")},
        "file_stats": index.file_stats(),
        "notes": {p: index.notes[p] for p in paths},
        "texts": dict(index.texts),
        "problems": sorted(index.problems),
        "outgoing": {p: index.outgoing(p) for p in paths},
        "backlinks": {p: index.backlinks(p) for p in paths},
        "unresolved": index.unresolved(),
        "unresolved_sources": {t: sorted(users) for t, users in index.unresolved_sources()},
        "unresolved_targets": {p: index.unresolved_targets(p) for p in paths},
        "warnings": {p: index.warnings(p) for p in paths},
        "linked_notes": {p: index.linked_notes(p) for p in paths},
        "neighbourhood": {p: index.neighbourhood(p, 2) for p in paths},
        "orphans": index.orphans(),
        "hubs": index.hubs(limit=len(paths) + 1),
        "tags": index.tag_counts(),
        "categories": index.category_counts(),
        "types": index.type_counts(),
        "resolve": {
            (t, s): index.resolve(t, s) for t in sorted(targets) for s in (None, *PATHS[:8])
        },
    }


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    initial=st.lists(st.tuples(st.sampled_from(PATHS), note_texts()), max_size=12),
    rounds=st.lists(st.lists(OPERATION, min_size=1, max_size=5), min_size=1, max_size=5),
)
def test_warm_load_after_random_changes_answers_like_a_cold_load(
    initial: list[tuple[str, str]], rounds: list[list[tuple[str, str, str]]]
) -> None:
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        store = Store(Path(folder))
        for relpath, text in initial:
            store.write(relpath, text)
        before = NoteIndex.load(store.root).file_stats()
        live = NoteIndex.load(store.root, use_cache=False)
        read = count_reads(patch)
        for operations in rounds:
            touched: set[str] = set()
            for operation in operations:
                store.apply(operation)
                touched |= {operation[1], operation[2]} & set(PATHS)
            now = {f.relpath: (f.size, f.mtime_ns) for f in scan_files(store.root).files}
            read.clear()
            warm = NoteIndex.load(store.root)
            assert sorted(read) == sorted(p for p, stat in now.items() if before.get(p) != stat)
            before = now
            cold = NoteIndex.load(store.root, use_cache=False)
            expected = answers(cold)
            assert answers(warm) == expected
            live.update_paths(touched)
            assert answers(live, ordered=False) == answers(cold, ordered=False)
            for index in (warm, cold):
                index.close()
