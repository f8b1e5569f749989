"""`memtui edit`, `mv`, `rm`, and `undo`/`log` of an operation, end to end as subprocesses."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli_conventions import run_on_pty

MEMTUI = str(Path(sys.executable).with_name("memtui"))
LINES = "".join(f"line {n}\n" for n in range(1, 25))
AGENT_INPUT = (
    '{{"command": "str_replace", "path": "/memories/long.md", '
    '"old_str": "{old}\\n", "new_str": "{new}\\n"}}\n'
)


def run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """Run `memtui ARGS` without a terminal, an isolated config, as human:ann (plus `env`)."""
    full_env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "MEMTUI_CONFIG_FILE": os.devnull,
        "MEMTUI_ACTOR": "ann",
        "HOME": str(tmp_path),
        "TMPDIR": str(tmp_path / "tmp"),
        **env,
    }
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run(
        [MEMTUI, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A store whose note tools/textual.md two notes link to by path, and one by title."""
    root = tmp_path / "mem"
    (root / "tools").mkdir(parents=True)
    (root / "projects").mkdir()
    (root / "tools" / "textual.md").write_text("---\ntitle: Textual\n---\n# Textual\n")
    (root / "projects" / "p.md").write_text("# P\n- uses [[tools/textual]]\n")
    (root / "projects" / "q.md").write_text("# Q\nsee [[tools/textual#Tips]]\n")
    (root / "notes.md").write_text("by title: [[Textual]]\n")
    (root / "long.md").write_text(LINES)
    return root


def editor_script(
    tmp_path: Path, root: Path, mine: tuple[str, str], theirs: tuple[str, str]
) -> str:
    """An $EDITOR that changes line `mine` of its file while an agent changes `theirs` in the
    store (through `memtui tool`), as if the agent wrote while the person edited."""
    agent_input = tmp_path / "agent.json"
    agent_input.write_text(AGENT_INPUT.format(old=theirs[0], new=theirs[1]))
    script = tmp_path / "fake-editor"
    script.write_text(
        "#!/bin/sh\n"
        f"sed -i 's/^{mine[0]}$/{mine[1]}/' \"$1\"\n"
        f"{MEMTUI} tool {root} --actor claude < {agent_input} > /dev/null\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_edit_merges_an_agent_change_to_another_line(tmp_path: Path, root: Path) -> None:
    editor = editor_script(tmp_path, root, ("line 20", "line 20 mine"), ("line 3", "line 3 agent"))
    done = run(tmp_path, "edit", str(root), "/memories/long.md", EDITOR=editor)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].startswith(
        "/memories/long.md changed while you edited it (changed by agent:claude (str_replace, "
    )
    assert lines[0].endswith(")); both changes were merged and saved:")
    assert lines[1:] == [
        "--- /memories/long.md (as you loaded it)",
        "+++ /memories/long.md (saved)",
        "@@ -1,6 +1,6 @@",
        " line 1",
        " line 2",
        "-line 3",
        "+line 3 agent",
        " line 4",
        " line 5",
        " line 6",
        "@@ -17,7 +17,7 @@",
        " line 17",
        " line 18",
        " line 19",
        "-line 20",
        "+line 20 mine",
        " line 21",
        " line 22",
        " line 23",
    ]
    assert (root / "long.md").read_text() == LINES.replace("line 3\n", "line 3 agent\n").replace(
        "line 20\n", "line 20 mine\n"
    )
    assert list((tmp_path / "tmp").iterdir()) == []
    log = run(tmp_path, "log", str(root), "--json", "--limit", "3")
    events = [json.loads(line) for line in log.stdout.splitlines()]
    assert [(e["actor"], e["command"], e["is_error"]) for e in events] == [
        ("human:ann", "write", False),
        ("human:ann", "write", True),
        ("agent:claude", "str_replace", False),
    ]


def test_edit_of_the_same_line_overwrites_nothing_and_keeps_the_copy(
    tmp_path: Path, root: Path
) -> None:
    editor = editor_script(
        tmp_path, root, ("line 10", "line 10 mine"), ("line 10", "line 10 agent")
    )
    done = run(tmp_path, "edit", str(root), "long.md", EDITOR=editor)
    assert done.returncode == 1
    copies = list((tmp_path / "tmp").glob("memtui-edit-*/long.md"))
    assert len(copies) == 1 and copies[0].read_text() == LINES.replace(
        "line 10\n", "line 10 mine\n"
    )
    assert done.stderr == f"memtui edit: nothing saved; your edited copy is kept at {copies[0]}\n"
    lines = done.stdout.splitlines()
    assert lines[0].endswith("); 1 change overlaps yours:")
    assert lines[1:] == [
        "@@ line 10 of your copy @@",
        "<<<<<<< yours",
        "line 10 mine",
        "=======",
        "line 10 agent",
        ">>>>>>> saved meanwhile",
    ]
    assert (root / "long.md").read_text() == LINES.replace("line 10\n", "line 10 agent\n")


