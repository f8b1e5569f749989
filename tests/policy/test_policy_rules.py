"""The policy file: globs (`**` spans folders, a folder's rule covers what it holds), actor globs,
the last matching rule winning, people never restricted; a malformed policy refuses every agent
command with one line naming the problem (never falling back to `write`); `memtui policy` and
`memtui protect`, which keeps the file's comments."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.core.config import ConfigError, Settings
from memtui.core.config_edit import add_policy_rule
from memtui.core.policy.loading import load_policy, parse_policy
from memtui.core.store import MemoryStore
from memtui.notes.visibility import PolicyUnusable, Visibility

MEMTUI = str(Path(sys.executable).with_name("memtui"))


def policy(text: str) -> object:
    """The policy a file holding `text` gives."""
    return parse_policy(text.encode())


@pytest.mark.parametrize(
    ("glob", "covered", "not_covered"),
    [
        ("user/**", ["user", "user/a.md", "user/x/y/z.md"], ["users", "a/user/b.md"]),
        ("*.md", ["a.md", "a.md/inside"], ["d/a.md", "a.mdx"]),
        ("a/**/b.md", ["a/b.md", "a/x/y/b.md"], ["a/x/c.md", "b.md"]),
        ("/memories/p/[!x]?", ["p/ab", "p/zz/deeper"], ["p/xb", "p/abc"]),
        ("**", ["a", "a/b/c"], []),
        ("notes/", ["notes", "notes/a.md"], ["notes.md"]),
    ],
)
def test_path_globs(glob: str, covered: list[str], not_covered: list[str]) -> None:
    rules = policy(f'[[rule]]\npaths = ["{glob}"]\naccess = "none"\n')
    for relpath in covered:
        assert rules.access(relpath, "agent:x") == "none", relpath  # type: ignore[attr-defined]
    for relpath in not_covered:
        assert rules.access(relpath, "agent:x") == "write", relpath  # type: ignore[attr-defined]


def test_the_last_matching_rule_wins_per_actor_and_people_are_never_restricted() -> None:
    rules = policy(
        '[[rule]]\npaths = ["**"]\naccess = "read"\n'
        '[[rule]]\npaths = ["sessions/**"]\naccess = "write"\n'
        '[[rule]]\npaths = ["private/**"]\nactors = ["claude", "agent:tmp-*"]\naccess = "none"\n'
    )
    access = rules.access  # type: ignore[attr-defined]
    assert access("notes.md", "agent:claude") == "read"
    assert access("sessions/1.md", "agent:claude") == "write"
    assert access("private/a.md", "agent:claude") == "none"
    assert access("private/a.md", "agent:tmp-3") == "none"
    assert access("private/a.md", "agent:other") == "read"
    assert access("private/a.md", "human:dana") == "write"
    assert access("private/a.md", "external") == "write"
    assert rules.explain("private/a.md") == [  # type: ignore[attr-defined]
        "rule 1 (**: read) for the other agents",
        "rule 3 (private/**: none) for agent:claude, agent:tmp-*",
    ]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[rule]\n", "is not valid TOML: "),
        ('[[rule]]\npaths = ["a/**"]\naccess = "writ"\n', "rule 1: access must be one of"),
        ('[[rule]]\naccess = "read"\n', "rule 1: paths is required"),
        ('[[rule]]\npaths = ["a"]\nacess = "read"\n', "rule 1: unknown key"),
        ('[[rule]]\npaths = ["../x"]\naccess = "read"\n', "rule 1: path 1 has an empty, `.` or"),
        ('[[rule]]\npaths = [1]\naccess = "read"\n', "rule 1: paths must be a list of strings"),
        ('mode = "strict"\n', "unknown top-level key"),
    ],
)
def test_a_malformed_policy_names_its_problem(text: str, problem: str) -> None:
    found = policy(text).problem  # type: ignore[attr-defined]
    assert found is not None and found.startswith(".memtui/policy.toml")
    assert problem in found


def test_a_malformed_policy_refuses_every_agent_command_with_one_line(tmp_path: Path) -> None:
    person = MemoryStore(tmp_path, actor="human:dana", settings=Settings())
    person.create("/memories/a.md", "a\n")
    (tmp_path / ".memtui/policy.toml").write_text('[[rule]]\npaths = ["**"]\naccess = "nope"\n')
    agent = person.with_actor("agent:bot")
    line = (
        "Refused: the store's access policy cannot be used (.memtui/policy.toml: rule 1: access "
        "must be one of write, review, read, none); nothing was done. A person must fix "
        ".memtui/policy.toml."
    )
    for call in (
        {"command": "view", "path": "/memories"},
        {"command": "view", "path": "/memories/a.md"},
        {"command": "create", "path": "/memories/b.md", "file_text": "b"},
        {"command": "delete", "path": "/memories/a.md"},
    ):
        result = agent.execute(call)
        assert (result.content, result.is_error, result.kind) == (line, True, "refused")
    with pytest.raises(PolicyUnusable, match="access policy cannot be used"):
        Visibility.of(agent)
    assert (tmp_path / "a.md").read_text() == "a\n"
    assert not person.delete("/memories/a.md").is_error
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}
    shown = subprocess.run(
        [MEMTUI, "policy", str(tmp_path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert shown.returncode == 1
    assert shown.stderr == (
        "memtui policy: .memtui/policy.toml: rule 1: access must be one of write, review, read, "
        "none (every agent command is refused until fixed)\n"
    )


def test_a_linked_policy_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".memtui").mkdir()
    (tmp_path / "elsewhere.toml").write_text("")
    os.symlink("../elsewhere.toml", tmp_path / ".memtui/policy.toml")
    assert load_policy(tmp_path).problem == (
        ".memtui/policy.toml is a symbolic link; memtui reads only a real file"
    )


def test_protect_adds_a_rule_keeping_the_files_comments(tmp_path: Path) -> None:
    (tmp_path / ".memtui").mkdir()
    original = '# my rules\n[[rule]]\npaths = ["user/**"]  # mine\naccess = "review"\n'
    (tmp_path / ".memtui/policy.toml").write_text(original)
    rule = add_policy_rule(tmp_path, ["private/**"], "none", ["claude"])
    assert (rule.number, rule.paths, rule.actors) == (2, ("private/**",), ("agent:claude",))
    assert (tmp_path / ".memtui/policy.toml").read_text() == original + (
        '\n[[rule]]\npaths = ["private/**"]\nactors = ["claude"]\naccess = "none"\n'
    )
    with pytest.raises(ConfigError, match="rule 3: access must be one of"):
        add_policy_rule(tmp_path, ["x"], "sometimes")
    with pytest.raises(ConfigError, match="rule 3: path 1 has an empty"):
        add_policy_rule(tmp_path, [".."], "read")


def test_memtui_protect_and_policy(tmp_path: Path) -> None:
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}

    def memtui(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([MEMTUI, *args], capture_output=True, text=True, env=env, timeout=60)

    assert memtui("policy", str(tmp_path)).stdout == (
        "No rules in .memtui/policy.toml: every agent may change every file.\n"
    )
    assert memtui("protect", str(tmp_path), "user/**", "--access", "review").stdout == (
        "Added rule 1: user/**  every agent: review\n"
    )
    done = memtui("protect", str(tmp_path), "private/**", "--access", "none", "--actor", "claude")
    assert done.stdout == "Added rule 2: private/**  agent:claude: none\n"
    assert memtui("policy", str(tmp_path)).stdout == (
        ".memtui/policy.toml (the last rule covering a path and an agent decides):\n"
        "  1. user/**  every agent: review\n"
        "  2. private/**  agent:claude: none\n"
    )
    refused = memtui("protect", str(tmp_path), "x", "--access", "maybe")
    assert refused.returncode == 2 and "invalid choice: 'maybe'" in refused.stderr


def test_memtui_policy_names_the_rule_that_decides_a_note(tmp_path: Path) -> None:
    (tmp_path / ".memtui").mkdir()
    (tmp_path / ".memtui/policy.toml").write_text(
        '[[rule]]\npaths = ["user/**"]\naccess = "review"\n'
        '[[rule]]\npaths = ["user/*.md"]\nactors = ["claude"]\naccess = "none"\n'
    )
    (tmp_path / "ro.md").write_text("---\nread_only: true\n---\nx\n")
    os.mkfifo(tmp_path / "fifo.md")
    env = {**os.environ, "MEMTUI_CONFIG_FILE": os.devnull}

    def policy_of(note: str) -> str:
        done = subprocess.run(
            [MEMTUI, "policy", str(tmp_path), note],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        return done.stdout

    assert policy_of("/memories/user/a.md") == (
        "user/a.md: rule 1 (user/**: review) for the other agents\n"
        "user/a.md: rule 2 (user/*.md: none) for agent:claude\n"
    )
    assert policy_of("ro.md") == (
        "ro.md: read-only for every agent by its frontmatter (read_only: true)\n"
    )
    assert policy_of("fifo.md") == "fifo.md: no rule covers it: every agent may change it\n"
