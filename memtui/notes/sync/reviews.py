"""Review marks that arrived from other machines, put on this machine's events.

A mark names a change by its global id. The change is this machine's own event (the id's
machine is this history's), or it reached this machine inside pulled events; a pulled event is
marked reviewed once every change it carries is (its diff shows all of them).
"""

from __future__ import annotations

from collections.abc import Sequence

from memtui.core.recording.database import RecordFailed
from memtui.core.recording.reviews import NotReviewable, is_reviewable
from memtui.notes.sync.context import Context
from memtui.notes.sync.provenance import Mark


def apply_marks(ctx: Context, marks: Sequence[Mark]) -> int:
    """Mark reviewed the events the arrived marks cover; how many were marked."""
    if not marks:
        return 0
    newest: dict[str, Mark] = {}
    for mark in marks:
        newest.setdefault(mark.uid, mark)
    ctx.state.add_marks((m.uid, m.reviewer, m.time) for m in newest.values())
    targets: dict[int, Mark] = {}
    prefix = ctx.machine_id + "."
    for uid, mark in newest.items():
        number = uid.removeprefix(prefix)
        if uid.startswith(prefix) and number.isdigit():
            targets[int(number)] = mark
    pulled = ctx.state.events_for(newest)
    origins = ctx.state.origins(event_id for ids in pulled.values() for event_id in ids)
    for event_id, uids in origins.items():
        if ctx.state.marked(uids) == set(uids):
            arrived = [newest[uid] for uid in uids if uid in newest]
            if arrived:
                targets[event_id] = max(arrived, key=lambda mark: mark.time)
    return _mark(ctx, targets)


def _mark(ctx: Context, targets: dict[int, Mark]) -> int:
    """Mark each target event reviewed by its mark's reviewer (events that are no change to
    review, or already reviewed, are left as they are)."""
    history = ctx.store.history
    waiting = set(targets) - set(history.reviews(targets))
    marked = 0
    for event_id in sorted(waiting):
        event = history.event(event_id)
        if event is None or not is_reviewable(event):
            continue
        mark = targets[event_id]
        try:
            done, _earlier = history.mark_reviewed([event_id], mark.reviewer, mark.time)
        except (NotReviewable, RecordFailed):
            continue
        marked += len(done)
    ctx.state.mark_sent(targets)
    return marked
