"""Everything the screens share about the open store: the core facade, history, index and search."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.tui.interaction import Interaction

if TYPE_CHECKING:
    from memtui.core.config import Settings
    from memtui.core.policy.rules import Policy
    from memtui.core.recording.history import History
    from memtui.core.store import MemoryStore
    from memtui.notes.bulk import InteractionSignal
    from memtui.notes.index import NoteIndex
    from memtui.notes.search import Searcher
    from memtui.notes.workspace import Workspace

AGENT_BADGE_DAYS = 7
"""A note keeps the tree's agent badge this many days after an agent last changed it."""
DAY = 86_400.0
STALE_BADGE_MIN_SCORE = 2.0
"""Review score a note needs for the tree's stale badge: one strong signal (expired, superseded
or a near-duplicate, not read by an agent for 120+ days) or several together, more than the
review's own threshold of proposing a file."""


class AppContext:
    """The open store as the app sees it: its Workspace, the settings and the app's own state;
    `index` and `searcher` are None until indexing finishes."""

    def __init__(
        self,
        root: Path,
        settings: Settings,
        store: MemoryStore | Callable[[], MemoryStore],
        index: NoteIndex | None = None,
        problems: list[str] | None = None,
        actor: str | None = None,
    ) -> None:
        """The context of the store at `root`; `store` is the store or what makes it on first use
        (then `actor` is the actor it will record as)."""
        from memtui.notes.workspace import Workspace  # imported on first use: start-up

        self.root = root
        self.settings = settings
        self.workspace: Workspace = Workspace(
            store,
            root=root,
            index=index,
            history=partial(plain_history, root),
            search_model=settings.search_model,
        )
        """The open store: the core facade, the index and its lock, the searcher, the history."""
        self._actor = actor
        self.problems: list[str] = problems if problems is not None else []
        """Start-up problems to show the user (for example a corrupt history that was set aside)."""
        self.interaction = Interaction()
        """When someone last used the app: the background work it starts yields more meanwhile."""

    @classmethod
    def open(
        cls,
        root: str | os.PathLike[str],
        actor: str | None,
        settings: Settings | None,
        clock: Callable[[], float],
        setup: Callable[[MemoryStore], None] | None = None,
    ) -> AppContext:
        """The context of the store at `root` as `actor` (None: the configured human).

        `setup` runs on the store as soon as it is made (the app sets its lock policy there).

        The core is imported and the store made on first use (after the first frame: 25 ms of
        imports), unless something must be checked now: a bad actor raises ActorError here, and
        missing settings or a missing folder make the store at once (with its own errors).
        """
        path = Path(root).expanduser().absolute()
        if settings is None or not path.is_dir():
            from memtui.core.store import MemoryStore  # imported on first use: start-up

            made = MemoryStore(root, actor=actor, settings=settings, clock=clock)
            if setup is not None:
                setup(made)
            return cls(made.root, made.settings, made)
        from memtui.core.actors import check_actor  # imported on first use: start-up
        from memtui.core.config import default_human_actor  # imported on first use: start-up

        human = check_actor(actor) if actor is not None else default_human_actor(settings)

        def make() -> MemoryStore:
            from memtui.core.store import MemoryStore  # imported on first use: start-up

            made = MemoryStore(path, actor=human, settings=settings, clock=clock)
            if setup is not None:
                setup(made)
            return made

        return cls(path, settings, make, actor=human)

    @property
    def store(self) -> MemoryStore:
        """The core facade with the human actor; every change the app makes goes through it."""
        return self.workspace.store

    @property
    def index(self) -> NoteIndex | None:
        """The installed index (None until the index worker installs it)."""
        return self.workspace.index

    @property
    def searcher(self) -> Searcher | None:
        """The installed searcher (None until search works)."""
        return self.workspace.searcher

    @property
    def changed_while_loading(self) -> set[str]:
        """Paths changed on disk before the index was installed (caught up when it is)."""
        return self.workspace.pending

    @property
    def actor(self) -> str:
        """The human actor the app records as."""
        return self._actor if self._actor is not None else self.store.actor

    @property
    def history(self) -> History:
        """The store's audit history."""
        return self.store.history

    @staticmethod
    def virtual(relpath: str) -> str:
        """The `/memories/...` path of a note's relative path."""
        from memtui.core.parsing.paths import from_relpath  # imported on first use: start-up

        return from_relpath(relpath)


def plain_history(root: Path) -> History:
    """The history for background readers: never runs start-up recovery itself."""
    from memtui.core.recording.history import History  # imported on first use: start-up

    return History(root)


def default_settings() -> Settings | None:
    """The user's settings, or None if they cannot be loaded."""
    try:
        from memtui.core.config import load_settings  # imported on first use: start-up

        return load_settings()
    except Exception:
        return None


def still_holds_a_secret(store: MemoryStore, virtual: str) -> bool:
    """Whether the note at `virtual` still contains something the secret scanner flags."""
    from memtui.core.secrets import scan
    from memtui.core.store import StoreError

    try:
        text, _revision = store.read(virtual)
    except StoreError:
        return False
    return bool(scan(text))


def compute_badges(
    history: History,
    index: NoteIndex,
    now: float,
    store: MemoryStore | None = None,
    interaction: InteractionSignal | None = None,
    policy: Policy | None = None,
) -> dict[str, frozenset[str]]:
    """Tree badges per note: stale, recently changed by an agent, secret flagged, parse warnings;
    and with `policy`, the marks of files and folders it restricts agents on.

    A note is marked secret while it holds exactly what a flagged agent write left, or, when it
    was flagged once and edited since, while its text still holds a likely secret.
    """
    from memtui.core.parsing.paths import under_root  # imported on first use: start-up

    badges: dict[str, set[str]] = {}
    for path in index.notes.warned():
        badges.setdefault(path, set()).add("warning")
    recent = history.last_change_actors(since=now - AGENT_BADGE_DAYS * DAY)
    for virtual, actor in recent.items():
        relpath = under_root(virtual)
        if actor.startswith("agent") and relpath is not None:
            badges.setdefault(relpath, set()).add("agent")
    flagged = history.secret_flagged_paths()
    if store is not None:
        flagged |= {
            virtual
            for virtual in history.secret_flagged_event_paths() - flagged
            if (under_root(virtual) or "") in index.notes and still_holds_a_secret(store, virtual)
        }
    for virtual in flagged:
        relpath = under_root(virtual)
        if relpath is not None:
            badges.setdefault(relpath, set()).add("secret")
    from memtui.notes.stale import review  # imported on first use: start-up

    for candidate in review(index, history, now=now, interaction=interaction):
        if candidate.score < STALE_BADGE_MIN_SCORE:
            break
        badges.setdefault(candidate.path, set()).add("stale")
    if policy is not None:
        from memtui.tui.policy_marks import policy_marks  # imported on first use: start-up

        paths = index.file_stats() if policy.rules else ()
        for path, mark in policy_marks(policy, paths, index.notes.read_only()).items():
            badges.setdefault(path, set()).add(mark)
    return {path: frozenset(names) for path, names in badges.items()}
