"""MemtuiStore(index=...) against InMemoryStore(index=...) over random operation sequences.

Both stores get the same deterministic embedding function. Every search with a query must give
the same items, in the same order, with the same scores, filters, limit and offset included;
puts honour `index=False` and per-put fields. The one documented difference of the store without
an index holds here too: items of different namespaces with equal scores come in sorted
namespace order (InMemoryStore: the order the namespaces were first used), so the reference's
ranking is put in that order before its page is taken, exactly as InMemoryStore takes a page.
A batch whose puts repeat a text makes InMemoryStore itself fail ("Number of embeddings ...
does not match"); such sequences are not compared.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from langgraph.store.base import GetOp, PutOp, SearchItem, SearchOp
from langgraph.store.memory import InMemoryStore

from memtui.agents.langgraph import MemtuiStore
from memtui.core.config import Settings
from tests.agents.test_langgraph_differential import (
    ALL,
    answered,
    check_folder,
    expected,
    filters,
    limits,
    offsets,
    outcome,
)

WORDS = {
    "tea": (1, 0, 0, 0),
    "coffee": (0, 1, 0, 0),
    "lisbon": (0, 0, 1, 0),
    "café": (1, 1, 0, 1),
    "milk": (0, 0, 0, 1),
    "green": (1, 0, 1, 0),
}
"""The embedding: a text's vector is the sum of its known words' vectors (integers, so both
stores compute the same similarities to the last bit)."""
PHRASES = [
    "tea",
    "coffee",
    "green tea",
    "Lisbon café",
    "milk coffee",
    "tea with milk",
    "nothing known",
    "lisbon lisbon",
    "café au lait",
    "iced coffee milk",
]
LABELS = ["a", "b", "users", "x y"]
KEYS = ["k", "K", "memo", "~", "x" * 20]
FIELD_CHOICES = [None, None, False, ["text"], ["tags[*]"], ["nested.text"], ["$"], []]
CONFIG_FIELDS = ["text", "nested.text"]


def embed(texts: list[str]) -> list[list[float]]:
    """Deterministic vectors: the sum of the word vectors of each text."""
    vectors = []
    for text in texts:
        total = [0.0] * 4
        for word in re.findall(r"\w+", text.lower()):
            for axis, value in enumerate(WORDS.get(word, (0, 0, 0, 0))):
                total[axis] += value
        vectors.append(total)
    return vectors


def index_config() -> dict[str, Any]:
    """The same index configuration for both stores."""
    return {"dims": 4, "embed": embed, "fields": CONFIG_FIELDS}


phrases = st.sampled_from(PHRASES)
values = st.fixed_dictionaries(
    {},
    optional={
        "text": phrases,
        "tags": st.lists(phrases, max_size=3, unique=True),
        "nested": st.fixed_dictionaries({}, optional={"text": phrases}),
        "n": st.integers(-3, 3),
    },
)
namespaces = st.lists(st.sampled_from(LABELS), min_size=1, max_size=2).map(tuple)
prefixes = st.lists(st.sampled_from(LABELS), max_size=1).map(tuple)
puts = st.builds(
    PutOp,
    namespaces,
    st.sampled_from(KEYS),
    values,
    index=st.sampled_from(FIELD_CHOICES),
    ttl=st.none(),
)
deletes = st.builds(PutOp, namespaces, st.sampled_from(KEYS), st.none(), ttl=st.none())
gets = st.builds(GetOp, namespaces, st.sampled_from(KEYS))
queries = st.sampled_from(["tea", "coffee", "lisbon café", "green milk", "coffee tea milk"])
searches = st.builds(SearchOp, prefixes, filters, limits, offsets, st.none() | queries)
single_ops = st.one_of(puts, puts, puts, puts, deletes, gets, searches, searches)
steps = st.one_of(single_ops, st.lists(single_ops, min_size=2, max_size=4))


def rows(items: list[SearchItem]) -> list[tuple[Any, ...]]:
    """What is compared of a search's items."""
    return [(i.namespace, i.key, i.value, i.score) for i in items]


def in_memory_page(
    scored: list[SearchItem], scoreless: list[SearchItem], offset: int, limit: int
) -> list[SearchItem]:
    """The page InMemoryStore takes of a ranking: `offset` and `limit` over the scored items,
    then unscored ones up to `limit` (langgraph.store.memory `_batch_search`)."""
    kept = []
    for rank, item in enumerate(scored):
        if rank >= offset + limit:
            break
        if rank < offset:
            continue
        kept.append(item)
    if scoreless and len(kept) < limit:
        kept.extend(scoreless[: limit - len(kept)])
    return kept


