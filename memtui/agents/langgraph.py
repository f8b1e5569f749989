"""MemtuiStore: a LangGraph `BaseStore` whose items are JSON files in a memtui memory folder.

A namespace is a folder, an item is `<key>.json` (its value, pretty-printed UTF-8 JSON). Every
put and delete goes through memtui's command core as the store's agent actor, so it is in the
history, reviewable and undoable; `get` and the items `search` returns are recorded as reads.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(
        "memtui.agents.langgraph needs LangGraph: install it with `pip install 'memtui[langgraph]'`"
    ) from exc

from memtui.agents.langgraph_index import ItemIndex, parse_index
from memtui.agents.langgraph_names import (
    item_virtual,
    key_of_file,
    label_of_folder,
    namespace_virtual,
)
from memtui.agents.langgraph_query import matches_condition, matches_filter, rank, value_text
from memtui.agents.worker import SerialWorker
from memtui.core.actors import agent_actor
from memtui.core.config import Settings
from memtui.core.parsing.paths import to_relpath
from memtui.core.recording.event_query import EventQuery
from memtui.core.resolving.fd_paths import (
    OutsideStore,
    StoreRoot,
    close_quietly,
    entries,
    entry_lstat,
)
from memtui.core.result import HELD
from memtui.core.store import MemoryStore, StoreError
from memtui.notes.visibility import PolicyUnusable, Visible, visible_filter
from memtui.notes.workspace import Workspace

__all__ = ["MemtuiStore", "MemtuiStoreError"]

log = logging.getLogger(__name__)

WRITE_ATTEMPTS = 5
"""A put retried this often when another writer changes the file between its read and write."""
MAX_DEPTH = 100
"""The deepest nesting of objects and lists an item holds: a deeper value is refused and a deeper
file is not an item, so no reading or ranking of a value can exhaust Python's recursion limit."""


class MemtuiStoreError(RuntimeError):
    """The core refused a put or delete (a secret under `secrets = "block"`, a size limit...)."""


@dataclass(frozen=True, slots=True)
class _Stored:
    """One item file as read from disk, with when the history says it was created and changed."""

    namespace: tuple[str, ...]
    key: str
    virtual: str
    value: dict[str, Any]
    created: float
    updated: float
    order: tuple[float, int]
    """Where InMemoryStore would keep it: its creation time and the creating event's id."""

    def item(self) -> Item:
        """As a LangGraph Item."""
        return Item(
            value=self.value,
            key=self.key,
            namespace=self.namespace,
            created_at=_utc(self.created),
            updated_at=_utc(self.updated),
        )

    def search_item(self, score: float | None) -> SearchItem:
        """As a LangGraph SearchItem."""
        return SearchItem(
            self.namespace,
            self.key,
            self.value,
            _utc(self.created),
            _utc(self.updated),
            score,
        )


def _utc(timestamp: float) -> datetime:
    """A Unix time as an aware UTC datetime, as LangGraph's stores give them."""
    return datetime.fromtimestamp(timestamp, tz=UTC)


def nested_deeper(value: object, limit: int) -> bool:
    """Whether a JSON value nests objects and lists more than `limit` levels (`{}` is one).

    Walked without recursion, and stops past `limit`, so any depth (a cycle too) is safe.
    """
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Iterable[object] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def item_json(key: str, value: Mapping[str, Any]) -> str:
    """The file text of an item: its value as pretty-printed JSON and a final newline.

    Raises TypeError for a value JSON cannot hold or nested deeper than `MAX_DEPTH` levels.
    """
    too_deep = f"the value for key {key!r} is nested deeper than {MAX_DEPTH} levels"
    try:
        text = json.dumps(dict(value), indent=2, ensure_ascii=False, allow_nan=False)
    except RecursionError:
        raise TypeError(too_deep) from None
    except (TypeError, ValueError) as error:
        raise TypeError(f"the value for key {key!r} cannot be stored as JSON: {error}") from error
    if nested_deeper(value, MAX_DEPTH):
        raise TypeError(too_deep)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(dict(value), indent=2, ensure_ascii=True, allow_nan=False)
    return text + "\n"


