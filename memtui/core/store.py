"""MemoryStore: the facade every caller uses; validation, lock, atomic writes and history in one place."""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memtui.core.actors import human_actor
from memtui.core.atomic import atomic_write, make_dirs
from memtui.core.commands import (
    CommandOutcome,
    ParsedCommand,
    apply_command,
    failure_message,
    is_mutating,
    parse_command,
    precheck,
    well_formed,
)
from memtui.core.config import Settings, default_human_actor, load_settings
from memtui.core.history import (
    KIND_DIR,
    KIND_FILE,
    Event,
    FileRecord,
    History,
    PendingEvent,
    actor_kind,
)
from memtui.core.lock import MutationLock
from memtui.core.paths import PathRefusal, check_path, is_within, real_root, to_virtual
from memtui.core.regular import NotRegularFile, read_regular
from memtui.core.result import CommandResult
from memtui.core.secrets import SecretFinding, find_spans, findings_of, redact, scan
from memtui.core.sizes import format_size
from memtui.core.snapshots import (
    MISSING,
    RestoreError,
    State,
    capture,
    file_rows,
    file_state,
    remove,
    restore,
    same_state,
    stat_now,
)

if TYPE_CHECKING:
    from memtui.core.recovery import RecoveryReport

EXTERNAL_ACTOR = "external"
MAX_RECORDED_DEPTH = 10
"""Nesting levels of an argument kept in the history; deeper values are replaced by a marker."""
SCANNED_FIELDS = {"create": "file_text", "str_replace": "new_str", "insert": "insert_text"}


class Screened(NamedTuple):
    """A call's arguments as recorded (likely secrets of an agent's text redacted) and what was found."""

    args: dict[str, Any]
    findings: list[SecretFinding]


