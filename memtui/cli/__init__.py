"""The `memtui` command: opens the app, or runs a subcommand (tool, log, undo, export,
search, ...)."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from memtui.cli.shared import OneLineParser
from memtui.cli.subcommands import SUBCOMMANDS
from memtui.core.reporting import fail


def build_parsers(
    names: Sequence[str] | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and each subcommand's own parser by name (all `OneLineParser`s);
    with `names`, only those subcommands' modules are imported and registered."""
    parser = OneLineParser(
        prog="memtui",
        description="See, search and curate what your AI agents remember.",
    )
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND")
    for name, module_name in SUBCOMMANDS.items():
        if names is None or name in names:
            importlib.import_module(module_name).register(subparsers)
    return parser, dict(subparsers.choices)


def parse_subcommand(args_list: Sequence[str]) -> argparse.Namespace:
    """Parse `COMMAND ARGS...` with the subcommand's own parser: errors are `memtui COMMAND: ...`;
    options may come between positional words (`memtui log PATH --limit 5 actor:agent`).

    Only that subcommand's module is imported (the others' imports cost tens of milliseconds)."""
    name = args_list[0]
    args = build_parsers([name])[1][name].parse_intermixed_args(list(args_list[1:]))
    args.subcommand = name
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: `memtui [PATH] [--demo]` opens the app; `memtui COMMAND ...` runs a
    subcommand."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in SUBCOMMANDS:
        args = parse_subcommand(args_list)
        problem = config_problem() if args.subcommand in USES_CONFIG else None
        if problem is not None:
            return fail(args.subcommand, problem)
        module = importlib.import_module(SUBCOMMANDS[args.subcommand])
        try:
            status = int(module.run(args) or 0)
            sys.stdout.flush()
        except BrokenPipeError:
            return reader_gone()
        return status
    from memtui.cli import app_cmd

    try:
        status = app_cmd.main(args_list)
        sys.stdout.flush()
    except BrokenPipeError:
        return reader_gone()
    return status


QUICK_EXIT = frozenset({"sync"})
"""Commands whose process ends without the interpreter's teardown (its exit handlers still run):
everything they opened is closed by then, and the teardown is a sizeable share of a short run."""


def entry() -> NoReturn:
    """The `memtui` program: `main`, then the exit (quick for QUICK_EXIT's commands)."""
    status = main()
    if sys.argv[1:2] and sys.argv[1] in QUICK_EXIT:
        atexit._run_exitfuncs()
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def reader_gone() -> int:
    """Stop quietly when whoever reads stdout has gone (`memtui export DIR | head -1`).

    Returns the status a Unix tool killed by SIGPIPE reports; stdout is pointed at /dev/null so
    the interpreter's final flush does not complain either.
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


USES_CONFIG = frozenset(
    {
        "tool",
        "log",
        "undo",
        "edit",
        "mv",
        "rm",
        "changes",
        "approve",
        "reject",
        "search",
        "stale",
        "budget",
        "mcp",
        "sync",
        "resolve",
    }
)
"""Subcommands that read the config file, so a broken one stops them with its error."""


def config_problem() -> str | None:
    """The config file's error as one line, or None if it loads (or there is none)."""
    from memtui.core.config import ConfigError, load_settings

    try:
        load_settings()
    except ConfigError as error:
        return str(error)
    return None


if __name__ == "__main__":
    sys.exit(main())
