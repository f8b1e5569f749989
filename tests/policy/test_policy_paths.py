"""The policy is judged on every path a command touches, after resolution on descriptors: `..`,
links inside the store (to files and folders, and out of a hidden folder), renames into and out
of protected folders, folders holding protected files; and a hidden file is indistinguishable
from a missing one (every answer byte for byte, listings and their sizes included)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from tests.policy.scenarios import refused, tree


def store_with(root: Path, files: dict[str, str], policy: str) -> MemoryStore:
    """An agent's store on `root` holding `files` (made by a person) under `policy`."""
    person = MemoryStore(root, actor="human:dana", settings=Settings())
    for relpath, text in files.items():
        assert not person.create(f"/memories/{relpath}", text).is_error
    (root / ".memtui/policy.toml").write_text(policy)
    return MemoryStore(root, actor="agent:bot", settings=Settings())


HIDE_P = '[[rule]]\npaths = ["p/**"]\naccess = "none"\n'
READ_P = '[[rule]]\npaths = ["p/**"]\naccess = "read"\n'
REVIEW_P = '[[rule]]\npaths = ["p/**"]\naccess = "review"\n'


def answer(store: MemoryStore, call: dict[str, Any]) -> tuple[str, bool]:
    """One call's text and error flag."""
    result = store.execute(call)
    return result.content, result.is_error


def test_dot_dot_is_refused_before_anything_is_resolved(tmp_path: Path) -> None:
    agent = store_with(tmp_path, {"p/s.md": "secret\n", "q/a.md": "a\n"}, HIDE_P)
    assert answer(agent, {"command": "view", "path": "/memories/q/../p/s.md"}) == (
        "Path /memories/q/../p/s.md would escape /memories directory",
        True,
    )


def test_a_link_to_a_hidden_file_is_as_missing_as_the_file(tmp_path: Path) -> None:
    agent = store_with(tmp_path, {"p/s.md": "secret\n", "q/a.md": "a\n"}, HIDE_P)
    os.symlink("../p/s.md", tmp_path / "q/link.md")
    os.symlink("../p", tmp_path / "q/dirlink")
    for path in ("/memories/q/link.md", "/memories/q/dirlink/s.md"):
        assert answer(agent, {"command": "view", "path": path}) == (
            f"The path {path} does not exist. Please provide a valid path.",
            True,
        )
        assert answer(agent, {"command": "delete", "path": path}) == (
            f"Error: The path {path} does not exist",
            True,
        )
    listing, _ = answer(agent, {"command": "view", "path": "/memories/q"})
    assert listing.splitlines()[2:] == ["2B\t/memories/q/a.md"]
    assert (tmp_path / "p/s.md").read_text() == "secret\n"


def test_a_rename_through_a_link_into_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    agent = store_with(tmp_path, {"p/r.md": "r\n", "q/a.md": "a\n"}, READ_P)
    os.symlink("../p", tmp_path / "q/dirlink")
    call = {
        "command": "rename",
        "old_path": "/memories/q/a.md",
        "new_path": "/memories/q/dirlink/a.md",
    }
    assert answer(agent, call) == (refused("/memories/q/dirlink/a.md"), True)
    call = {
        "command": "str_replace",
        "path": "/memories/q/dirlink/r.md",
        "old_str": "r",
        "new_str": "x",
    }
    assert answer(agent, call) == (refused("/memories/q/dirlink/r.md"), True)
    assert tree(tmp_path)["p/r.md"] == b"r\n"


def test_a_link_in_a_hidden_folder_is_judged_as_written_too(tmp_path: Path) -> None:
    agent = store_with(tmp_path, {"p/s.md": "secret\n", "q/a.md": "a\n"}, HIDE_P)
    os.symlink("../q/a.md", tmp_path / "p/to-public.md")
    os.symlink("/etc/passwd", tmp_path / "p/to-outside")
    for name in ("to-public.md", "to-outside", "never-there"):
        path = f"/memories/p/{name}"
        assert answer(agent, {"command": "view", "path": path}) == (
            f"The path {path} does not exist. Please provide a valid path.",
            True,
        ), name
        assert answer(agent, {"command": "create", "path": path, "file_text": "x"}) == (
            refused(path),
            True,
        ), name


def test_folders_holding_protected_files_are_judged_on_every_file(tmp_path: Path) -> None:
    files = {"mixed/free.md": "f\n", "mixed/p/s.md": "s\n", "other/free.md": "o\n"}
    policy = '[[rule]]\npaths = ["*/p/**"]\naccess = "none"\n'
    agent = store_with(tmp_path, files, policy)
    held_inside = (
        "Refused: /memories/mixed holds files the store's policy does not let this agent "
        "change; nothing was changed."
    )
    assert answer(agent, {"command": "delete", "path": "/memories/mixed"}) == (held_inside, True)
    call = {"command": "rename", "old_path": "/memories/mixed", "new_path": "/memories/moved"}
    assert answer(agent, call) == (held_inside, True)
    call = {"command": "rename", "old_path": "/memories/other", "new_path": "/memories/x/p"}
    assert answer(agent, call) == (refused("/memories/x/p"), True)
    assert sorted(tree(tmp_path)) == ["mixed/free.md", "mixed/p/s.md", "other/free.md"]