class StoreError(Exception):
    """A human read failed: the path is refused, missing, a folder or not UTF-8 text."""


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
    """A memory directory as commands: every call is validated, locked if it writes, and recorded."""

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

        Without `settings` the user's config is read; a bad one raises ConfigError.
        """
        self.settings = settings if settings is not None else load_settings()
        self.root = Path(root).expanduser().absolute()
        if not self.root.is_dir():
            make_dirs(self.root)
        self.actor = actor if actor is not None else default_human_actor(self.settings)
        self.session = session
        self.clock = clock
        self._shared = _shared if _shared is not None else _Shared(self.root)

    @property
    def history(self) -> History:
        """The audit history shared by every copy of this store; recovered on first use."""
        history = self._shared.history
        self._ensure_recovered()
        return history

    def _ensure_recovered(self) -> None:
        """Run start-up recovery once per process, before this store's first change or query."""
        if not self._shared.recovered:
            self._shared.recovered = True
            from memtui.core.recovery import recover

            self._shared.recovery = recover(self)

    @property
    def recovery(self) -> RecoveryReport | None:
        """What this process's start-up recovery did (running it first if it has not run)."""
        self._ensure_recovered()
        return self._shared.recovery

    @property
    def lock(self) -> MutationLock:
        """The cross-process mutation lock every change (and start-up recovery) holds."""
        return self._shared.lock

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

    # Agent commands.

    def execute(self, tool_input: object) -> CommandResult:
        """Run one raw memory-tool input (any object) and record it."""
        self._ensure_recovered()
        parsed = parse_command(self.root, tool_input)
        if isinstance(parsed, CommandOutcome):
            return self._record_refused(tool_input, parsed)
        screened = self._screen(parsed.command, tool_input)
        if not is_mutating(parsed.command):
            outcome = apply_command(self.root, parsed)
            return self._record_outcome(parsed, screened, outcome)
        refusal = self._secret_refusal(screened.findings)
        if refusal is not None:
            return self._record_outcome(parsed, screened, refusal)
        with self._shared.lock.hold():
            return self._mutate(parsed, screened)

    def view(self, path: str, view_range: list[int] | None = None) -> CommandResult:
        """`view` a file or folder."""
        tool_input: dict[str, Any] = {"command": "view", "path": path}
        if view_range is not None:
            tool_input["view_range"] = view_range
        return self.execute(tool_input)

    def render_view(self, path: str) -> str:
        """What `view` of `path` returns now, without recording an event (for live previews)."""
        parsed = parse_command(self.root, {"command": "view", "path": path})
        if isinstance(parsed, CommandOutcome):
            return parsed.content
        return apply_command(self.root, parsed).content

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

    def _mutate(self, parsed: ParsedCommand, screened: Screened) -> CommandResult:
        """Check, snapshot, apply and record a mutating command; the caller holds the lock.

        A command that will be refused is refused before its before-state is read.
        """
        target = parsed.targets[0]
        refusal = precheck(self.root, parsed)
        if refusal is not None:
            return self._record_outcome(parsed, screened, refusal)
        try:
            before = MISSING if parsed.command == "create" else capture(target)
        except OSError as error:
            outcome = CommandOutcome(self._unreadable_message(parsed, error), True)
            return self._record_outcome(parsed, screened, outcome)
        size_refusal = self._size_refusal(parsed, before)
        if size_refusal is not None:
            return self._record_outcome(parsed, screened, size_refusal)
        outcome = apply_command(self.root, parsed)
        if outcome.is_error:
            return self._record_outcome(parsed, screened, outcome)
        if parsed.command == "rename":
            after = before
        elif parsed.command == "delete":
            after = MISSING
        else:
            after = capture(target)
        return self._record_outcome(parsed, screened, outcome, before=before, after=after)

    def _unreadable_message(self, parsed: ParsedCommand, error: OSError) -> str:
        """`Cannot <verb> <path>: ...` for a before-state that could not be read, in virtual paths."""
        message = failure_message(parsed, error)
        inside = self._virtual_of(error.filename)
        if inside is not None and inside != parsed.virtual[0]:
            message += f" ({inside})"
        return message

    def _virtual_of(self, filename: object) -> str | None:
        """The `/memories/...` path of a real path inside the store, or None."""
        if not isinstance(filename, str | os.PathLike):
            return None
        real = Path(os.path.realpath(filename))
        root = real_root(self.root)
        return to_virtual(real, root) if is_within(real, root) else None

    # Policies: secrets and size.

    def _secret_findings(self, text: object) -> list[SecretFinding]:
        """Likely credentials in an agent's text (nothing is scanned for humans)."""
        if actor_kind(self.actor) != "agent" or not isinstance(text, str):
            return []
        return scan(text)

    def _secret_refusal(self, findings: list[SecretFinding]) -> CommandOutcome | None:
        """The refusal for blocked secrets, or None when secrets only warn."""
        if not findings or self.settings.secrets != "block":
            return None
        labels = ", ".join(finding.label for finding in findings)
        return CommandOutcome(
            f"Refused: the text looks like it contains a secret ({labels}). "
            "Nothing was written; store a reference to where the secret is kept instead.",
            True,
            tuple(f"secret:{finding.kind}" for finding in findings),
        )

    def _size_limit_refusal(self, path: str, size: int) -> CommandOutcome | None:
        """A refusal if a write would leave a file bigger than `max_file_size`."""
        limit = self.settings.max_file_size
        if size <= limit:
            return None
        return CommandOutcome(
            f"Refused: {path} would be {format_size(size)} ({size} bytes), over the maximum "
            f"file size of {format_size(limit)} ({limit} bytes). Nothing was written.",
            True,
        )

    def _size_refusal(self, parsed: ParsedCommand, before: State) -> CommandOutcome | None:
        """Check the size a create, str_replace or insert would produce."""
        args = parsed.args
        current = (
            sum(len(data) for data in before.blobs.values()) if before.kind == KIND_FILE else 0
        )
        if parsed.command == "create":
            added = _encoded_length(args.get("file_text"))
            size = added
        elif parsed.command == "str_replace":
            size = (
                current
                - _encoded_length(args.get("old_str"))
                + _encoded_length(args.get("new_str"))
            )
        elif parsed.command == "insert":
            size = current + _encoded_length(args.get("insert_text")) + 2
        else:
            return None
        return self._size_limit_refusal(parsed.raw_paths[0], size)

    # Recording.

    def _screen(self, command: str, tool_input: object) -> Screened:
        """Scan an agent's text once: the arguments to record (secrets redacted) and the findings."""
        args = _args_of(tool_input)
        field = SCANNED_FIELDS.get(command)
        value = args.get(field) if field is not None else None
        if field is None or not isinstance(value, str) or actor_kind(self.actor) != "agent":
            return Screened(args, [])
        spans = find_spans(value)
        if spans:
            args[field] = redact(value, spans)
        return Screened(args, findings_of(spans))

    def _record(self, content: str, is_error: bool, **event: Any) -> CommandResult:
        """Record an event as this store's actor and session, now; the result carries its id."""
        event_id = self.history.record(
            time=self.clock(),
            actor=self.actor,
            session=self.session,
            result=content,
            is_error=is_error,
            **event,
        )
        return CommandResult(content, is_error, event_id)

    def _record_outcome(
        self,
        parsed: ParsedCommand,
        screened: Screened,
        outcome: CommandOutcome,
        *,
        before: State = MISSING,
        after: State = MISSING,
    ) -> CommandResult:
        """Record a parsed command's outcome; hashes only when it changed something.

        A change also updates file_state in the same transaction: every touched path is
        cleared and what is there now is set (a rename's content sits at its new path).
        """
        changed = not outcome.is_error and is_mutating(parsed.command)
        blobs = {**before.blobs, **after.blobs} if changed else None
        cleared: tuple[str, ...] = parsed.virtual if changed else ()
        files: dict[str, FileRecord] = {}
        if changed and parsed.command == "rename":
            files = file_rows(parsed.virtual[1], before)
        elif changed:
            files = file_rows(parsed.virtual[0], after)
        return self._record(
            outcome.content,
            outcome.is_error,
            command=parsed.command,
            path=parsed.virtual[0],
            new_path=parsed.virtual[1] if len(parsed.virtual) > 1 else None,
            args=screened.args,
            before=before.pair if changed else (None, None),
            after=after.pair if changed else (None, None),
            flags=_flags(outcome, screened.findings),
            blobs=blobs,
            cleared=cleared,
            files=files,
        )

    def _record_refused(self, tool_input: object, outcome: CommandOutcome) -> CommandResult:
        """Record an input that failed validation, with the paths exactly as sent."""
        fields = tool_input if isinstance(tool_input, Mapping) else {}
        command = _clean(fields.get("command")) or "invalid"
        path = _clean(fields.get("old_path" if command == "rename" else "path"))
        new_path = _clean(fields.get("new_path")) if command == "rename" else None
        return self._record(
            outcome.content,
            True,
            command=command,
            path=path,
            new_path=new_path,
            args=self._screen(command, tool_input).args,
            flags=outcome.flags,
        )

    def _record_human(
        self,
        command: str,
        path: str | None,
        args: Mapping[str, Any],
        outcome: CommandOutcome,
        *,
        new_path: str | None = None,
        before: State = MISSING,
        after: State = MISSING,
        reverts: int | None = None,
    ) -> CommandResult:
        """Record a human command (write, revert); hashes only on success.

        On success file_state is updated in the same transaction: `path` and `new_path` are
        cleared and the after-state is set at `new_path` (a moved-back rename) or `path`.
        """
        ok = not outcome.is_error
        touched = tuple(virtual for virtual in (path, new_path) if virtual is not None)
        files = file_rows(new_path or path or "", after) if ok and touched else {}
        return self._record(
            outcome.content,
            outcome.is_error,
            command=command,
            path=path,
            new_path=new_path,
            args=args,
            before=before.pair if ok else (None, None),
            after=after.pair if ok else (None, None),
            flags=outcome.flags,
            blobs={**before.blobs, **after.blobs} if ok else None,
            reverts=reverts if ok else None,
            cleared=touched if ok else (),
            files=files,
        )

    # Human commands.

    def read(self, path: str) -> tuple[str, str]:
        """A file's text and revision; raises StoreError with a one-line message."""
        data, _info = self._read_bytes(path)
        return _decoded(data, path), file_state(data).hash or ""

    def read_head(self, path: str, max_bytes: int) -> tuple[str, int]:
        """The text of a file's first `max_bytes` bytes (a character cut at the end left out)
        and the file's size; a huge or sparse file costs only `max_bytes`. Raises StoreError."""
        data, info = self._read_bytes(path, limit=max_bytes)
        size = max(info.st_size, len(data))
        if len(data) < size:
            data = _without_cut_character(data)
        return _decoded(data, path), size

    def _read_bytes(self, path: str, limit: int | None = None) -> tuple[bytes, os.stat_result]:
        """A file's bytes (at most `limit`) and stat; raises StoreError with a one-line message."""
        checked = check_path(self.root, path)
        if isinstance(checked, PathRefusal):
            raise StoreError(checked.message)
        try:
            return read_regular(checked.real, limit=limit)
        except FileNotFoundError as error:
            raise StoreError(f"The path {path} does not exist") from error
        except NotRegularFile as error:
            if error.kind == "folder":
                raise StoreError(f"The path {path} is a folder, not a file") from error
            raise StoreError(f"The path {path} is a {error.kind}, not a regular file") from error
        except OSError as error:
            raise StoreError(f"Cannot read {path}: {error.strerror or error}") from error

    def revision(self, path: str) -> str | None:
        """The sha256 hex of the file's bytes, or None if there is no file there."""
        checked = check_path(self.root, path)
        if isinstance(checked, PathRefusal):
            return None
        state = capture(checked.real) if not checked.real.is_dir() else MISSING
        return state.hash

    def write(self, path: str, text: str, expected_revision: str | None) -> CommandResult:
        """Replace a whole file if it is still at `expected_revision` (None: must not exist)."""
        self._ensure_recovered()
        args: dict[str, Any] = {"path": path, "expected_revision": expected_revision}
        checked = check_path(self.root, path)
        if isinstance(checked, PathRefusal):
            outcome = CommandOutcome(checked.message, True, checked.flags)
            return self._record_human("write", _clean(path), args, outcome)
        virtual = checked.virtual
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            return self._record_human(
                "write",
                virtual,
                args,
                CommandOutcome(f"The text for {path} is not valid Unicode", True),
            )
        args["size"] = len(data)
        findings = self._secret_findings(text)
        policy_refusal = self._size_limit_refusal(path, len(data)) or self._secret_refusal(findings)
        if policy_refusal is not None:
            return self._record_human("write", virtual, args, policy_refusal)
        with self._shared.lock.hold():
            before = capture(checked.real)
            if before.kind == KIND_DIR:
                outcome = CommandOutcome(f"Cannot write {path}: it is a folder", True)
                return self._record_human("write", virtual, args, outcome)
            conflict = _write_conflict(path, before.hash, expected_revision)
            if conflict is not None:
                return self._record_human("write", virtual, args, CommandOutcome(conflict, True))
            try:
                make_dirs(checked.real.parent)
                atomic_write(checked.real, data)
            except OSError as error:
                reason = error.strerror or str(error)
                outcome = CommandOutcome(f"Cannot write {path}: {reason}", True)
                return self._record_human("write", virtual, args, outcome)
            written = file_state(data)
            written_stat = stat_now(checked.real)
            if written_stat is not None:
                written.stats[""] = written_stat
            secret_flags = tuple(f"secret:{finding.kind}" for finding in findings)
            outcome = CommandOutcome(f"Saved {path}", False, secret_flags)
            return self._record_human("write", virtual, args, outcome, before=before, after=written)

    def revert(self, event_id: int, force: bool = False) -> CommandResult:
        """Undo one event by restoring its before-state; refused on conflict unless forced."""
        self._ensure_recovered()
        args = {"event_id": event_id, "force": force}
        with self._shared.lock.hold():
            event = self.history.event(event_id)
            if event is None:
                outcome = CommandOutcome(f"There is no event {event_id} to revert", True)
                return self._record_human("revert", None, args, outcome)
            if not event.changed:
                outcome = CommandOutcome(
                    f"Nothing to revert: event {event_id} ({event.command}) changed nothing", True
                )
                return self._record_human("revert", event.path, args, outcome)
            if event.new_path is not None:
                return self._revert_move(event, args, force)
            return self._revert_in_place(event, args, force)

    def _resolve(self, virtual: str | None) -> Path | CommandOutcome:
        """The real path of a recorded virtual path, re-validated."""
        checked = check_path(self.root, virtual or "")
        if isinstance(checked, PathRefusal):
            return CommandOutcome(checked.message, True, checked.flags)
        return checked.real

    def _unchanged_since(self, event: Event, current: State) -> bool:
        """True if `current` is still what `event` left (a folder's modes aside)."""
        return same_state(current, event.after_kind, event.after_hash, self.history.blob)

    def _already_reverted(self, event: Event, force: bool) -> CommandOutcome | None:
        """A conflict for an event that was already reverted (unless forced)."""
        if event.reverted_by is None or force:
            return None
        return CommandOutcome(
            f"Conflict: event {event.id} was already reverted by event {event.reverted_by}. "
            "Use force to restore its before-state anyway.",
            True,
        )

    def _revert_in_place(self, event: Event, args: dict[str, Any], force: bool) -> CommandResult:
        """Revert an event that changed one path: put its before-state back."""
        target = self._resolve(event.path)
        if isinstance(target, CommandOutcome):
            return self._record_human("revert", event.path, args, target)
        current = capture(target)
        refusal = self._already_reverted(event, force)
        if refusal is None and not force and not self._unchanged_since(event, current):
            refusal = CommandOutcome(
                f"Conflict: {event.path} changed since event {event.id} ({event.command}); "
                f"it is now {_describe(current)}. "
                "Use force to restore its before-state anyway.",
                True,
            )
        if refusal is not None:
            return self._record_human("revert", event.path, args, refusal)
        try:
            restore(target, event.before_kind, event.before_hash, self.history.blob)
        except (RestoreError, OSError) as error:
            return self._record_human("revert", event.path, args, _restore_failed(event, error))
        after = capture(target)
        outcome = CommandOutcome(f"Reverted event {event.id} ({event.command} {event.path})", False)
        return self._record_human(
            "revert", event.path, args, outcome, before=current, after=after, reverts=event.id
        )

    def _revert_move(self, event: Event, args: dict[str, Any], force: bool) -> CommandResult:
        """Revert a rename: move the destination back to the source path."""
        source = self._resolve(event.path)
        destination = self._resolve(event.new_path)
        for resolved in (source, destination):
            if isinstance(resolved, CommandOutcome):
                return self._record_human("revert", event.new_path, args, resolved)
        assert isinstance(source, Path) and isinstance(destination, Path)
        current = capture(destination)
        refusal = self._already_reverted(event, force)
        if refusal is None and os.path.lexists(source):
            refusal = CommandOutcome(
                f"Conflict: {event.path} exists again, so {event.new_path} cannot move back; "
                "move or delete it first.",
                True,
            )
        if refusal is None and not force and not self._unchanged_since(event, current):
            refusal = CommandOutcome(
                f"Conflict: {event.new_path} changed since event {event.id} (rename); "
                f"it is {_describe(current)}. Use force to restore the original anyway.",
                True,
            )
        if refusal is not None:
            return self._record_human("revert", event.new_path, args, refusal)
        try:
            if self._unchanged_since(event, current):
                make_dirs(source.parent)
                os.rename(destination, source)
            else:
                restore(source, event.before_kind, event.before_hash, self.history.blob)
                remove(destination)
        except (RestoreError, OSError) as error:
            return self._record_human("revert", event.new_path, args, _restore_failed(event, error))
        outcome = CommandOutcome(
            f"Reverted event {event.id} (rename {event.path} to {event.new_path})", False
        )
        after = capture(source)
        return self._record_human(
            "revert",
            event.new_path,
            args,
            outcome,
            new_path=event.path,
            before=current,
            after=after,
            reverts=event.id,
        )

    # Outside changes.

    def record_external(self, relpaths: Iterable[str]) -> list[int]:
        """Record an `external` event for each file that differs from what the history last saw.

        The last-seen state is the file_state row; every event and row update is stored in one
        transaction. Files that cannot be read are left for a later check.
        """
        with self._shared.lock.hold():
            return self.history.record_many(
                event for event in map(self._external_event, relpaths) if event is not None
            )

    def _external_event(self, relpath: str) -> PendingEvent | None:
        """The event for one file that differs from its file_state row, or None."""
        virtual = "/memories/" + relpath.strip("/")
        checked = check_path(self.root, virtual)
        if isinstance(checked, PathRefusal):
            return None
        try:
            current = MISSING if checked.real.is_dir() else capture(checked.real)
        except OSError:
            return None
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
            actor=EXTERNAL_ACTOR,
            session=None,
            command="external",
            path=checked.virtual,
            args={"path": checked.virtual},
            result=result,
            is_error=False,
            before=before.pair,
            after=current.pair,
            blobs={**before.blobs, **current.blobs},
            files={checked.virtual: None, **file_rows(checked.virtual, current)},
        )