def test_edit_with_a_missing_or_failing_editor_says_so_in_one_line(
    tmp_path: Path, root: Path
) -> None:
    missing = run(tmp_path, "edit", str(root), "long.md", EDITOR="nano-not-installed")
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == (
        'memtui edit: cannot run the editor "nano-not-installed" ($EDITOR): it is not installed '
        "or not on PATH; set $VISUAL or $EDITOR to an editor you have\n"
    )
    unparsable = run(tmp_path, "edit", str(root), "long.md", VISUAL='vi "', EDITOR="vi")
    assert unparsable.stderr == "memtui edit: cannot read $VISUAL ('vi \"'): No closing quotation\n"
    failing = run(tmp_path, "edit", str(root), "long.md", EDITOR="false")
    assert (failing.returncode, failing.stderr) == (
        1,
        "memtui edit: the editor exited with status 1; nothing saved\n",
    )
    unchanged = run(tmp_path, "edit", str(root), "long.md", EDITOR="true")
    assert (unchanged.returncode, unchanged.stdout) == (0, "No changes to /memories/long.md.\n")
    gone = run(tmp_path, "edit", str(root), "nope.md", EDITOR="true")
    assert (gone.returncode, gone.stderr) == (
        1,
        "memtui edit: The path /memories/nope.md does not exist\n",
    )
    assert (root / "long.md").read_text() == LINES
    assert list((tmp_path / "tmp").iterdir()) == []


def test_mv_with_rewrite_links_is_one_operation_that_undo_undoes_whole(
    tmp_path: Path, root: Path
) -> None:
    moved = run(
        tmp_path,
        "mv",
        str(root),
        "tools/textual.md",
        "/memories/libs/textual.md",
        "--rewrite-links",
    )
    assert (moved.returncode, moved.stderr) == (0, "")
    rename_id = int(moved.stdout.splitlines()[-1].rsplit(" ", 1)[1])
    assert moved.stdout == (
        "Moved tools/textual.md to libs/textual.md; rewrote 2 links in 2 notes\n"
        f"Undo: memtui undo {root} {rename_id}\n"
    )
    assert (root / "projects" / "p.md").read_text() == "# P\n- uses [[libs/textual]]\n"
    log = run(tmp_path, "log", str(root), COLUMNS="200")
    rows = [line.split()[:4] for line in log.stdout.splitlines()[2:6]]
    assert [row[0] for row in rows] == ["op", "├", "├", "└"]
    assert log.stdout.splitlines()[2].split()[:2] == ["op", "1"] and " rename " in log.stdout
    assert log.stdout.splitlines()[2].rstrip().endswith("3 changes")

    refused = run(tmp_path, "undo", str(root), str(rename_id + 2))
    assert refused.returncode == 2
    assert refused.stdout == (
        f"Event {rename_id + 2} is a part of operation 1 (rename /memories/tools/textual.md to "
        "/memories/libs/textual.md), 3 changes:\n"
        f"  {rename_id}  rename  /memories/tools/textual.md -> /memories/libs/textual.md\n"
        f"  {rename_id + 1}  write  /memories/projects/p.md\n"
        f"  {rename_id + 2}  write  /memories/projects/q.md\n"
    )
    assert refused.stderr == (
        f"memtui undo: event {rename_id + 2} is a part of operation 1 (3 changes) and there is "
        "no terminal to ask on; pass --yes to undo all of them, or --event-only for this event "
        "alone\n"
    )
    assert (root / "libs" / "textual.md").exists()
    undone = run(tmp_path, "undo", str(root), str(rename_id + 2), "--yes")
    assert undone.returncode == 0
    assert undone.stdout.splitlines()[-1] == (
        "Undid operation 1 (rename /memories/tools/textual.md to /memories/libs/textual.md): "
        "3 changes"
    )
    assert (root / "projects" / "p.md").read_text() == "# P\n- uses [[tools/textual]]\n"
    assert (root / "projects" / "q.md").read_text() == "# Q\nsee [[tools/textual#Tips]]\n"
    assert (root / "tools" / "textual.md").exists() and not (root / "libs" / "textual.md").exists()


def test_undo_event_only_undoes_one_part(tmp_path: Path, root: Path) -> None:
    moved = run(tmp_path, "mv", str(root), "tools/textual.md", "libs/textual.md", "--rewrite-links")
    rename_id = int(moved.stdout.splitlines()[-1].rsplit(" ", 1)[1])
    one = run(tmp_path, "undo", str(root), str(rename_id + 1), "--event-only")
    assert (one.returncode, one.stdout) == (
        0,
        f"Reverted event {rename_id + 1} (write /memories/projects/p.md)\n",
    )
    assert (root / "projects" / "p.md").read_text() == "# P\n- uses [[tools/textual]]\n"
    assert (root / "libs" / "textual.md").exists()


