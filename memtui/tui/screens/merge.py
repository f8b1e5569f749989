"""When a note changed while it was edited: the merged result to confirm, or the overlapping
changes side by side, each resolved by taking a side or writing it anew."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from memtui.core.display import visible, visible_text
from memtui.notes.merge import Conflict, Side
from memtui.notes.operations.saving import Changed, who_changed
from memtui.tui.modal import MemtuiModal
from memtui.tui.widgets.history_events import format_time, unified_diff
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.widgets.safe_text_area import SafeTextArea
from memtui.tui.wording import count

Action = Literal["save", "mine", "theirs", "edit"]
Answer = TypeVar("Answer")
EMPTY_SIDE = "(nothing: these lines were removed)"


@dataclass(frozen=True)
class Resolution:
    """What the person chose: save `text` (the resolved merge), keep mine over theirs, take
    theirs, or go back to editing."""

    action: Action
    text: str | None = None


def changed_by(changed: Changed) -> str:
    """`Changed by agent:claude (str_replace, 2026-11-20 10:03)` from the history."""
    return who_changed(changed.changes, format_time).capitalize()


def when_label(changed: Changed) -> str:
    """Who changed the note, with the times in UTC."""
    return visible(f"{changed_by(changed)} UTC.")


class ChangedWhileEditing(MemtuiModal[Answer]):
    """A dialog about a note that changed while it was edited: its title, and who changed it."""

    def __init__(self, relpath: str, changed: Changed) -> None:
        """Describe `changed`, the note at `relpath`."""
        super().__init__()
        self.relpath = relpath
        self.changed = changed

    def title_label(self) -> Label:
        """`<note> changed while you were editing it`."""
        return Label(
            f"{visible(self.relpath)} changed while you were editing it",
            markup=False,
            classes="dialog-title",
        )


class MergedScreen(ChangedWhileEditing[bool]):
    """Both changes combine: show the merged note as a diff from what was loaded, and ask to
    save it (True) or go back to editing (False)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "keep_editing", "Keep editing", id="merged.edit"),
        Binding("ctrl+s", "save", "Save merged", id="merged.save"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("merge: save merged", "save", "Save both changes, combined"),
        ("merge: keep editing", "keep_editing", "Back to the editor, nothing saved"),
    ]

    def __init__(self, relpath: str, changed: Changed) -> None:
        """Describe the merge of `changed`, which must be clean."""
        super().__init__(relpath, changed)
        self.merged = changed.merge.text() if changed.merge is not None else changed.mine

    def compose(self) -> ComposeResult:
        """Title, who changed it, the merged diff and two buttons."""
        with Vertical(classes="dialog merge-dialog"):
            yield self.title_label()
            yield Static(
                f"{when_label(self.changed)} Your changes and theirs touch different lines, so "
                "both are kept; this is what saving writes, compared with what you loaded:",
                markup=False,
                id="merged-who",
                classes="dialog-note",
            )
            with VerticalScroll(id="merged-diff-scroll"):
                yield Static(
                    unified_diff(
                        self.changed.base, self.merged, "as you loaded it", "merged (saved)"
                    ),
                    id="merged-diff",
                )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="edit")
                yield Button("Save merged", id="save", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus the save button."""
        self.query_one("#save", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Save or go back."""
        self.dismiss(event.button.id == "save")

    def action_save(self) -> None:
        """Save the merged note."""
        self.dismiss(True)

    def action_keep_editing(self) -> None:
        """Back to the editor, nothing saved."""
        self.dismiss(False)


class HunkEditScreen(MemtuiModal[str | None]):
    """Write an overlapping change anew: starts with my lines then theirs; ctrl+s keeps it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "done", "Use this", id="hunk.done", priority=True),
        Binding("escape", "cancel", "Cancel", id="hunk.cancel", priority=True),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("change: use this", "done", "Resolve the change with what is written"),
        ("change: cancel", "cancel", "Leave the change unresolved"),
    ]

    def __init__(self, conflict: Conflict) -> None:
        """Edit the lines of `conflict`."""
        super().__init__()
        self.conflict = conflict

    def compose(self) -> ComposeResult:
        """A title, an editor with both sides and the buttons."""
        with Vertical(classes="dialog hunk-dialog"):
            yield Label(
                f"Line {self.conflict.line}: write what it should say", classes="dialog-title"
            )
            yield SafeTextArea.code_editor(
                self.conflict.side("both"), language="markdown", soft_wrap=True, id="hunk-text"
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Use this", id="done", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Start typing in the text."""
        self.query_one("#hunk-text", SafeTextArea).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Keep the text or cancel."""
        if event.button.id == "done":
            self.action_done()
        else:
            self.dismiss(None)

    def action_done(self) -> None:
        """Keep the written lines (a final line break added if missing)."""
        text = self.query_one("#hunk-text", SafeTextArea).text
        self.dismiss(text if not text or text.endswith("\n") else text + "\n")

    def action_cancel(self) -> None:
        """Leave the change unresolved as it was."""
        self.dismiss(None)


class DeletedScreen(ChangedWhileEditing[Resolution]):
    """The note was deleted while it was edited: save mine (create it again with my text),
    leave it deleted, or keep editing."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "choose('mine')", "Save mine (create it again)", id="deleted.save"),
        Binding("ctrl+t", "choose('theirs')", "Leave it deleted", id="deleted.theirs"),
        Binding("escape", "choose('edit')", "Keep editing", id="deleted.edit"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("deleted: save mine", "choose('mine')", "Create the note again with your text"),
        ("deleted: leave it deleted", "choose('theirs')", "Drop your text, the note stays gone"),
        ("deleted: keep editing", "choose('edit')", "Back to the editor, nothing saved"),
    ]

    def compose(self) -> ComposeResult:
        """Title, who deleted it, and the choices."""
        with Vertical(classes="dialog"):
            yield self.title_label()
            yield Static(
                f"{when_label(self.changed)} It was deleted. Save mine to create it again with "
                "your text, or leave it deleted.",
                markup=False,
                id="deleted-who",
                classes="dialog-note",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="edit")
                yield Button("Leave it deleted", id="theirs")
                yield Button("Save mine", id="mine", variant="primary")
        yield KeyFooter()

    def on_mount(self) -> None:
        """Focus keeping the text: saving it."""
        self.query_one("#mine", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A choice for the note."""
        self.action_choose(event.button.id)  # type: ignore[arg-type]

    def action_choose(self, action: Action) -> None:
        """Save mine, leave it deleted, or keep editing."""
        self.dismiss(Resolution(action))


class ConflictScreen(ChangedWhileEditing[Resolution]):
    """Changes overlap: each overlapping change side by side (mine | theirs), resolved by taking
    a side, both, or writing it anew; then save the merge. Keep mine, take theirs or keep
    editing decide for the whole note."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save merged", id="conflict.save"),
        Binding("ctrl+k", "choose('mine')", "Keep mine", id="conflict.mine"),
        Binding("ctrl+t", "choose('theirs')", "Take theirs", id="conflict.theirs"),
        Binding("escape", "choose('edit')", "Keep editing", id="conflict.edit"),
    ]
    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        ("conflict: save merged", "save", "Save the merge once every change is resolved"),
        ("conflict: keep mine", "choose('mine')", "Save my version over theirs"),
        ("conflict: take theirs", "choose('theirs')", "Keep the version on disk"),
        ("conflict: keep editing", "choose('edit')", "Back to the editor, nothing saved"),
    ]

    def __init__(self, relpath: str, changed: Changed) -> None:
        """Show the overlapping changes of `changed`."""
        super().__init__(relpath, changed)
        self.conflicts = changed.merge.conflicts if changed.merge is not None else []
        self.resolutions: list[str | None] = [None] * len(self.conflicts)
        self.chosen: list[str] = [""] * len(self.conflicts)

    @property
    def theirs(self) -> str | None:
        """The note's text on disk now."""
        return self.changed.theirs

    def compose(self) -> ComposeResult:
        """Title, who changed it, each overlapping change, and the choices."""
        with Vertical(classes="dialog merge-dialog"):
            yield self.title_label()
            yield Static(self.summary(), markup=False, id="conflict-who", classes="dialog-note")
            with VerticalScroll(id="conflict-hunks"):
                for number, conflict in enumerate(self.conflicts):
                    yield from self.hunk(number, conflict)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep editing", id="edit")
                yield Button("Take theirs", id="theirs")
                yield Button("Keep mine", id="mine")
                yield Button("Save merged", id="save", variant="primary", disabled=True)
        yield KeyFooter()

    def on_mount(self) -> None:
        """Start on the first overlapping change, so m, t, b and e choose for it."""
        self.query_one("#pick-mine-0" if self.conflicts else "#edit", Button).focus()

    def summary(self) -> str:
        """Who changed the note, and what is left to decide."""
        overlapping = count(len(self.conflicts), "change")
        verb = "overlaps" if len(self.conflicts) == 1 else "overlap"
        return (
            f"{when_label(self.changed)} {overlapping} {verb} yours; the rest combines on its "
            "own. Choose for each: yours (m), theirs (t), both (b) or write it (e)."
        )

    def hunk(self, number: int, conflict: Conflict) -> ComposeResult:
        """One overlapping change: its state, both sides, and its choices."""
        with Vertical(classes="merge-hunk", id=f"hunk-{number}"):
            yield Static(self.hunk_title(number), markup=False, classes="hunk-title")
            with Horizontal(classes="hunk-sides"):
                with Vertical(classes="hunk-side"):
                    yield Label("Yours", classes="conflict-label")
                    yield Static(_lines(conflict.mine), markup=False, classes="hunk-mine")
                with Vertical(classes="hunk-side"):
                    yield Label("Theirs (saved meanwhile)", classes="conflict-label")
                    yield Static(_lines(conflict.theirs), markup=False, classes="hunk-theirs")
            with Horizontal(classes="hunk-buttons"):
                yield Button("Yours", id=f"pick-mine-{number}", compact=True)
                yield Button("Theirs", id=f"pick-theirs-{number}", compact=True)
                yield Button("Both", id=f"pick-both-{number}", compact=True)
                yield Button("Write…", id=f"pick-edit-{number}", compact=True)

    def hunk_title(self, number: int) -> str:
        """`Line 20 · choose` or `Line 20 · theirs ✓`."""
        chosen = self.chosen[number]
        state = f"{chosen} ✓" if self.resolutions[number] is not None else "choose"
        return f"Line {self.conflicts[number].line} · {state}"

    @property
    def unresolved(self) -> int:
        """How many overlapping changes still need a choice."""
        return sum(1 for text in self.resolutions if text is None)

    def resolve(self, number: int, text: str, chosen: str) -> None:
        """Record the resolution of change `number` and show it."""
        self.resolutions[number] = text
        self.chosen[number] = chosen
        hunk = self.query_one(f"#hunk-{number}", Vertical)
        hunk.query_one(".hunk-title", Static).update(self.hunk_title(number))
        hunk.add_class("-resolved")
        self.query_one("#save", Button).disabled = self.unresolved > 0
        following = number + 1
        if following < len(self.conflicts) and self.resolutions[following] is None:
            self.query_one(f"#pick-mine-{following}", Button).focus()
        elif self.unresolved == 0:
            self.query_one("#save", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        """A side for one change, or a choice for the whole note."""
        name = event.button.id or ""
        if name.startswith("pick-"):
            _pick, side, number = name.split("-")
            self.pick(int(number), side)
        elif name == "save":
            self.action_save()
        elif name in ("mine", "theirs", "edit"):
            self.action_choose(name)  # type: ignore[arg-type]

    def pick(self, number: int, side: str) -> None:
        """Take a side for change `number`, or write it anew."""
        conflict = self.conflicts[number]
        if side == "edit":
            self.write_anew(number)
            return
        chosen: Side = side  # type: ignore[assignment]
        label = {"mine": "yours", "theirs": "theirs", "both": "both"}[side]
        self.resolve(number, conflict.side(chosen), label)

    @work(exclusive=True, group="hunk-edit")
    async def write_anew(self, number: int) -> None:
        """Let the person write change `number` themselves."""
        text = await self.app.push_screen_wait(HunkEditScreen(self.conflicts[number]))
        if text is not None:
            self.resolve(number, text, "written")

    def focused_hunk(self) -> int | None:
        """The number of the change whose button has the focus, if any."""
        focused = self.focused
        name = focused.id if focused is not None else None
        if name and name.startswith("pick-"):
            return int(name.rsplit("-", 1)[1])
        return None

    def on_key(self, event: events.Key) -> None:
        """m, t, b and e choose for the change whose button has the focus."""
        sides = {"m": "mine", "t": "theirs", "b": "both", "e": "edit"}
        number = self.focused_hunk()
        if event.key in sides and number is not None:
            event.stop()
            self.pick(number, sides[event.key])

    def action_save(self) -> None:
        """Save the merge once every overlapping change is resolved."""
        if self.unresolved:
            self.notify(
                f"Choose a side for {count(self.unresolved, 'more change')} first.",
                severity="warning",
            )
            return
        merge = self.changed.merge
        resolved = [text or "" for text in self.resolutions]
        self.dismiss(Resolution("save", merge.text(resolved) if merge is not None else None))

    def action_choose(self, action: Action) -> None:
        """Decide for the whole note: keep mine, take theirs, or keep editing."""
        self.dismiss(Resolution(action))


def _lines(lines: tuple[str, ...]) -> str:
    """A side's lines for display (display-safe), or a note that it removed them."""
    text = "".join(lines)
    return visible_text(text.removesuffix("\n")) if text else EMPTY_SIDE


__all__ = ["ConflictScreen", "DeletedScreen", "HunkEditScreen", "MergedScreen", "Resolution"]