class MemtuiStore(BaseStore):
    """A LangGraph store on a memtui memory folder, recorded in its history as `actor`.

    With `index` ({"dims", "embed", "fields"}), puts embed their fields and a `query` ranks items
    by cosine similarity as InMemoryStore does (`langgraph_index.py`); without it a `query` ranks
    items by fuzzy text match. TTLs are not supported (`supports_ttl` is False).
    """

    supports_ttl = False

    def __init__(
        self,
        root: str | os.PathLike[str],
        actor: str = "agent:langgraph",
        *,
        session: str | None = None,
        settings: Settings | None = None,
        index: Any = None,
    ) -> None:
        """Open the store at `root` (the folder `/memories` maps to; created if missing).

        Raises ValueError for an empty or non-agent actor and ConfigError for a bad config.
        """
        config = parse_index(index) if index is not None else None
        self.workspace = Workspace(
            MemoryStore(
                Path(root).expanduser(),
                actor=agent_actor(actor),
                session=session or uuid.uuid4().hex,
                settings=settings,
            )
        )
        """The open store: items are written through it and each change applied to it."""
        self.store = self.workspace.store
        self.root = self.store.root
        self._index = ItemIndex(self.root, config) if config is not None else None
        self._worker = SerialWorker("memtui-langgraph")

    # BaseStore.

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ops in order; reads see the store as it was before the batch's puts, as in
        InMemoryStore, and several puts to one key in a batch leave the last one."""
        ops = list(ops)
        for op in ops:
            _check(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        visible = self._visible()
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(self._search(op, visible))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op, visible))
            else:
                puts[(op.namespace, op.key)] = op
                results.append(None)
        done: list[tuple[str, PutOp]] = []
        try:
            for put in puts.values():
                if put.value is None:
                    self._delete(put.namespace, put.key)
                else:
                    self._put(put.namespace, put.key, put.value)
                done.append((item_virtual(put.namespace, put.key), put))
        finally:
            if self._index is not None:
                self._index.applied(done)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` on the store's worker thread, so the event loop stays free."""
        return await self._worker.run(self.batch, list(ops))

    def _visible(self) -> Visible:
        """What the store's policy lets this store's agent see; a policy that cannot be used
        stops the batch with its one-line refusal."""
        try:
            return visible_filter(self.store) or _everything
        except PolicyUnusable as problem:
            raise MemtuiStoreError(str(problem)) from None

    # Writes.

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any]) -> None:
        """Write the item through the core (`write`, conflict-checked, retried on a race); a
        write the store's policy holds for review is logged as a warning saying so."""
        virtual = item_virtual(namespace, key)
        text = item_json(key, value)
        for _ in range(WRITE_ATTEMPTS):
            result = self.store.write(virtual, text, self.store.revision(virtual))
            if result.kind == HELD:
                log.warning("memtui: %s", result.content)
                return
            if not result.is_error:
                self.workspace.apply([to_relpath(virtual)])
                return
            if not result.conflict:
                break
        raise MemtuiStoreError(result.content)

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        """Delete the item through the core; deleting a missing item does nothing (a delete
        held for review is logged as a warning)."""
        virtual = item_virtual(namespace, key)
        if self.store.revision(virtual) is None:
            return
        result = self.store.delete(virtual)
        if result.kind == HELD:
            log.warning("memtui: %s", result.content)
            return
        if result.is_error and self.store.revision(virtual) is not None:
            raise MemtuiStoreError(result.content)
        self.workspace.apply([to_relpath(virtual)])

    # Reads.

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        """The item, recorded as a read, or None."""
        stored = self._load(namespace, key, item_virtual(namespace, key))
        if stored is None:
            return None
        self.store.view(stored.virtual)
        return stored.item()

    def _load(self, namespace: tuple[str, ...], key: str, virtual: str) -> _Stored | None:
        """One item file read through the core (not recorded), or None if it is no item."""
        try:
            text, _revision = self.store.read(virtual)
        except StoreError:
            return None
        value = _item_value(text, virtual)
        if value is None:
            return None
        created, updated, order = self._times(virtual)
        return _Stored(namespace, key, virtual, value, created, updated, order)

    def _times(self, virtual: str) -> tuple[float, float, tuple[float, int]]:
        """(created, updated, order) of the file at `virtual` from its history.

        Created is when the file last came into being (a create, a write to a missing path, a
        rename onto it, an outside creation, an undo); without any event, its mtime.
        """
        events = self.store.history.events(EventQuery(path=virtual, skip_reads=True))
        changes = [event for event in events if not event.is_error]
        if not changes:
            mtime = _mtime(self.root, to_relpath(virtual))
            return mtime, mtime, (mtime, 0)
        updated = changes[0].time
        creation = changes[-1]
        for event in changes:
            arrived = event.new_path == virtual or (
                event.path == virtual and event.before_kind is None and event.after_kind
            )
            if arrived:
                creation = event
                break
        return creation.time, updated, (creation.time, creation.id)

    def _namespace_items(self, namespace: tuple[str, ...], visible: Visible) -> list[_Stored]:
        """The items directly in one namespace, in the order they were first put."""
        found = []
        for name in self._names_in(namespace, stat.S_IFREG, visible):
            key = key_of_file(name)
            if key is None:
                continue
            virtual = f"{namespace_virtual(namespace)}/{name}"
            stored = self._load(namespace, key, virtual)
            if stored is not None:
                found.append(stored)
        found.sort(key=lambda stored: stored.order)
        return found

    def _search(self, op: SearchOp, visible: Visible) -> list[SearchItem]:
        """Items below the prefix that pass the filter: in namespace order, then the order they
        were put, or best match first for a query; the returned page is recorded as read."""
        candidates = [
            stored
            for namespace in self._namespaces_below(op.namespace_prefix, visible)
            for stored in self._namespace_items(namespace, visible)
            if matches_filter(stored.value, op.filter)
        ]
        if op.query and self._index is not None:
            chosen = self._index.rank(
                op.query, [(c.virtual, c) for c in candidates], op.offset, op.limit
            )
        else:
            chosen = self._paged(op, candidates)
        for stored, _ in chosen:
            self.store.view(stored.virtual)
        return [stored.search_item(score) for stored, score in chosen]

    def _paged(self, op: SearchOp, candidates: list[_Stored]) -> list[tuple[_Stored, float | None]]:
        """The page of candidates, best fuzzy match first for a query."""
        scores: list[float | None] = [None] * len(candidates)
        if op.query:
            ranked = rank(op.query, (value_text(stored.value) for stored in candidates))
            candidates = [candidates[position] for position, _ in ranked]
            scores = [score for _, score in ranked]
        page = slice(op.offset, op.offset + op.limit)
        return list(zip(candidates[page], scores[page], strict=True))

    def _list_namespaces(self, op: ListNamespacesOp, visible: Visible) -> list[tuple[str, ...]]:
        """Namespaces holding at least one item, filtered, cut to max_depth, sorted, paged."""
        namespaces = [
            namespace
            for namespace in self._namespaces_below((), visible)
            if self._holds_items(namespace, visible)
            and all(
                matches_condition(condition, namespace) for condition in op.match_conditions or ()
            )
        ]
        if op.max_depth is not None:
            namespaces = sorted({namespace[: op.max_depth] for namespace in namespaces})
        else:
            namespaces.sort()
        return namespaces[op.offset : op.offset + op.limit]

    # The folder tree.

    def _names_in(self, namespace: tuple[str, ...], wanted: int, visible: Visible) -> list[str]:
        """Names of the files (S_IFREG) or folders (S_IFDIR) directly in a namespace folder
        that the store's agent may see."""
        relative = to_relpath(namespace_virtual(namespace)) if namespace else ""
        return [
            name
            for name in _entry_names(self.root, relative, wanted)
            if visible(f"{relative}/{name}" if relative else name)
        ]

    def _holds_items(self, namespace: tuple[str, ...], visible: Visible) -> bool:
        """Whether a namespace folder holds at least one item file."""
        return any(
            key_of_file(name) is not None
            for name in self._names_in(namespace, stat.S_IFREG, visible)
        )

    def _namespaces_below(self, prefix: tuple[str, ...], visible: Visible) -> list[tuple[str, ...]]:
        """The prefix (if not empty) and every namespace folder below it, sorted."""
        found: list[tuple[str, ...]] = []
        relative = to_relpath(namespace_virtual(prefix)) if prefix else ""
        stack = [prefix] if not relative or visible(relative) else []
        while stack:
            namespace = stack.pop()
            if namespace:
                found.append(namespace)
            for name in self._names_in(namespace, stat.S_IFDIR, visible):
                label = label_of_folder(name)
                if label is not None:
                    stack.append((*namespace, label))
        return sorted(found)


