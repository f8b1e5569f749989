"""The memtui MCP server: the memory tool, note search and context tools, and the memory prompts."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError, WithJsonSchema

from memtui import installed_version
from memtui.agents.notes_access import (
    FILTERS_SCHEMA,
    NotesAccess,
    NotesError,
    changed_paths,
    relpath_of,
)
from memtui.agents.prompts import PROMPT_NAMES, PROMPTS, load_prompt
from memtui.agents.stdio_input import surrogate_tolerant_stdin
from memtui.agents.worker import SerialWorker
from memtui.core.actors import UnsafeActorName, agent_actor
from memtui.core.config import Settings
from memtui.core.store import MemoryStore
from memtui.notes.operations.moving import move
from memtui.notes.workspace import Workspace

if TYPE_CHECKING:
    from memtui.notes.sync.auto import AutoSync

MOVE_NOTE_DESCRIPTION = """\
Rename or move a note or folder (old_path to new_path, both under /memories) as one change in \
the history, and point the [[links]] in other notes that the move would break at the new name \
(rewrite_links, on by default). Links by title, or by a permalink set in the frontmatter, keep \
working and are left as they are. Prefer it to the memory tool's rename when other notes link \
to what you move."""

NAME_SHOWN = 100
"""Characters of an unknown tool or prompt name repeated in the error, at most."""

UNSERVED_METHODS = (
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
)
"""Methods the SDK serves by default that memtui has nothing behind (so it advertises no
`resources` capability)."""

MEMORY_COMMANDS: tuple[str, ...] = ("view", "create", "str_replace", "insert", "delete", "rename")

MEMORY_TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "enum": list(MEMORY_COMMANDS),
            "description": "The operation to perform.",
        },
        "path": {
            "type": "string",
            "description": "Path of the file or directory, e.g. /memories/projects/memtui.md "
            "(every command except rename).",
        },
        "file_text": {"type": "string", "description": "create: the content of the new file."},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "minItems": 2,
            "maxItems": 2,
            "description": (
                "view: optional [start, end] line numbers, 1-based, end -1 = to the end."
            ),
        },
        "old_str": {
            "type": "string",
            "description": "str_replace: the exact text to replace; it must occur exactly once.",
        },
        "new_str": {
            "type": "string",
            "description": "str_replace: the replacement text (empty or omitted deletes old_str).",
        },
        "insert_line": {
            "type": "integer",
            "description": "insert: the line to insert after (0 = at the top of the file).",
        },
        "insert_text": {"type": "string", "description": "insert: the text to insert."},
        "old_path": {"type": "string", "description": "rename: the current path."},
        "new_path": {"type": "string", "description": "rename: the new path."},
    },
    "required": ["command"],
}
"""Input schema of the `memory` tool (Basic Memory's memory-tool proposal: one flat object)."""

MEMORY_TOOL_DESCRIPTION = """\
Read and change your persistent memory: a folder of markdown files under /memories that \
survives between conversations. Every path starts with /memories.
Commands:
- view: list a directory (2 levels deep) or show a file with line numbers (optional view_range).
- create: create a new file with file_text (fails if the file exists).
- str_replace: replace the unique occurrence of old_str with new_str in a file.
- insert: insert insert_text after line insert_line (0 = top) of a file.
- delete: delete a file or directory.
- rename: move old_path to new_path.
Check /memories before starting a task and record progress as you go. Notes may use Basic \
Memory's structured format: frontmatter (title, type, tags), observations as list items \
`- [category] fact #tag (context)` and relations as `- relation_type [[Other Note]]`."""

SEARCH_DESCRIPTION = """\
Search the notes in /memories (fuzzy, over titles, paths, observations, relations and text). \
Returns matching notes with the matched lines. Optional filters: folder, tag, category, \
note_type, actor (who last changed the note, e.g. "agent" or "human:ana"), max_age_days. \
`mode`: "text" (the words), "meaning" (notes that say it in other words, each with the section \
that matched) or "hybrid" (both); by meaning works when the user turned it on, and is then \
hybrid by default."""

BUILD_CONTEXT_DESCRIPTION = """\
Load a note and its neighbourhood: its observations and the notes it links to or that link \
to it, up to `depth` hops. `target` is a path (projects/memtui.md), a permalink or a title. \
`timeframe` (e.g. "7d", "2 weeks", "1 month") limits related notes to recently changed ones; \
without it related notes of any age are listed."""

