"""`memtui protect`: add a rule to the store's access policy (the file's comments kept)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from memtui.cli.terminal import visible
from memtui.core.policy.rules import ACCESS_LEVELS
from memtui.core.reporting import fail

_DESCRIPTION = """\
Add a rule at the end of PATH's access policy (.memtui/policy.toml, created if missing; its
other lines and comments kept): agents (every agent, or the --actor glob) get --access to the
paths GLOB covers, relative to the store (`user/**`: the folder and everything in it; `*` and
`?` stay within one folder). Being last, the rule wins over earlier ones for those paths.
Levels: write (change freely), review (changes wait for your approval: memtui changes, memtui
approve/reject), read (no changes), none (hidden: the files do not exist for the agent).
"""


def register(subparsers: Any) -> None:
    """Add the `protect` subcommand."""
    parser = subparsers.add_parser(
        "protect",
        help="add a rule to the store's access policy for agents",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder")
    parser.add_argument("glob", metavar="GLOB", help="the paths the rule covers, e.g. user/**")
    parser.add_argument(
        "--access", choices=ACCESS_LEVELS, help="what agents may do there (required)"
    )
    parser.add_argument(
        "--actor",
        metavar="A",
        action="append",
        help='the agents it covers, a glob such as "agent:claude" (repeat for more; '
        "default: every agent)",
    )


def run(args: argparse.Namespace) -> int:
    """Run `memtui protect`: exit 2 for a rule or policy that cannot be used."""
    from memtui.core.config import ConfigError
    from memtui.core.config_edit import add_policy_rule

    if args.access is None:
        return fail("protect", f"give --access, one of {', '.join(ACCESS_LEVELS)}")
    root = Path(args.path)
    if not root.is_dir():
        return fail("protect", f"{args.path} is not a folder")
    try:
        rule = add_policy_rule(root, [args.glob], args.access, args.actor)
    except (ConfigError, OSError) as error:
        return fail("protect", error)
    who = "every agent" if rule.actors == ("agent:*",) else ", ".join(rule.actors)
    print(visible(f"Added rule {rule.number}: {', '.join(rule.paths)}  {who}: {rule.access}"))
    return 0
