"""`python -m memtui.agents.example PATH`: a Claude agent whose memory survives cleared context.

The agent gets the memtui memory tool on PATH, the memory protocol in its system prompt,
context editing that clears old tool results once the context grows, and compaction of the
whole conversation past a larger size. What the agent wrote to /memories stays on disk (and in
memtui's history), so it can pick the work up again after either of them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memtui.core.reporting import fail, open_failure

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_TASK = (
    "Check your memory, then keep a short project note about memtui in /memories/projects/: "
    "what it is, and one [status] observation about what you did in this session."
)
BETAS: list[str] = ["context-management-2025-06-27", "compact-2026-09-04"]
"""Context editing (and the memory tool) plus runner-driven compaction."""

CONTEXT_MANAGEMENT: dict[str, Any] = {
    "edits": [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": 30_000},
            "keep": {"type": "tool_uses", "value": 3},
            "clear_at_least": {"type": "input_tokens", "value": 5_000},
        }
    ]
}
"""Clear all but the last three tool results once the prompt passes 30k tokens."""

COMPACT_AT_INPUT_TOKENS = 100_000
COMPACTION: dict[str, Any] = {
    "type": "summarize",
    "instructions": (
        "Summarise the conversation so the work can continue. Everything durable is already in "
        "/memories: name the memory files that hold the progress instead of repeating them."
    ),
}


def open_memory_tool(root: str | os.PathLike[str], actor: str) -> Any:
    """The memory tool on `root` with its history open, so a broken store fails before any call.

    Raises ConfigError, HistoryCorrupt or OSError.
    """
    from memtui.agents.anthropic import MemtuiMemoryTool

    tool = MemtuiMemoryTool(root=root, actor=actor)
    tool.store.history  # noqa: B018 - opened (and recovered) now, not on the agent's first call
    return tool


def build_runner(
    client: Any,
    root: str | os.PathLike[str],
    task: str,
    *,
    model: str = DEFAULT_MODEL,
    max_tokens: int = 4096,
    actor: str = "agent:example",
) -> Any:
    """A tool runner for `task` with memtui's memory tool, context editing and the protocol."""
    from memtui.agents.prompts import memory_protocol

    return client.beta.messages.tool_runner(
        model=model,
        max_tokens=max_tokens,
        system=memory_protocol(),
        messages=[{"role": "user", "content": task}],
        tools=[open_memory_tool(root, actor)],
        betas=BETAS,
        context_management=CONTEXT_MANAGEMENT,
    )


def run_agent(runner: Any, *, compact_at: int = COMPACT_AT_INPUT_TOKENS) -> str:
    """Drive the runner to the end, printing the agent's text; compacts when the context is big."""
    final_text = ""
    for message in runner:
        for block in message.content:
            if block.type == "text":
                print(block.text)
                final_text = block.text
            elif block.type == "tool_use":
                print(f"[memory] {block.input}", file=sys.stderr)
        usage = getattr(message, "usage", None)
        if usage is not None and usage.input_tokens >= compact_at:
            runner.compact_before_next_turn(COMPACTION)
    return final_text


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line arguments of the example."""
    parser = argparse.ArgumentParser(
        prog="python -m memtui.agents.example",
        description=(
            "Run a Claude agent that keeps its memory in the memtui store PATH, with context "
            "editing and compaction. Needs ANTHROPIC_API_KEY."
        ),
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (/memories maps to it)")
    parser.add_argument("--task", default=DEFAULT_TASK, help="what to ask the agent")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"model (default {DEFAULT_MODEL})")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the example agent; 2 (and one line) when the key, the SDK or the store is not usable."""
    args = parse_args(argv)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        return fail(
            "example",
            "set ANTHROPIC_API_KEY to run the agent (https://console.anthropic.com/settings/keys)",
        )
    try:
        import anthropic
    except ImportError:
        return fail(
            "example",
            "the Anthropic SDK is missing; install it with `pip install 'memtui[anthropic]'`",
        )
    from memtui.core.config import ConfigError
    from memtui.core.recording.database import HistoryCorrupt

    root = Path(args.path).expanduser()
    if root.exists() and not root.is_dir():
        return fail("example", f"{args.path} is not a folder")
    client = anthropic.Anthropic()
    try:
        runner = build_runner(client, root, args.task, model=args.model)
    except (ConfigError, HistoryCorrupt, OSError) as exc:
        return open_failure("example", args.path, exc)
    try:
        run_agent(runner)
    except anthropic.APIError as exc:
        return fail("example", f"the API call failed: {exc}", 1)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
