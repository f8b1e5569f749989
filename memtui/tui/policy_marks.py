"""What the app shows of the store's access policy: a mark on protected files and folders in the
tree, and the line saying which rule applies (computed in a thread; nothing here touches a
widget)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memtui.core.policy.rules import Policy

MARKS = ("review", "read", "none")
"""Tree badge names of the access levels that restrict agents, least strict first."""
MARK_HELP = (
    "  ◐ agents' changes wait for your approval here (policy: review)\n"
    "  ▣ read-only for agents (policy: read, or read_only: true)\n"
    "  ⊘ hidden from agents (policy: none)"
)


def policy_marks(policy: Policy, paths: Iterable[str], read_only: Iterable[str]) -> dict[str, str]:
    """relpath -> the mark of its strictest restriction for any agent, for each file in `paths`,
    each folder holding one and each folder a rule names before its first wildcard (so an empty
    protected folder is marked too; `read_only`: notes whose frontmatter says so)."""
    marks: dict[str, str] = {}
    folders: set[str] = set(_named_folders(policy))
    for relpath in paths:
        _mark(marks, policy, relpath)
        parts = relpath.split("/")[:-1]
        folders.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    for folder in folders:
        _mark(marks, policy, folder)
    for relpath in read_only:
        if marks.get(relpath) not in ("read", "none"):
            marks[relpath] = "read"
    return marks


def _named_folders(policy: Policy) -> list[str]:
    """The paths each rule's globs name before their first wildcard (`user/**` -> `user`)."""
    named = []
    for rule in policy.rules:
        for glob in rule.paths:
            literal: list[str] = []
            for segment in glob.split("/"):
                if any(char in segment for char in "*?["):
                    break
                literal.append(segment)
                named.append("/".join(literal))
    return named


def _mark(marks: dict[str, str], policy: Policy, relpath: str) -> None:
    """Mark `relpath` if some agent is restricted there."""
    if not policy.rules:
        return
    level = policy.strictest(relpath)
    if level in MARKS:
        marks[relpath] = level


def frontmatter_read_only(frontmatter: Mapping[str, object]) -> bool:
    """Whether a parsed note's frontmatter says `read_only: true` (a YAML boolean)."""
    return frontmatter.get("read_only") is True


def policy_line(policy: Policy | None, relpath: str, read_only: bool = False) -> str:
    """`agents: rule 2 (user/**: review) for every agent`, or "" where nothing restricts
    agents; a policy that cannot be used says so."""
    if policy is None:
        return ""
    if policy.problem is not None:
        return f"agents: every command refused: {policy.problem}"
    lines = policy.explain(relpath) if relpath else []
    if read_only:
        lines.append("read-only by its frontmatter (read_only: true)")
    return "agents: " + "; ".join(lines) if lines else ""
