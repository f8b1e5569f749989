"""Delete a note or folder as one operation, saying first which links into it it breaks and
how many files go."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.parsing.paths import PathRefusal, check_path, from_relpath
from memtui.core.plurals import count
from memtui.core.recording.database import RecordFailed, unrecorded_message
from memtui.core.result import CommandResult
from memtui.notes.index import NoteIndex
from memtui.notes.links import links_into, notes_at, wikilinks
from memtui.notes.workspace import Workspace

DELETE_KIND = "delete"


@dataclass(frozen=True)
class DeletePlan:
    """What deleting `relpath` would remove and break: its files, and by note outside it the
    link texts that would then point nowhere."""

    relpath: str
    is_folder: bool
    files: int
    breaks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def broken_links(self) -> int:
        """How many links would point nowhere."""
        return sum(len(links) for links in self.breaks.values())

    def what(self) -> str:
        """`the note a.md` or `the folder a/ and its 3 files`."""
        if self.is_folder:
            return f"the folder {self.relpath}/ and its {count(self.files, 'file')}"
        return f"the note {self.relpath}" if self.relpath.endswith(".md") else self.relpath

    def consequences(self) -> list[str]:
        """Lines naming each link the delete breaks (`source: [[link]]`), or saying none does."""
        if not self.breaks:
            return ["No other note links here."]
        lines = [
            f"{count(self.broken_links, 'link')} in {count(len(self.breaks), 'other note')} "
            "would point nowhere:"
        ]
        for source, links in sorted(self.breaks.items()):
            lines.append(f"  {source}: {', '.join(f'[[{link}]]' for link in links)}")
        return lines


@dataclass(frozen=True)
class Deleted:
    """What a delete did: the command's result, its operation, and the plan it followed."""

    result: CommandResult
    plan: DeletePlan
    group_id: int | None = None

    @property
    def summary(self) -> str:
        """One line: what was deleted and which notes now hold broken links."""
        if self.result.is_error:
            return self.result.content
        line = f"Deleted {self.plan.what()}"
        if self.plan.breaks:
            notes = sorted(self.plan.breaks)
            shown = ", ".join(notes[:3]) + (", ..." if len(notes) > 3 else "")
            verb = "points" if self.plan.broken_links == 1 else "point"
            line += (
                f"; {count(self.plan.broken_links, 'link')} in {count(len(notes), 'note')} "
                f"now {verb} nowhere ({shown})"
            )
        return line


def plan_delete(workspace: Workspace, relpath: str) -> DeletePlan:
    """What deleting the note or folder `relpath` would remove and which links it would break
    (none known without the workspace's index)."""
    relpath = relpath.strip().strip("/")
    index = workspace.index
    is_folder, files = _count_files(workspace.root, relpath)
    breaks: dict[str, list[str]] = {}
    if index is not None:
        gone = notes_at(index, relpath)
        for source in links_into(index, relpath):
            links = [] if source in gone else _links_into(index, source, gone)
            if links:
                breaks[source] = links
    return DeletePlan(relpath, is_folder, files, breaks)


def _links_into(index: NoteIndex, source: str, gone: set[str]) -> list[str]:
    """The links of `source`, as written, that reach one of the notes in `gone`."""
    found: list[str] = []
    for link in wikilinks(index.texts.get(source) or ""):
        for name in link.names():
            resolved = index.resolve(name, source)
            if resolved is not None:
                if resolved in gone:
                    found.append(link.inner)
                break
    return found


def delete(workspace: Workspace, plan: DeletePlan) -> Deleted:
    """Delete what `plan` describes as one operation (the history keeps it: undo restores it),
    and bring the workspace up to date."""
    virtual = from_relpath(plan.relpath)
    try:
        operation = workspace.store.operation(DELETE_KIND, f"delete {virtual}")
    except RecordFailed as problem:
        return Deleted(CommandResult(unrecorded_message(f"delete {virtual}", problem), True), plan)
    deleted = Deleted(operation.delete(virtual), plan, operation.group_id)
    if not deleted.result.is_error:
        workspace.apply([plan.relpath])
    return deleted


def _count_files(root: Path, relpath: str) -> tuple[bool, int]:
    """Whether `relpath` is a folder, and how many files (and links) it holds; links are not
    followed, and a path the store refuses counts nothing."""
    checked = check_path(root, from_relpath(relpath), any_name=True)
    if isinstance(checked, PathRefusal) or not checked.parts:
        return False, 0
    target = root.joinpath(*checked.parts)
    try:
        info = os.lstat(target)
    except OSError:
        return False, 0
    if not stat.S_ISDIR(info.st_mode):
        return False, 1
    return True, sum(len(files) for _top, _dirs, files, _fd in os.fwalk(target))
