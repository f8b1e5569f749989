"""The result every command returns, shaped like a memory-tool `tool_result`, with its kind."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ResultKind = Literal["ok", "held", "conflict", "refused", "not_found", "busy", "error"]
"""What became of a command: done (`ok`); checked and held for a person's approval by the store's
policy, not applied yet (`held`); refused because the file changed since it was loaded
or an undo would overwrite a later change (`conflict`); refused by a rule (`refused`: a path
outside the store, a likely secret, a size limit); about something that is not there
(`not_found`); not attempted because another process held the store's lock too long (`busy`);
or failed otherwise (`error`)."""
OK: ResultKind = "ok"
HELD: ResultKind = "held"
CONFLICT: ResultKind = "conflict"
REFUSED: ResultKind = "refused"
NOT_FOUND: ResultKind = "not_found"
BUSY: ResultKind = "busy"
ERROR: ResultKind = "error"


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a command returns: the tool_result text, its error flag, its history event id and
    its kind (an error without a more precise kind is `error`, a success `ok`)."""

    content: str
    is_error: bool
    event_id: int | None = None
    kind: ResultKind | None = None

    def __post_init__(self) -> None:
        """Fill in the kind from the error flag when none is given."""
        if self.kind is None:
            object.__setattr__(self, "kind", ERROR if self.is_error else OK)

    @property
    def conflict(self) -> bool:
        """Whether the command was refused because something changed meanwhile."""
        return self.kind == CONFLICT