def _decoded(data: bytes, path: str) -> str:
    """`data` as UTF-8 text; raises StoreError naming `path` when it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise StoreError(f"The file {path} is not valid UTF-8 text") from error


def _without_cut_character(data: bytes) -> bytes:
    """`data` without a UTF-8 character cut short at its end (a read stopped inside it)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return data
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return data if back >= needed else data[:-back]
    return data


def _at_or_below(virtual: str, base: str) -> bool:
    """True if `virtual` is `base` or inside it."""
    return virtual == base or virtual.startswith(base + "/")


def _encoded_length(value: object) -> int:
    """The UTF-8 length of a string argument (0 for anything else)."""
    if not isinstance(value, str):
        return 0
    return len(value.encode("utf-8", errors="surrogatepass"))


def _flags(outcome: CommandOutcome, findings: list[SecretFinding]) -> tuple[str, ...]:
    """The outcome's security flags plus `secret:<kind>` for a flagged agent write."""
    flags = list(outcome.flags)
    if not outcome.is_error:
        flags += [f"secret:{finding.kind}" for finding in findings]
    return tuple(dict.fromkeys(flags))


def _args_of(tool_input: object) -> dict[str, Any]:
    """The raw input arguments as a dict that encodes as strict JSON."""
    if isinstance(tool_input, Mapping):
        return {str(key): _strict_json(value) for key, value in tool_input.items()}
    try:
        return {"input": repr(tool_input)}
    except RecursionError:
        return {"input": f"<a {type(tool_input).__name__} nested too deeply to record>"}


