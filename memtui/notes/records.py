"""What the index keeps of one file: a note's parse or a text file's title, and the
searchable text."""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memtui.core.policy.read_only import says_read_only
from memtui.core.resolving.regular import Head
from memtui.notes.file_checks import name_warnings, shown_part, size_warnings
from memtui.notes.link_keys import link_slug, project_prefix
from memtui.notes.model import Note, Relation
from memtui.notes.reading import binary_reason, is_note, normalise_text
from memtui.notes.titles import first_heading

NOTE, TEXT, BINARY = 1, 2, 3
"""Kinds of indexed file: a Basic Memory note (`.md`), another text file, a skipped binary."""
BODY_LINE, OBSERVATION_LINE, RELATION_LINE = 0, 1, 2
"""What a line of a note is, byte by byte in `FileRecord.line_kinds`."""
SAMPLE_CHARS = 1500
"""Characters of a note's body compared when looking for near-duplicates."""
SAMPLE_MIN_CHARS = 40
"""Shorter body samples are too short to call two notes duplicates."""
LEAD_CHARS = 64
"""Characters of a body sample's start whose hash groups files that open the same way (a newer
version of a file usually keeps its heading and first lines), for the near-duplicate check."""

_META_KEY = re.compile(r"^(tags|type)[ \t]*:", re.MULTILINE)


@dataclass(slots=True)
class FileRecord:
    """One file as the index stores it; built off any lock, written in one transaction."""

    path: str
    kind: int
    size: int
    mtime_ns: int
    title: str = ""
    permalink: str | None = None
    note_type: str | None = None
    body_line: int = 1
    line_kinds: bytes = b""
    warnings: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    """Frontmatter and observation tags, each once, in order."""
    categories: dict[str, int] = field(default_factory=dict)
    """Observation category -> how many observations of the note have it."""
    relations: list[Relation] = field(default_factory=list)
    meta_lines: list[tuple[int, str]] = field(default_factory=list)
    """(line, text) of the frontmatter values search covers besides the title: tags and type."""
    expires: str | None = None
    verified: str | None = None
    sample_hash: str | None = None
    lead_hash: str | None = None
    """A hash of the start of the body sample (None when too short), see LEAD_CHARS."""
    body: str = ""
    """The searchable text after the frontmatter (within the cap)."""
    problem: str | None = None
    """Why a binary file is skipped."""
    ctime_ns: int = 0
    inode: int = 0
    """The stat the file was read under, besides its size and mtime (see `scan.FileStat`)."""
    project: str | None = None
    """The project prefix the note's permalink carries (`link_keys.project_prefix`)."""
    link_slugs: list[str | None] = field(default_factory=list)
    """Each relation's target as a permalink (`link_keys.link_slug`), in order."""
    read_only: bool = False
    """Whether the note's frontmatter says `read_only: true` (read-only for every agent)."""

    @property
    def meta_text(self) -> str:
        """The frontmatter values search covers, as one text for the full-text index."""
        return " ".join(text.split(":", 1)[1] for _line, text in self.meta_lines)

    @property
    def mtime(self) -> float:
        """Modification time in seconds."""
        return self.mtime_ns / 1e9


def build_record(relpath: str, head: Head) -> FileRecord:
    """The index record of one file from its first part (never raises on content)."""
    if is_note(relpath):
        return note_record(relpath, head)
    reason = binary_reason(head.data)
    if reason is not None:
        return FileRecord(
            relpath,
            BINARY,
            head.size,
            head.mtime_ns,
            problem=reason,
            ctime_ns=head.ctime_ns,
            inode=head.inode,
        )
    return text_record(relpath, head)


def note_record(relpath: str, head: Head) -> FileRecord:
    """A Basic Memory note: its parse, its link targets and its searchable text."""
    from memtui.notes.parser import parse_note  # 55 ms of imports a warm search never needs

    note = parse_note(head.data, relpath, mtime=head.mtime, size=head.size)
    text = shown_part(normalise_text(head.data))
    sample, lead = sample_hashes(text)
    body = after_line(text, note.body_line)
    record = FileRecord(
        relpath,
        NOTE,
        head.size,
        head.mtime_ns,
        title=note.title,
        permalink=note.permalink or None,
        note_type=note.note_type,
        body_line=note.body_line,
        line_kinds=line_kinds(
            (o.line for o in note.observations), (r.line for r in note.relations)
        ),
        warnings=list(note.warnings),
        tags=note_tags(note),
        categories=dict(Counter(o.category for o in note.observations if o.category is not None)),
        relations=list(note.relations),
        meta_lines=_meta_lines(text, note),
        read_only=says_read_only(head.data),
        expires=_frontmatter_text(note, "expires"),
        verified=_frontmatter_text(note, "last_verified"),
        sample_hash=sample,
        lead_hash=lead,
        body=body,
        ctime_ns=head.ctime_ns,
        inode=head.inode,
        project=project_prefix(note.permalink, relpath),
        link_slugs=[link_slug(relation.target) for relation in note.relations],
    )
    return record


