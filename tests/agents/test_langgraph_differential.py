"""MemtuiStore against LangGraph's own InMemoryStore over random operation sequences (hypothesis).

Every get, search and list_namespaces result must equal InMemoryStore's on the same sequence:
values, keys and namespaces, and order where LangGraph defines it. The documented differences are
applied to the reference, not waived: namespaces are listed only while they hold an item (as in
LangGraph's SQL stores), search results come namespace by namespace in sorted order (items in
the order they were put, as InMemoryStore keeps them), and a `query` ranks every matching item
where InMemoryStore without an index ignores it (so those are compared as sets). Errors must be
of the same type. The folder must hold exactly the items, each as `item_json` of its value.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore

from memtui.agents.langgraph import MemtuiStore, item_json
from memtui.agents.langgraph_names import encode_name
from memtui.core.config import Settings

ALL = 10**6
LABELS = ["a", "b", "users", "x/y", "~t", "é", "sp ace", "%2e", "a\\b", "\u202e"]
KEYS = ["k", "K", "a/b", "", ".hidden", "..", "~", "%2F", "key.json", "línea\n2", "x" * 40]
FIELDS = ["text", "n", "tags", "nested"]
FILTER_ERRORS = {"TypeError", "ValueError"}
"""What a comparison operator raises on a value that is no number; which item raises first
depends on the order items are visited in, so either may come first."""

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-5, 5)
    | st.sampled_from(["x", "tea", "coffee", "Lisbon café"])
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=3)
    ),
    max_leaves=6,
)
values = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4)
namespaces = st.lists(st.sampled_from(LABELS), min_size=1, max_size=3).map(tuple)
prefixes = st.lists(st.sampled_from(LABELS), max_size=2).map(tuple)
patterns = st.lists(st.sampled_from([*LABELS[:4], "*"]), min_size=1, max_size=2).map(tuple)
filters = st.none() | st.dictionaries(
    st.sampled_from(FIELDS),
    json_scalars
    | st.dictionaries(
        st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]),
        st.integers(-5, 5) | st.sampled_from(["tea", None]),
        min_size=1,
        max_size=2,
    ),
    max_size=2,
)
limits = st.integers(-1, 5)
offsets = st.integers(0, 3)

puts = st.builds(PutOp, namespaces, st.sampled_from(KEYS), values, index=st.none(), ttl=st.none())
deletes = st.builds(PutOp, namespaces, st.sampled_from(KEYS), st.none(), ttl=st.none())
gets = st.builds(GetOp, namespaces, st.sampled_from(KEYS))
searches = st.builds(
    SearchOp,
    prefixes,
    filters,
    limits,
    offsets,
    st.none() | st.sampled_from(["tea", "coffee lisbon", "x"]),
)
conditions = st.lists(
    st.builds(MatchCondition, st.sampled_from(["prefix", "suffix"]), patterns), max_size=2
).map(tuple)
listings = st.builds(ListNamespacesOp, conditions, st.none() | st.integers(0, 3), limits, offsets)
single_ops = st.one_of(puts, puts, deletes, gets, searches, listings)
steps = st.one_of(single_ops, st.lists(single_ops, min_size=2, max_size=4))


def nonempty_copy(reference: InMemoryStore) -> InMemoryStore:
    """A fresh InMemoryStore with only the namespaces of `reference` that hold an item."""
    copy = InMemoryStore()
    for item in reference.search((), limit=ALL):
        copy.put(item.namespace, item.key, item.value)
    return copy


def expected(reference: InMemoryStore, op: Any) -> Any:
    """What MemtuiStore must answer for one op, from the reference's current state."""
    if isinstance(op, PutOp):
        return None
    if isinstance(op, GetOp):
        item = reference.batch([op])[0]
        return None if item is None else (item.namespace, item.key, item.value)
    if isinstance(op, ListNamespacesOp):
        return nonempty_copy(reference).batch([op])[0]
    every = reference.batch([op._replace(limit=ALL, offset=0, query=None)])[0]
    rows = sorted(((i.namespace, i.key, i.value) for i in every), key=lambda row: row[0])
    if op.query:
        return sorted(rows, key=repr)
    return rows[op.offset : op.offset + op.limit]


