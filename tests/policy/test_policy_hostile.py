"""An agent working against the policy: writing the policy file itself through every entry point
and through a link a person made, moving notes (MCP `move_note`) to reach or name hidden notes
or to slip link rewrites past a held rename, and names that make a glob slow; and hostile text
in the policy file and in `memtui protect`'s arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.tools import ToolError

from memtui.agents.anthropic import MemtuiMemoryTool
from memtui.agents.mcp_server import MemoryService
from memtui.core.config import Settings
from memtui.core.policy.loading import load_policy, parse_policy
from memtui.core.store import MemoryStore
from tests.agents.mcp_client import call_memory, mcp_session
from tests.policy.scenarios import refused, tree

MEMTUI = str(Path(sys.executable).with_name("memtui"))
POLICY = '# kept by a person\n[[rule]]\npaths = ["p/**"]\naccess = "none"\n'


@pytest.fixture(autouse=True)
def no_user_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry point (and the servers it starts) runs without the user's config."""
    monkeypatch.setenv("MEMTUI_CONFIG_FILE", os.devnull)


def person_store(root: Path, files: dict[str, str], policy: str) -> MemoryStore:
    """A person's store on `root` holding `files`, with `policy` as its policy file."""
    person = MemoryStore(root, actor="human:dana", settings=Settings())
    for relpath, text in files.items():
        assert not person.create(f"/memories/{relpath}", text).is_error
    (root / ".memtui").mkdir(parents=True, exist_ok=True)
    (root / ".memtui/policy.toml").write_text(policy)
    return person


OWN_POLICY = "/memories/.memtui/policy.toml"
ATTACKS: list[dict[str, Any]] = [
    {"command": "view", "path": OWN_POLICY},
    {"command": "create", "path": OWN_POLICY, "file_text": "[[rule]]\n"},
    {"command": "str_replace", "path": OWN_POLICY, "old_str": '"none"', "new_str": '"write"'},
    {"command": "insert", "path": OWN_POLICY, "insert_line": 0, "insert_text": "x = 1"},
    {"command": "delete", "path": OWN_POLICY},
    {"command": "delete", "path": "/memories/.memtui"},
    {"command": "rename", "old_path": OWN_POLICY, "new_path": "/memories/q/p.toml"},
    {"command": "rename", "old_path": "/memories/q/evil.toml", "new_path": OWN_POLICY},
    {"command": "rename", "old_path": "/memories/.memtui", "new_path": "/memories/q/m"},
    {"command": "create", "path": "/memories/q/meta/policy.toml", "file_text": "[[rule]]\n"},
    {"command": "delete", "path": "/memories/q/meta/policy.toml"},
    {
        "command": "str_replace",
        "path": "/memories/q/meta/policy.toml",
        "old_str": '"none"',
        "new_str": '"write"',
    },
    {
        "command": "rename",
        "old_path": "/memories/q/evil.toml",
        "new_path": "/memories/q/meta/policy.toml",
    },
]
HIDE_PRIVATE = '[[rule]]\npaths = ["private/**"]\naccess = "none"\n'
EVIL = '[[rule]]\npaths = ["**"]\naccess = "write"\n'


def attack_store(root: Path) -> Path:
    """A store whose `p/` is hidden, with a free `q/` holding a ready replacement policy and a
    link a person made to memtui's own folder."""
    person_store(root, {"p/s.md": "secret\n", "q/evil.toml": EVIL}, POLICY)
    os.symlink("../.memtui", root / "q/meta")
    return root


def still_guarded(root: Path, answers: list[tuple[str, bool]]) -> None:
    """Every attack failed, the policy file is the person's, and it still hides `p/`."""
    assert all(is_error for _content, is_error in answers), answers
    assert (root / ".memtui/policy.toml").read_text() == POLICY
    assert load_policy(root).access("p/s.md", "agent:any") == "none"
    assert tree(root) == {"p/s.md": b"secret\n", "q/evil.toml": EVIL.encode()}


def test_the_core_never_lets_an_agent_touch_the_policy(tmp_path: Path) -> None:
    root = attack_store(tmp_path)
    agent = MemoryStore(root, actor="agent:bot", settings=Settings())
    answers = []
    for call in ATTACKS:
        result = agent.execute(call)
        answers.append((result.content, result.is_error))
    still_guarded(root, answers)
    assert answers[0] == (
        "The path /memories/.memtui/policy.toml is reserved for memtui's history",
        True,
    )


