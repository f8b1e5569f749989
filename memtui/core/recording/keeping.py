"""What the history keeps of a call: arguments and results with secrets redacted and sizes capped.

Agents' arguments are recorded with every likely secret replaced by `<redacted secret:KIND>`;
every recorded result is redacted the same way. A refused or failed call keeps at most
`RECORD_LIMIT` characters of any argument or path and `RESULT_LIMIT` of its result (the head,
the length and a hash). So does a successful one, since its long text repeats content: a long
`view` of a file is kept as a reference to the file bytes it showed (`read_refs`), any other
long result cut like a failure's; a long text a `create` wrote whole is kept as a reference
to the content the history holds of the file it left (`read_refs.text_reference`).
The content undo needs (a file's bytes before and after a change) is kept whole, as blobs.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from memtui.core.parsing.command_types import CommandOutcome
from memtui.core.parsing.echo import RECORD_LIMIT, RESULT_LIMIT
from memtui.core.recording.db_text import storable
from memtui.core.recording.read_refs import WHOLE_TEXT_FIELD, referenced, text_reference
from memtui.core.secrets import SecretFinding, SecretSpan, find_spans, findings_of, redact

MAX_RECORDED_DEPTH = 10
"""Nesting levels of an argument kept in the history; deeper values are replaced by a marker."""
SCAN_MARGIN = 4096
"""Characters around a change (and past a cut) that are scanned for secrets."""
TEXT_FIELDS = {"create": "file_text", "str_replace": "new_str", "insert": "insert_text"}
"""The argument holding the text each command writes."""
NEW_PATH_FIELDS = {"create": "path", "rename": "new_path"}
"""The argument naming a path a command brings into being (scanned like text)."""


class Scanner:
    """Finds secrets in texts, scanning each distinct text once per call."""

    def __init__(self) -> None:
        """An empty memo."""
        self._seen: dict[str, tuple[SecretSpan, ...]] = {}

    def spans(self, text: str) -> tuple[SecretSpan, ...]:
        """Every likely secret in `text` (memoised)."""
        found = self._seen.get(text)
        if found is None:
            found = find_spans(text)
            self._seen[text] = found
        return found

    def redacted(self, text: str) -> str:
        """`text` with its likely secrets redacted."""
        spans = self.spans(text)
        return redact(text, spans) if spans else text

    def in_change(self, text: str, span: tuple[int, int]) -> list[SecretFinding]:
        """The secrets of `text` that overlap the characters a change wrote (`span`).

        Only a window around the change is scanned, so a secret completed by an edit counts
        (a key typed half in one command and half in the next), an old one elsewhere does not.
        """
        start, end = span
        low = max(0, start - SCAN_MARGIN)
        high = min(len(text), end + SCAN_MARGIN)
        window = text if (low, high) == (0, len(text)) else text[low:high]
        return findings_of(
            found
            for found in self.spans(window)
            if found.start + low <= end and found.end + low >= start
        )


def kept_text(text: str, *, scanner: Scanner | None, cut: bool, limit: int = RECORD_LIMIT) -> str:
    """A string as the history keeps it: redacted (with a scanner), and cut when `cut`.

    A cut text is `<head>… (N characters in all, sha256 <hex>)`: the head is scanned with a
    margin past the cut, so a secret across the cut is redacted too.
    """
    if cut and len(text) > limit:
        digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
        head = text[: limit + SCAN_MARGIN]
        if scanner is not None:
            head = scanner.redacted(head)
        return f"{head[:limit]}… ({len(text)} characters in all, sha256 {digest})"
    return scanner.redacted(text) if scanner is not None else text


def kept_path(path: str | None, *, scanner: Scanner | None, cut: bool) -> str | None:
    """A path column's value: as `kept_text`, a name's bytes that are not UTF-8 kept (undo needs
    them) and other lone surrogates folded (see `db_text.storable`); None stays None."""
    if path is None:
        return None
    return storable(kept_text(path, scanner=scanner, cut=cut))


def args_of(tool_input: object) -> dict[str, Any]:
    """The raw input arguments as a dict that encodes as strict JSON."""
    if isinstance(tool_input, Mapping):
        return {str(key): _strict_json(value) for key, value in tool_input.items()}
    try:
        text = repr(tool_input)
    except RecursionError:
        return {"input": f"<a {type(tool_input).__name__} nested too deeply to record>"}
    return {"input": text}


def _strict_json(value: object, depth: int = 0) -> object:
    """`value` with NaN and infinities spelled as strings (`NaN`, `Infinity`, `-Infinity`).

    Lists and mappings deeper than `MAX_RECORDED_DEPTH` are replaced by a marker string.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, list | tuple | Mapping) and depth >= MAX_RECORDED_DEPTH:
        return "<nested too deeply to record>"
    if isinstance(value, list | tuple):
        return [_strict_json(item, depth + 1) for item in value]
    if isinstance(value, Mapping):
        return {key: _strict_json(item, depth + 1) for key, item in value.items()}
    return value


