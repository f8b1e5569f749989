"""`memtui policy`: the store's access policy, rule by rule, or the problem that stops it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from memtui.cli.terminal import json_safe, visible
from memtui.core.reporting import fail

_DESCRIPTION = """\
Show PATH's access policy (.memtui/policy.toml): each rule with the paths and agents it covers
and what they may do there (write, review: held for your approval, read, none: hidden). The
last rule that covers a path and an agent decides; a note whose frontmatter says
`read_only: true` is read-only for every agent; people are never restricted. A policy that
cannot be used is shown as its problem: until it is fixed every agent command is refused.
Add rules with `memtui protect PATH GLOB --access LEVEL`. With NOTE (a note or folder of the
store), only which rule decides it for which agents is shown, as the app's preview says it.
"""


def register(subparsers: Any) -> None:
    """Add the `policy` subcommand."""
    parser = subparsers.add_parser(
        "policy",
        help="show the store's access policy for agents",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument(
        "note",
        metavar="NOTE",
        nargs="?",
        help="a note or folder of the store (a.md or /memories/a.md): which rule decides it",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per rule")


def run(args: argparse.Namespace) -> int:
    """Run `memtui policy`: exit 1 when the policy cannot be used."""
    from memtui.core.policy.loading import POLICY_SHOWN, load_policy

    root = Path(args.path)
    if not root.is_dir():
        return fail("policy", f"{args.path} is not a folder")
    policy = load_policy(root)
    if policy.problem is not None:
        return fail("policy", f"{policy.problem} (every agent command is refused until fixed)", 1)
    if args.note is not None:
        return _explain(root, policy, args.note)
    if args.json:
        for rule in policy.rules:
            record = {
                "rule": rule.number,
                "paths": list(rule.paths),
                "actors": list(rule.actors),
                "access": rule.access,
            }
            sys.stdout.write(json_safe(json.dumps(record, ensure_ascii=False)) + "\n")
        return 0
    if not policy.rules:
        print(f"No rules in {POLICY_SHOWN}: every agent may change every file.")
        return 0
    print(f"{POLICY_SHOWN} (the last rule covering a path and an agent decides):")
    for rule in policy.rules:
        actors = "every agent" if rule.actors == ("agent:*",) else ", ".join(rule.actors)
        print(visible(f"  {rule.number}. {', '.join(rule.paths)}  {actors}: {rule.access}"))
    return 0


def _explain(root: Path, policy: Any, note: str) -> int:
    """Print which rule decides `note` for which agents (and its `read_only` frontmatter)."""
    from memtui.core.parsing.paths import as_virtual, to_relpath
    from memtui.core.policy.read_only import HEAD_BYTES, says_read_only
    from memtui.core.resolving.regular import read_head

    relpath = to_relpath(as_virtual(note))
    if not relpath:
        return fail("policy", "give a note or folder inside the store, not the store itself")
    lines = policy.explain(relpath)
    try:
        head = read_head(root / relpath, limit=HEAD_BYTES).data
    except (OSError, ValueError):
        head = b""
    if says_read_only(head):
        lines.append("read-only for every agent by its frontmatter (read_only: true)")
    if not lines:
        lines = ["no rule covers it: every agent may change it"]
    for line in lines:
        print(visible(f"{relpath}: {line}"))
    return 0
