"""When each line of a file was written, from the history: the file's versions are replayed in
order (through renames), and a line keeps the time of the version that brought it in for as
long as later versions keep it. Lines the history cannot account for (written before memtui
first saw the folder show the baseline's time; text not yet recorded has none) are left out.

Used for the dates of a contradiction's two lines and to tell which is newer."""

from __future__ import annotations

from difflib import SequenceMatcher

from memtui.core.parsing.paths import from_relpath
from memtui.core.recording.blobs import KIND_DIR
from memtui.core.recording.event_query import EventQuery
from memtui.core.recording.history import History


def _carried(
    old: list[str], old_times: list[float | None], new: list[str], when: float | None
) -> list[float | None]:
    """The times of `new`'s lines: kept from `old` where a line stayed, else `when`."""
    times: list[float | None] = [when] * len(new)
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            times[block.b + offset] = old_times[block.a + offset]
    return times


def line_times(history: History, relpath: str, text: str) -> dict[int, float]:
    """1-based line number of `text` -> when that line was written, as far as the history
    tells (the file's successful changes, followed back through renames)."""
    query = EventQuery(path=from_relpath(relpath), follow=True, changes_only=True)
    events = history.events(query, newest_first=False)
    lines: list[str] = []
    times: list[float | None] = []
    for event in events:
        if event.after_kind == KIND_DIR or event.before_kind == KIND_DIR:
            continue
        _before, after = history.texts(event)
        if after is None:
            lines, times = [], []
            continue
        new = after.split("\n")
        times = _carried(lines, times, new, event.time)
        lines = new
    current = text.split("\n")
    final = _carried(lines, times, current, None)
    return {number: when for number, when in enumerate(final, start=1) if when is not None}
