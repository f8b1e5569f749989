"""`memtui mcp PATH`: serve a memory folder to MCP clients (stdio, or streamable HTTP on
localhost)."""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import Any

from memtui.agents.http_auth import TOKEN_ENV, new_token, token_problem
from memtui.cli.shared import whole_number
from memtui.core.actors import agent_actor
from memtui.core.reporting import fail, open_failure

DESCRIPTION = """\
Serve the memory folder PATH to AI agents over the Model Context Protocol.

Tools: `memory` (view, create, str_replace, insert, delete, rename under /memories, the same
rules and history as the app), `search_memories`, `build_context`, `recent_activity`.
Prompts: `memory_guide`, `memory_protocol`.

By default the server talks MCP over stdin/stdout, which is what Claude Desktop, Claude Code and
most clients start. With --http it serves streamable HTTP at http://127.0.0.1:PORT/mcp instead
(local connections only), and every request must carry the header
`Authorization: Bearer TOKEN`: the token is MEMTUI_MCP_TOKEN or --token, else a new one printed
on stderr at start. Every call is recorded in the history as agent:<name>: the --actor name,
else the name the client reports, else agent:mcp."""

DEFAULT_PORT = 8765

EPILOG = """\
examples:
  memtui mcp ~/memories
  memtui mcp ~/memories --actor claude-desktop
  memtui mcp ~/memories --http --port 8765
  MEMTUI_MCP_TOKEN=$(cat ~/.memtui-token) memtui mcp ~/memories --http
  claude mcp add memtui -- memtui mcp ~/memories"""


def register(subparsers: Any) -> None:
    """Add the `mcp` subcommand."""
    parser = subparsers.add_parser(
        "mcp",
        help="serve a memory folder to AI agents over MCP",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (/memories maps to it)")
    parser.add_argument(
        "--actor",
        metavar="NAME",
        help="record every call as agent:NAME (default: the client's name, else agent:mcp)",
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 instead of stdio",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        default=None,
        help=(
            "the bearer token --http clients must send (default: MEMTUI_MCP_TOKEN, else a new "
            "one printed on stderr); prefer the variable, a command line is visible to others"
        ),
    )
    parser.add_argument(
        "--port",
        type=whole_number,
        default=None,
        metavar="N",
        help=f"port for --http (default: {DEFAULT_PORT})",
    )


def port_is_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:`port` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def http_token(given: str | None) -> tuple[str, str]:
    """The token for --http and where it came from: --token, MEMTUI_MCP_TOKEN or a new one."""
    if given is not None:
        return given, "--token"
    from_env = os.environ.get(TOKEN_ENV)
    if from_env:
        return from_env, TOKEN_ENV
    return new_token(), "generated"


def announce(port: int, token: str, source: str) -> None:
    """Tell the user on stderr where the server listens and what header clients must send."""
    shown = token if source == "generated" else f"<the token from {source}>"
    print(
        f"memtui mcp: serving http://127.0.0.1:{port}/mcp; clients must send the header "
        f"Authorization: Bearer {shown}",
        file=sys.stderr,
        flush=True,
    )


def run(args: argparse.Namespace) -> int:  # noqa: C901
    """Run `memtui mcp`."""
    root = Path(args.path).expanduser()
    if root.exists() and not root.is_dir():
        return fail("mcp", f"{args.path} is not a folder")
    if args.port is not None and not args.http:
        return fail("mcp", "--port only applies with --http (stdio has no port)")
    if args.token is not None and not args.http:
        return fail("mcp", "--token only applies with --http (stdio needs no token)")
    token, token_source = http_token(args.token)
    problem = token_problem(token) if args.http else None
    if problem is not None:
        return fail("mcp", f"{token_source}: {problem}")
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 < port < 65536:
        return fail("mcp", f"--port must be between 1 and 65535, got {port}")
    if args.actor is not None:
        try:
            agent_actor(args.actor)
        except ValueError as exc:
            return fail("mcp", f"--actor: {exc}")
    try:
        from memtui.agents import mcp_server
    except ImportError as exc:
        return fail(
            "mcp", f"the MCP SDK is missing ({exc}); install it with `pip install 'memtui[mcp]'`"
        )
    from memtui.core.config import ConfigError, load_settings
    from memtui.core.recording.database import HistoryCorrupt

    try:
        service = mcp_server.MemoryService(root, actor=args.actor, settings=load_settings())
        service.store.history  # noqa: B018 - open now so a broken history is reported at start
    except (ConfigError, HistoryCorrupt, OSError) as exc:
        return open_failure("mcp", args.path, exc)
    if args.http and not port_is_free(port):
        return fail("mcp", f"port {port} on 127.0.0.1 is already in use")
    try:
        if args.http:
            announce(port, token, token_source)
            mcp_server.serve_http(service, port=port, token=token)
        else:
            mcp_server.serve_stdio(service)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:
        return fail("mcp", exc.strerror or exc, 1)
    return 0
