"""The demo's `claude/` folder: files written the way Claude writes with the memory tool.

XML-tagged markdown, an XML preference file, `.txt` logs appended line by line and a `.json`
settings file, each created and edited by the agent through the core at scripted times, and
read back (or not) by `view`. The steps are merged by time into the Basic Memory replay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memtui.core.parsing.paths import from_relpath
from memtui.demo.bundled import final_text, without

if TYPE_CHECKING:
    from memtui.demo.script import _Replay

FOLDER = "claude"
"""Where the memory tool's files live in the demo store."""

Step = tuple[float, float, Callable[["_Replay"], None]]
"""(days before DEMO_NOW, hours after that, what happens then)."""

_PREFERENCES = f"{FOLDER}/user_preferences.xml"
_CONTEXT = f"{FOLDER}/project_context.md"
_OLD_CONTEXT = f"{FOLDER}/billing_context.md"
_DECISIONS = f"{FOLDER}/decisions.txt"
_PREFS_JSON = f"{FOLDER}/prefs.json"
_SESSION_LOG = f"{FOLDER}/session_log.txt"

_TESTS_LINE = "    <tests>pytest, property tests (hypothesis) for parsers</tests>\n"
_EDITOR_LINE = "    <editor>Neovim in a tmux split</editor>\n"
_FREEZE = (
    "<important>\nDeploy freeze from 2026-12-18 to 2027-01-04: schedule no migration in that"
    " window.\n</important>\n\n"
)
_OPEN_QUESTIONS = "## Open questions\n"


def _first_lines(relpath: str, count: int) -> str:
    """The first `count` lines of a bundled file."""

    return "".join(final_text(relpath).splitlines(keepends=True)[:count])


def _line(relpath: str, number: int) -> str:
    """Line `number` (1-based) of a bundled file, with its line end."""

    return final_text(relpath).splitlines(keepends=True)[number - 1]


def _createwithout(relpath: str, line: str) -> Callable[[_Replay], None]:
    """A step that creates a bundled file without one of its pieces of text."""

    return lambda run: run.create(relpath, without(final_text(relpath), line))


def _append(relpath: str, number: int) -> Callable[[_Replay], None]:
    """A step that inserts line `number` of a bundled log after the line before it."""
    return lambda run: run.insert(relpath, number - 1, _line(relpath, number))


def _view(relpath: str) -> Callable[[_Replay], None]:
    """A step where the agent reads a file (or the folder) back."""
    return lambda run: run.view(from_relpath(relpath))


def memory_tool_steps() -> list[Step]:
    """The scripted weeks of the agent's memory-tool work, oldest first."""
    return [
        (70, 0, lambda run: run.create(_PREFS_JSON)),
        (53, 0, lambda run: run.create(_DECISIONS, _first_lines(_DECISIONS, 1))),
        (47, 0, _append(_DECISIONS, 2)),
        (45, 0, lambda run: run.create(_OLD_CONTEXT)),
        (40, 0, _createwithout(_PREFERENCES, _EDITOR_LINE)),
        (36, 0, _append(_DECISIONS, 3)),
        (30, 0, _view(FOLDER)),
        (18, 0, _append(_DECISIONS, 4)),
        (14, 0, lambda run: run.create(_SESSION_LOG, _first_lines(_SESSION_LOG, 1))),
        (12, 0, _createwithout(_CONTEXT, _FREEZE)),
        (12, 1, _view(_DECISIONS)),
        (9, 0, lambda run: run.replace(_PREFERENCES, _TESTS_LINE, _TESTS_LINE + _EDITOR_LINE)),
        (8, 0, _append(_SESSION_LOG, 2)),
        (4, 0, _append(_DECISIONS, 5)),
        (3, 0, lambda run: run.replace(_CONTEXT, _OPEN_QUESTIONS, _FREEZE + _OPEN_QUESTIONS)),
        (2, 0, _append(_SESSION_LOG, 3)),
        (2, 1, _view(FOLDER)),
        (2, 1, _view(_PREFERENCES)),
        (2, 1, _view(_CONTEXT)),
        (1, 2, _view(_DECISIONS)),
    ]
