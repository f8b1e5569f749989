"""`memtui [PATH] [--demo] [--actor NAME]`: open the Textual app on a memory directory."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.cli.subcommands import SUBCOMMANDS
from memtui.core.display import visible

if TYPE_CHECKING:
    from memtui.core.config import Settings

from memtui import installed_version

DEFAULT_ROOT = "~/memories"


class VersionAction(argparse.Action):
    """`--version`: the installed version, looked up only when asked (it costs start-up time)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        """A flag that takes no value."""
        super().__init__(
            option_strings, dest, nargs=0, help="show the installed version and exit", **kwargs
        )

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kwargs: Any) -> None:
        """Print `memtui <version>` and exit."""
        print(f"memtui {installed_version()}")
        parser.exit()


def build_parser(*, with_path: bool = True) -> argparse.ArgumentParser:
    """Arguments of the app command (without PATH for the completion parser, where the
    subcommands take the first word)."""
    from memtui.cli.shared import OneLineParser

    parser = OneLineParser(
        prog="memtui",
        description=(
            "See, search and curate what your AI agents remember. Opens PATH (default: the "
            "configured root, else ~/memories) in the terminal app. Subcommands: "
            f"{', '.join(SUBCOMMANDS)} (memtui COMMAND --help)."
        ),
    )
    if with_path:
        parser.add_argument("path", nargs="?", help="the memory directory to open")
    parser.add_argument("--version", action=VersionAction)
    parser.add_argument(
        "--print-completion",
        metavar="SHELL",
        choices=("bash", "zsh", "fish"),
        help=(
            "print the completion script for bash, zsh or fish and exit, e.g. "
            "`memtui --print-completion bash > ~/.local/share/bash-completion/completions/memtui`"
        ),
    )
    parser.add_argument(
        "--demo", action="store_true", help="open a copy of the bundled demo store in a temp folder"
    )
    parser.add_argument(
        "--actor",
        metavar="NAME",
        type=app_actor,
        help=(
            "who you are in the history (recorded as human:NAME; default: MEMTUI_ACTOR, else the "
            "config's actor, else your user name)"
        ),
    )
    return parser


def app_actor(name: str) -> str:
    """`human:<name>` for a plain name or a `human:` actor; any other kind is refused."""
    from memtui.core.actors import ActorError, human_actor

    try:
        return human_actor(name)
    except ActorError:
        pass
    raise argparse.ArgumentTypeError(
        f"{name!r} is not a human name: the app records your own edits, so it always acts as "
        "human:NAME (agents and outside tools are recorded by the tool and the watcher); "
        "give a plain name such as --actor dana"
    )


def resolve_root(
    path: str | None, settings: Settings, *, ask: Callable[[str], bool] | None = None
) -> tuple[Path, str | None]:
    """The folder to open (`path`, else the configured root, else ~/memories) and a note to show
    about it (created, or None).

    The default folder is created when missing. A PATH given on the command line that does not
    exist is created only if `ask(path)` says yes (a typo such as `memtui serach` must not
    leave a folder behind); without `ask` (no terminal) it is refused.
    """
    explicit = path is not None
    if path is None:
        path = str(settings.root) if settings.root else DEFAULT_ROOT
    root = Path(os.path.expanduser(path))
    if root.exists():
        if not root.is_dir():
            raise ValueError(f"memtui: {path} is not a folder")
        if not os.access(root, os.R_OK | os.X_OK):
            raise ValueError(f"memtui: cannot read {path}: permission denied")
        return root, None
    if explicit and ask is None:
        raise ValueError(f"memtui: {path} does not exist (create it first: mkdir -p {path})")
    if explicit and ask is not None and not ask(path):
        raise ValueError(f"memtui: {path} does not exist; nothing was created")
    try:
        root.mkdir(parents=True, mode=0o700)
    except OSError as error:
        raise ValueError(f"memtui: cannot create {path}: {error.strerror}") from error
    return root, f"Created an empty memory folder at {root}."


def ask_to_create(path: str) -> bool:
    """Ask on the terminal whether to create the missing folder `path`; only yes creates it."""
    try:
        answer = input(f"memtui: {visible(path)} does not exist. Create it? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        return False
    return answer.strip().lower() in ("y", "yes")


def terminal_problem() -> str | None:
    """Why the app cannot run here (stdin or stdout is not a terminal), or None."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return None
    which = "stdin" if not sys.stdin.isatty() else "stdout"
    return (
        f"memtui: the app needs a terminal, and {which} is not one; for scripts use "
        "memtui log, search, stale, export or tool"
    )


def demo_root() -> Path:
    """A fresh copy of the demo store in a temporary folder, removed when the process exits."""
    from memtui.demo import create_demo_store

    folder = tempfile.mkdtemp(prefix="memtui-demo-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return create_demo_store(Path(folder) / "memories")


def main(argv: Sequence[str]) -> int:
    """Parse app options and run the app; bad paths exit with status 2 and one line."""
    args = build_parser().parse_args(list(argv))
    if args.print_completion:
        from memtui.cli.completion import completion_script  # first use: start-up (shtab)

        print(completion_script(args.print_completion, build_parser(with_path=False)))
        return 0
    clock = time.time
    from memtui.core.actors import ActorError
    from memtui.core.config import ConfigError, default_human_actor, load_settings

    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"memtui: {visible(str(error))}", file=sys.stderr)
        return 2
    try:
        actor = args.actor or default_human_actor(settings)
    except ActorError as error:
        print(f"memtui: login name: {visible(str(error))}", file=sys.stderr)
        return 2
    notice: str | None
    terminal = terminal_problem()
    missing = args.path is not None and not os.path.lexists(os.path.expanduser(args.path))
    if terminal is not None and (args.demo or not missing):
        print(terminal, file=sys.stderr)
        return 2
    try:
        if args.demo:
            from memtui.demo import demo_clock

            root, notice = demo_root(), "Demo store: a temporary copy, edit freely."
            clock = demo_clock()
        else:
            ask = ask_to_create if terminal is None else None
            root, notice = resolve_root(args.path, settings, ask=ask)
    except ValueError as error:
        print(visible(str(error)), file=sys.stderr)
        return 2
    from memtui.tui.app import MemtuiApp

    try:
        app = MemtuiApp(root, actor=actor, settings=settings, notice=notice, clock=clock)
    except Exception as error:
        print(f"memtui: cannot open {visible(str(root))}: {visible(str(error))}", file=sys.stderr)
        return 2
    problem = app.theme_problem()
    if problem is not None:
        print(f"memtui: {visible(problem)}", file=sys.stderr)
        return 2
    app.run()
    return int(app.return_code or 0)