def kept_args(args: Mapping[str, Any], *, scanner: Scanner | None, cut: bool) -> dict[str, Any]:
    """Every string in `args` (nested too) as `kept_text` keeps it."""
    return {key: _kept_value(value, scanner, cut) for key, value in args.items()}


def _kept_value(value: object, scanner: Scanner | None, cut: bool) -> object:
    """One argument value with its strings kept as `kept_text` says."""
    if isinstance(value, str):
        return kept_text(value, scanner=scanner, cut=cut)
    if isinstance(value, list):
        return [_kept_value(item, scanner, cut) for item in value]
    if isinstance(value, dict):
        return {key: _kept_value(item, scanner, cut) for key, item in value.items()}
    return value


@dataclass(frozen=True)
class Kept:
    """One call's record as the history keeps it."""

    args: dict[str, Any]
    result: str
    path: str | None
    new_path: str | None
    blobs: dict[str, bytes] = field(default_factory=dict)
    """Content the result refers to (the file bytes a long view showed)."""


def keep(
    args: Mapping[str, Any],
    outcome: CommandOutcome,
    path: str | None,
    new_path: str | None,
    *,
    scanner: Scanner,
    agent: bool,
    changed: bool,
    written: tuple[str, bytes] | None = None,
) -> Kept:
    """What the history keeps of a call.

    Agents' arguments are redacted, every result is; a call that changed nothing keeps its
    arguments, result and paths cut to the record limit (and its paths redacted: they name no
    file). A change keeps its paths as written, since undo needs them. `written` is the file a
    `create` left, as the history keeps it (sha256, bytes): a long `file_text` that is exactly
    those bytes is kept as a reference to them.
    """
    cut = outcome.is_error
    result, blobs = kept_result(outcome, scanner)
    kept = kept_args(args, scanner=scanner if agent else None, cut=cut)
    text = args.get(WHOLE_TEXT_FIELD)
    if written is not None and isinstance(text, str) and len(text) > RESULT_LIMIT:
        digest, data = written
        if text.encode("utf-8", "surrogatepass") == data:
            kept[WHOLE_TEXT_FIELD] = text_reference(text, digest, len(data))
    return Kept(
        args=kept,
        result=result,
        path=kept_path(path, scanner=None if changed else scanner, cut=cut),
        new_path=kept_path(new_path, scanner=None if changed else scanner, cut=cut),
        blobs=blobs,
    )


def kept_result(outcome: CommandOutcome, scanner: Scanner) -> tuple[str, dict[str, bytes]]:
    """A result as the history keeps it, and the blobs it refers to: redacted; over
    `RESULT_LIMIT` characters a view's text becomes a reference to the file bytes it showed,
    any other text is cut."""
    content, read = outcome.content, outcome.read
    if len(content) <= RESULT_LIMIT:
        return kept_text(content, scanner=scanner, cut=False), {}
    if read is None or outcome.is_error:
        return kept_text(content, scanner=scanner, cut=True, limit=RESULT_LIMIT), {}
    header = scanner.redacted(content.partition("\n")[0])
    return referenced(header, content, read), {read.digest: read.data}


def secret_flags(findings: Iterable[SecretFinding]) -> tuple[str, ...]:
    """`secret:<kind>` for each finding, each kind once."""
    return tuple(dict.fromkeys(f"secret:{finding.kind}" for finding in findings))
