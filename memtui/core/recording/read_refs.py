"""What the history keeps of a long read or a long written text: a reference to the file bytes,
not the text.

A successful `view` of a file returns the whole file, numbered; kept as it is, every read of a
9 MB note would add 10 MB to the history. A result longer than `RESULT_LIMIT` characters is kept
as its first line and one reference line instead: the sha256 of the bytes the view read (stored
once as a blob, like every content the history holds) and the lines it showed. `viewed_text`
rebuilds the exact text from them, redacted as every recorded result is.

A `create` sends the whole text of the file, which is exactly the content the history keeps of
the file it left; a long one is kept as a reference to that blob (`text_reference`), and
`referenced_text` rebuilds it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from memtui.core.parsing.command_types import ReadSource, numbered_lines
from memtui.core.secrets import find_spans, redact

_REFERENCE = re.compile(
    r"\[memtui: lines (?P<first>\d+)-(?P<last>\d+) of the file with sha256 (?P<digest>[0-9a-f]{64})"
    r" \((?P<size>\d+) bytes, (?P<chars>\d+) characters shown\), kept once in the history\]"
)


WHOLE_TEXT_FIELD = "file_text"
"""The argument holding the whole text of the file a `create` makes."""
_TEXT_REFERENCE = re.compile(
    r"\[memtui: the text of the file with sha256 (?P<digest>[0-9a-f]{64})"
    r" \((?P<size>\d+) bytes, (?P<chars>\d+) characters\), kept once in the history\]"
)


def text_reference(text: str, digest: str, size: int) -> str:
    """What the history keeps of a long `text` a change wrote whole: a reference to the blob
    `digest` (`size` bytes) of the file it left."""
    return (
        f"[memtui: the text of the file with sha256 {digest} ({size} bytes, {len(text)}"
        " characters), kept once in the history]"
    )


def referenced_text(value: str, blob: Callable[[str], bytes | None]) -> str | None:
    """The text a `text_reference` stands for, rebuilt from its blob; None if `value` is no
    reference or the history lacks the blob."""
    match = _TEXT_REFERENCE.fullmatch(value)
    if match is None:
        return None
    data = blob(match["digest"])
    return None if data is None else data.decode("utf-8", "surrogatepass")


def rebuilt_args(
    args: Mapping[str, Any], agent: bool, blob: Callable[[str], bytes | None]
) -> dict[str, Any]:
    """Recorded arguments as the call sent them: a long text kept as a reference rebuilt from
    its blob (an `agent`'s redacted, as its arguments are recorded)."""
    value = args.get(WHOLE_TEXT_FIELD)
    text = referenced_text(value, blob) if isinstance(value, str) else None
    if text is None:
        return dict(args)
    spans = find_spans(text) if agent else ()
    return {**args, WHOLE_TEXT_FIELD: redact(text, spans) if spans else text}


def referenced(header: str, content: str, read: ReadSource) -> str:
    """The result a long view is kept as: `header` (its first line, redacted), then the
    reference to the lines of the file bytes it showed."""
    return (
        f"{header}\n[memtui: lines {read.first}-{read.last} of the file with sha256 {read.digest}"
        f" ({len(read.data)} bytes, {len(content)} characters shown), kept once in the history]"
    )


def viewed_text(result: str, blob: Callable[[str], bytes | None]) -> str | None:
    """The text a recorded view showed, rebuilt from the blob its reference names (secrets
    redacted); None if `result` is no reference or the history lacks the blob."""
    header, _, rest = result.partition("\n")
    match = _REFERENCE.fullmatch(rest)
    if match is None:
        return None
    data = blob(match["digest"])
    if data is None:
        return None
    first, last = int(match["first"]), int(match["last"])
    lines = data.decode("utf-8", "replace").split("\n")[first - 1 : last]
    text = f"{header}\n{numbered_lines(lines, first)}"
    spans = find_spans(text)
    return redact(text, spans) if spans else text