def expected_query(reference: InMemoryStore, op: SearchOp) -> list[tuple[Any, ...]]:
    """The reference's answer to a search with a query, ties across namespaces in sorted order."""
    every = reference.batch([op._replace(limit=ALL, offset=0)])[0]
    scored = sorted(
        (i for i in every if i.score is not None), key=lambda i: (-i.score, i.namespace)
    )
    scoreless = sorted((i for i in every if i.score is None), key=lambda i: i.namespace)
    page = in_memory_page(scored, scoreless, op.offset, op.limit)
    if len({i.namespace for i in every}) <= 1:
        assert rows(page) == rows(reference.batch([op])[0])
    return rows(page)


def run_step(store: MemtuiStore, reference: InMemoryStore, step: Any) -> None:
    """Run one op or batch on both stores and compare every result."""
    ops = step if isinstance(step, list) else [step]
    wanted = []
    for op in ops:
        if isinstance(op, SearchOp) and op.query:
            wanted.append(outcome(lambda op=op: expected_query(reference, op)))
        else:
            wanted.append(outcome(lambda op=op: expected(reference, op)))
    if any(kind == "error" for kind, _ in wanted):
        assert outcome(lambda: store.batch(ops))[0] == "error"
        assert outcome(lambda: reference.batch(ops))[0] == "error"
        return
    reference_outcome = outcome(lambda: reference.batch(ops))
    assume(reference_outcome[0] == "ok")
    results = store.batch(ops)
    for op, (_, want), result in zip(ops, wanted, results, strict=True):
        if isinstance(op, PutOp):
            assert result is None
        elif isinstance(op, SearchOp) and op.query:
            assert rows(result) == want, op
        else:
            assert answered(op, result, None) == want, op


def run_sequence(sequence: list[Any]) -> None:
    """Run a sequence on fresh stores with the same index; compare after every step."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "memories"
        store = MemtuiStore(
            root, actor="agent:diff", settings=Settings(actor="diff"), index=index_config()
        )
        reference = InMemoryStore(index=index_config())  # type: ignore[arg-type]
        for step in sequence:
            run_step(store, reference, step)
        check_folder(root, reference)
        for query in ("tea", "lisbon café"):
            for offset, limit in ((0, ALL), (0, 2), (1, 2), (2, 3), (3, 1)):
                op = SearchOp((), None, limit, offset, query)
                assert rows(store.batch([op])[0]) == expected_query(reference, op), op
        reopened = MemtuiStore(root, actor="agent:diff", index=index_config())
        op = SearchOp((), None, ALL, 0, "coffee")
        assert rows(reopened.batch([op])[0]) == expected_query(reference, op)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(steps, min_size=1, max_size=20))
def test_memtui_store_ranks_as_in_memory_store_with_an_index(sequence: list[Any]) -> None:
    run_sequence(sequence)


def test_index_false_keeps_earlier_vectors_and_fields_accumulate(tmp_path: Path) -> None:
    store = MemtuiStore(tmp_path, actor="agent:t", index=index_config())
    reference = InMemoryStore(index=index_config())  # type: ignore[arg-type]
    for target in (store, reference):
        target.put(("a",), "k", {"text": "tea"})
        target.put(("a",), "k", {"text": "coffee"}, index=False)
        target.put(("a",), "j", {"tags": ["milk"]}, index=["tags[*]"])
        target.put(("a",), "j", {"text": "lisbon"}, index=["text"])
        target.put(("a",), "m", {"text": "green"}, index=False)
    mine = store.search(("a",), query="tea milk")
    theirs = reference.search(("a",), query="tea milk")
    assert rows(mine) == rows(theirs)
    assert [(i.key, i.score) for i in mine] == [
        ("k", 0.7071067811865475),
        ("j", 0.7071067811865475),
        ("m", None),
    ]


def test_the_vector_file_is_private_and_a_reopened_store_keeps_its_vectors(
    tmp_path: Path,
) -> None:
    previous = os.umask(0o022)
    try:
        store = MemtuiStore(tmp_path, actor="agent:t", index=index_config())
        store.put(("a",), "k", {"text": "green tea"})
    finally:
        os.umask(previous)
    vectors = tmp_path / ".memtui" / "langgraph-index.db"
    assert stat.S_IMODE(vectors.lstat().st_mode) == 0o600
    again = MemtuiStore(tmp_path, actor="agent:t", index=index_config())
    [found] = again.search(("a",), query="tea")
    assert (found.key, found.score) == ("k", pytest.approx(2 / 5**0.5))
