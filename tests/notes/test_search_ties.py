"""Limited results are the first hits of the full ranking (ties by path, line), after any
updates."""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.notes.index import NoteIndex
from memtui.notes.search import Searcher

WORDS = ("api", "apis", "deploy", "deplay", "cache", "python", "pyhton", "render", "tool", "go")
QUERIES = ("api", "deploy", "cache api", "python tool", "render deploy api", "apis", "tol", "go")
SHORT_QUERIES = ("go", "ap", "a")
NAMES = ("a.md", "b.md", "m/c.md", "m/d.md", "z.md", "e.md", "m/a.md")

line = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
body = st.lists(
    st.one_of(line, line.map(lambda text: f"- [fact] {text}"), line.map(lambda t: f"- {t}")),
    min_size=1,
    max_size=5,
)
note = st.tuples(line, body).map(lambda parts: f"# {parts[0]}\n\n" + "\n".join(parts[1]) + "\n")
store = st.dictionaries(st.sampled_from(NAMES), note, min_size=1, max_size=len(NAMES))
change = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), note),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just("")),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
)


def write(root: Path, name: str, text: str) -> None:
    """Write a note, creating its folder."""
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def apply(root: Path, kind: str, name: str, arg: str) -> list[str]:
    """Make one change on disk; returns the paths it touched."""
    path = root / name
    if kind == "write":
        write(root, name, arg)
        return [name]
    if not path.exists():
        return []
    if kind == "delete":
        path.unlink()
        return [name]
    target = root / arg
    target.parent.mkdir(parents=True, exist_ok=True)
    path.replace(target)
    return [name, arg]


def assert_prefixes(searcher: Searcher, full: dict[str, list[object]]) -> None:
    """Every limited search is the start of the full ranking."""
    for query, hits in full.items():
        for limit in (1, 2, 3, 5):
            assert searcher.search(query, limit=limit) == hits[:limit], (query, limit)


def assert_capped_prefixes(searcher: Searcher, fresh: Searcher) -> None:
    """With hits per note capped, every limited search is the start of the full capped ranking,
    short queries too."""
    for query in (*QUERIES, *SHORT_QUERIES):
        for per_note in (1, 2):
            hits = fresh.search(query, limit=1000, per_note=per_note)
            counts = Counter(hit.path for hit in hits)
            assert all(number <= per_note for number in counts.values()), query
            for limit in (1, 2, 3, 5):
                limited = searcher.search(query, limit=limit, per_note=per_note)
                assert limited == hits[:limit], (query, limit, per_note)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(initial=store, changes=st.lists(change, max_size=6))
def test_limited_results_are_the_prefix_of_the_full_ranking(
    initial: dict[str, str], changes: list[tuple[str, str, str]]
) -> None:
    root = Path(tempfile.mkdtemp())
    try:
        for name, text in initial.items():
            write(root, name, text)
        index = NoteIndex.load(root, use_cache=False)
        searcher = Searcher(index)
        for kind, name, arg in changes:
            touched = apply(root, kind, name, arg)
            searcher.invalidate(index.update_paths(touched))
        fresh = Searcher(NoteIndex.load(root, use_cache=False))
        full = {query: fresh.search(query, limit=1000) for query in QUERIES}
        for query, hits in full.items():
            assert searcher.search(query, limit=1000) == hits, query
        assert_prefixes(fresh, full)
        assert_prefixes(searcher, full)
        assert_capped_prefixes(searcher, fresh)
    finally:
        shutil.rmtree(root)
