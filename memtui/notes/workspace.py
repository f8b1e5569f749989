"""Workspace: one open store and everything that depends on its files, kept in step in one place.

A process (the app, the MCP server, a CLI command, the LangGraph store) holds one Workspace per
store: the `MemoryStore` it changes the files through, the note index with the lock that
serialises installing and updating it, the searcher over the index, the history its readers use,
and the file watcher whose batches keep the index current. A finished change, whoever made it, is
handed to `apply`, the one method that brings every part that depends on the files up to date
(the index, and the vectors of search by meaning when a model is configured; search follows at
once). Note operations take the Workspace and call `apply` themselves, so nothing calls back up
into the app.

The heavy parts (the core's store, the index, the searcher, the watcher, the embedding model) are
imported and made on first use, so the app's first frame does not wait for them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from memtui.core.recording.history import History
    from memtui.core.store import MemoryStore
    from memtui.core.watcher import StoreWatcher
    from memtui.notes.bulk import InteractionSignal
    from memtui.notes.index import NoteIndex
    from memtui.notes.meaning.hybrid import MeaningSearch
    from memtui.notes.search import Searcher, SearchFilters
    from memtui.notes.search_modes import ModeResult

ProgressCallback = Callable[[int, int], None]
"""`(done, total)` while the index reads the files that changed."""
StoreSource = Union["MemoryStore", Callable[[], "MemoryStore"], None]
"""A store, what makes it on first use, or None (a store on the root as the default person)."""
HistorySource = Union["History", Callable[[], Union["History", None]], None]
"""The readers' history, what opens it on first use, or None (the store's own history)."""
WATCH_READY_WAIT = 5.0
"""Seconds a background load waits for the watcher to be set up before it walks the store, so
that one walk covers everything the watcher did not see."""


class _Parts:
    """What every actor's view of one store shares: the index, its lock, the searcher, the
    watcher and the paths changed while the index was loading."""

    def __init__(self, root: Path, history: HistorySource) -> None:
        """Nothing opened yet."""
        self.root = root
        self.history_source = history
        self.history: History | None = None
        self.history_made = False
        self.history_lock = threading.Lock()
        self.update_lock = threading.Lock()
        self.index: NoteIndex | None = None
        self.searcher: Searcher | None = None
        self.opening = False
        """Whether an index load has begun: changes applied before it is installed wait."""
        self.pending: set[str] = set()
        """Paths changed while the index was loading, caught up before it is installed."""
        self.loading: Future[NoteIndex] | None = None
        self.watcher: StoreWatcher | None = None
        self.walk_needed = False
        """Whether the next catch-up walks the whole store (the watcher may have missed a
        change, or an update failed)."""
        self.views: dict[tuple[str, str | None], Workspace] = {}
        self.meaning: MeaningSearch | None = None
        """Search by meaning, installed once the vectors caught up with the index."""
        self.meaning_error: str | None = None
        """Why the configured model could not be used (one line)."""
        self.meaning_lock = threading.Lock()
        """Held while the model is loaded and the vectors first caught up."""
        self.meaning_behind = False
        """Whether a vector update failed: the next one looks at every file."""


class Workspace:
    """One open store: the `MemoryStore`, the note index and its update lock, the searcher, the
    history and the watcher-fed updates; `apply` brings them up to date after a change."""

    def __init__(
        self,
        store: StoreSource = None,
        *,
        root: str | Path | None = None,
        index: NoteIndex | None = None,
        history: HistorySource = None,
        search_model: str | None = None,
    ) -> None:
        """The workspace of `store` (or of the store at `root`, made on first use).

        `index`: an index already loaded, installed as it is. `history`: the history the
        searcher and other background readers use (default: the store's own). `search_model`:
        the configured embedding model (`[search] model`; None: search by meaning is off).
        """
        if root is None:
            if store is None or callable(store):
                raise ValueError("a workspace needs its store or its root")
            root = store.root
        self.root = Path(root)
        self._store = None if store is None or callable(store) else store
        self._make_store = store if callable(store) else None
        self._store_lock = threading.Lock()
        self._parts = _Parts(self.root, history)
        self.search_model = search_model or None
        if index is not None:
            self._parts.index = index
            self._parts.opening = True

    # ----- the store and its history ----------------------------------------------------------

    @property
    def store(self) -> MemoryStore:
        """The core facade, made on first use; every change goes through it."""
        store = self._store
        if store is None:
            with self._store_lock:
                if self._store is None:
                    self._store = self._new_store()
                store = self._store
        return store

    def _new_store(self) -> MemoryStore:
        """The store the workspace was given a maker for, or one on the root as the person."""
        if self._make_store is not None:
            return self._make_store()
        from memtui.core.store import MemoryStore  # imported on first use: start-up

        return MemoryStore(self.root)

    @property
    def history(self) -> History | None:
        """The history background readers use (the searcher's actor filter): never the one
        that runs start-up recovery, when the workspace was given another."""
        parts = self._parts
        if not parts.history_made:
            with parts.history_lock:
                if not parts.history_made:
                    source = parts.history_source
                    if source is None:
                        parts.history = self.store.history
                    elif callable(source):
                        parts.history = source()
                    else:
                        parts.history = source
                    parts.history_made = True
        return parts.history

    def acting_as(self, actor: str, session: str | None = None) -> Workspace:
        """This workspace recording as another actor: it shares everything but the store's
        actor and session (one view per actor and session, kept)."""
        key = (actor, session)
        parts = self._parts
        view = parts.views.get(key)
        if view is None:
            base = self.store
            if base.actor == actor and base.session == session:
                view = self
            else:
                view = Workspace(
                    base.with_actor(actor, session), root=self.root, search_model=self.search_model
                )
                view._parts = parts
            parts.views[key] = view
        return view

    # ----- the index and the searcher ---------------------------------------------------------

    @property
    def index(self) -> NoteIndex | None:
        """The installed index (None until a load installs it)."""
        return self._parts.index

    @property
    def searcher(self) -> Searcher | None:
        """The installed searcher (None until one is installed on the index)."""
        return self._parts.searcher

    @property
    def update_lock(self) -> threading.Lock:
        """Held while the index is installed, caught up or updated, and while a caller reads it
        through a transaction of its own that must not meet an update (a move's prediction)."""
        return self._parts.update_lock

    @property
    def pending(self) -> set[str]:
        """Paths changed on disk before the index was installed (caught up when it is)."""
        return self._parts.pending

    def open_index(
        self,
        progress: ProgressCallback | None = None,
        *,
        ready: Callable[[NoteIndex], None] | None = None,
        interaction: InteractionSignal | None = None,
        use_cache: bool = True,
    ) -> tuple[NoteIndex, set[str]]:
        """Open the store's index, bring it up to date with the files and install it; returns
        it and the paths that changed. Run it off the UI thread.

        An index that already holds files is installed at once and `ready` is called with it,
        so it answers while the files changed since are read; a new one is installed when
        built. Paths applied meanwhile are caught up before the index counts as installed.
        """
        from memtui.notes.index import NoteIndex  # imported on first use: start-up

        parts = self._parts
        with parts.update_lock:
            parts.opening = True
        index = NoteIndex.open(self.root, use_cache=use_cache)
        if ready is not None and not index.is_empty():
            with parts.update_lock:
                parts.index = index
            ready(index)
        changed = index.refresh(progress, interaction=interaction)
        with parts.update_lock:
            if parts.pending:
                changed |= index.update_paths(set(parts.pending))
                parts.pending.clear()
            parts.index = index
        return index, changed

    def install_searcher(self, history: HistorySource = None) -> Searcher:
        """Install a searcher on the installed index (it reads the index's latest state at every
        search, so nothing is built here); `history` overrides the readers' history."""
        from memtui.notes.search import Searcher  # imported on first use: start-up

        history_now = self.history if history is None else history
        if callable(history_now):
            history_now = history_now()
        searcher = Searcher(self._parts.index, history_now)
        with self._parts.update_lock:
            self._parts.pending.clear()
            self._parts.searcher = searcher
        return searcher

    def load_index(
        self, progress: ProgressCallback | None = None, *, use_cache: bool = True
    ) -> NoteIndex:
        """The index brought up to date and installed (a command's one look at the store);
        raises IndexUnavailable (one line) when it cannot be used."""
        index, _changed = self.open_index(progress, use_cache=use_cache)
        return index

    def _load(self) -> NoteIndex:
        """The index brought up to date and installed, with a searcher on it."""
        index = self.load_index()
        self.install_searcher()
        return index

    # ----- a resident process: loaded in the background, kept current by the watcher --------

    def start_loading(self, *, watch: bool = True) -> None:
        """Load the index on a background thread now, so the first search does not wait for it.

        With `watch`, a file watcher starts first and later catch-ups take only what it saw
        change instead of walking the whole store (the load's own walk begins once the watcher
        is set up, so it covers everything before).
        """
        parts = self._parts
        if parts.loading is not None or parts.searcher is not None:
            return
        if watch:
            self.watch()
        future: Future[NoteIndex] = Future()
        parts.loading = future

        def load() -> None:
            try:
                watcher = parts.watcher
                if watcher is not None:
                    watcher.wait_ready(WATCH_READY_WAIT)
                    parts.walk_needed = not watcher.ready
                index = self._load()
            except BaseException as problem:
                future.set_exception(problem)
            else:
                future.set_result(index)
                self.open_meaning()

        threading.Thread(target=load, name="memtui-index-load", daemon=True).start()

    def watch(self) -> None:
        """Start the file watcher whose batches `catch_up` applies (once)."""
        parts = self._parts
        if parts.watcher is not None:
            return
        from memtui.core.watcher import StoreWatcher  # imported on first use: start-up

        parts.watcher = StoreWatcher(self.root)
        parts.watcher.start()
        parts.walk_needed = True

    @property
    def watching(self) -> bool:
        """Whether catch-ups come from the file watcher instead of a walk of the whole store."""
        watcher = self._parts.watcher
        return watcher is not None and watcher.ready

    def current_index(self) -> NoteIndex:
        """The index, loaded on first use (or when the background load is done; search by
        meaning, when configured, is opened with it or after the background load) and caught
        up with the files changed since the last look."""
        parts = self._parts
        if parts.searcher is None:
            loading = parts.loading
            if loading is not None:
                loading.result()
            else:
                self._load()
                self.open_meaning()
        self.catch_up()
        assert parts.index is not None
        return parts.index

    def current_searcher(self) -> Searcher:
        """The searcher over the current index (`current_index`)."""
        self.current_index()
        assert self._parts.searcher is not None
        return self._parts.searcher

    def catch_up(self) -> set[str]:
        """Apply what changed on disk since the last look; returns the paths whose record changed.

        Once the watcher is set up it says which paths to look at; until then, and after an
        update failed, the whole store is walked (by stat: only changed files are read).
        """
        parts = self._parts
        if parts.index is None:
            return set()
        taken = parts.watcher.take() if parts.watcher is not None else None
        if taken is None or parts.walk_needed:
            parts.walk_needed = parts.watcher is not None and taken is None
            changed = parts.index.refresh()
            if parts.meaning is not None and (changed or parts.meaning_behind):
                with parts.update_lock:
                    self._sync_meaning(changed)
            return changed
        return self.apply(taken) if taken else set()

    # ----- changes -----------------------------------------------------------------------------

    def apply(self, relpaths: Iterable[str]) -> set[str]:
        """Bring every part that depends on the files up to date after a change at `relpaths`
        (added, changed, deleted or moved; a folder stands for everything below it), whoever
        made it; returns the paths whose index record changed.

        Before the index is installed the paths wait and are caught up when it is. An update
        that fails changes nothing else and leaves the next catch-up to walk the whole store.
        """
        paths = {path for path in relpaths if path}
        parts = self._parts
        if not paths:
            return set()
        with parts.update_lock:
            if parts.index is None:
                if parts.opening:
                    parts.pending.update(paths)
                return set()
            try:
                changed = parts.index.update_paths(paths)
            except Exception:
                parts.walk_needed = True
                return set()
            self._sync_meaning(paths | changed)
            return changed

    # ----- search by meaning and the query modes -----------------------------------------------

    @property
    def meaning(self) -> MeaningSearch | None:
        """Search by meaning (None until `open_meaning` installed it, or when it is off)."""
        return self._parts.meaning

    @property
    def meaning_wanted(self) -> bool:
        """Whether a model is configured and the `meaning` extra installed (it can be opened)."""
        from memtui.notes.meaning import off_reason  # imported on first use: start-up

        return off_reason(self.search_model) is None and self._parts.meaning_error is None

    @property
    def meaning_off(self) -> str | None:
        """Why search by meaning cannot answer now (one line), or None when it can."""
        from memtui.notes.meaning import off_reason  # imported on first use: start-up
        from memtui.notes.search_modes import READYING  # imported on first use: start-up

        parts = self._parts
        if parts.meaning is not None:
            return None
        return parts.meaning_error or off_reason(self.search_model) or READYING

    def open_meaning(self, interaction: InteractionSignal | None = None) -> MeaningSearch | None:
        """Load the configured model, embed what the installed index holds that has no vector
        yet (in batches, each written under the index's lock) and install search by meaning;
        None when it is off or the model cannot be used (`meaning_off` says why). Run it off
        the UI thread: a store's first embedding takes a while, resting more while
        `interaction` says someone is using the app."""
        parts = self._parts
        if parts.meaning is not None or not self.meaning_wanted or parts.index is None:
            return parts.meaning
        with parts.meaning_lock:
            if parts.meaning is None and parts.meaning_error is None:
                self._install_meaning(parts.index, interaction)
        return parts.meaning

    def _install_meaning(self, index: NoteIndex, interaction: InteractionSignal | None) -> None:
        """Catch the vectors up with `index` and install the search; a failure is kept as one
        line in `meaning_error`."""
        # imported on first use: start-up
        from memtui.notes.bulk import Pacer
        from memtui.notes.meaning.embedder import MeaningUnavailable, load_embedder
        from memtui.notes.meaning.hybrid import MeaningSearch
        from memtui.notes.meaning.sync import sync_vectors

        parts = self._parts
        assert self.search_model is not None
        try:
            embedder = load_embedder(self.search_model)
            sync_vectors(index.db, self.root, embedder, pace=Pacer(interaction))
            with parts.update_lock:
                sync_vectors(index.db, self.root, embedder)
                parts.meaning = MeaningSearch(index, embedder)
        except MeaningUnavailable as problem:
            parts.meaning_error = str(problem)
        except Exception as problem:
            reason = " ".join(str(problem).split())[:200] or type(problem).__name__
            parts.meaning_error = f"search by meaning failed: {reason}"

    def _sync_meaning(self, paths: set[str] | None) -> None:
        """Bring the vectors of `paths` (None: of every file) up to date with the index, after
        it changed (the caller holds the update lock); a failure leaves the next update to look
        at every file."""
        parts = self._parts
        meaning = parts.meaning
        if meaning is None:
            return
        from memtui.notes.meaning.sync import sync_vectors  # imported on first use: start-up

        try:
            sync_vectors(
                meaning.index.db,
                self.root,
                meaning.embedder,
                None if parts.meaning_behind else paths,
            )
        except Exception:
            parts.meaning_behind = True
        else:
            parts.meaning_behind = False

    def search(
        self,
        words: str,
        filters: SearchFilters | None = None,
        *,
        limit: int = 50,
        mode: str | None = None,
        cancelled: Callable[[], bool] | None = None,
        visible: Callable[[str], bool] | None = None,
        per_note: int | None = None,
    ) -> ModeResult:
        """Search the installed index in `mode` (None: the query's `mode:`, else hybrid when
        search by meaning is on and text when not); a mode that needs meaning while it is off
        searches by text and says why; with `visible`, only files it allows are found;
        `per_note` caps one note's text hits. Call `current_searcher` or install one first."""
        from memtui.notes.search_modes import search_in_mode  # imported on first use: start-up

        searcher = self._parts.searcher
        assert searcher is not None
        meaning = self._parts.meaning
        asked = mode or (filters.mode if filters is not None else None)
        off = self.meaning_off if meaning is None and asked not in (None, "text") else None
        return search_in_mode(
            searcher,
            meaning,
            words,
            limit=limit,
            filters=filters,
            mode=mode,
            off=off,
            cancelled=cancelled,
            visible=visible,
            per_note=per_note,
        )

    def record_outside(self, relpaths: Iterable[str]) -> list[int]:
        """Record files changed behind memtui's back as `external` events (the watcher's
        batches in the app); folders are left to the files in them."""
        files = sorted(path for path in relpaths if not (self.root / path).is_dir())
        return self.store.record_external(files) if files else []

    def close(self) -> None:
        """Stop the watcher and close the index's connections."""
        parts = self._parts
        if parts.watcher is not None:
            parts.watcher.stop()
        if parts.index is not None:
            parts.index.close()