def text_record(relpath: str, head: Head) -> FileRecord:
    """Any other text file: line search, a title from its first heading or its file name."""
    text = shown_part(normalise_text(head.data))
    warnings = name_warnings(relpath)
    warnings += size_warnings(head.size, head.data.count(b"\n"), lines_at_least=head.cut)
    try:
        head.data.decode("utf-8")
    except UnicodeDecodeError as error:
        warnings.append(f"not valid UTF-8 (byte {error.start}); those bytes are searched as �")
    sample, lead = sample_hashes(text)
    return FileRecord(
        relpath,
        TEXT,
        head.size,
        head.mtime_ns,
        title=text_title(relpath, text),
        warnings=warnings,
        sample_hash=sample,
        lead_hash=lead,
        body=text,
        ctime_ns=head.ctime_ns,
        inode=head.inode,
    )


def text_title(relpath: str, text: str) -> str:
    """A text file's title: its first markdown heading (outside code fences), else its name."""
    return first_heading(text) or posixpath.basename(relpath)


def note_tags(note: Note) -> list[str]:
    """Every tag a note carries, each once in order: frontmatter tags, then observation tags."""
    tags = dict.fromkeys(note.tags)
    for observation in note.observations:
        if observation.tags:
            tags.update(dict.fromkeys(t for t in observation.tags if t))
    return list(tags)


def line_kinds(observation_lines: Iterable[int], relation_lines: Iterable[int]) -> bytes:
    """One byte per line up to the last observation or relation: which kind of line it is."""
    observations = [line for line in observation_lines if line > 0]
    relations = [line for line in relation_lines if line > 0]
    if not observations and not relations:
        return b""
    kinds = bytearray(max(observations + relations))
    for line in relations:
        kinds[line - 1] = RELATION_LINE
    for line in observations:
        kinds[line - 1] = OBSERVATION_LINE
    return bytes(kinds)


def body_sample(text: str) -> str:
    """The start of a note's body, whitespace-collapsed and lowercased, for duplicate checks."""
    from memtui.notes.frontmatter_norm import body_start  # imported on first use: start-up

    text = text[body_start(text) :]
    return " ".join(text[: SAMPLE_CHARS * 2].split()).lower()[:SAMPLE_CHARS]


def sample_hash(sample: str) -> str | None:
    """A digest of a body sample, None when it is too short to compare."""
    if len(sample) < SAMPLE_MIN_CHARS:
        return None
    return hashlib.blake2b(sample.encode(), digest_size=16).hexdigest()


def sample_hashes(text: str) -> tuple[str | None, str | None]:
    """The record's `sample_hash` and `lead_hash` of a file's text (no lead when the whole
    sample is no longer than one)."""
    sample = body_sample(text)
    lead = sample_hash(sample[:LEAD_CHARS]) if len(sample) > LEAD_CHARS else None
    return sample_hash(sample), lead


def after_line(text: str, line: int) -> str:
    """`text` from the start of its 1-based `line` on."""
    offset = 0
    for _ in range(line - 1):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return ""
    return text[offset:]


def _meta_lines(text: str, note: Note) -> list[tuple[int, str]]:
    """The frontmatter's tags and type as search lines, at the line of their key."""
    if note.body_line <= 1:
        return []
    front = text[: len(text) - len(after_line(text, note.body_line))]
    found: list[tuple[int, str]] = []
    for match in _META_KEY.finditer(front):
        line = front.count("\n", 0, match.start()) + 1
        if match.group(1) == "tags" and note.tags:
            found.append((line, "tags: " + ", ".join(note.tags)))
        elif match.group(1) == "type" and note.note_type:
            found.append((line, "type: " + note.note_type))
    return found


def _frontmatter_text(note: Note, key: str) -> str | None:
    """A frontmatter value as text (dates are strings once normalised), or None."""
    value = note.frontmatter.get(key)
    return value if isinstance(value, str) else None


def encode_record(record: FileRecord) -> list[object]:
    """A record as plain JSON values (another process builds it, this one stores it)."""
    return [
        record.path,
        record.kind,
        record.size,
        record.mtime_ns,
        record.title,
        record.permalink,
        record.note_type,
        record.body_line,
        record.line_kinds.decode("latin-1"),
        record.warnings,
        record.tags,
        record.categories,
        [[r.relation_type, r.target, r.context, r.line] for r in record.relations],
        record.meta_lines,
        record.expires,
        record.verified,
        record.sample_hash,
        record.lead_hash,
        record.body,
        record.problem,
        record.ctime_ns,
        record.inode,
        record.project,
        record.link_slugs,
        record.read_only,
    ]


def decode_record(values: list[Any]) -> FileRecord:
    """The record `encode_record` was given."""
    (
        path,
        kind,
        size,
        mtime_ns,
        title,
        permalink,
        note_type,
        body_line,
        kinds,
        warnings,
        tags,
        categories,
        relations,
        meta_lines,
        expires,
        verified,
        sample,
        lead,
        body,
        problem,
        ctime_ns,
        inode,
        project,
        link_slugs,
        read_only,
    ) = values
    return FileRecord(
        path,
        kind,
        size,
        mtime_ns,
        title=title,
        permalink=permalink,
        note_type=note_type,
        body_line=body_line,
        line_kinds=kinds.encode("latin-1"),
        warnings=warnings,
        tags=tags,
        categories=categories,
        relations=[Relation(*relation) for relation in relations],
        meta_lines=[(line, text) for line, text in meta_lines],
        expires=expires,
        verified=verified,
        sample_hash=sample,
        lead_hash=lead,
        body=body,
        problem=problem,
        ctime_ns=ctime_ns,
        inode=inode,
        project=project,
        link_slugs=link_slugs,
        read_only=read_only,
    )