def test_memtui_tool_never_lets_an_agent_touch_the_policy(tmp_path: Path) -> None:
    root = attack_store(tmp_path)
    done = subprocess.run(
        [MEMTUI, "tool", str(root), "--actor", "claude"],
        input="".join(json.dumps(call) + "\n" for call in ATTACKS).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    still_guarded(root, [(line["content"], line["is_error"]) for line in lines])


def test_the_sdk_tool_class_never_lets_an_agent_touch_the_policy(tmp_path: Path) -> None:
    root = attack_store(tmp_path)
    tool = MemtuiMemoryTool(root=root, actor="agent:sdk")
    answers = []
    for call in ATTACKS:
        try:
            answers.append((tool.call(call), False))
        except ToolError as refusal:
            answers.append((str(refusal.content), True))
    still_guarded(root, answers)


async def test_mcp_never_lets_an_agent_touch_the_policy(tmp_path: Path) -> None:
    root = attack_store(tmp_path)
    answers = []
    async with mcp_session(root) as session:
        for call in ATTACKS:
            answers.append(await call_memory(session, call))
        for old, new in (
            ("/memories/q/evil.toml", OWN_POLICY),
            (OWN_POLICY, "/memories/q/p.toml"),
            ("/memories/q/evil.toml", "/memories/q/meta/policy.toml"),
            ("/memories/.memtui", "/memories/q/m"),
        ):
            moved = await session.call_tool("move_note", {"old_path": old, "new_path": new})
            answers.append(("", bool(moved.is_error)))
    still_guarded(root, answers)


def test_the_langgraph_store_never_reaches_the_policy(tmp_path: Path) -> None:
    from langgraph.store.base import InvalidNamespaceError

    from memtui.agents.langgraph import MemtuiStore, MemtuiStoreError

    root = attack_store(tmp_path)
    graph = MemtuiStore(root, actor="agent:graph", settings=Settings())
    with pytest.raises(InvalidNamespaceError):
        graph.put((".memtui",), "policy", {"rule": []})
    with pytest.raises(MemtuiStoreError) as refusal:
        graph.put(("q", "meta"), "policy", {"rule": []})
    assert str(refusal.value) == (
        "The path /memories/q/meta/policy.json is reserved for memtui's history"
    )
    assert (root / ".memtui/policy.toml").read_text() == POLICY
    assert load_policy(root).access("p/s.md", "agent:any") == "none"
    assert not (root / ".memtui/policy.json").exists()


def test_a_nested_stores_own_folder_is_reserved_too(tmp_path: Path) -> None:
    """An agent of the outer store never writes the policy or history of a store inside it."""
    person_store(tmp_path, {"inner/a.md": "a\n", "q/evil.toml": EVIL}, "")
    MemoryStore(tmp_path / "inner", actor="human:dana", settings=Settings()).history.events()
    (tmp_path / "inner/.memtui/policy.toml").write_text(POLICY)
    agent = MemoryStore(tmp_path, actor="agent:bot", settings=Settings())
    nested = "/memories/inner/.memtui/policy.toml"
    for call in (
        {"command": "create", "path": "/memories/q/.memtui/policy.toml", "file_text": EVIL},
        {"command": "str_replace", "path": nested, "old_str": '"none"', "new_str": '"write"'},
        {"command": "delete", "path": nested},
        {"command": "rename", "old_path": "/memories/q/evil.toml", "new_path": nested},
    ):
        result = agent.execute(call)
        shown = call.get("path") or call["new_path"]
        assert (result.content, result.is_error) == (
            f"The path {shown} is reserved for memtui's history",
            True,
        ), call
    inside = (
        "Refused: /memories/inner holds files the store's policy does not let this agent change; "
        "nothing was changed."
    )
    for call in (
        {"command": "delete", "path": "/memories/inner"},
        {"command": "rename", "old_path": "/memories/inner", "new_path": "/memories/moved"},
    ):
        result = agent.execute(call)
        assert (result.content, result.is_error) == (inside, True), call
    assert (tmp_path / "inner/.memtui/policy.toml").read_text() == POLICY
    assert not (tmp_path / "q/.memtui").exists()
    assert (tmp_path / "inner/.memtui/history.db").exists()


LINKED = {
    "q/a.md": "---\ntitle: A\n---\n# A\n",
    "q/b.md": "see [[q/a]]\n",
    "p/s.md": "secret [[q/a]]\n",
    "r/ro.md": "kept [[q/a]]\n",
    "u/x.md": "mine [[q/a]]\n",
}
LEVELS = (
    '[[rule]]\npaths = ["p/**"]\naccess = "none"\n'
    '[[rule]]\npaths = ["r/**"]\naccess = "read"\n'
    '[[rule]]\npaths = ["u/**"]\naccess = "review"\n'
)


def move_note(service: MemoryService, old: str, new: str, rewrite: bool) -> tuple[str, bool]:
    """MCP `move_note` as `agent:bot`: its text and error flag."""
    result = service.move_note(f"/memories/{old}", f"/memories/{new}", rewrite, "agent:bot", "s")
    block = result.content[0]
    return block.text, bool(result.is_error)  # type: ignore[union-attr]


def test_move_note_answers_a_hidden_source_as_missing(tmp_path: Path) -> None:
    person_store(tmp_path, LINKED, LEVELS)
    service = MemoryService(tmp_path, settings=Settings())
    for source in ("p/s.md", "p/never.md"):
        assert move_note(service, source, "q/s.md", True) == (
            f"Error: The path /memories/{source} does not exist",
            True,
        )
    assert move_note(service, "q/a.md", "p/a.md", True) == (refused("/memories/p/a.md"), True)
    assert move_note(service, "q/a.md", "r/a.md", True) == (refused("/memories/r/a.md"), True)
    assert tree(tmp_path) == {path: text.encode() for path, text in LINKED.items()}


def test_move_note_never_names_a_hidden_note_that_still_links(tmp_path: Path) -> None:
    person_store(tmp_path, LINKED, LEVELS)
    service = MemoryService(tmp_path, settings=Settings())
    assert move_note(service, "q/a.md", "q/a2.md", False) == (
        "Moved q/a.md to q/a2.md; 3 notes still link to the old path (q/b.md, r/ro.md, u/x.md)",
        False,
    )


def test_move_note_rewrites_only_the_links_the_policy_lets_it(tmp_path: Path) -> None:
    """Free notes are rewritten, one under review is held, a read-only one refused, a hidden
    one neither changed nor named."""
    person_store(tmp_path, LINKED, LEVELS)
    service = MemoryService(tmp_path, settings=Settings())
    assert move_note(service, "q/a.md", "q/z.md", True) == (
        "Moved q/a.md to q/z.md; rewrote 1 link in 1 note; the link rewrites in 1 note wait for "
        "a person's approval (u/x.md); could not rewrite the links in 1 note (r/ro.md: Refused: "
        "the store's policy does not let this agent change /memories/r/ro.md; nothing was "
        "changed.)",
        False,
    )
    assert (tmp_path / "q/b.md").read_text() == "see [[q/z]]\n"
    for relpath in ("u/x.md", "r/ro.md", "p/s.md"):
        assert (tmp_path / relpath).read_text() == LINKED[relpath]
    held = MemoryStore(tmp_path, settings=Settings()).proposals.listing()
    assert [(proposal.command, proposal.path) for proposal in held] == [
        ("write", "/memories/u/x.md")
    ]


def test_a_held_move_rewrites_no_link(tmp_path: Path) -> None:
    person_store(tmp_path, LINKED, LEVELS)
    service = MemoryService(tmp_path, settings=Settings())
    text, is_error = move_note(service, "q/a.md", "u/a.md", True)
    assert not is_error
    assert text.startswith("Held for review: a person must approve this change to /memories/q/a.md")
    assert tree(tmp_path) == {path: text.encode() for path, text in LINKED.items()}


GLOB_PROBE = """
import sys
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
agent = MemoryStore(sys.argv[1], actor="agent:bot", settings=Settings())
name = "-" * 250 + "x"
for call in (
    {"command": "create", "path": "/memories/" + name, "file_text": "x"},
    {"command": "view", "path": "/memories"},
    {"command": "rename", "old_path": "/memories/" + name, "new_path": "/memories/d/" + name},
    {"command": "delete", "path": "/memories/d"},
):
    print(agent.execute(call).is_error)
"""


def test_an_agents_names_never_make_a_glob_slow(tmp_path: Path) -> None:
    """Globs with many `*` and `**` against long names and deep paths: each check grows with
    the name's length times the glob's (a backtracking match would take hours here)."""
    person_store(
        tmp_path, {}, '[[rule]]\npaths = ["*-*-*-*-*-*-*.md", "**/**/**/**/z"]\naccess = "none"\n'
    )
    done = subprocess.run(
        [sys.executable, "-c", GLOB_PROBE, str(tmp_path)],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.decode().split() == ["False"] * 4
    rules = load_policy(tmp_path)
    assert rules.access("a-b-c-d-e-f-g.md", "agent:x") == "none"
    assert rules.access("/".join(["a"] * 2000) + "/z", "agent:x") == "none"
    assert rules.access("/".join(["a"] * 2000), "agent:x") == "write"


@pytest.mark.parametrize(
    ("glob", "covered", "not_covered"),
    [
        ("p/[]x]", ["p/]", "p/x"], ["p/y"]),
        ("p/[!]x]", ["p/y"], ["p/]", "p/x"]),
        (r"p/[\]", ["p/\\"], ["p/a"]),
        ("p/[^a]", ["p/^", "p/a"], ["p/b"]),
        ("p/a[", ["p/a["], ["p/a"]),
        ("p/.*", ["p/.x", "p/.*"], ["p/x"]),
        ("p/(a|b)+", ["p/(a|b)+"], ["p/a", "p/ab"]),
    ],
)
def test_glob_text_is_never_an_expression(
    glob: str, covered: list[str], not_covered: list[str]
) -> None:
    rules = parse_policy(f"[[rule]]\npaths = ['{glob}']\naccess = 'none'\n".encode())
    assert rules.problem is None, rules.problem
    for relpath in covered:
        assert rules.access(relpath, "agent:x") == "none", relpath
    for relpath in not_covered:
        assert rules.access(relpath, "agent:x") == "write", relpath


def test_a_backwards_class_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    person_store(tmp_path, {"a.md": "a\n"}, '[[rule]]\npaths = ["[z-a]"]\naccess = "none"\n')
    agent = MemoryStore(tmp_path, actor="agent:bot", settings=Settings())
    result = agent.execute({"command": "view", "path": "/memories/a.md"})
    assert (result.content, result.is_error) == (
        "Refused: the store's access policy cannot be used (.memtui/policy.toml: rule 1: path 1 "
        "has a `[...]` class that is not valid (a range backwards?)); nothing was done. A person "
        "must fix .memtui/policy.toml.",
        True,
    )


def test_protect_writes_a_hostile_glob_as_one_literal_rule(tmp_path: Path) -> None:
    person_store(tmp_path, {}, POLICY)
    glob = 'x"]\naccess = "write"\n[[rule]]\npaths = ["**'
    done = subprocess.run(
        [MEMTUI, "protect", str(tmp_path), glob, "--access", "read"],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    rules = load_policy(tmp_path).rules
    assert [(rule.paths, rule.access) for rule in rules] == [
        (("p/**",), "none"),
        (('x"]\naccess = "write"\n[[rule]]\npaths = ["**',), "read"),
    ]
    assert done.stdout.decode() == (
        'Added rule 2: x"]\u240aaccess = "write"\u240a[[rule]]\u240apaths = ["**  '
        "every agent: read\n"
    )


@pytest.mark.parametrize("glob", [b"bad\xff/**", b"esc\x1b[31m/**", b"del\x7f/**"])
def test_protect_answers_a_glob_toml_cannot_hold_in_one_line(tmp_path: Path, glob: bytes) -> None:
    person_store(tmp_path, {}, POLICY)
    done = subprocess.run(
        [MEMTUI.encode(), b"protect", str(tmp_path).encode(), glob, b"--access", b"read"],
        capture_output=True,
        timeout=60,
    )
    shown = done.stdout + done.stderr
    assert b"Traceback" not in shown and b"\x1b" not in shown
    policy = load_policy(tmp_path)
    assert policy.problem is None
    if glob.isascii():
        assert done.returncode == 0
        assert policy.rules[-1].paths == (glob.decode(),)
    else:
        assert (done.returncode, done.stdout) == (2, b"")
        assert done.stderr.decode().endswith(": rule 2: path 1 is not UTF-8 text\n")
        assert len(done.stderr.decode().splitlines()) == 1
        assert (tmp_path / ".memtui/policy.toml").read_text() == POLICY


def test_memtui_policy_shows_hostile_rule_text_escaped(tmp_path: Path) -> None:
    person_store(
        tmp_path,
        {"e\x1b[2Jx/a.md": "a\n"},
        '[[rule]]\npaths = ["e\\u001b[2Jx/**"]\nactors = ["agent:\\u001b]0;t\\u0007"]\n'
        'access = "none"\n',
    )
    done = subprocess.run(
        [MEMTUI, "policy", str(tmp_path)],
        capture_output=True,
        timeout=60,
    )
    shown = done.stdout + done.stderr
    assert b"\x1b" not in shown and b"\x07" not in shown
    assert done.returncode == 0, shown


@pytest.mark.parametrize(
    "relpath",
    ["Private/pay.md", "PRIVATE/x", "private/Pay.md", "cafe\u0301/a.md", "CAF\u00c9/a.md"],
)
def test_a_glob_ignores_case_and_composition(relpath: str) -> None:
    """On a disk that ignores case or Unicode composition (macOS, Windows) these name the
    protected files, so the rules cover them on every disk."""
    rules = parse_policy(
        '[[rule]]\npaths = ["private/**", "caf\u00e9/**"]\naccess = "none"\n'.encode()
    )
    assert rules.access(relpath, "agent:x") == "none"
    assert rules.access("privat/pay.md", "agent:x") == "write"


def test_a_differently_cased_name_is_as_hidden_as_the_real_one(tmp_path: Path) -> None:
    person_store(tmp_path, {"private/pay.md": "pay\n"}, HIDE_PRIVATE)
    agent = MemoryStore(tmp_path, actor="agent:bot", settings=Settings())
    for path in ("/memories/Private/pay.md", "/memories/PRIVATE"):
        result = agent.execute({"command": "view", "path": path})
        assert (result.content, result.is_error) == (
            f"The path {path} does not exist. Please provide a valid path.",
            True,
        )
    result = agent.execute(
        {"command": "create", "path": "/memories/Private/x.md", "file_text": "x"}
    )
    assert (result.content, result.is_error) == (refused("/memories/Private/x.md"), True)


def test_a_hidden_rename_source_held_for_review_leaves_the_tree_as_a_missing_one(
    tmp_path: Path,
) -> None:
    policy = (
        '[[rule]]\npaths = ["secret/**"]\naccess = "none"\n'
        '[[rule]]\npaths = ["dest/**"]\naccess = "review"\n'
    )
    person_store(tmp_path, {"secret/a.md": "s\n", "dest/keep.md": "k\n"}, policy)
    agent = MemoryStore(tmp_path, actor="agent:claude", settings=Settings())
    hidden = agent.rename("/memories/secret/a.md", "/memories/dest/h1/b.md")
    missing = agent.rename("/memories/missing.md", "/memories/dest/m1/b.md")
    assert hidden.is_error and missing.is_error
    assert hidden.content == missing.content.replace("missing.md", "secret/a.md")
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["keep.md"]


@pytest.mark.parametrize(
    "policy",
    [
        '[[rule]]\npaths = ["a/**"]\naccess = "sk-ant-api03-SECRETVALUE"\n',
        '[[rule]]\npaths = "a/**"\naccess = "none"\nactors = 42\ntoken = "SECRETVALUE"\n',
        '[[rule]]\npaths = ["a/**"]\naccess = "none"\nactors = ["SECRETVALUE", 7]\n',
        'key = "SECRETVALUE\n',
        '[[rule]]\npaths = []\naccess = "SECRETVALUE"\n',
    ],
)
def test_a_broken_policys_problem_never_quotes_the_files_values(policy: str) -> None:
    problem = parse_policy(policy.encode()).problem
    assert problem is not None
    assert "SECRETVALUE" not in problem and "sk-ant" not in problem