def _strict_json(value: object, depth: int = 0) -> object:
    """`value` with NaN and infinities spelled as strings (`NaN`, `Infinity`, `-Infinity`).

    Lists and mappings deeper than `MAX_RECORDED_DEPTH` are replaced by a marker string.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, list | tuple | Mapping) and depth >= MAX_RECORDED_DEPTH:
        return "<nested too deeply to record>"
    if isinstance(value, list | tuple):
        return [_strict_json(item, depth + 1) for item in value]
    if isinstance(value, Mapping):
        return {key: _strict_json(item, depth + 1) for key, item in value.items()}
    return value


def _write_conflict(path: str, current: str | None, expected: str | None) -> str | None:
    """The conflict message when the file is not at the expected revision, else None."""
    if current == expected:
        return None
    if expected is None:
        return f"Conflict: {path} already exists (revision {current[:12] if current else ''}); reload it before saving."
    if current is None:
        return f"Conflict: {path} was deleted since revision {expected[:12]} was loaded."
    return (
        f"Conflict: {path} changed since revision {expected[:12]} was loaded "
        f"(now {current[:12]}); reload it or merge before saving."
    )


def _describe(state: State) -> str:
    """`missing`, `a file (abc123...)` or `a folder`, for conflict messages."""
    if state.kind is None:
        return "missing"
    if state.kind == KIND_DIR:
        return "a different folder"
    return f"a file at revision {(state.hash or '')[:12]}"


def _restore_failed(event: Event, error: Exception) -> CommandOutcome:
    """The error for a revert that could not put the old state back."""
    reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
    return CommandOutcome(f"Cannot revert event {event.id}: {reason}", True)


__all__ = ["MemoryStore", "StoreError", "human_actor"]