def test_mv_without_rewriting_names_the_notes_whose_links_break(tmp_path: Path, root: Path) -> None:
    moved = run(
        tmp_path, "mv", str(root), "tools/textual.md", "libs/textual.md", "--no-rewrite-links"
    )
    assert moved.returncode == 0
    assert moved.stdout.splitlines()[:2] == [
        "Moved tools/textual.md to libs/textual.md; 2 notes still link to the old path "
        "(projects/p.md, projects/q.md)",
        "Leave out --no-rewrite-links to point them at the new name.",
    ]
    assert (root / "projects" / "p.md").read_text() == "# P\n- uses [[tools/textual]]\n"
    refused = run(tmp_path, "mv", str(root), "nope.md", "x.md")
    assert (refused.returncode, refused.stderr) == (
        1,
        "memtui mv: Error: The path /memories/nope.md does not exist\n",
    )


def test_mv_rewrites_wikilinks_and_markdown_links_by_default(tmp_path: Path) -> None:
    """As the app does: links by path, Markdown ones URL-encoded or not, in `<...>` or with a
    fragment, from notes elsewhere and from the moved folder's own notes, point at the new place."""
    root = tmp_path / "mem"
    (root / "gear").mkdir(parents=True)
    (root / "coffee").mkdir()
    (root / "gear" / "Burr Grinder.md").write_text("# Burr Grinder\n")
    (root / "gear" / "list.md").write_text("- [grinder](Burr%20Grinder.md)\n")
    (root / "coffee" / "methods.md").write_text(
        "# Methods\n- see [grinder](../gear/Burr%20Grinder.md)\n"
        '- and [g](<../gear/Burr Grinder.md#Setup> "title")\n- uses [[gear/Burr Grinder]]\n'
        "- root [r](/gear/Burr%20Grinder.md), `[code](../gear/Burr%20Grinder.md)`\n"
    )
    moved = run(tmp_path, "mv", str(root), "gear/Burr Grinder.md", "kit/Burr Grinder.md")
    assert (moved.returncode, moved.stderr) == (0, "")
    assert moved.stdout.splitlines()[0] == (
        "Moved gear/Burr Grinder.md to kit/Burr Grinder.md; rewrote 5 links in 2 notes"
    )
    assert (root / "gear" / "list.md").read_text() == "- [grinder](../kit/Burr%20Grinder.md)\n"
    assert (root / "coffee" / "methods.md").read_text() == (
        "# Methods\n- see [grinder](../kit/Burr%20Grinder.md)\n"
        '- and [g](<../kit/Burr Grinder.md#Setup> "title")\n- uses [[kit/Burr Grinder]]\n'
        "- root [r](/kit/Burr%20Grinder.md), `[code](../gear/Burr%20Grinder.md)`\n"
    )
    folder = run(tmp_path, "mv", str(root), "coffee", "drinks/coffee")
    assert (folder.returncode, folder.stderr) == (0, "")
    assert (root / "drinks" / "coffee" / "methods.md").read_text() == (
        "# Methods\n- see [grinder](../../kit/Burr%20Grinder.md)\n"
        '- and [g](<../../kit/Burr Grinder.md#Setup> "title")\n- uses [[kit/Burr Grinder]]\n'
        "- root [r](/kit/Burr%20Grinder.md), `[code](../gear/Burr%20Grinder.md)`\n"
    )


def test_rm_names_the_broken_links_and_needs_yes_without_a_terminal(
    tmp_path: Path, root: Path
) -> None:
    asked = run(tmp_path, "rm", str(root), "tools/textual.md")
    assert asked.returncode == 2
    assert asked.stdout == (
        "Deleting the note tools/textual.md.\n"
        "3 links in 3 other notes would point nowhere:\n"
        "  notes.md: [[Textual]]\n"
        "  projects/p.md: [[tools/textual]]\n"
        "  projects/q.md: [[tools/textual#Tips]]\n"
    )
    assert asked.stderr == (
        "memtui rm: no terminal to ask on, so nothing was deleted; pass --yes to delete\n"
    )
    assert (root / "tools" / "textual.md").exists()
    deleted = run(tmp_path, "rm", str(root), "/memories/tools", "--yes")
    assert deleted.returncode == 0
    lines = deleted.stdout.splitlines()
    assert lines[0] == "Deleting the folder tools/ and its 1 file."
    assert lines[-2] == (
        "Deleted the folder tools/ and its 1 file; 3 links in 3 notes now point nowhere "
        "(notes.md, projects/p.md, projects/q.md)"
    )
    assert lines[-1].startswith(f"Undo: memtui undo {root} ")
    assert not (root / "tools").exists()
    missing = run(tmp_path, "rm", str(root), "nope.md", "--yes")
    assert (missing.returncode, missing.stderr) == (
        1,
        "memtui rm: /memories/nope.md does not exist\n",
    )


def test_rm_asks_on_a_terminal_and_no_deletes_nothing(tmp_path: Path, root: Path) -> None:
    status, shown = run_on_pty(tmp_path, ["rm", str(root), "notes.md"], b"n\r")
    assert status == 1
    assert shown.decode().replace("\r\n", "\n") == (
        "Deleting the note notes.md.\n"
        "No other note links here.\n"
        "Delete it? [y/N] n\n"
        "Nothing deleted.\n"
    )
    assert (root / "notes.md").exists()
    status, shown = run_on_pty(tmp_path, ["rm", str(root), "notes.md"], b"y\r")
    assert status == 0 and not (root / "notes.md").exists()
