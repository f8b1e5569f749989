"""Parse one note (frontmatter + Basic Memory markdown) into a `Note`; never raises."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path, PurePosixPath

from memtui.core.resolving.regular import read_head
from memtui.notes import _md_fast, _md_reference
from memtui.notes.document_source import DOCUMENT_EXTRACTION_SCHEMA, InvalidSource, source_entity_id
from memtui.notes.file_checks import LARGE_NOTE_BYTES, name_warnings, nul_warning, size_warnings
from memtui.notes.frontmatter_norm import Frontmatter, read_frontmatter
from memtui.notes.model import Note, Relation
from memtui.notes.permalink import generate_permalink
from memtui.notes.temporal import date_budget

_NEWLINE = re.compile(r"\r\n?|\n")
_SOURCE_KEY = re.compile(r"^source[ \t]*:", re.MULTILINE)


def _decode(data: bytes | str) -> tuple[str, bytes, str | None]:
    """(text, raw bytes, error): strict UTF-8; undecodable bytes give empty text and an error."""
    if isinstance(data, str):
        return data, data.encode("utf-8", "surrogatepass"), None
    try:
        return data.decode("utf-8"), data, None
    except UnicodeDecodeError as error:
        return (
            "",
            data,
            f"not valid UTF-8 (byte {error.start}); Basic Memory does not index this file",
        )


def _count_newlines(text: str) -> int:
    """Line breaks in the text, CRLF, CR and LF each counting once (as markdown-it counts them)."""
    if "\r" not in text:
        return text.count("\n")
    return len(_NEWLINE.findall(text))


def _semantics_enabled(metadata: dict[str, object]) -> bool:
    """False when `bm_parse_semantics` is false (YAML false or the text "false", any case)."""
    setting = metadata.get("bm_parse_semantics")
    return not (setting == "False" or (isinstance(setting, str) and setting.lower() == "false"))


def _stem(path: str) -> str:
    """`PurePosixPath(path).stem`, without building a path object for the usual `a/b.md`."""
    name = path[path.rfind("/") + 1 :]
    if not name or name == ".":
        return PurePosixPath(path).stem
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name


def parse_note(
    data: bytes | str,
    path: str,
    *,
    mtime: float = 0.0,
    use_fast_path: bool = True,
    size: int | None = None,
) -> Note:
    """Parse a note's bytes (or text) exactly as Basic Memory 0.24.1 would, adding lines and
    warnings.

    `size` is the whole file's size when `data` is only its first part (a file over the cap):
    then that part is parsed and the size warning names the whole file.
    """
    text, raw, decode_error = _decode(data)
    stem = _stem(path)
    whole = len(raw) if size is None else max(size, len(raw))
    note = Note(
        path=path,
        title=stem,
        frontmatter={"title": stem, "type": "note"},
        size=whole,
        mtime=mtime,
        content_hash=hashlib.sha256(raw).hexdigest(),
    )
    note.warnings.extend(name_warnings(path))
    note.warnings.extend(size_warnings(whole, raw.count(b"\n"), lines_at_least=whole > len(raw)))
    if decode_error is not None:
        note.permalink = generate_permalink(path)
        note.warnings.append(decode_error)
        note.index_error = decode_error
        return note
    try:
        with date_budget():
            _fill(note, text, stem, use_fast_path)
    except Exception as error:  # a parser bug must not take the app down
        note.permalink = note.permalink or generate_permalink(path)
        note.warnings.append(f"could not parse this note ({type(error).__name__}: {error})")
    return note


def _fill(note: Note, text: str, stem: str, use_fast_path: bool) -> None:
    """Fill the parsed fields of `note` from its decoded text."""
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = nul_warning(text)
    if nul is not None:
        note.warnings.append(nul)
        text = text.replace("\x00", "")
    front = read_frontmatter(text, stem, fast=use_fast_path)
    metadata = front.metadata
    note.frontmatter = metadata
    note.title = metadata["title"]
    note.note_type = metadata["type"] if isinstance(metadata["type"], str) else "note"
    tags = metadata.get("tags")
    note.tags = [str(tag) for tag in tags] if isinstance(tags, list) else []
    note.permalink = _frontmatter_permalink(metadata) or generate_permalink(note.path)
    note.warnings.extend(front.warnings)
    note.index_error = front.index_error
    offset = _count_newlines(text[: front.body_start])
    note.body_line = offset + 1
    if front.body and _semantics_enabled(metadata):
        extraction = _md_fast.fast_extract(front.body, offset) if use_fast_path else None
        if extraction is None:
            extraction = _md_reference.extract(_md_reference.reference_blocks(front.body), offset)
        note.observations = extraction.observations
        note.relations = extraction.relations
        note.warnings.extend(extraction.warnings)
    if metadata.get("schema") == DOCUMENT_EXTRACTION_SCHEMA:
        _add_provenance(note, front, text)


def _frontmatter_permalink(metadata: dict[str, object]) -> str | None:
    """The permalink the frontmatter sets, or None when the note's path gives it."""
    permalink = metadata.get("permalink")
    return permalink if isinstance(permalink, str) and permalink else None


def fixed_names(text: str) -> tuple[str | None, str | None]:
    """The title and permalink a note's frontmatter sets, kept when the note moves (None: the
    note's path gives it); reads the frontmatter only."""
    if text.startswith("\ufeff"):
        text = text[1:]
    metadata = read_frontmatter(text.replace("\x00", ""), "").metadata
    return metadata["title"] or None, _frontmatter_permalink(metadata)


def names_at(path: str, fixed: tuple[str | None, str | None]) -> tuple[str, str]:
    """The title and permalink of a note at `path` whose frontmatter sets `fixed`."""
    title, permalink = fixed
    return title or _stem(path), permalink or generate_permalink(path)


def _add_provenance(note: Note, front: Frontmatter, text: str) -> None:
    """Add the `derived_from` relation of a document extraction, or refuse its invalid `source`."""
    key = _SOURCE_KEY.search(text, 0, front.body_start)
    line = _count_newlines(text[: key.start()]) + 1 if key is not None else 1
    try:
        target = source_entity_id(front.source)
    except InvalidSource as error:
        message = (
            f"a schema/document-extraction note without a valid source block ({error}); "
            "Basic Memory refuses to index this file"
        )
        note.warnings.append(f"line {line}: {message}")
        if note.index_error is None:
            note.index_error = message
        return
    already = any(
        rel.relation_type == "derived_from" and rel.target == target and not rel.context
        for rel in note.relations
    )
    if not already:
        note.relations.append(Relation("derived_from", target, None, line))


def parse_file(root: Path, relpath: str) -> Note:
    """Read (at most the cap) and parse `root/relpath`; an unreadable file gives a note with a
    warning."""
    try:
        head = read_head(Path(root) / relpath, limit=LARGE_NOTE_BYTES)
    except OSError as error:
        note = parse_note(b"", relpath)
        note.warnings.append(f"could not read the file ({error.strerror or error})")
        note.index_error = "could not read the file"
        return note
    return parse_note(head.data, relpath, mtime=head.mtime, size=head.size)
