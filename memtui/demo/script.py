"""Writes the demo store through the core, replaying a fixed, backdated history of agent and human
work.

Every event time is `DEMO_NOW` minus a fixed offset, so the store, its history and its file
times are identical on every run (screenshots and snapshot tests rely on that). Screens that
show ages ("3 days ago") should be given `DEMO_NOW` as their clock to match the screenshots.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memtui.core.parsing.paths import from_relpath
from memtui.core.recording.inbox import changes
from memtui.demo.bundled import final_text, without
from memtui.demo.memory_tool import Step, memory_tool_steps

if TYPE_CHECKING:
    from memtui.core.store import MemoryStore

DEMO_NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC).timestamp()
"""The fixed "present" of the demo history: 2026-11-20 12:00 UTC."""
DAY = 86_400.0

AGENT = "agent:claude"
SECOND_AGENT = "agent:cursor"
HUMAN = "human:dana"

_PROFILE_EDITOR_LINE = "- [editor] Uses Neovim with a tmux split #tools\n"
_PROFILE_ANCHOR = (
    "- [communication] Wants short answers first, details on request (see communication style)\n"
)
_BILLING_INCIDENT_LINE = (
    "- [incident] Double-charged 14 customers on 2026-10-03 after a retry storm #incident\n"
)
_BILLING_ANCHOR = "- [decision] Idempotency keys on every invoice mutation #reliability\n"
_TESTING_HYPOTHESIS_LINE = (
    "- [rule] Property tests (hypothesis) for parsers and path validation #testing\n"
)
_MEMTUI_SESSION_LINK = "- discussed_in [[Session 2026-11-14 memtui graph]]\n"
_PREFERENCES_FINAL = "- [formatting] ruff format, line length 100 #python\n"
_PREFERENCES_DRAFT = "- [formatting] black, line length 88 #python\n"

_SCRATCH_NOTES = {
    "scratch/todo.md": "# Scratch todo\n\n- [todo] Ask Dana about the Q1 freeze dates\n"
    "- [todo] Check whether the runbook covers the dedupe job\n",
    "scratch/links.md": "# Links to read\n\n- [link] Textual testing guide #textual\n"
    "- [link] Basic Memory note format #format\n",
}
_DRAFT_SESSION = (
    "sessions/draft.md",
    "# Draft session\n\n- [summary] Half-written notes from an interrupted session\n",
)


def _when(days_ago: float, hours: float = 0.0) -> float:
    """The time `days_ago` days (plus `hours`) before DEMO_NOW."""
    return DEMO_NOW - days_ago * DAY + hours * 3600.0


@dataclass
class _DemoClock:
    """A settable clock handed to the store so every event gets its scripted time."""

    now: float = DEMO_NOW

    def __call__(self) -> float:
        """The scripted current time."""
        return self.now


@dataclass
class _Replay:
    """Runs scripted steps against the store and remembers when each file last changed."""

    root: Path
    clock: _DemoClock
    stores: dict[str, MemoryStore]
    changed_at: dict[str, float] = field(default_factory=dict)
    scheduled: list[tuple[float, Callable[[_Replay], None]]] = field(default_factory=list)
    """Steps of another script still to run, by time: each runs before the clock passes it."""

    def schedule(self, steps: list[Step]) -> None:
        """Merge timed steps into the replay (they run as the clock reaches their time)."""
        for days_ago, hours, action in steps:
            self.scheduled.append((_when(days_ago, hours), action))
        self.scheduled.sort(key=lambda step: step[0])

    def run_scheduled(self, until: float = float("inf")) -> None:
        """Run every scheduled step whose time is before `until`, each at its own time."""
        while self.scheduled and self.scheduled[0][0] < until:
            when, action = self.scheduled.pop(0)
            self.clock.now = when
            action(self)

    def at(self, days_ago: float, hours: float = 0.0) -> _Replay:
        """Move the clock to `days_ago` days (plus `hours`) before DEMO_NOW, running the
        scheduled steps that come first."""
        when = _when(days_ago, hours)
        self.run_scheduled(until=when)
        self.clock.now = when
        return self

    def _check(self, result_error: bool, content: str, expect_error: bool) -> None:
        """Fail loudly when a scripted step does not behave as scripted."""
        if result_error != expect_error:
            raise RuntimeError(f"demo step went wrong: {content}")

    def _touch(self, relpath: str) -> None:
        """Remember that `relpath` changed at the current scripted time."""
        self.changed_at[relpath] = self.clock.now

    def create(self, relpath: str, text: str | None = None, actor: str = AGENT) -> None:
        """Create a note (with its bundled text unless another version is given)."""
        body = final_text(relpath) if text is None else text
        result = self.stores[actor].create(from_relpath(relpath), body)
        self._check(result.is_error, result.content, False)
        self._touch(relpath)

    def replace(self, relpath: str, old: str, new: str, actor: str = AGENT) -> None:
        """Replace one unique piece of text in a note."""
        result = self.stores[actor].str_replace(from_relpath(relpath), old, new)
        self._check(result.is_error, result.content, False)
        self._touch(relpath)

    def insert(self, relpath: str, line: int, text: str, actor: str = AGENT) -> None:
        """Insert text after a line of a note."""
        result = self.stores[actor].insert(from_relpath(relpath), line, text)
        self._check(result.is_error, result.content, False)
        self._touch(relpath)

    def view(self, path: str, actor: str = AGENT, *, expect_error: bool = False) -> None:
        """Read a note or folder as an agent (or try to)."""
        result = self.stores[actor].execute({"command": "view", "path": path})
        self._check(result.is_error, result.content, expect_error)

    def fail_replace(self, relpath: str, old: str, actor: str = AGENT) -> None:
        """An edit that the core refuses because the text is not in the note."""
        result = self.stores[actor].str_replace(from_relpath(relpath), old, "")
        self._check(result.is_error, result.content, True)

    def rename(self, old: str, new: str, actor: str = AGENT) -> None:
        """Rename a note."""
        result = self.stores[actor].rename(from_relpath(old), from_relpath(new))
        self._check(result.is_error, result.content, False)
        self.changed_at.pop(old, None)
        self._touch(new)

    def delete(self, relpath: str, actor: str = AGENT) -> None:
        """Delete a note or a folder."""
        result = self.stores[actor].delete(from_relpath(relpath))
        self._check(result.is_error, result.content, False)
        for known in list(self.changed_at):
            if known == relpath or known.startswith(relpath + "/"):
                del self.changed_at[known]

    def human_write(self, relpath: str, text: str) -> None:
        """A human edit of a whole note through the editor path (revision-checked write)."""
        store = self.stores[HUMAN]
        result = store.write(from_relpath(relpath), text, store.revision(from_relpath(relpath)))
        self._check(result.is_error, result.content, False)
        self._touch(relpath)

    def approve_all(self) -> None:
        """Dana reviews every agent and outside change so far (the inbox keeps what came later)."""
        history = self.stores[HUMAN].history
        waiting = changes(history)
        history.mark_reviewed([event.id for event in waiting], HUMAN, self.clock.now)

    def set_mtimes(self) -> None:
        """Give every file the time of its last scripted change."""
        for relpath, when in self.changed_at.items():
            os.utime(self.root / relpath, (when, when))


def _make_stores(dest: Path, clock: Callable[[], float]) -> dict[str, MemoryStore]:
    """One store per demo actor, sharing one history and the scripted clock."""
    from memtui.core.config import Settings
    from memtui.core.store import MemoryStore

    agent = MemoryStore(dest, actor=AGENT, session="demo-1", settings=Settings(), clock=clock)
    return {
        AGENT: agent,
        SECOND_AGENT: agent.with_actor(SECOND_AGENT, session="demo-cursor"),
        HUMAN: agent.with_actor(HUMAN),
    }


def _replay(run: _Replay) -> None:
    """The scripted weeks of work; the notes end up exactly as bundled."""
    profile = final_text("user/profile.md")
    billing = final_text("projects/billing-service.md")
    testing = final_text("patterns/python-testing.md")
    memtui = final_text("projects/memtui.md")
    preferences = final_text("user/preferences.md")

    run.at(93)
    run.create("user/profile.md", without(profile, _PROFILE_EDITOR_LINE))
    for relpath in ("user/team.md", "user/communication-style.md"):
        run.create(relpath)
    run.at(93, 1).create("sessions/2026-08-19-onboarding.md")
    run.at(92)
    for relpath in (
        "projects/website-redesign.md",
        "projects/mobile-app.md",
        "patterns/prompt-formats.md",
        "user/schedule.md",
    ):
        run.create(relpath)
    run.at(79).create("sessions/2026-09-02-scratch.md")
    run.at(79, 1).create("patterns/retry-backoff.md")
    run.at(60)
    run.create("projects/billing.md", without(billing, _BILLING_INCIDENT_LINE))
    for relpath in (
        "projects/billing/api-design.md",
        "projects/billing/ledger-migration.md",
        "projects/data-pipeline.md",
    ):
        run.create(relpath)
    run.at(47)
    run.create("projects/billing/incidents.md")
    run.create("sessions/2026-10-04-incident-review.md")
    run.create("patterns/retry-with-backoff.md")
    run.at(47, 1).view("/memories/projects/billing.md")
    run.replace("projects/billing.md", _BILLING_ANCHOR, _BILLING_ANCHOR + _BILLING_INCIDENT_LINE)
    run.at(39)
    run.create("projects/data-pipeline/runbook.md", actor=SECOND_AGENT)
    run.create("sessions/2026-10-12-pipeline-memory.md", actor=SECOND_AGENT)
    run.at(31).rename("projects/billing.md", "projects/billing-service.md")
    run.at(31, 1).create("sessions/2026-10-20-billing-api.md")
    run.at(31, 2).view("/memories/projects/billing-service.md")
    run.at(23)
    run.create("patterns/python-testing.md", without(testing, _TESTING_HYPOTHESIS_LINE))
    run.create("projects/memtui.md", without(memtui, _MEMTUI_SESSION_LINK))
    for relpath in (
        "projects/memtui-roadmap.md",
        "sessions/2026-10-28-memtui-kickoff.md",
        "patterns/error-handling.md",
        "patterns/sqlite-tips.md",
    ):
        run.create(relpath)
    run.at(20)
    for relpath, text in _SCRATCH_NOTES.items():
        run.create(relpath, text)
    run.create(_DRAFT_SESSION[0], _DRAFT_SESSION[1])
    run.at(14)
    for relpath in (
        "sessions/2026-11-06-textual-snapshots.md",
        "patterns/textual-ui.md",
        "patterns/code-review.md",
        "patterns/git-workflow.md",
        "user/toolbox.md",
    ):
        run.create(relpath)
    run.create("user/preferences.md", preferences.replace(_PREFERENCES_FINAL, _PREFERENCES_DRAFT))
    run.at(10)
    hypothesis_after = testing.splitlines(keepends=True).index(_TESTING_HYPOTHESIS_LINE)
    run.insert("patterns/python-testing.md", hypothesis_after, _TESTING_HYPOTHESIS_LINE)
    run.at(10, 1).delete(_DRAFT_SESSION[0])
    run.at(8).view("/memories/user/preferences.md", HUMAN)
    run.at(8, 1).human_write("user/preferences.md", preferences)
    run.at(8, 2).approve_all()
    run.at(6).create("sessions/2026-11-14-memtui-graph.md")
    run.replace(
        "projects/memtui.md",
        "- inspired_by [[Basic Memory]]\n",
        _MEMTUI_SESSION_LINK + "- inspired_by [[Basic Memory]]\n",
    )
    run.at(5).delete("scratch")
    run.at(3).view("/memories/../../etc/passwd", SECOND_AGENT, expect_error=True)
    run.at(2)
    for path in (
        "/memories",
        "/memories/projects/memtui.md",
        "/memories/user/profile.md",
        "/memories/user/preferences.md",
        "/memories/patterns/python-testing.md",
        "/memories/patterns/textual-ui.md",
        "/memories/projects/billing-service.md",
    ):
        run.view(path)
    run.at(1).replace("user/profile.md", _PROFILE_ANCHOR, _PROFILE_ANCHOR + _PROFILE_EDITOR_LINE)
    run.at(1, 1).fail_replace("projects/memtui.md", "- [milestone] First demo on 2026-11-10")
    run.at(0, -2).view("/memories/projects/memtui.md")


def demo_clock(started: float | None = None) -> Callable[[], float]:
    """A clock that reads DEMO_NOW at `started` (default: now) and then runs in real time."""
    offset = DEMO_NOW - (time.time() if started is None else started)
    return lambda: time.time() + offset


def create_demo_store(dest: Path, *, basic_memory: bool = True) -> Path:
    """Write the demo files and their backdated history into `dest` (created, must be empty):
    the Basic Memory notes and the memory tool's `claude/` folder, or with `basic_memory`
    False only the latter (a store written only through the memory tool)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    if any(p.name != ".memtui" for p in dest.iterdir()):
        raise FileExistsError(f"demo store destination is not empty: {dest}")
    clock = _DemoClock()
    run = _Replay(root=dest, clock=clock, stores=_make_stores(dest, clock))
    run.schedule(memory_tool_steps())
    if basic_memory:
        _replay(run)
    run.run_scheduled()
    run.set_mtimes()
    return dest