def answered(op: Any, result: Any, every: list[Any] | None) -> Any:
    """MemtuiStore's result in the shape `expected` gives; `every` is its whole ranking of a
    query (limit and offset aside) as it stood before the batch."""
    if isinstance(op, GetOp):
        return None if result is None else (result.namespace, result.key, result.value)
    if isinstance(op, ListNamespacesOp):
        return result
    rows = [(i.namespace, i.key, i.value) for i in result]
    if op.query:
        assert every is not None
        scores = [item.score for item in every]
        assert scores == sorted(scores, reverse=True)
        assert all(isinstance(score, float) and 0 <= score <= 1 for score in scores)
        assert (
            rows == [(i.namespace, i.key, i.value) for i in every][op.offset : op.offset + op.limit]
        )
        return sorted(((i.namespace, i.key, i.value) for i in every), key=repr)
    for item in result:
        assert item.score is None
        assert item.created_at.tzinfo is not None and item.created_at <= item.updated_at
    return rows


def outcome(function: Any) -> tuple[str, Any]:
    """("ok", value) or ("error", exception type name)."""
    try:
        return "ok", function()
    except Exception as error:
        return "error", type(error).__name__


def run_step(store: MemtuiStore, reference: InMemoryStore, step: Any) -> None:
    """Run one op or one batch on both stores and compare every result."""
    ops = step if isinstance(step, list) else [step]
    wanted = [outcome(lambda op=op: expected(reference, op)) for op in ops]
    if any(kind == "error" for kind, _ in wanted):
        assert outcome(lambda: reference.batch(ops))[0] == "error"
        kind, got = outcome(lambda: store.batch(ops))
        assert kind == "error"
        assert got in {value for kind, value in wanted if kind == "error"} | FILTER_ERRORS
        return
    rankings = [
        store.batch([op._replace(limit=ALL, offset=0)])[0]
        if isinstance(op, SearchOp) and op.query
        else None
        for op in ops
    ]
    results = store.batch(ops)
    reference.batch(ops)
    for op, (_, want), result, every in zip(ops, wanted, results, rankings, strict=True):
        if isinstance(op, PutOp):
            assert result is None
        else:
            assert answered(op, result, every) == want, op


def check_folder(root: Path, reference: InMemoryStore) -> None:
    """The folder holds exactly the reference's items, each file exactly `item_json(value)`."""
    wanted = {}
    for item in reference.search((), limit=ALL):
        relative = "/".join([*map(encode_name, item.namespace), encode_name(item.key) + ".json"])
        wanted[relative] = item_json(item.key, item.value)
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".memtui"]
        for name in files:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8")
    assert found == wanted


def run_sequence(sequence: list[Any]) -> None:
    """Run a sequence on a fresh MemtuiStore and InMemoryStore; compare after every step."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "memories"
        store = MemtuiStore(root, actor="agent:diff", settings=Settings(actor="diff"))
        reference = InMemoryStore()
        for step in sequence:
            run_step(store, reference, step)
        check_folder(root, reference)
        for namespace in reference.list_namespaces(limit=ALL):
            everything = reference.search(namespace, limit=ALL)
            mine = store.search(namespace, limit=ALL)
            assert [(i.namespace, i.key, i.value) for i in mine] == sorted(
                ((i.namespace, i.key, i.value) for i in everything), key=lambda row: row[0]
            )


@settings(
    max_examples=int(os.environ.get("MEMTUI_LANGGRAPH_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(steps, min_size=1, max_size=25))
def test_memtui_store_answers_as_in_memory_store(sequence: list[Any]) -> None:
    run_sequence(sequence)


@pytest.mark.slow
@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(steps, min_size=1, max_size=40))
def test_memtui_store_answers_as_in_memory_store_long(sequence: list[Any]) -> None:
    run_sequence(sequence)


def test_json_round_trip_of_the_reference_values() -> None:
    """The values the strategies draw survive JSON unchanged (so comparing them is fair)."""
    value = {"text": "Lisbon café", "nested": {"tags": [1, None, True]}, "n": -5}
    assert json.loads(item_json("k", value)) == value