def _everything(_relpath: str) -> bool:
    """Every path is visible (no rule hides anything from the agent)."""
    return True


def _item_value(text: str, virtual: str) -> dict[str, Any] | None:
    """The value an item file holds, or None (with a warning logged) when it holds no item."""
    try:
        value = json.loads(text)
        too_deep = nested_deeper(value, MAX_DEPTH)
    except ValueError:
        log.warning("memtui: %s is not JSON; LangGraph does not see it as an item", virtual)
        return None
    except RecursionError:
        too_deep = True
    if too_deep:
        log.warning(
            "memtui: %s is nested deeper than %d levels; LangGraph does not see it as an item",
            virtual,
            MAX_DEPTH,
        )
        return None
    if not isinstance(value, dict):
        log.warning("memtui: %s holds no JSON object; it is not an item", virtual)
        return None
    return value


def _entry_names(root: Path, relative: str, wanted: int) -> list[str]:
    """Names of the entries of type `wanted` (stat.S_IFDIR or S_IFREG, never a link) in a folder.

    The folder is reached from the store's root on descriptors (core.fd_paths), so a folder
    swapped for a link to outside the store lists nothing; missing or unreadable: nothing.
    """
    try:
        with StoreRoot(root) as store_root:
            with store_root.locate(relative.split("/") if relative else []) as location:
                folder = location.open_dir()
            try:
                return [
                    name
                    for name in entries(folder)
                    if (info := entry_lstat(folder, name)) is not None
                    and stat.S_IFMT(info.st_mode) == wanted
                ]
            finally:
                close_quietly(folder)
    except (OSError, OutsideStore):
        return []


def _mtime(root: Path, relative: str) -> float:
    """The mtime of a file in the store, found on descriptors (0.0 if missing or outside)."""
    try:
        with StoreRoot(root) as store_root, store_root.locate(relative.split("/")) as location:
            info = location.lstat()
    except (OSError, OutsideStore):
        return 0.0
    return info.st_mtime if info is not None else 0.0


def _check(op: object) -> None:
    """Refuse what this store cannot do before any op of the batch runs."""
    if isinstance(op, GetOp | PutOp):
        namespace_virtual(op.namespace)
        if isinstance(op, PutOp):
            item_virtual(op.namespace, op.key)
            if op.ttl is not None:
                raise NotImplementedError(
                    "TTL is not supported by MemtuiStore. Use a store implementation that "
                    "supports TTL or set ttl=None."
                )
    elif isinstance(op, SearchOp):
        namespace_virtual(op.namespace_prefix)
    elif not isinstance(op, ListNamespacesOp):
        raise ValueError(f"Unknown operation type: {type(op)}")