RECENT_ACTIVITY_DESCRIPTION = """\
What changed in /memories recently, newest first: which notes, when and by whom, and for a \
change by an agent or from outside memtui whether a person has reviewed it yet. \
`timeframe` is like "24h", "7d", "2 weeks", "1 month", "1y", "today" or "yesterday"."""


class RawArgumentsTool(Tool):
    """A tool that gets the call's arguments untouched and returns its own CallToolResult."""

    async def run(
        self,
        arguments: dict[str, Any],
        context: Any,
        convert_result: bool = False,
    ) -> Any:
        """Hand the raw arguments and the request context to the tool function."""
        return await self.fn(arguments, context)


class NotesTool(Tool):
    """A read-only notes tool whose argument errors come back as one short line."""

    async def run(
        self,
        arguments: dict[str, Any],
        context: Any,
        convert_result: bool = False,
    ) -> Any:
        """Run the tool; a schema mismatch becomes an isError result naming each bad field."""
        try:
            return await super().run(arguments, context, convert_result)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or 'arguments'}: {error['msg']}"
                for error in exc.__cause__.errors(include_url=False)
            )
            result = text_result(f"Invalid arguments for {self.name}: {problems}", is_error=True)
            return self.fn_metadata.convert_result(result) if convert_result else result


class MemtuiServer(MCPServer):
    """The MCP server, answering a tool call or prompt request it cannot serve as an
    invalid-params error, and advertising only what it serves: tools and prompts."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """An MCPServer without the resource methods (their handlers make it advertise them)."""
        super().__init__(*args, **kwargs)
        handlers = self._lowlevel_server._request_handlers
        for method in UNSERVED_METHODS:
            handlers.pop(method, None)

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        context: Context[Any, Any] | None = None,
    ) -> Any:
        """Call the tool `name`; an unknown name is the client's error (-32602), not a result."""
        if name not in {tool.name for tool in await self.list_tools()}:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {shown_name(name)}")
        return await super().call_tool(name, arguments, context)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> Any:
        """The prompt `name`; an unknown name or any argument is the client's error, not ours."""
        if name not in PROMPT_NAMES:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {shown_name(name)}")
        if arguments:
            raise MCPError(INVALID_PARAMS, f"The prompt {name} takes no arguments")
        return await super().get_prompt(name, None, context)


