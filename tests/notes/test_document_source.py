"""The `source` block of a document extraction, accepted and refused as Basic Memory's
model does."""

from __future__ import annotations

from typing import Any

import pytest

from memtui.notes.document_source import InvalidSource, source_entity_id
from memtui.notes.parser import parse_note

UUID = "3f2b6c1e-8a4d-4b7e-9c1a-2d5e6f7a8b9c"
GOOD: dict[str, Any] = {
    "media_type": "application/pdf",
    "entity_external_id": UUID,
    "file_path": "docs/report.pdf",
    "checksum": "sha256:" + "ab" * 32,
    "size_bytes": 1234,
}


@pytest.mark.parametrize(
    "written",
    [
        UUID,
        UUID.upper(),
        UUID.replace("-", ""),
        "{" + UUID + "}",
        "urn:uuid:" + UUID,
        UUID.encode(),
    ],
)
def test_uuid_forms_pydantic_accepts_become_canonical(written: object) -> None:
    assert source_entity_id(dict(GOOD, entity_external_id=written)) == UUID


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("entity_external_id", " " + UUID),
        ("entity_external_id", UUID + "\n"),
        ("entity_external_id", "{" + UUID.replace("-", "") + "}"),
        ("entity_external_id", "URN:UUID:" + UUID),
        ("entity_external_id", 1234),
        ("kind", "File"),
        ("kind", None),
        ("media_type", "application/pdf\n"),
        ("media_type", "Application/pdf"),
        ("checksum", "sha256:" + "AB" * 32),
        ("size_bytes", "1234"),
        ("size_bytes", True),
        ("size_bytes", -1),
        ("size_bytes", 1.0),
        ("file_path", "../outside.pdf"),
        ("file_path", "/abs.pdf"),
        ("file_path", "a//b.pdf"),
        ("file_path", "./a.pdf"),
        ("file_path", "C:x.pdf"),
        ("file_path", "docs/CON.txt"),
        ("file_path", "docs/name."),
        ("file_path", " a.pdf"),
        ("storage_version_id", " "),
        ("storage_etag", ""),
        ("unexpected", "x"),
    ],
)
def test_invalid_fields_are_refused(field: str, value: object) -> None:
    with pytest.raises(InvalidSource):
        source_entity_id(dict(GOOD, **{field: value}))


@pytest.mark.parametrize("field", ["media_type", "entity_external_id", "file_path", "checksum"])
def test_missing_required_fields_are_refused(field: str) -> None:
    source = dict(GOOD)
    del source[field]
    with pytest.raises(InvalidSource):
        source_entity_id(source)


def test_optional_fields_and_unicode_whitespace() -> None:
    """pydantic strips Unicode White_Space only: U+001C is text to it, U+3000 is not."""
    assert source_entity_id(dict(GOOD, kind="file", storage_version_id="\x1c")) == UUID
    assert source_entity_id(dict(GOOD, storage_version_id=None, storage_etag="e")) == UUID
    with pytest.raises(InvalidSource):
        source_entity_id(dict(GOOD, storage_etag="\u3000"))


def test_refused_note_keeps_its_parse_for_the_app_with_a_warning() -> None:
    text = "---\ntitle: T\nschema: schema/document-extraction\nsource: 5\n---\n- [fact] x\n"
    note = parse_note(text, "t.md")
    assert note.index_error is not None and "source is not a mapping" in note.index_error
    assert [obs.content for obs in note.observations] == ["x"]
    assert note.warnings == [f"line 4: {note.index_error}"]


def test_provenance_relation_points_at_the_source_line() -> None:
    text = (
        "---\nschema: schema/document-extraction\nsource:\n"
        + "".join(f"  {key}: {value}\n" for key, value in GOOD.items())
        + "---\n"
    )
    note = parse_note(text, "t.md")
    assert [(rel.relation_type, rel.target, rel.context, rel.line) for rel in note.relations] == [
        ("derived_from", UUID, None, 3)
    ]
