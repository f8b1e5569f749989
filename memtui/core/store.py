"""MemoryStore: the facade every caller uses; validation, lock, atomic writes and history in one
place.

A change and its event are one unit (`History.change`): the event is stored first inside a write
transaction, the disk is changed, and the event is committed; a history that cannot be written
refuses before anything changes, and a commit that fails puts the disk back before answering.
So a change is recorded or it did not happen, and an agent's retry never doubles a change.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from memtui.core.actors import EXTERNAL, check_actor
from memtui.core.applying.atomic import make_dirs
from memtui.core.applying.site import Site, open_site
from memtui.core.applying.snapshots import (
    FLAG_NOT_KEPT,
    MISSING,
    State,
    capture,
    file_rows,
    file_state,
    put_whole,
    restore,
)
from memtui.core.config import Settings, default_human_actor, load_settings
from memtui.core.opening.recovery import RecoveryReport, recover
from memtui.core.parsing.command_types import (
    CommandOutcome,
    ParsedCommand,
    failure_message,
    is_mutating,
    well_formed,
)
from memtui.core.parsing.echo import echo
from memtui.core.parsing.paths import FLAG_OUTSIDE, PathRefusal, ResolvedPath, check_path
from memtui.core.policy.loading import load_policy
from memtui.core.policy.rules import NONE, REVIEW, WRITE, Access, ActorPolicy, Policy
from memtui.core.recording.blobs import KIND_DIR, KIND_FILE
from memtui.core.recording.database import RecordFailed, read_only_failure, unrecorded_message
from memtui.core.recording.db_text import storable
from memtui.core.recording.events import PendingEvent, actor_kind
from memtui.core.recording.file_state import FileRecord
from memtui.core.recording.history import History
from memtui.core.recording.keeping import (
    NEW_PATH_FIELDS,
    Scanner,
    args_of,
    keep,
    secret_flags,
)
from memtui.core.recording.kept_pairs import KeptPair
from memtui.core.recording.proposals import Proposals
from memtui.core.resolving.lock import LockBusy, MutationLock
from memtui.core.resolving.regular import Head, NotRegularFile, read_head, read_regular
from memtui.core.result import BUSY, CONFLICT, REFUSED, CommandResult, ResultKind
from memtui.core.secret_forms import unescaped_name
from memtui.core.secrets import SecretFinding

if TYPE_CHECKING:
    from memtui.core.applying.handlers import Plan

_Read = TypeVar("_Read")


class StoreError(Exception):
    """A human read failed: the path is refused, missing, a folder or not UTF-8 text."""


@dataclass(frozen=True)
class LockPolicy:
    """How long this store's changes wait for the lock another process holds, and whom they
    tell that they are waiting. The default waits as long as it takes (agents and the CLI)."""

    timeout: float | None = None
    waiting: Callable[[float], object] | None = None


class _Shared:
    """What every `with_actor` copy of a store shares: the lazily opened history and the lock."""

    def __init__(self, root: Path) -> None:
        """Prepare (without opening) the history and the lock of `root`."""
        self.root = root
        self.lock = MutationLock(root)
        self._history: History | None = None
        self.recovered = False
        self.recovery: RecoveryReport | None = None
        self._guard = threading.Lock()
        self._proposals: Proposals | None = None

    def proposals(self, history: History) -> Proposals:
        """The held changes of `history` (one reader shared by every copy of the store)."""
        if self._proposals is None:
            self._proposals = Proposals(history)
        return self._proposals

    @property
    def history(self) -> History:
        """The history, opened on first use."""
        if self._history is None:
            with self._guard:
                if self._history is None:
                    self._history = History(self.root)
        return self._history


def _clean(value: object) -> str | None:
    """A string safe to store (lone surrogates folded), or None for non-strings."""
    return well_formed(value) if isinstance(value, str) else None


class MemoryStore:
    """A memory directory as commands: every call is validated, locked if it writes, and
    recorded."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        actor: str | None = None,
        session: str | None = None,
        settings: Settings | None = None,
        clock: Callable[[], float] = time.time,
        _shared: _Shared | None = None,
    ) -> None:
        """Open the store at `root` (created if missing); the history opens on first use.

        Without `settings` the user's config is read; a bad one raises ConfigError. An actor
        that is not `agent:NAME`, `human:NAME` or `external`, or that holds control characters
        or bytes that are not UTF-8, raises ActorError before anything is created.
        """
        self.settings = settings if settings is not None else load_settings()
        self.actor = check_actor(actor) if actor is not None else default_human_actor(self.settings)
        self.root = Path(root).expanduser().absolute()
        if not self.root.is_dir():
            make_dirs(self.root)
        self.session = session
        self.clock = clock
        self._shared = _shared if _shared is not None else _Shared(self.root)
        self.lock_policy = LockPolicy()
        """How long changes wait for the lock (set by the app: a time limit and a notice)."""
        self.group_id: int | None = None
        """The operation every event of this store is a part of (see `operation`), or None."""

    @property
    def history(self) -> History:
        """The audit history shared by every copy of this store; recovered on first use."""
        history = self._shared.history
        self.ensure_recovered()
        return history

    def history_before_recovery(self) -> History:
        """The history, opened without running start-up recovery first: only for a command that
        runs `ensure_recovered` itself before it reads the disk or the events (a sync, while git
        lists the changes), or that reads what recovery never changes (a blob by its digest);
        HistoryCorrupt when it cannot be read."""
        history = self._shared.history
        history.seen()
        return history

    def ensure_recovered(self) -> None:
        """Run start-up recovery once per process, before this store's first change or query."""
        if not self._shared.recovered:
            self._shared.recovered = True
            self._shared.recovery = recover(self)

    @property
    def recovery(self) -> RecoveryReport | None:
        """What this process's start-up recovery did (running it first if it has not run)."""
        self.ensure_recovered()
        return self._shared.recovery

    @property
    def lock(self) -> MutationLock:
        """The cross-process mutation lock every change (and start-up recovery) holds."""
        return self._shared.lock

    @property
    def max_size(self) -> int:
        """The largest file memtui reads, writes or keeps a copy of, in bytes."""
        return self.settings.max_file_size

    def with_actor(self, actor: str, session: str | None = None) -> MemoryStore:
        """The same store recording as another actor; shares history, lock, settings and clock."""
        return MemoryStore(
            self.root,
            actor=actor,
            session=session,
            settings=self.settings,
            clock=self.clock,
            _shared=self._shared,
        )

    def keep_both(self, key: str, texts: tuple[str, str]) -> None:
        """Remember that a person keeps both statements of a pair (`key`), as this store's actor
        now, so the pair is not proposed again. Raises RecordFailed when it cannot be kept."""
        self.history.keep_pair(KeptPair(key, self.actor, self.clock(), texts))

    def forget_kept(self, key: str) -> bool:
        """Undo a `keep_both`: the pair may be proposed again; False when it was not kept."""
        return self.history.forget_pair(key)

    def operation(self, kind: str, summary: str) -> MemoryStore:
        """A copy of this store whose every event is a part of one new operation (a group in
        the history: shown as one entry, undone as one by `revert_group`).

        Raises RecordFailed, before anything changes, when the history cannot be written.
        """
        group = self.history.open_group(
            time=self.clock(), actor=self.actor, kind=kind, summary=storable(summary)
        )
        part = self.with_actor(self.actor, self.session)
        part.lock_policy = self.lock_policy
        part.group_id = group
        return part

    def locked(self) -> AbstractContextManager[None]:
        """Hold the store's lock as this store's policy says (re-entrant within a thread);
        raises LockBusy when the policy's time limit passes first."""
        return self._shared.lock.hold(self.lock_policy.timeout, self.lock_policy.waiting)

    def when_locked(
        self,
        what: str,
        recorded: tuple[str, str | None, Mapping[str, Any]],
        run: Callable[[], CommandResult],
    ) -> CommandResult:
        """`run()` with the lock held; when the lock policy's time limit passes first, the
        human command `recorded` (command, path, args) is recorded as not attempted. A store
        that cannot be written refuses it at once (`read_only_result`)."""
        refused = self.read_only_result(what)
        if refused is not None:
            return refused
        try:
            with self.locked():
                return run()
        except LockBusy as busy:
            return self.record_human(*recorded, busy_outcome(what, busy))

    @property
    def read_only(self) -> str | None:
        """Why this store cannot be written (a read-only folder or filesystem, a full disk), or
        None when it can."""
        return self.history.read_only

    def read_only_result(self, what: str) -> CommandResult | None:
        """The one-line refusal of a change to a store that cannot be written, or None."""
        reason = self.read_only
        if reason is None:
            return None
        return CommandResult(
            unrecorded_message(what, read_only_failure(reason)), True, kind=REFUSED
        )

    def close(self) -> None:
        """Close this thread's history connection and the lock file (the store can reopen them)."""
        if self._shared._history is not None:
            self._shared._history.close()
        self._shared.lock.close()

    def open_site(self) -> Site:
        """The store's root open for acting on descriptors (close it after)."""
        return Site.open(self.root, self.max_size)

    @property
    def is_agent(self) -> bool:
        """True when this store records as an agent (whose writes are scanned for secrets)."""
        return actor_kind(self.actor) == "agent"

    def policy(self) -> Policy:
        """The store's access policy as `.memtui/policy.toml` says now."""
        return load_policy(self.root)

    def gate(self) -> ActorPolicy | None:
        """The store's policy as it applies to this store's agent; None for a person or an
        outside process, whom the policy never restricts."""
        if not self.is_agent:
            return None
        return ActorPolicy(load_policy(self.root), self.actor)

    @property
    def proposals(self) -> Proposals:
        """The changes held for a person's approval (see `approve_proposal`)."""
        return self._shared.proposals(self.history)

    # Agent commands.

    def execute(self, tool_input: object) -> CommandResult:
        """Run one raw memory-tool input (any object) and record it."""
        from memtui.core.applying.dispatch import apply_command
        from memtui.core.applying.guard import escaped_answer
        from memtui.core.parsing.tool_input import parse_command

        self.ensure_recovered()
        parsed = parse_command(self.root, tool_input, any_name=not self.is_agent)
        scanner = Scanner()
        if isinstance(parsed, CommandOutcome):
            gate = self.gate()
            if gate is not None and FLAG_OUTSIDE in parsed.flags:
                parsed = escaped_answer(self.root, tool_input, parsed, gate)
            return self._record_refused(tool_input, parsed, scanner)
        args = args_of(tool_input)
        if not is_mutating(parsed.command):
            outcome = apply_command(self.root, parsed, self.max_size, self.gate())
            if self.read_only is not None:
                return CommandResult(outcome.content, outcome.is_error, kind=outcome.kind)
            return self.record_call(parsed, args, outcome, scanner)
        refused = self.read_only_result(f"{_verb(parsed)} {parsed.echoed[0]}")
        if refused is not None:
            return refused
        try:
            with self.locked():
                return self._mutate(parsed, args, scanner)
        except LockBusy as busy:
            outcome = busy_outcome(f"{_verb(parsed)} {parsed.echoed[0]}", busy)
            return self.record_call(parsed, args, outcome, scanner)

    def view(self, path: str, view_range: list[int] | None = None) -> CommandResult:
        """`view` a file or folder."""
        tool_input: dict[str, Any] = {"command": "view", "path": path}
        if view_range is not None:
            tool_input["view_range"] = view_range
        return self.execute(tool_input)

    def render_view(self, path: str) -> str:
        """What `view` of `path` returns now, without recording an event (for live previews)."""
        from memtui.core.applying.dispatch import apply_command
        from memtui.core.parsing.tool_input import parse_command

        parsed = parse_command(self.root, {"command": "view", "path": path})
        if isinstance(parsed, CommandOutcome):
            return parsed.content
        return apply_command(self.root, parsed, self.max_size).content

    def create(self, path: str, file_text: str) -> CommandResult:
        """`create` a new file."""
        return self.execute({"command": "create", "path": path, "file_text": file_text})

    def str_replace(self, path: str, old_str: str, new_str: str = "") -> CommandResult:
        """Replace the one occurrence of `old_str`."""
        return self.execute(
            {"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str}
        )

    def insert(self, path: str, insert_line: int, insert_text: str) -> CommandResult:
        """Insert a line after line `insert_line` (0 = at the top)."""
        return self.execute(
            {
                "command": "insert",
                "path": path,
                "insert_line": insert_line,
                "insert_text": insert_text,
            }
        )

    def delete(self, path: str) -> CommandResult:
        """Delete a file or a whole folder (kept in the history, so undoable)."""
        return self.execute({"command": "delete", "path": path})

    def rename(self, old_path: str, new_path: str) -> CommandResult:
        """Rename or move a file or folder."""
        return self.execute({"command": "rename", "old_path": old_path, "new_path": new_path})

    def _mutate(
        self, parsed: ParsedCommand, args: dict[str, Any], scanner: Scanner
    ) -> CommandResult:
        """Locate, plan, screen, snapshot, then apply and record as one unit (lock held).

        A command that will be refused is refused before its before-state is read.
        """
        from memtui.core.applying.dispatch import plan_command
        from memtui.core.applying.holding import hold

        try:
            site = open_site(self.root, parsed, self.max_size)
        except OSError as problem:
            outcome = CommandOutcome(failure_message(parsed, problem), True)
            return self.record_call(parsed, args, outcome, scanner)
        if isinstance(site, CommandOutcome):
            return self.record_call(parsed, args, site, scanner)
        with site:
            verdict = self._judged(parsed, site)
            if isinstance(verdict, CommandOutcome):
                return self.record_call(parsed, args, verdict, scanner)
            plan = plan_command(parsed, site)
            if isinstance(plan, CommandOutcome):
                return self.record_call(parsed, args, plan, scanner)
            findings = self._findings(parsed, plan, scanner)
            refusal = self._secret_refusal(findings)
            if refusal is not None:
                return self.record_call(parsed, args, refusal, scanner)
            try:
                before = (
                    MISSING
                    if parsed.command == "create"
                    else capture(site.locations[0], self.max_size)
                )
            except OSError as problem:
                outcome = CommandOutcome(self._unreadable_message(parsed, problem), True)
                return self.record_call(parsed, args, outcome, scanner)
            if verdict == REVIEW:
                proposed = None if plan.text is None else plan.text.encode("utf-8")
                flags = secret_flags(_plain(finding) for finding in findings)
                return hold(
                    self, parsed, args, site, before, proposed, flags=flags, scanner=scanner
                )
            return self._change(parsed, args, scanner, site, plan, before, findings)

    def _judged(self, parsed: ParsedCommand, site: Site) -> CommandOutcome | Access:
        """What the store's policy makes of an agent's change (a refusal, the answer for a path
        hidden from it, or `write` / `review`); a person's changes are always `write`."""
        from memtui.core.applying.guard import guard_change

        gate = self.gate()
        if gate is None:
            return WRITE
        try:
            return guard_change(parsed, site, gate)
        except OSError as problem:
            return CommandOutcome(failure_message(parsed, problem), True)

    def _change(
        self,
        parsed: ParsedCommand,
        args: dict[str, Any],
        scanner: Scanner,
        site: Site,
        plan: Plan,
        before: State,
        findings: list[SecretFinding],
    ) -> CommandResult:
        """Apply a planned change and record it as one unit (see `History.change`)."""
        from memtui.core.applying.handlers import run_plan, undo_command

        outcomes: list[CommandOutcome] = []
        when = self.clock()
        prepared = self._command_event(
            parsed, args, plan.success, scanner, before=before, when=when
        )

        def apply() -> PendingEvent:
            outcome = run_plan(parsed, plan)
            outcomes.append(outcome)
            if outcome.is_error:
                return self._command_event(parsed, args, outcome, scanner, when=when)
            if parsed.command == "rename":
                after = before
            elif parsed.command == "delete":
                after = MISSING
            else:
                try:
                    after = capture(site.locations[0], self.max_size)
                except OSError:
                    undo_command(parsed, site, before)
                    raise
            return self._command_event(
                parsed,
                args,
                outcome,
                scanner,
                before=before,
                after=after,
                findings=findings,
                when=when,
            )

        def undo(_event: PendingEvent) -> None:
            undo_command(parsed, site, before)

        try:
            event_id = self.history.change(prepared, apply, undo)
        except RecordFailed as problem:
            return CommandResult(
                unrecorded_message(f"{_verb(parsed)} {parsed.echoed[0]}", problem), True
            )
        outcome = outcomes[-1]
        return CommandResult(outcome.content, outcome.is_error, event_id, outcome.kind)

    def _unreadable_message(self, parsed: ParsedCommand, problem: OSError) -> str:
        """`Cannot <verb> <path>: ...` for a before-state that could not be read, in
        virtual paths."""
        message = failure_message(parsed, problem)
        inside = problem.filename if isinstance(problem.filename, str) else ""
        if inside:
            message += f" ({echo(parsed.virtual[0] + '/' + inside)})"
        return message

    # Policies: secrets.

    def _findings(self, parsed: ParsedCommand, plan: Plan, scanner: Scanner) -> list[SecretFinding]:
        """Likely secrets an agent's change would land: in the new text around it, or a new path."""
        if not self.is_agent:
            return []
        found: list[SecretFinding] = []
        if plan.text is not None:
            found += scanner.in_change(plan.text, plan.span)
        field = NEW_PATH_FIELDS.get(parsed.command)
        if field is not None:
            raw = parsed.args.get(field)
            if isinstance(raw, str):
                found += _path_findings(scanner, raw)
        return list(dict.fromkeys(found))

    def _secret_refusal(self, findings: list[SecretFinding]) -> CommandOutcome | None:
        """The refusal for blocked secrets, or None when secrets only warn."""
        if not findings or self.settings.secrets != "block":
            return None
        labels = ", ".join(dict.fromkeys(finding.label for finding in findings))
        flags = secret_flags(_plain(finding) for finding in findings)
        if all(finding.label.endswith(_IN_PATH) for finding in findings):
            return CommandOutcome(
                f"Refused: the path looks like it contains a secret ({labels}). "
                "Nothing was written; choose a name without it.",
                True,
                flags,
                REFUSED,
            )
        return CommandOutcome(
            f"Refused: the text looks like it contains a secret ({labels}). "
            "Nothing was written; store a reference to where the secret is kept instead.",
            True,
            flags,
            REFUSED,
        )

    # Recording.

    def _command_event(
        self,
        parsed: ParsedCommand,
        args: Mapping[str, Any],
        outcome: CommandOutcome,
        scanner: Scanner,
        *,
        before: State = MISSING,
        after: State = MISSING,
        findings: list[SecretFinding] | None = None,
        when: float | None = None,
    ) -> PendingEvent:
        """The event of a parsed command; hashes and file_state only when it changed something.

        A change clears every touched path's file_state rows and sets what is there now (a
        rename's content sits at its new path).
        """
        changed = not outcome.is_error and is_mutating(parsed.command)
        files: dict[str, FileRecord | None] = {}
        if changed and parsed.command == "rename":
            files = dict(file_rows(parsed.virtual[1], before))
        elif changed:
            files = dict(file_rows(parsed.virtual[0], after))
        flags = list(outcome.flags)
        if changed:
            flags += secret_flags(_plain(finding) for finding in findings or ())
            if before.unkept or after.unkept:
                flags.append(FLAG_NOT_KEPT)
        return self.pending_event(
            parsed.command,
            outcome,
            scanner,
            args=args,
            path=parsed.virtual[0],
            new_path=parsed.virtual[1] if len(parsed.virtual) > 1 else None,
            changed=changed,
            before=before,
            after=after,
            flags=tuple(dict.fromkeys(flags)),
            cleared=parsed.virtual if changed else (),
            files=files,
            when=when,
        )

    def pending_event(
        self,
        command: str,
        outcome: CommandOutcome,
        scanner: Scanner,
        *,
        args: Mapping[str, Any],
        path: str | None,
        new_path: str | None = None,
        changed: bool = False,
        before: State = MISSING,
        after: State = MISSING,
        flags: tuple[str, ...] = (),
        reverts: int | None = None,
        cleared: Iterable[str] = (),
        files: Mapping[str, FileRecord | None] | None = None,
        when: float | None = None,
        reviews: Iterable[int] = (),
    ) -> PendingEvent:
        """One event as the history keeps it (redacted, capped when it changed nothing; a long
        text a create wrote kept as a reference to the file it left).

        `when` is the call's time (the store's clock now if not given).
        """
        written = None
        if changed and command == "create" and after.hash is not None and after.hash in after.blobs:
            written = (after.hash, after.blobs[after.hash])
        kept = keep(
            args,
            outcome,
            path,
            new_path,
            scanner=scanner,
            agent=self.is_agent,
            changed=changed,
            written=written,
        )
        return PendingEvent(
            time=self.clock() if when is None else when,
            actor=self.actor,
            session=self.session,
            command=command,
            path=kept.path,
            new_path=kept.new_path,
            args=kept.args,
            result=kept.result,
            is_error=outcome.is_error,
            before=before.pair if changed else (None, None),
            after=after.pair if changed else (None, None),
            flags=flags,
            blobs={**before.blobs, **after.blobs} if changed else kept.blobs,
            reverts=reverts if changed else None,
            cleared=cleared,
            files=files,
            group_id=self.group_id,
            reviews=tuple(reviews) if changed else (),
        )

    def _store_event(
        self, event: PendingEvent, what: str, kind: ResultKind | None = None
    ) -> CommandResult:
        """Store an event that changed nothing (of `kind`); a history that cannot be written is
        said so."""
        try:
            event_id = self.history.record_many([event])[0]
        except RecordFailed as problem:
            if event.is_error:
                note = f" (memtui could not record this in its history: {problem.reason})"
                return CommandResult(event.result + note, True, None, kind)
            return CommandResult(
                f"Cannot {what}: memtui could not record the call in its history "
                f"({problem.reason})",
                True,
            )
        return CommandResult(event.result, event.is_error, event_id, kind)

    def record_call(
        self,
        parsed: ParsedCommand,
        args: Mapping[str, Any],
        outcome: CommandOutcome,
        scanner: Scanner,
    ) -> CommandResult:
        """Record a parsed command that changed nothing (a view, a refusal, a failure)."""
        event = self._command_event(parsed, args, outcome, scanner)
        result = self._store_event(event, f"{_verb(parsed)} {parsed.echoed[0]}", outcome.kind)
        if result.event_id is not None:
            return CommandResult(outcome.content, outcome.is_error, result.event_id, outcome.kind)
        return result

    def _record_refused(
        self, tool_input: object, outcome: CommandOutcome, scanner: Scanner
    ) -> CommandResult:
        """Record an input that failed validation, with the paths exactly as sent (capped)."""
        fields = tool_input if isinstance(tool_input, Mapping) else {}
        command = _clean(fields.get("command")) or "invalid"
        path = _clean(fields.get("old_path" if command == "rename" else "path"))
        new_path = _clean(fields.get("new_path")) if command == "rename" else None
        event = self.pending_event(
            command,
            outcome,
            scanner,
            args=args_of(tool_input),
            path=path,
            new_path=new_path,
            flags=outcome.flags,
        )
        result = self._store_event(event, "run the command", outcome.kind)
        if result.event_id is not None:
            return CommandResult(outcome.content, True, result.event_id, outcome.kind)
        return result

    def record_human(
        self,
        command: str,
        path: str | None,
        args: Mapping[str, Any],
        outcome: CommandOutcome,
    ) -> CommandResult:
        """Record a human command (write, revert) that changed nothing."""
        event = self.pending_event(
            command, outcome, Scanner(), args=args, path=path, flags=outcome.flags
        )
        result = self._store_event(event, f"{command} {echo(path or '')}".strip(), outcome.kind)
        if result.event_id is not None:
            return CommandResult(outcome.content, outcome.is_error, result.event_id, outcome.kind)
        return result

    def human_change(
        self,
        command: str,
        path: str,
        args: Mapping[str, Any],
        apply: Callable[[], tuple[CommandOutcome, State]],
        undo: Callable[[], None],
        *,
        before: State,
        what: str,
        new_path: str | None = None,
        reverts: int | None = None,
        reviews: Iterable[int] = (),
    ) -> CommandResult:
        """Apply and record a human change (write, revert) as one unit.

        `what` names the change in a refusal: `Cannot <what>: ...`; `reviews` are the events the
        change, once made, marks reviewed by this store's actor in the same transaction.

        `apply()` changes the disk and returns the outcome and the state left at `new_path` (a
        moved-back rename) or `path`; `undo()` puts back `before` if the event cannot be stored.
        """
        touched = tuple(virtual for virtual in (path, new_path) if virtual is not None)
        event = partial(
            self.pending_event, command, scanner=Scanner(), args=args, path=path, when=self.clock()
        )
        change = partial(event, new_path=new_path, changed=True, before=before, cleared=touched)
        prepared = change(CommandOutcome("", False))
        outcomes: list[CommandOutcome] = []

        def applied() -> PendingEvent:
            outcome, after = apply()
            outcomes.append(outcome)
            if outcome.is_error:
                return event(outcome, flags=outcome.flags)
            flags = (*outcome.flags, *((FLAG_NOT_KEPT,) if before.unkept or after.unkept else ()))
            return change(
                outcome,
                after=after,
                flags=flags,
                reverts=reverts,
                files=file_rows(new_path or path, after),
                reviews=reviews,
            )

        try:
            event_id = self.history.change(prepared, applied, lambda _event: undo())
        except RecordFailed as problem:
            return CommandResult(unrecorded_message(what, problem), True)
        outcome = outcomes[-1]
        return CommandResult(outcome.content, outcome.is_error, event_id, outcome.kind)

    # Human commands.

    def read(self, path: str) -> tuple[str, str]:
        """A file's text and revision; raises StoreError with a one-line message.

        The whole file is read, whatever its size (`read_head` reads only the start).
        """
        data, shown = self._read_file(
            path, lambda name, parent: read_regular(name, dir_fd=parent)[0]
        )
        return _decoded(data, shown), file_state(data).hash or ""

    def read_head(self, path: str, max_bytes: int) -> Head:
        """The head of a file: its first `max_bytes` bytes (a character cut at the end left out),
        which must be UTF-8 text, and the file's size; a huge or sparse file costs only
        `max_bytes`. Raises StoreError with a one-line message."""
        head, shown = self._read_file(
            path, lambda name, parent: read_head(name, dir_fd=parent, limit=max_bytes)
        )
        _decoded(head.data, shown)
        return head

    def _read_file(self, path: str, read: Callable[[str, int], _Read]) -> tuple[_Read, str]:
        """What `read(name, parent folder descriptor)` gives for the regular file at `path`, and
        the path as shown in messages; raises StoreError with a one-line message."""
        checked = check_path(self.root, path, any_name=True)
        if isinstance(checked, PathRefusal):
            raise StoreError(checked.message)
        shown = echo(path)
        with self.open_site() as site:
            location = site.place(checked.parts, shown)
            if isinstance(location, CommandOutcome):
                raise StoreError(location.content)
            refused = self._unseen(path, checked)
            if refused is not None:
                raise StoreError(refused.content or f"The path {shown} does not exist")
            parent = location.parent_fd()
            if parent is None:
                raise StoreError(f"The path {shown} does not exist")
            try:
                return read(location.name, parent), shown
            except FileNotFoundError as problem:
                raise StoreError(f"The path {shown} does not exist") from problem
            except NotRegularFile as problem:
                if problem.kind == "folder":
                    raise StoreError(f"The path {shown} is a folder, not a file") from problem
                raise StoreError(
                    f"The path {shown} is a {problem.kind}, not a regular file"
                ) from problem
            except OSError as problem:
                raise StoreError(f"Cannot read {shown}: {problem.strerror or problem}") from problem

    def revision(self, path: str) -> str | None:
        """The sha256 hex of the file's bytes, or None if there is no file there."""
        checked = check_path(self.root, path, any_name=True)
        if isinstance(checked, PathRefusal):
            return None
        if self._unseen(path, checked) is not None:
            return None
        with self.open_site() as site:
            location = site.place(checked.parts, path)
            if isinstance(location, CommandOutcome) or not _is_file(location.lstat()):
                return None
            return capture(location, 0).hash

    def _unseen(self, path: str, checked: ResolvedPath) -> CommandOutcome | None:
        """For an agent's read of `path`: the refusal while the policy cannot be used, an
        empty outcome when the policy hides the path (answered as missing), else None."""
        from memtui.core.applying.guard import broken, path_access

        gate = self.gate()
        if gate is None:
            return None
        if gate.problem is not None:
            return broken(gate)
        if path_access(gate, path, checked.parts) == NONE:
            return CommandOutcome("", True)
        return None

    def write(
        self, path: str, text: str, expected_revision: str | None, *, seen: bool = False
    ) -> CommandResult:
        """Replace a whole file if it is still at `expected_revision` (None: must not exist).

        `seen`: a person had the file as it is now in front of them and saved over it (an
        editor's save), so the save marks its waiting changes reviewed; a change made for them
        (a link rewrite, a template) marks nothing.
        """
        self.ensure_recovered()
        args: dict[str, Any] = {"path": path, "expected_revision": expected_revision}
        checked = check_path(self.root, path, any_name=True)
        if isinstance(checked, PathRefusal):
            outcome = CommandOutcome(checked.message, True, checked.flags, REFUSED)
            return self.record_human("write", _clean(path), args, outcome)
        virtual, shown = checked.virtual, echo(path)
        allowed = self._writable(path, expected_revision is None, text, args)
        if isinstance(allowed, CommandOutcome):
            return self.record_human("write", virtual, args, allowed)
        data, flags = allowed
        return self.when_locked(
            f"write {shown}",
            ("write", virtual, args),
            lambda: self._write_locked(checked, path, data, flags, expected_revision, args, seen),
        )

    def _write_locked(
        self,
        checked: ResolvedPath,
        path: str,
        data: bytes,
        flags: tuple[str, ...],
        expected_revision: str | None,
        args: dict[str, Any],
        seen: bool,
    ) -> CommandResult:
        """`write` once the lock is held: check the revision, then replace and record as one
        (an agent's held for review where the store's policy says so)."""
        from memtui.core.applying.holding import hold

        virtual, shown = checked.virtual, echo(path)
        with self.open_site() as site:
            location = site.place(checked.parts, shown)
            if isinstance(location, CommandOutcome):
                return self.record_human("write", virtual, args, location)
            as_command = ParsedCommand("write", args, (path,), (checked.parts,), (virtual,))
            verdict = self._judged(as_command, site)
            if isinstance(verdict, CommandOutcome):
                return self.record_human("write", virtual, args, verdict)
            before = capture(location, self.max_size)
            if before.kind == KIND_DIR:
                outcome = CommandOutcome(f"Cannot write {shown}: it is a folder", True)
                return self.record_human("write", virtual, args, outcome)
            conflict = _write_conflict(shown, before.hash, expected_revision)
            if conflict is not None:
                outcome = CommandOutcome(conflict, True, kind=CONFLICT)
                return self.record_human("write", virtual, args, outcome)
            if verdict == REVIEW:
                return hold(self, as_command, args, site, before, data, flags=flags)

            def apply() -> tuple[CommandOutcome, State]:
                try:
                    written = put_whole(site.temps, location, data)
                except OSError as problem:
                    reason = problem.strerror or str(problem)
                    return CommandOutcome(f"Cannot write {shown}: {reason}", True), MISSING
                return CommandOutcome(f"Saved {shown}", False, flags), written

            def undo() -> None:
                restore(location, before.kind, before.hash, before.blobs.get, site.temps)

            return self.human_change(
                "write",
                virtual,
                args,
                apply,
                undo,
                before=before,
                what=f"write {shown}",
                reviews=self._saved_over(virtual) if seen else (),
            )

    def _saved_over(self, virtual: str) -> list[int]:
        """The changes a person's save of `virtual` marks reviewed: every agent or outside change
        of the note (across its renames) still waiting, since the saved text was written over
        all of them (a save is refused unless the editor had loaded the newest one)."""
        from memtui.core.recording import inbox
        from memtui.core.recording.event_query import EventQuery

        if actor_kind(self.actor) != "human":
            return []
        waiting = self.history.events(inbox.waiting(EventQuery(path=virtual)))
        return [event.id for event in waiting]

    def _writable(
        self, path: str, new: bool, text: str, args: dict[str, Any]
    ) -> tuple[bytes, tuple[str, ...]] | CommandOutcome:
        """The bytes a whole-file write would leave and its secret flags, or why it is refused.

        Refused: text that is not valid Unicode, over the size limit, or (an agent's, in block
        mode) holding a likely secret, in the text or in the path a `new` file would bring into
        being. `args` gets the size.
        """
        from memtui.core.applying.handlers import size_refusal

        shown = echo(path)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return CommandOutcome(f"The text for {shown} is not valid Unicode", True)
        args["size"] = len(data)
        findings: list[SecretFinding] = []
        if self.is_agent:
            scanner = Scanner()
            findings = scanner.in_change(text, (0, len(text)))
            if new:
                findings = list(dict.fromkeys(findings + _path_findings(scanner, path)))
        refusal = size_refusal(shown, len(data), self.max_size) or self._secret_refusal(findings)
        if refusal is not None:
            return refusal
        return data, secret_flags(findings)

    def revert(self, event_id: int, force: bool = False) -> CommandResult:
        """Undo one event by restoring its before-state; refused on conflict unless forced."""
        from memtui.core.applying.reverting import revert

        self.ensure_recovered()
        return revert(self, event_id, force)

    def approve_proposal(
        self,
        proposal_id: int,
        text: str | None = None,
        revision: str | None = None,
        force: bool = False,
    ) -> CommandResult:
        """Apply a change the policy held, as its agent's change approved by this person.

        Without `text`, a text change applies only onto the file as the agent saw it (a
        conflict otherwise); `text` is a merge of it with the file at `revision`. A delete or
        rename applies only while its source is unchanged, unless `force`.
        """
        from memtui.core.applying.approving import approve

        self.ensure_recovered()
        return approve(self, proposal_id, text, revision, force)

    def reject_proposal(self, proposal_id: int) -> CommandResult:
        """Decide against a held change: nothing is applied, the decision is recorded."""
        from memtui.core.applying.approving import reject

        self.ensure_recovered()
        return reject(self, proposal_id)

    def revert_group(self, group_id: int, force: bool = False) -> CommandResult:
        """Undo every change of one operation, newest first, as a new operation; refused (nothing
        undone) when a part changed since, unless forced."""
        from memtui.core.applying.group_reverting import revert_group

        self.ensure_recovered()
        return revert_group(self, group_id, force)

    # Outside changes.

    def record_external(self, relpaths: Iterable[str]) -> list[int]:
        """Record an `external` event for each file that differs from what the history last saw.

        The last-seen state is the file_state row; every event and row update is stored in one
        transaction. Files that cannot be read are left for a later check, and so is everything
        while the lock stays held longer than this store's policy waits. Raises RecordFailed
        when the history cannot be written; records nothing in a store that cannot be written.
        """
        if self.read_only is not None:
            return []
        try:
            with self._shared.lock.hold(self.lock_policy.timeout):
                return self._record_external(relpaths)
        except LockBusy:
            return []

    def _record_external(self, relpaths: Iterable[str]) -> list[int]:
        """`record_external` once the lock is held."""
        with self.open_site() as site:
            events = (self._external_event(site, relpath) for relpath in relpaths)
            return self.history.record_many(event for event in events if event is not None)

    def _external_event(self, site: Site, relpath: str) -> PendingEvent | None:
        """The event for one file that differs from its file_state row, or None."""
        checked = check_path(self.root, "/memories/" + relpath.strip("/"), any_name=True)
        if isinstance(checked, PathRefusal):
            return None
        try:
            location = site.place(checked.parts, checked.virtual)
        except OSError:
            return None
        if isinstance(location, CommandOutcome):
            return None
        try:
            info = location.lstat()
            if info is not None and stat.S_ISDIR(info.st_mode):
                return None
            current = capture(location, self.max_size)
        except OSError:
            return None
        finally:
            site.release(location)
        if current.kind == KIND_DIR:
            return None
        known = self.history.file_record(checked.virtual)
        known_pair = (None, None) if known is None else (KIND_FILE, known.sha256)
        if known_pair == current.pair:
            return None
        before = MISSING
        if known is not None:
            data = self.history.blob(known.sha256)
            before = State(
                KIND_FILE, known.sha256, {known.sha256: data} if data is not None else {}
            )
        if current.kind is None:
            result = f"{checked.virtual} was deleted outside memtui"
        elif before.kind is None:
            result = f"{checked.virtual} was created outside memtui"
        else:
            result = f"{checked.virtual} was changed outside memtui"
        return PendingEvent(
            time=self.clock(),
            actor=EXTERNAL,
            session=None,
            command="external",
            path=checked.virtual,
            args={"path": checked.virtual},
            result=result,
            is_error=False,
            before=before.pair,
            after=current.pair,
            flags=(FLAG_NOT_KEPT,) if current.unkept else (),
            blobs={**before.blobs, **current.blobs},
            files={checked.virtual: None, **file_rows(checked.virtual, current)},
        )


def _decoded(data: bytes, shown: str) -> str:
    """`data` as UTF-8 text; raises StoreError naming the path `shown` when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise StoreError(f"The file {shown} is not valid UTF-8 text") from problem


_IN_PATH = " in the path"


def _in_path(finding: SecretFinding) -> SecretFinding:
    """A finding marked as found in a path (for the refusal's wording)."""
    return SecretFinding(finding.kind, finding.label + _IN_PATH)


def _path_findings(scanner: Scanner, path: str) -> list[SecretFinding]:
    """The likely secrets in a path a change brings into being (its byte escapes decoded too),
    marked as found in a path."""
    found = scanner.in_change(path, (0, len(path)))
    decoded = unescaped_name(path)
    if decoded is not None:
        found += [f for f in scanner.in_change(decoded, (0, len(decoded))) if f not in found]
    return [_in_path(finding) for finding in found]


def _plain(finding: SecretFinding) -> SecretFinding:
    """A finding without the path mark."""
    return SecretFinding(finding.kind, finding.label.removesuffix(_IN_PATH))


def _verb(parsed: ParsedCommand) -> str:
    """The verb of a command for `Cannot <verb> <path>` messages."""
    return {"str_replace": "edit", "insert": "edit"}.get(parsed.command, parsed.command)


def _is_file(info: os.stat_result | None) -> bool:
    """True for the stat of a regular file."""
    return info is not None and stat.S_ISREG(info.st_mode)


def _write_conflict(path: str, current: str | None, expected: str | None) -> str | None:
    """The conflict message when the file is not at the expected revision, else None."""
    if current == expected:
        return None
    if expected is None:
        revision = current[:12] if current else ""
        return f"Conflict: {path} already exists (revision {revision}); reload it before saving."
    if current is None:
        return f"Conflict: {path} was deleted since revision {expected[:12]} was loaded."
    return (
        f"Conflict: {path} changed since revision {expected[:12]} was loaded "
        f"(now {current[:12]}); reload it or merge before saving."
    )


def busy_outcome(what: str, busy: LockBusy) -> CommandOutcome:
    """The answer for a change not attempted because the lock stayed held too long."""
    return CommandOutcome(
        f"Cannot {what}: another process (an agent or another memtui) has held the store's "
        f"lock for {busy.waited:.0f} s; nothing changed, try again in a moment",
        True,
        kind=BUSY,
    )


__all__ = ["MemoryStore", "StoreError"]
