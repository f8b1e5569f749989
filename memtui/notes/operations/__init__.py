"""Note operations the app, the command line and MCP share: create from a template, rename or
move with inbound link rewriting, archive, delete (saying which links it breaks), and a
person's save merged three ways with changes made meanwhile. Each change is one operation (a
history group), shown and undone as one."""

from __future__ import annotations

from memtui.notes.operations.deleting import Deleted, DeletePlan, delete, plan_delete
from memtui.notes.operations.moving import Moved, archive, archive_path, move
from memtui.notes.operations.naming import (
    Created,
    create_note,
    new_note_path,
    note_template,
    slug_filename,
    template_cursor,
)
from memtui.notes.operations.saving import (
    Changed,
    Saved,
    save_edit,
    save_merged,
    what_changed,
    who_changed,
)

__all__ = [
    "Changed",
    "Created",
    "DeletePlan",
    "Deleted",
    "Moved",
    "Saved",
    "archive",
    "archive_path",
    "create_note",
    "delete",
    "move",
    "new_note_path",
    "note_template",
    "plan_delete",
    "save_edit",
    "save_merged",
    "slug_filename",
    "template_cursor",
    "what_changed",
    "who_changed",
]
