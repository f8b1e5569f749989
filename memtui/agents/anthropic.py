"""Anthropic SDK memory tools backed by memtui's command core, for
`client.beta.messages.tool_runner`."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

try:
    from anthropic.lib.tools import (
        BetaAbstractMemoryTool,
        BetaAsyncAbstractMemoryTool,
        BetaFunctionToolResultType,
        ToolError,
    )
    from anthropic.types.beta import BetaCacheControlEphemeralParam, BetaMemoryTool20250818Command
except ImportError as exc:  # pragma: no cover - exercised only without the extra installed
    raise ImportError(
        "memtui.agents.anthropic needs the Anthropic SDK: install it with "
        "`pip install 'memtui[anthropic]'`"
    ) from exc

from memtui.agents.worker import SerialWorker
from memtui.core.actors import agent_actor
from memtui.core.result import CommandResult
from memtui.core.store import MemoryStore

__all__ = ["AsyncMemtuiMemoryTool", "MemtuiMemoryTool"]

SDK_BASE_PATH = "./memory"
"""The SDK's default `base_path`: `/memories` is its `memories/` sub-folder."""

PathArg = str | os.PathLike[str]


def memory_folder(root: PathArg | None, base_path: PathArg | None) -> Path:
    """The folder `/memories` maps to: `root` itself (`~` expanded), else `base_path/memories`
    taken as the SDK takes it (no `~` expansion), else the SDK's `./memory/memories`."""
    if root is not None and base_path is not None:
        raise TypeError(
            "give root (the memories folder itself) or base_path (the folder that holds "
            "memories/, as in the SDK), not both"
        )
    if root is not None:
        return Path(root).expanduser()
    return Path(SDK_BASE_PATH if base_path is None else base_path) / "memories"


def open_tool_store(
    root: PathArg | None, base_path: PathArg | None, actor: str, session: str | None
) -> tuple[Path, Path | None, MemoryStore]:
    """(memories folder, SDK base_path or None for the `root` form, store) of a tool class."""
    folder = memory_folder(root, base_path)
    base = None if root is not None else folder.parent
    return folder, base, open_agent_store(folder, actor, session)


def open_agent_store(root: PathArg, actor: str, session: str | None) -> MemoryStore:
    """A store on the folder `root` recording every call as `agent_actor(actor)`.

    Raises ValueError, before anything is created, for an empty name or a `human:`/`external`
    actor, and ConfigError for a broken config file.
    """
    return MemoryStore(root, actor=agent_actor(actor), session=session or uuid.uuid4().hex)


def run_command(store: MemoryStore, tool_input: object) -> str:
    """Run one raw tool input through the core: its content, or ToolError with the core's
    message."""
    try:
        result: CommandResult = store.execute(tool_input)
    except Exception as exc:
        raise ToolError(f"memtui could not run the command: {type(exc).__name__}: {exc}") from exc
    if result.is_error:
        raise ToolError(result.content)
    return result.content


def command_input(command: BetaMemoryTool20250818Command) -> dict[str, object]:
    """The raw input a typed command was built from, so typed calls take the same core path."""
    return command.to_dict(exclude_unset=True)


class MemtuiMemoryTool(BetaAbstractMemoryTool):
    """The `memory_20250818` tool on a memtui store: same rules, lock and history as the app.

    A drop-in for the SDK's `BetaLocalFilesystemMemoryTool(X)`: `base_path` (the first positional
    argument, as in the SDK) is the folder that holds `memories/` (default `./memory`); the
    keyword `root` names the memories folder itself instead. `actor` is recorded as `memtui mcp`
    records `--actor`: `my-bot` as `agent:my-bot`, `agent:x` as it is; an empty name or a
    `human:`/`external` actor raises ValueError.
    """

    def __init__(
        self,
        base_path: PathArg | None = None,
        *,
        root: PathArg | None = None,
        actor: str = "agent:claude",
        session: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory_root, self.base_path, self.store = open_tool_store(
            root, base_path, actor, session
        )

    def call(self, input: object) -> BetaFunctionToolResultType:
        """Send the raw tool input to the core unchanged; errors become ToolError."""
        return run_command(self.store, input)

    def execute(self, command: BetaMemoryTool20250818Command) -> BetaFunctionToolResultType:
        """Run an already typed command, any of the six, through the core."""
        return run_command(self.store, command_input(command))

    # The SDK's abstract per-command methods all take the one core path.
    view = create = str_replace = insert = delete = rename = execute


class AsyncMemtuiMemoryTool(BetaAsyncAbstractMemoryTool):
    """The async `memory_20250818` tool on a memtui store; store calls run on one worker thread.

    A drop-in for `BetaAsyncLocalFilesystemMemoryTool(base_path=X)`; `root`, `base_path` and
    `actor` follow the same rules as in MemtuiMemoryTool.
    """

    def __init__(
        self,
        base_path: PathArg | None = None,
        *,
        root: PathArg | None = None,
        actor: str = "agent:claude",
        session: str | None = None,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.memory_root, self.base_path, self.store = open_tool_store(
            root, base_path, actor, session
        )
        self._worker = SerialWorker()

    async def call(self, input: object) -> BetaFunctionToolResultType:
        """Send the raw tool input to the core unchanged; errors become ToolError."""
        return await self._worker.run(run_command, self.store, input)

    async def execute(self, command: BetaMemoryTool20250818Command) -> BetaFunctionToolResultType:
        """Run an already typed command, any of the six, through the core."""
        return await self.call(command_input(command))

    # The SDK's abstract per-command methods all take the one core path.
    view = create = str_replace = insert = delete = rename = execute
