"""MemtuiStore's own promises: files on disk, the history, undo, refusals, async twins, names."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from langgraph.store.base import InvalidNamespaceError

from memtui.agents.langgraph import MemtuiStore, MemtuiStoreError
from memtui.agents.langgraph_names import KeyNameError, decode_name, encode_name
from memtui.core.config import Settings
from memtui.core.store import MemoryStore

NS = ("users", "ana", "memories")


def open_store(root: Path, **settings: object) -> MemtuiStore:
    """A store recording as agent:bot, with the given settings and no user config."""
    return MemtuiStore(root, actor="agent:bot", settings=Settings(actor="dana", **settings))  # type: ignore[arg-type]


def test_items_are_pretty_json_files_and_every_change_is_in_the_history(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "coffee", {"text": "Ana drinks café con leche", "n": 2})
    store.put(NS, "coffee", {"text": "Ana switched to tea"})
    store.delete(NS, "coffee")
    store.delete(NS, "never-there")
    store.put(NS, "city", {"text": "Lisbon"})

    assert (tmp_path / "users/ana/memories/city.json").read_bytes() == (
        b'{\n  "text": "Lisbon"\n}\n'
    )
    assert not (tmp_path / "users/ana/memories/coffee.json").exists()
    events = store.store.history.events(newest_first=False)
    assert [(e.actor, e.command, e.path, e.is_error) for e in events] == [
        ("agent:bot", "write", "/memories/users/ana/memories/coffee.json", False),
        ("agent:bot", "write", "/memories/users/ana/memories/coffee.json", False),
        ("agent:bot", "delete", "/memories/users/ana/memories/coffee.json", False),
        ("agent:bot", "write", "/memories/users/ana/memories/city.json", False),
    ]


def test_a_person_can_undo_an_agents_put_and_the_store_sees_it(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "k", {"text": "first"})
    store.put(NS, "k", {"text": "second"})
    second = store.store.history.events()[0]
    human = MemoryStore(tmp_path, actor="human:dana", settings=Settings(actor="dana"))
    assert not human.revert(second.id).is_error
    assert store.get(NS, "k").value == {"text": "first"}  # type: ignore[union-attr]
    deleted = store.store.history.events(command="write")[0]
    store.delete(NS, "k")
    assert store.get(NS, "k") is None
    assert not human.revert(store.store.history.events(command="delete")[0].id).is_error
    assert store.get(NS, "k").value == {"text": "first"}  # type: ignore[union-attr]
    assert deleted.actor == "agent:bot"


def test_reads_are_recorded_as_views_of_what_was_returned(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "a", {"text": "tea"})
    store.put(NS, "b", {"text": "coffee"})
    store.get(NS, "a")
    store.get(NS, "missing")
    store.search(("users",), limit=1)
    views = store.store.history.events(command="view", newest_first=False)
    assert [(e.actor, e.path) for e in views] == [
        ("agent:bot", "/memories/users/ana/memories/a.json"),
        ("agent:bot", "/memories/users/ana/memories/a.json"),
    ]
    assert views[0].result.endswith('     1\t{\n     2\t  "text": "tea"\n     3\t}\n     4\t')
    assert store.store.history.last_agent_read("/memories/users/ana/memories/a.json") is not None


def test_created_at_stays_and_updated_at_moves_from_the_history(tmp_path: Path) -> None:
    clock = iter(float(t) for t in range(1_000, 2_000, 10))
    store = open_store(tmp_path)
    store.store.clock = lambda: next(clock)
    store.put(NS, "k", {"v": 1})
    store.put(NS, "k", {"v": 2})
    store.store.clock = lambda: 5_000.0
    item = store.get(NS, "k")
    assert item is not None
    assert (item.created_at.timestamp(), item.updated_at.timestamp()) == (1_000.0, 1_010.0)
    assert item.created_at.tzinfo is not None and item.created_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


def test_hostile_keys_and_labels_map_to_safe_reversible_names(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    keys = ["../escape", "a/b", "", ".hidden", "~", "%2e%2f", "\x1b[31mred", "\u202eevil", "ok"]
    for key in keys:
        store.put(("x/y", "~t"), key, {"key": key})
    names = sorted(p.name for p in (tmp_path / "x~2Fy" / "~7Et").iterdir())
    assert names == sorted(
        [
            "~2E.~2Fescape.json",
            "a~2Fb.json",
            "~.json",
            "~2Ehidden.json",
            "~7E.json",
            "~252e~252f.json",
            "~1B[31mred.json",
            "~E2~80~AEevil.json",
            "ok.json",
        ]
    )
    assert {item.key for item in store.search(("x/y",), limit=50)} == set(keys)
    assert store.list_namespaces() == [("x/y", "~t")]
    for key in keys:
        assert decode_name(encode_name(key)) == key
    assert decode_name("a~2fb") is None  # not canonical: lower-case hex
    assert decode_name("~41") is None  # not canonical: an unneeded escape


def test_refusals_use_langgraph_errors_and_one_line_messages(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {})
    with pytest.raises(InvalidNamespaceError):
        store.put(("langgraph",), "k", {})
    with pytest.raises(InvalidNamespaceError, match="too long"):
        store.put(("é" * 200,), "k", {})
    with pytest.raises(KeyNameError, match="too long"):
        store.put(("a",), "k" * 300, {})
    with pytest.raises(NotImplementedError, match="TTL is not supported by MemtuiStore"):
        store.put(("a",), "k", {}, ttl=5)
    with pytest.raises(TypeError, match="cannot be stored as JSON"):
        store.put(("a",), "k", {"when": object()})
    with pytest.raises(ValueError, match='index must be a dict with "dims" and "embed"'):
        MemtuiStore(tmp_path, index={"dims": 3})
    with pytest.raises(ValueError, match="not an agent name"):
        MemtuiStore(tmp_path, actor="human:dana")
    assert [path.name for path in tmp_path.iterdir() if path.name != ".memtui"] == []


def test_a_blocked_secret_raises_and_writes_nothing(tmp_path: Path) -> None:
    store = open_store(tmp_path, secrets="block")
    with pytest.raises(MemtuiStoreError, match="looks like it contains a secret"):
        store.put(NS, "k", {"note": "AKIAIOSFODNN7EXAMPLE"})
    assert store.get(NS, "k") is None


def test_files_that_are_no_items_are_not_seen(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "k", {"text": "real"})
    folder = tmp_path / "users/ana/memories"
    (folder / "broken.json").write_text("{not json", encoding="utf-8")
    (folder / "list.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "note.md").write_text("# a note\n", encoding="utf-8")
    (folder / "a~2fb.json").write_text("{}", encoding="utf-8")
    (tmp_path / "projects.old").mkdir()
    (tmp_path / "projects.old" / "x.json").write_text("{}", encoding="utf-8")
    assert [item.key for item in store.search(NS)] == ["k"]
    assert store.get(NS, "broken") is None
    assert store.list_namespaces() == [NS]


def test_every_async_method_works(tmp_path: Path) -> None:
    store = open_store(tmp_path)

    async def scenario() -> tuple[object, ...]:
        await store.aput(NS, "k", {"text": "tea"})
        await store.aput(("users", "bo"), "j", {"text": "coffee"})
        got = await store.aget(NS, "k")
        found = await store.asearch(("users",), query="coffee", limit=1)
        spaces = await store.alist_namespaces(prefix=("users", "*"), max_depth=2)
        await store.adelete(NS, "k")
        return got, found, spaces, await store.aget(NS, "k")

    got, found, spaces, gone = asyncio.run(scenario())
    assert got.value == {"text": "tea"}  # type: ignore[attr-defined]
    assert [(i.key, i.score) for i in found] == [("j", 1.0)]  # type: ignore[attr-defined]
    assert spaces == [("users", "ana"), ("users", "bo")]
    assert gone is None


def test_query_ranks_by_fuzzy_match_with_memtui_levels(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "exact", {"text": "prefers green tea"})
    store.put(NS, "typo", {"text": "prefers gren teaa"})
    store.put(NS, "prefix", {"text": "teapot collector"})
    store.put(NS, "none", {"text": "cycles to work"})
    ranked = [(i.key, i.score) for i in store.search(NS, query="green tea")]
    assert ranked == [("exact", 1.0), ("typo", 0.8278), ("prefix", 0.45), ("none", 0.0)]


def test_missing_extra_is_one_clear_line(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['langgraph'] = None; sys.modules['langgraph.store.base'] = None\n"
        "import memtui.agents.langgraph"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "ImportError: memtui.agents.langgraph needs LangGraph: install it with "
        "`pip install 'memtui[langgraph]'`"
    )


def test_values_round_trip_through_the_file(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    value = {"text": "naïve ☕", "nested": {"list": [1, 2.5, None, True]}, "big": 10**20}
    store.put(NS, "k", value)
    assert json.loads((tmp_path / "users/ana/memories/k.json").read_text("utf-8")) == value
    assert store.get(NS, "k").value == value  # type: ignore[union-attr]


def test_a_namespace_folder_linked_outside_lists_nothing_from_outside(tmp_path: Path) -> None:
    root, outside = tmp_path / "store", tmp_path / "outside"
    root.mkdir()
    (outside / "ana" / "memories").mkdir(parents=True)
    (outside / "ana" / "memories" / "canary.json").write_text('{"text": "CANARY"}\n')
    (outside / "ana" / "elsewhere").mkdir()
    (outside / "ana" / "elsewhere" / "k.json").write_text("{}\n")
    store = open_store(root)
    store.put(("team",), "k", {"text": "inside"})
    (root / "users").symlink_to(outside, target_is_directory=True)

    assert store.list_namespaces() == [("team",)]
    assert store.search(NS) == []
    assert store.search(()) != [] and all(item.namespace == ("team",) for item in store.search(()))
    assert sorted(p.name for p in (outside / "ana" / "memories").iterdir()) == ["canary.json"]
    seen = [(e.command, e.path) for e in store.store.history.events()]
    assert not any("canary" in (path or "") for _, path in seen), seen


def test_a_namespace_folder_linked_inside_the_store_is_not_a_namespace(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    store.put(NS, "k", {"text": "real"})
    (tmp_path / "alias").symlink_to(tmp_path / "users", target_is_directory=True)
    assert store.list_namespaces() == [NS]


AWS_KEY = "AKIAQWERTYUIOPASDFGH"


def history_texts(store: MemtuiStore) -> list[str]:
    """Every text the history keeps outside blobs: paths, arguments and results."""
    events = store.store.history.events()
    return [
        text
        for event in events
        for text in (event.path, event.new_path, json.dumps(event.args), event.result)
        if text
    ]


def test_a_key_that_is_a_secret_is_refused_in_block_mode(tmp_path: Path) -> None:
    store = open_store(tmp_path, secrets="block")
    with pytest.raises(MemtuiStoreError) as refused:
        store.put(NS, AWS_KEY, {"text": "harmless"})
    assert str(refused.value) == (
        "Refused: the path looks like it contains a secret (AWS access key in the path). "
        "Nothing was written; choose a name without it."
    )
    assert store.get(NS, AWS_KEY) is None
    assert [path.name for path in tmp_path.iterdir()] == [".memtui"]
    (event,) = store.store.history.events(skip_reads=True)
    assert (event.command, event.flags) == ("write", ("secret:aws-access-key",))
    assert not any(AWS_KEY in text for text in history_texts(store))


def test_a_key_split_by_an_invisible_character_is_still_refused(tmp_path: Path) -> None:
    store = open_store(tmp_path, secrets="block")
    hidden = AWS_KEY[:4] + "\u200b" + AWS_KEY[4:]
    with pytest.raises(MemtuiStoreError, match="AWS access key in the path"):
        store.put(NS, hidden, {"text": "harmless"})
    assert [path.name for path in tmp_path.iterdir()] == [".memtui"]


def test_a_key_that_is_a_secret_is_flagged_in_warn_mode(tmp_path: Path) -> None:
    store = open_store(tmp_path, secrets="warn")
    store.put(NS, AWS_KEY, {"text": "harmless"})
    assert store.get(NS, AWS_KEY).value == {"text": "harmless"}  # type: ignore[union-attr]
    (event,) = store.store.history.events(skip_reads=True)
    assert (event.command, event.is_error) == ("write", False)
    assert event.flags == ("secret:aws-access-key",)
    assert event.path == f"/memories/users/ana/memories/{AWS_KEY}.json"
    assert event.args["path"] == (
        "/memories/users/ana/memories/<redacted secret:aws-access-key>.json"
    )
    store.put(NS, AWS_KEY, {"text": "changed"})
    assert store.store.history.events(skip_reads=True)[0].flags == ()


def nested(depth: int) -> dict[str, object]:
    """A value nesting `depth` objects."""
    value: dict[str, object] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def test_a_value_nested_too_deeply_raises_type_error(tmp_path: Path) -> None:
    store = open_store(tmp_path)
    for depth in (101, 5000):
        with pytest.raises(TypeError) as raised:
            store.put(NS, "deep", nested(depth))
        assert str(raised.value) == "the value for key 'deep' is nested deeper than 100 levels"
    store.put(NS, "deep", nested(100))
    assert store.get(NS, "deep").value == nested(100)  # type: ignore[union-attr]
    cycle: dict[str, object] = {}
    cycle["self"] = cycle
    with pytest.raises(TypeError, match="Circular reference detected"):
        store.put(NS, "cycle", cycle)


def test_a_file_nested_too_deeply_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = open_store(tmp_path)
    store.put(NS, "k", {"text": "real tea"})
    agent = MemoryStore(tmp_path, actor="agent:other", settings=Settings(actor="dana"))
    folder = "/memories/users/ana/memories"
    assert not agent.create(f"{folder}/bomb.json", "[" * 100_000 + "]" * 100_000).is_error
    deep_object = '{"a": ' * 100_000 + "1" + "}" * 100_000
    assert not agent.create(f"{folder}/deep.json", deep_object).is_error
    assert not agent.create(f"{folder}/shallow.json", json.dumps(nested(101))).is_error
    warnings = [
        f"memtui: {folder}/{name}.json is nested deeper than 100 levels; "
        "LangGraph does not see it as an item"
        for name in ("bomb", "deep", "shallow")
    ]
    with caplog.at_level("WARNING", logger="memtui.agents.langgraph"):
        assert store.get(NS, "deep") is None
        assert caplog.messages == [warnings[1]]
        caplog.clear()
        assert [item.key for item in store.search(NS)] == ["k"]
        assert sorted(caplog.messages) == warnings
        caplog.clear()
        assert [(item.key, item.score) for item in store.search(NS, query="tea")] == [("k", 1.0)]
        assert sorted(caplog.messages) == warnings
    assert store.list_namespaces() == [NS]
