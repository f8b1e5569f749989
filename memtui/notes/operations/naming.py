"""New notes: Basic Memory's file name for a title, the note template, and creating one."""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

from memtui.core.parsing.paths import from_relpath
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.result import CONFLICT, CommandResult
from memtui.notes.permalink import generate_permalink
from memtui.notes.workspace import Workspace

_PATH_SEPARATORS = re.compile(r"[/\\]")
_UNSAFE_IN_NAMES = re.compile(r'[<>:"|?*]')
_DASH_RUN = re.compile(r"-+")
UNTITLED = "untitled"
CREATE_KIND = "create"


def sanitize_for_filename(title: str) -> str:
    """A title with path separators and characters file systems refuse turned into `-`, runs
    of `-` made one and trailing dots dropped (Basic Memory's `sanitize_for_filename`)."""
    text = _UNSAFE_IN_NAMES.sub("-", _PATH_SEPARATORS.sub("-", title))
    return _DASH_RUN.sub("-", text).strip(".").strip("-")


def slug_filename(title: str) -> str:
    """The file name Basic Memory gives a note titled `title` with kebab-case file names:
    `Deploy Checklist` -> `deploy-checklist.md` (the permalink rule applied to the title)."""
    sanitized = sanitize_for_filename(title.strip())
    slug = generate_permalink(sanitized).replace("/", "-").strip("-.") if sanitized else ""
    return (slug or UNTITLED) + ".md"


def note_template(title: str, relpath: str) -> str:
    """A new note: frontmatter (title, type, tags, permalink), Observations and Relations (with
    the relation syntax in a comment, so the note links nowhere until the user says so)."""
    frontmatter = yaml.safe_dump(
        {"title": title, "type": "note", "tags": [], "permalink": generate_permalink(relpath)},
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=None,
        width=2**31,
    )
    return (
        f"---\n{frontmatter}---\n\n"
        f"# {title}\n\n"
        "## Observations\n\n"
        "- [fact] \n\n"
        "## Relations\n\n"
        "<!-- - relates_to [[Another note]] -->\n"
    )


def template_cursor() -> tuple[int, int]:
    """Where typing starts in a new note: the end of the first observation placeholder."""
    lines = note_template("title", "title.md").splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith("- [fact]"))
    return row, len(lines[row])


@dataclass(frozen=True)
class Created:
    """What creating a note did: the write's result and the note's path in the store."""

    result: CommandResult
    relpath: str


def new_note_path(folder: str, title: str) -> str:
    """The relative path of a new note titled `title` in `folder` (the root when empty)."""
    folder = folder.strip().strip("/")
    name = slug_filename(title)
    return f"{folder}/{name}" if folder else name


def create_note(workspace: Workspace, folder: str, title: str) -> Created:
    """Create a note from the template in `folder`, named from its title, as one operation,
    and bring the workspace up to date.

    A note already at that path is left alone and named in the refusal.
    """
    title = title.strip()
    relpath = new_note_path(folder, title)
    virtual = from_relpath(relpath)
    try:
        operation = workspace.store.operation(CREATE_KIND, f"create {virtual}")
    except RecordFailed as problem:
        return Created(
            CommandResult(unrecorded_message(f"create {virtual}", problem), True), relpath
        )
    result = operation.write(virtual, note_template(title, relpath), None)
    if result.kind == CONFLICT:
        result = CommandResult(
            f"A file named {relpath} is already there; choose another title (nothing changed)",
            True,
            result.event_id,
            CONFLICT,
        )
    elif not result.is_error:
        workspace.apply([relpath])
    return Created(result, relpath)
