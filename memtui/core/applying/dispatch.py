"""A parsed command run over a root on descriptors: `view`, or a change planned then made.

`apply_command` never raises; history, locks and secret scanning belong to the store.
"""

from __future__ import annotations

from pathlib import Path

from memtui.core.applying.guard import guard_view
from memtui.core.applying.handlers import PLANNERS, Plan, run_plan
from memtui.core.applying.site import DEFAULT_MAX_FILE_SIZE, Site, open_site
from memtui.core.applying.viewing import view
from memtui.core.parsing.command_types import (
    COMMANDS,
    CommandOutcome,
    ParsedCommand,
    error,
    failure_message,
    shown,
)
from memtui.core.policy.rules import ActorPolicy


def apply_command(
    root: Path,
    cmd: ParsedCommand,
    max_size: int = DEFAULT_MAX_FILE_SIZE,
    gate: ActorPolicy | None = None,
) -> CommandOutcome:
    """Run a parsed command on disk; any unexpected OS failure becomes a one-line error.

    The paths are walked again on descriptors (see `open_site`) and every step acts relative
    to the folders opened, so a store that changes meanwhile is never followed out of. With an
    agent's `gate`, a `view` answers as the store's policy lets that agent see.
    """
    try:
        site = open_site(root, cmd, max_size)
    except Exception as problem:
        return error(failure_message(cmd, problem))
    if isinstance(site, CommandOutcome):
        return site
    with site:
        if gate is not None and cmd.command == "view":
            try:
                decided = guard_view(cmd, site, gate)
            except Exception as problem:
                return error(failure_message(cmd, problem))
            if decided is not None:
                return decided
        return run_on_site(cmd, site)


def run_on_site(cmd: ParsedCommand, site: Site) -> CommandOutcome:
    """Run a command whose paths `site` has located: view, or plan and carry out a change."""
    plan = plan_command(cmd, site)
    if isinstance(plan, CommandOutcome):
        return plan
    return run_plan(cmd, plan)


def plan_command(cmd: ParsedCommand, site: Site) -> Plan | CommandOutcome:
    """A change's plan, or the command's outcome when it changes nothing (view, a refusal)."""
    try:
        if cmd.command == "view":
            return view(cmd, site)
        planner = PLANNERS.get(cmd.command)
        if planner is None:
            known = ", ".join(COMMANDS)
            return error(f"Unknown command: {shown(cmd.command)}. Expected one of: {known}")
        return planner(cmd, site)
    except Exception as problem:
        return error(failure_message(cmd, problem))