def test_a_folder_rename_that_moves_files_under_review_is_held(tmp_path: Path) -> None:
    files = {"drafts/a.md": "a\n", "drafts/b.md": "b\n"}
    policy = '[[rule]]\npaths = ["user/**"]\naccess = "review"\n'
    agent = store_with(tmp_path, files, policy)
    call = {"command": "rename", "old_path": "/memories/drafts", "new_path": "/memories/inbox"}
    assert answer(agent, call)[0] == "Successfully renamed /memories/drafts to /memories/inbox"
    call = {"command": "rename", "old_path": "/memories/inbox", "new_path": "/memories/user/inbox"}
    content, is_error = answer(agent, call)
    assert content.startswith("Held for review: a person must approve this change to ")
    assert not is_error
    assert sorted(tree(tmp_path)) == ["inbox/a.md", "inbox/b.md"]


def test_read_only_frontmatter_is_read_for_every_agent(tmp_path: Path) -> None:
    note = "---\ntitle: Core\nread_only: true\n---\nfacts\n"
    agent = store_with(tmp_path, {"core.md": note, "free.md": "---\nread_only: 'true'\n---\n"}, "")
    assert answer(agent, {"command": "view", "path": "/memories/core.md"})[1] is False
    for call in (
        {"command": "str_replace", "path": "/memories/core.md", "old_str": "facts", "new_str": "x"},
        {"command": "delete", "path": "/memories/core.md"},
        {"command": "rename", "old_path": "/memories/core.md", "new_path": "/memories/c.md"},
    ):
        assert answer(agent, call) == (
            "Refused: /memories/core.md is marked read_only in its frontmatter; nothing was "
            "changed.",
            True,
        )
    assert answer(agent, {"command": "delete", "path": "/memories/free.md"})[1] is False


HIDDEN_CALLS: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "view", "path": "/memories/p"},
    {"command": "view", "path": "/memories/p/s.md"},
    {"command": "view", "path": "/memories/p/s.md", "view_range": [1, 1]},
    {"command": "view", "path": "/memories/q"},
    {"command": "create", "path": "/memories/p/s.md", "file_text": "x"},
    {"command": "create", "path": "/memories/p/s.md/x", "file_text": "x"},
    {"command": "str_replace", "path": "/memories/p/s.md", "old_str": "secret", "new_str": "x"},
    {"command": "str_replace", "path": "/memories/p/s.md", "old_str": "absent", "new_str": "x"},
    {"command": "insert", "path": "/memories/p/s.md", "insert_line": 99, "insert_text": "x"},
    {"command": "delete", "path": "/memories/p/s.md"},
    {"command": "delete", "path": "/memories/p"},
    {"command": "rename", "old_path": "/memories/p/s.md", "new_path": "/memories/q/a.md"},
    {"command": "rename", "old_path": "/memories/p/s.md", "new_path": "/memories/q/new/s.md"},
    {"command": "rename", "old_path": "/memories/q/a.md", "new_path": "/memories/p/s.md"},
    {"command": "rename", "old_path": "/memories/p", "new_path": "/memories/q/p"},
]


def test_a_hidden_file_is_indistinguishable_from_a_missing_one(tmp_path: Path) -> None:
    """Byte for byte: every answer, and what is left on disk that the agent can see."""
    common = {"q/a.md": "a\n", "q/sub/b.md": "b\n", "top.md": "t\n"}
    policy = HIDE_P + '[[rule]]\npaths = ["q/hidden-*"]\naccess = "none"\n'
    hidden = store_with(tmp_path / "hidden", {**common, "p/s.md": "secret\n"}, policy)
    for index in range(300):
        name = f"hidden-{index:03}-{'long-name' * 8}.md"
        (tmp_path / "hidden/q" / name).write_text("x" * index)
        (tmp_path / "hidden/p" / name).write_text("x" * index)
    assert os.stat(tmp_path / "hidden/q").st_size != os.stat(tmp_path / "hidden/q/sub").st_size
    missing = store_with(tmp_path / "missing", common, policy)
    for call in HIDDEN_CALLS:
        assert answer(hidden, call) == answer(missing, call), call
    visible = {
        path: data
        for path, data in tree(tmp_path / "hidden").items()
        if not path.startswith(("p/", "q/hidden-"))
    }
    assert visible == tree(tmp_path / "missing")


@pytest.mark.parametrize("level", ["read", "none"])
def test_the_history_says_why(tmp_path: Path, level: str) -> None:
    """The person sees in the history what the agent was refused or not shown."""
    policy = f'[[rule]]\npaths = ["p/**"]\naccess = "{level}"\n'
    agent = store_with(tmp_path, {"p/s.md": "s\n"}, policy)
    agent.execute({"command": "delete", "path": "/memories/p/s.md"})
    event = agent.history.events(limit=1)[0]
    assert event.flags == (("policy:hidden",) if level == "none" else ("policy:refused",))