class MemoryService:
    """The state of one server process: the store's Workspace (one view per client's actor) and
    the notes tools over it."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        actor: str | None = None,
        session: str | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.root = Path(root).expanduser()
        self.session = session or uuid.uuid4().hex
        self.fixed_actor = agent_actor(actor) if actor is not None else None
        store = MemoryStore(
            self.root,
            actor=self.fixed_actor or "agent:mcp",
            session=self.session,
            settings=settings,
        )
        self.workspace = Workspace(store, search_model=store.settings.search_model)
        self.store = self.workspace.store
        self.root = self.store.root
        self.notes = NotesAccess(self.workspace)
        self.worker = SerialWorker()
        self.auto_sync: AutoSync | None = None

    def start_sync(self) -> None:
        """Sync the store in the background every `[sync] every`, when it is set up for sync."""
        every = self.store.settings.sync.every
        if every is None or self.auto_sync is not None:
            return
        from memtui.notes.sync.auto import AutoSync

        auto = AutoSync(self.store, every, on_done=self._synced)
        if auto.configured:
            self.auto_sync = auto
            auto.start()

    def _synced(self, outcome: object) -> None:
        """Bring the workspace up to date with the files a sync wrote (on the sync's thread)."""
        self.workspace.apply(getattr(outcome, "paths", ()))

    def actor_for(self, client_name: str | None) -> str:
        """The actor of a call: --actor, else the client's name if usable, else `agent:mcp`.

        A name with control characters or bytes that are not UTF-8 raises UnsafeActorName.
        """
        if self.fixed_actor:
            return self.fixed_actor
        if client_name:
            try:
                return agent_actor(client_name)
            except UnsafeActorName:
                raise
            except ValueError:
                pass
        return "agent:mcp"

    async def notes_call(
        self,
        caller: Callable[[Context[Any, Any]], tuple[str, str] | CallToolResult],
        context: Context[Any, Any] | None,
        function: Callable[..., str],
        *args: object,
    ) -> CallToolResult:
        """Answer a notes call as `function(*args, reader)`, the reader being the store of the
        client it comes from (what it may see follows its actor); a client name that is unsafe
        is refused."""
        reader = self.store
        if context is not None:
            who = caller(context)
            if isinstance(who, CallToolResult):
                return who
            reader = self.workspace.acting_as(*who).store
        return await self.notes_result(function, *args, reader)

    def memory(self, arguments: dict[str, Any], actor: str, session: str) -> CallToolResult:
        """Run one memory command through the core (the result text is exactly the core's),
        then apply what it changed to the workspace."""
        workspace = self.workspace.acting_as(actor, session)
        try:
            result = workspace.store.execute(arguments)
        except Exception as exc:
            return text_result(
                f"memtui could not run the command: {type(exc).__name__}: {exc}", is_error=True
            )
        if not result.is_error:
            workspace.apply(changed_paths(arguments))
        return text_result(result.content, is_error=result.is_error)

    def move_note(
        self, old_path: str, new_path: str, rewrite_links: bool, actor: str, session: str
    ) -> CallToolResult:
        """Rename or move a note or folder as one operation, rewriting the links the move breaks
        when asked: the notes operation the app and `memtui mv` run."""
        old, new = relpath_of(old_path), relpath_of(new_path)
        if not old or not new:
            return text_result(
                "Refused: old_path and new_path must be paths below /memories, such as "
                "/memories/projects/a.md",
                is_error=True,
            )
        workspace = self.workspace.acting_as(actor, session)
        try:
            workspace.current_index()
            moved = move(workspace, old, new, rewrite_links=rewrite_links)
        except Exception as exc:
            return text_result(
                f"memtui could not run the move: {type(exc).__name__}: {exc}", is_error=True
            )
        text = moved.summary
        if rewrite_links and not (moved.result.is_error or moved.rewritten or moved.unrewritten):
            text += "; no links needed rewriting"
        return text_result(text, is_error=moved.result.is_error)

    async def notes_result(self, function: Callable[..., str], *args: object) -> CallToolResult:
        """Run a notes query on the worker thread; its text, or a one-line error with isError."""
        try:
            text = await self.worker.run(function, *args)
        except NotesError as exc:
            return text_result(str(exc), is_error=True)
        except Exception as exc:
            return text_result(
                f"memtui could not answer: {type(exc).__name__}: {exc}", is_error=True
            )
        return text_result(text)


def shown_name(name: str) -> str:
    """A client's name for a tool or prompt, cut to NAME_SHOWN characters, for an error."""
    return name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "…"


def text_result(text: str, *, is_error: bool = False) -> CallToolResult:
    """A tool result holding exactly `text`."""
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _client_name(context: Context[Any, Any]) -> str | None:
    """The `clientInfo.name` the client sent in `initialize`, if any."""
    try:
        params = context.session.client_params
    except (AttributeError, ValueError):
        return None
    if params is None or params.client_info is None:
        return None
    return params.client_info.name


def _session_id(context: Context[Any, Any], fallback: str) -> str:
    """The MCP session id of an HTTP client, else the server process's session id."""
    try:
        headers = context.headers
    except (AttributeError, ValueError):
        headers = None
    if headers:
        session_id = headers.get("mcp-session-id")
        if session_id:
            return session_id
    return fallback


def build_server(service: MemoryService) -> MemtuiServer:
    """An MCPServer with the memory tool, the notes tools and the prompts over `service`."""

    def caller(context: Context[Any, Any]) -> tuple[str, str] | CallToolResult:
        """The actor and session of a call, or the refusal of a client name that is unsafe."""
        try:
            actor = service.actor_for(_client_name(context))
        except UnsafeActorName as refused:
            return text_result(
                f"Refused: the client's name (clientInfo.name): {refused}", is_error=True
            )
        return actor, _session_id(context, service.session)

    async def memory(arguments: dict[str, Any], context: Context[Any, Any]) -> CallToolResult:
        who = caller(context)
        if isinstance(who, CallToolResult):
            return who
        return await service.worker.run(service.memory, arguments, *who)

    memory_tool = RawArgumentsTool(
        fn=memory,
        name="memory",
        title="Memory",
        description=MEMORY_TOOL_DESCRIPTION,
        parameters=MEMORY_TOOL_SCHEMA,
        fn_metadata=func_metadata(_no_arguments, structured_output=False),
        is_async=True,
        context_kwarg=None,
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False),
    )

    async def search_memories(
        query: Annotated[str, Field(description="Words to look for (fuzzy).")],
        limit: Annotated[int, Field(description="Most matches to return.", ge=1, le=200)] = 10,
        filters: Annotated[dict[str, Any] | str | None, WithJsonSchema(FILTERS_SCHEMA)] = None,
        mode: Annotated[
            Literal["text", "meaning", "hybrid"] | None,
            Field(
                description="Rank by the words, by meaning, or both (default: hybrid when "
                "search by meaning is on, else text)."
            ),
        ] = None,
        context: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        return await service.notes_call(
            caller, context, service.notes.search_text, query, limit, filters, mode
        )

    async def build_context(
        target: Annotated[str, Field(description="Note path, permalink or title.")],
        depth: Annotated[int, Field(description="How many link hops to follow.", ge=1, le=3)] = 1,
        timeframe: Annotated[
            str | None, Field(description='Only related notes changed within this, e.g. "7d".')
        ] = None,
        context: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        return await service.notes_call(
            caller, context, service.notes.context_text, target, depth, timeframe
        )

    async def recent_activity(
        timeframe: Annotated[
            str, Field(description='How far back, e.g. "24h", "7d", "1 month".')
        ] = "7d",
        limit: Annotated[int, Field(description="Most changes to list.", ge=1, le=200)] = 20,
        context: Context[Any, Any] | None = None,
    ) -> CallToolResult:
        return await service.notes_call(
            caller, context, service.notes.activity_text, timeframe, limit
        )

    async def move_note(
        old_path: Annotated[str, Field(description="The note or folder to move, /memories/...")],
        new_path: Annotated[str, Field(description="Where it goes, /memories/...")],
        context: Context[Any, Any],
        rewrite_links: Annotated[
            bool,
            Field(description="Point the [[links]] that the move would break at the new name."),
        ] = True,
    ) -> CallToolResult:
        who = caller(context)
        if isinstance(who, CallToolResult):
            return who
        return await service.worker.run(service.move_note, old_path, new_path, rewrite_links, *who)

    notes_tools = [
        _notes_tool(search_memories, "Search memories", SEARCH_DESCRIPTION),
        _notes_tool(build_context, "Build context", BUILD_CONTEXT_DESCRIPTION),
        _notes_tool(recent_activity, "Recent activity", RECENT_ACTIVITY_DESCRIPTION),
        NotesTool.from_function(
            move_note,
            title="Move note",
            description=MOVE_NOTE_DESCRIPTION,
            structured_output=False,
            annotations=ToolAnnotations(destructive_hint=True, open_world_hint=False),
        ),
    ]
    server = MemtuiServer(
        name="memtui",
        title="memtui memory",
        version=installed_version(),
        instructions=load_prompt("memory_protocol"),
        tools=[memory_tool, *notes_tools],
        log_level="WARNING",
    )
    for info in PROMPTS:
        server.prompt(name=info.name, title=info.title, description=info.description)(
            _prompt_function(info.name)
        )
    return server


def _notes_tool(function: Callable[..., Any], title: str, description: str) -> Tool:
    """A read-only notes tool with a plain-text result, named after `function`."""
    return NotesTool.from_function(
        function,
        title=title,
        description=description,
        structured_output=False,
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )


def _no_arguments() -> None:
    """Signature placeholder for the memory tool, whose arguments are passed through raw."""


def _prompt_function(name: str) -> Any:
    """A prompt function returning the text of the packaged prompt `name`."""

    def render() -> str:
        return load_prompt(name)

    render.__name__ = name
    render.__doc__ = f"The {name} prompt."
    return render


def serve_stdio(service: MemoryService) -> None:
    """Serve over stdio until the client disconnects.

    A lone surrogate reads as U+FFFD; a request the transport cannot parse gets an error answer.
    """
    import anyio

    from memtui.agents.stdio_replies import run_stdio

    service.notes.start_loading()
    service.start_sync()
    with surrogate_tolerant_stdin():
        anyio.run(run_stdio, build_server(service))


def serve_http(service: MemoryService, *, port: int, token: str) -> None:
    """Serve streamable HTTP on 127.0.0.1:`port` (path /mcp) to clients holding `token`."""
    import uvicorn

    from memtui.agents.http_auth import BearerAuth

    service.notes.start_loading()
    service.start_sync()
    server = build_server(service)
    app = BearerAuth(server.streamable_http_app(host="127.0.0.1"), token)
    level = server.settings.log_level.lower()
    uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level=level)).run()
