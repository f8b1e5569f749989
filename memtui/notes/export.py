"""Export records: one JSON-ready dict per file, notes in the corpus's (Basic Memory's) shape."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

from memtui.core.resolving.regular import Head
from memtui.notes.file_checks import shown_part
from memtui.notes.index import NoteIndex
from memtui.notes.model import Note
from memtui.notes.parser import parse_note
from memtui.notes.reading import (
    binary_reason,
    is_note,
    normalise_text,
    read_store_head,
)
from memtui.notes.records import build_record, text_title


def note_record(note: Note, *, with_warnings: bool = False) -> dict[str, Any]:
    """The export record of a parsed note; `warnings` (when asked for) only when there are some."""
    if note.index_error is not None:
        return {"path": note.path, "error": note.index_error}
    record: dict[str, Any] = {
        "path": note.path,
        "title": note.title,
        "frontmatter": note.frontmatter,
        "observations": [
            {
                "category": obs.category,
                "content": obs.content,
                "tags": obs.tags or None,
                "context": obs.context,
            }
            for obs in note.observations
        ],
        "relations": [
            {
                "relation_type": rel.relation_type,
                "target": rel.target,
                "context": rel.context or None,
            }
            for rel in note.relations
        ],
    }
    if with_warnings and note.warnings:
        record["warnings"] = list(note.warnings)
    return record


def _json_default(value: object) -> object:
    """JSON for YAML values JSON lacks (sets, bytes, dates as keys' values)."""
    if isinstance(value, (set, frozenset)):
        return sorted(str(item) for item in value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _json_key(key: object) -> str:
    """A mapping key as JSON would write it: numbers, booleans and null as JSON, others as text."""
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return str(_json_default(key))


def _string_keys(value: Any) -> Any:
    """The value with every nested mapping key turned into a string (JSON needs them)."""
    if isinstance(value, dict):
        return {
            (key if isinstance(key, str) else _json_key(key)): _string_keys(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_string_keys(item) for item in value]
    return value


def record_json(record: dict[str, Any]) -> str:
    """One record as a single JSON line (UTF-8 kept, key order kept)."""
    return json.dumps(_string_keys(record), ensure_ascii=False, default=_json_default)


def text_record(relpath: str, head: Head) -> dict[str, Any]:
    """The export record of a text file that is not a note: its title and text (within the cap)."""
    text = shown_part(normalise_text(head.data))
    record: dict[str, Any] = {
        "path": relpath,
        "kind": "text",
        "title": text_title(relpath, text),
        "text": text,
    }
    if head.cut or len(text) < len(normalise_text(head.data)):
        record["truncated"] = True
    return record


def export_records(
    root: Path,
    relpaths: list[str],
    *,
    with_warnings: bool = False,
    index: NoteIndex | None = None,
    skipped: Callable[[str], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """Read (at most the cap of) each file and yield its export record, in the given order.

    Notes (`.md`) get Basic Memory's record; other text files a `kind: text` record; binary
    files are left out and named to `skipped`. With an `index` of `root`, note warnings include
    unresolved links.
    """
    for relpath in relpaths:
        try:
            head = read_store_head(root, relpath)
        except OSError as error:
            yield {"path": relpath, "error": f"could not read the file ({error.strerror or error})"}
            continue
        if not is_note(relpath):
            reason = binary_reason(head.data)
            if reason is not None:
                if skipped is not None:
                    skipped(f"{relpath}: {reason}")
                continue
            record = text_record(relpath, head)
        else:
            note = parse_note(head.data, relpath, mtime=head.mtime, size=head.size)
            record = note_record(note)
        if with_warnings and "error" not in record:
            warnings = (
                index.warnings(relpath) if index is not None else _own_warnings(relpath, head)
            )
            if warnings:
                record["warnings"] = warnings
        yield record


def _own_warnings(relpath: str, head: Head) -> list[str]:
    """A file's warnings without an index (no unresolved-link warnings)."""
    return build_record(relpath, head).warnings
