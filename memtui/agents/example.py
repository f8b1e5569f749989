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
    from memtui.agents.anthropic import MemtuiMemoryTool
    from memtui.agents.prompts import memory_protocol

    return client.beta.messages.tool_runner(
        model=model,
        max_tokens=max_tokens,
        system=memory_protocol(),
        messages=[{"role": "user", "content": task}],
        tools=[MemtuiMemoryTool(root, actor=actor)],
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
    """Run the example agent; 2 when the API key or the SDK is missing."""
    args = parse_args(argv)
    if not os.environ.get("ANTHROPIC_API_KEY"):
        print(
            "memtui example: set ANTHROPIC_API_KEY to run the agent "
            "(https://console.anthropic.com/settings/keys)",
            file=sys.stderr,
        )
        return 2
    try:
        import anthropic
    except ImportError:
        print(
            "memtui example: the Anthropic SDK is missing; install it with "
            "`pip install 'memtui[anthropic]'`",
            file=sys.stderr,
        )
        return 2
    client = anthropic.Anthropic()
    runner = build_runner(client, Path(args.path).expanduser(), args.task, model=args.model)
    try:
        run_agent(runner)
    except anthropic.APIError as exc:
        print(f"memtui example: the API call failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
