"""Chunks: one per note section (split at headings outside code fences) or run of text lines."""

from __future__ import annotations

from memtui.notes.meaning.chunks import MAX_CHUNK_CHARS, MAX_CHUNKS, Chunk, chunk_file


def test_a_note_is_cut_at_its_headings_with_the_title_and_meta_in_front() -> None:
    body = (
        "intro line\n\n## Cars\nI drive an automobile.\n```\n# not a heading\n```\n"
        "## Empty\n\n## Food\nlikes pasta"
    )
    assert chunk_file("My note", body, 4, markdown=True, meta="ui prefs") == [
        Chunk(4, "My note", "My note\nui prefs\nintro line"),
        Chunk(6, "Cars", "My note\n## Cars\nI drive an automobile.\n```\n# not a heading\n```"),
        Chunk(11, "Empty", "My note\n## Empty"),
        Chunk(13, "Food", "My note\n## Food\nlikes pasta"),
    ]


def test_a_note_opening_with_its_heading_has_no_empty_first_chunk() -> None:
    assert chunk_file("Editor look", "# Editor look\n\nDark colours.", 5, markdown=True) == [
        Chunk(5, "Editor look", "Editor look\n# Editor look\nDark colours.")
    ]


def test_a_long_section_is_cut_at_line_ends_and_its_parts_keep_the_heading() -> None:
    line = "x" * 500
    body = "## Long\n" + "\n".join([line] * 5)
    chunks = chunk_file("T", body, 1, markdown=True)
    assert [(c.line, c.heading) for c in chunks] == [(1, "Long"), (4, "Long"), (6, "Long")]
    assert chunks[0].text == f"T\n## Long\n{line}\n{line}"
    assert chunks[1].text == f"T\nLong\n{line}\n{line}"
    assert all(len(c.text) <= MAX_CHUNK_CHARS + 20 for c in chunks)


def test_a_text_file_is_cut_in_runs_of_lines_under_its_title() -> None:
    body = "\n".join(f"# line {n} " + "y" * 300 for n in range(8))
    chunks = chunk_file("notes.txt", body, 1, markdown=False)
    assert [c.line for c in chunks] == [1, 4, 7]
    assert {c.heading for c in chunks} == {"notes.txt"}
    assert chunks[0].text.startswith("notes.txt\n# line 0 ")


def test_the_chunks_of_a_huge_file_stop_at_the_cap() -> None:
    body = "\n".join(f"## H{n}\ntext {n}" for n in range(MAX_CHUNKS + 50))
    chunks = chunk_file("Big", body, 1, markdown=True)
    assert len(chunks) == MAX_CHUNKS
    assert chunks[-1].heading == f"H{MAX_CHUNKS - 1}"


def test_an_empty_note_has_one_chunk_of_its_title_and_a_nameless_empty_file_none() -> None:
    assert chunk_file("Only title", "", 1, markdown=True) == [Chunk(1, "Only title", "Only title")]
    assert chunk_file("", "\n\n", 1, markdown=False) == []


def test_a_long_heading_is_shortened_for_display() -> None:
    [chunk] = chunk_file("T", "## " + "w" * 300 + "\nbody", 1, markdown=True)
    assert chunk.heading == "w" * 119 + "…"
