"""The tree of folders and notes, listed lazily from disk so the first frame never waits."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text, TextType
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from memtui.core.display import visible
from memtui.tui.context import AGENT_BADGE_DAYS
from memtui.tui.policy_marks import MARK_HELP, MARKS
from memtui.tui.text_styles import BADGES
from memtui.tui.wording import shorten_middle

BADGE_HELP = (
    "  ◌ stale (in the review queue for a strong reason)\n"
    f"  ● changed by an agent in the last {AGENT_BADGE_DAYS} days\n"
    "  ⚑ secret flagged: the current text is an agent write that looked like a secret\n"
    "  ! parse warnings\n" + MARK_HELP
)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """What a tree node stands for: a relative path and whether it is a folder."""

    relpath: str
    is_dir: bool


def is_hidden(name: str) -> bool:
    """Hidden entries (dotfiles, `.memtui/`, atomic-write temp files) never appear in the tree."""
    return name.startswith(".")


def list_folder(root: Path, relpath: str) -> list[TreeEntry]:
    """A folder's visible entries, folders first, each group sorted case-insensitively."""
    folder = root / relpath if relpath else root
    folders: list[str] = []
    files: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if is_hidden(entry.name):
                    continue
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                (folders if is_dir else files).append(entry.name)
    except OSError:
        return []
    prefix = f"{relpath}/" if relpath else ""
    folders.sort(key=str.casefold)
    files.sort(key=str.casefold)
    return [TreeEntry(prefix + name, True) for name in folders] + [
        TreeEntry(prefix + name, False) for name in files
    ]


def entry_label(entry: TreeEntry) -> str:
    """The text shown for an entry: a folder's name, a note's file name without `.md`, made
    display-safe."""
    name = entry.relpath.rsplit("/", 1)[-1]
    if not entry.is_dir and name.endswith(".md"):
        return visible(name[:-3])
    return visible(name)


class NoteTree(Tree[TreeEntry]):
    """Folders and notes of a store; keeps cursor and expansion when paths change on disk."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "expand_cursor", "Expand", show=False, id="tree.expand"),
        Binding("left", "collapse_cursor", "Collapse", show=False, id="tree.collapse"),
        Binding("j", "cursor_down", "Down", show=False, id="tree.down"),
        Binding("k", "cursor_up", "Up", show=False, id="tree.up"),
    ]

    @dataclass
    class TitlesWanted(Message):
        """The tree shows titles and lists files whose titles are not known yet."""

        relpaths: frozenset[str]

    def __init__(self, root: Path, *, labels: str = "names", id: str | None = None) -> None:
        """Create the tree for the store at `root`; children are listed when a folder opens.
        `labels` is "names" (file names) or "titles" (each file's title, once known)."""
        self.badges: dict[str, frozenset[str]] = {}
        super().__init__(visible(root.name or str(root)), data=TreeEntry("", True), id=id)
        self.store_root = root
        self.show_root = False
        self.guide_depth = 3
        self.labels = labels
        self.titles: dict[str, str | None] = {}
        """relpath -> the file's title (None: it has none, its name shows), as read so far."""
        self._path_nodes: dict[str, TreeNode[TreeEntry]] = {"": self.root}
        self._loaded: set[str] = set()

    def label_of(self, entry: TreeEntry) -> str:
        """What the tree shows for an entry: its name, or in titles mode its title if it has
        one (display-safe either way)."""
        if self.labels == "titles" and not entry.is_dir:
            title = self.titles.get(entry.relpath)
            if title:
                return visible(title)
        return entry_label(entry)

    def set_labels(self, labels: str) -> None:
        """Show file names or titles; asks for the titles not known yet."""
        self.labels = labels
        self._relabel(self._path_nodes)
        self._want_titles(self._path_nodes)

    def set_titles(self, titles: dict[str, str | None]) -> None:
        """Learn files' titles and relabel their nodes."""
        self.titles.update(titles)
        self._relabel(titles)

    def forget_titles(self, relpaths: frozenset[str] | set[str]) -> None:
        """Drop the titles of changed files, and ask for them again in titles mode."""
        for relpath in relpaths:
            self.titles.pop(relpath, None)
        self._want_titles(relpaths)

    def _relabel(self, relpaths: Iterable[str]) -> None:
        """Set the label of each listed file among `relpaths` again (the tree's width follows)."""
        relabelled = False
        for relpath in list(relpaths):
            node = self._path_nodes.get(relpath)
            if node is not None and node.data is not None and not node.data.is_dir:
                node.set_label(self.label_of(node.data))
                relabelled = True
        if relabelled:
            self._invalidate()

    def _want_titles(self, relpaths: Iterable[str]) -> None:
        """In titles mode, ask for the titles of listed files among `relpaths` not known yet."""
        if self.labels != "titles":
            return
        wanted = frozenset(
            relpath
            for relpath in list(relpaths)
            if relpath not in self.titles
            and (node := self._path_nodes.get(relpath)) is not None
            and node.data is not None
            and not node.data.is_dir
        )
        if wanted:
            self.post_message(self.TitlesWanted(wanted))

    def process_label(self, label: TextType) -> Text:
        """A file or folder name as plain text (brackets in names are not markup)."""
        return (Text(label) if isinstance(label, str) else label).split()[0]

    def on_mount(self) -> None:
        """List the top folder."""
        self._sync_folder(self.root)
        self.root.expand()
        if self.root.children:
            self.move_cursor(self.root.children[0])

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[TreeEntry]) -> None:
        """List a folder's entries the first time it opens."""
        node = event.node
        if node.data is not None and node.data.relpath not in self._loaded:
            self._sync_folder(node)

    @property
    def cursor_relpath(self) -> str | None:
        """The relative path under the cursor, or None."""
        node = self.cursor_node
        return node.data.relpath if node is not None and node.data is not None else None

    @property
    def cursor_entry(self) -> TreeEntry | None:
        """The entry under the cursor, or None."""
        node = self.cursor_node
        return node.data if node is not None else None

    def node_for(self, relpath: str) -> TreeNode[TreeEntry] | None:
        """The node of a listed path, or None if it is not listed (yet)."""
        return self._path_nodes.get(relpath)

    def _sync_folder(self, node: TreeNode[TreeEntry]) -> None:
        """Make a folder node's children match the disk, keeping nodes that still exist."""
        assert node.data is not None
        relpath = node.data.relpath
        wanted = list_folder(self.store_root, relpath)
        wanted_kind = {entry.relpath: entry.is_dir for entry in wanted}
        for child in list(node.children):
            data = child.data
            if data is None or wanted_kind.get(data.relpath) != data.is_dir:
                self._forget(child)
                child.remove()
        present = {child.data.relpath for child in node.children if child.data is not None}
        for position, entry in enumerate(wanted):
            if entry.relpath in present:
                continue
            before = position if position < len(node.children) else None
            label = self.label_of(entry)
            if entry.is_dir:
                child = node.add(label, entry, before=before, allow_expand=True)
            else:
                child = node.add_leaf(label, entry, before=before)
            self._path_nodes[entry.relpath] = child
        self._loaded.add(relpath)
        self._want_titles([entry.relpath for entry in wanted])

    def _forget(self, node: TreeNode[TreeEntry]) -> None:
        """Drop a node and its descendants from the path lookup."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.data is not None:
                self._path_nodes.pop(current.data.relpath, None)
                self._loaded.discard(current.data.relpath)
            stack.extend(current.children)

    def refresh_paths(self, paths: frozenset[str] | set[str]) -> None:
        """Re-list the folders holding changed paths; keeps the cursor on the same path."""
        keep = self.cursor_relpath
        folders: set[str] = set()
        for path in paths:
            parts = path.split("/")
            for depth in range(len(parts)):
                folders.add("/".join(parts[:depth]))
        for folder in sorted(folders, key=lambda f: f.count("/") if f else -1):
            node = self._path_nodes.get(folder)
            if node is not None and folder in self._loaded:
                self._sync_folder(node)
        self._clear_line_cache()
        self._invalidate()
        if keep is not None:
            self.select_path(keep, fallback_to_parent=True)

    def reload(self) -> None:
        """Re-list every listed folder (a full refresh, used after bulk changes)."""
        self.refresh_paths(frozenset(f"{folder}/x" if folder else "x" for folder in self._loaded))

    def select_path(self, relpath: str, *, fallback_to_parent: bool = False) -> bool:
        """Open the folders above `relpath` and put the cursor on it; False if it is not there."""
        parts = relpath.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            node = self._path_nodes.get(folder)
            if node is None:
                break
            if folder not in self._loaded:
                self._sync_folder(node)
            node.expand()
        target = self._path_nodes.get(relpath)
        if target is None and fallback_to_parent:
            while target is None and parts:
                parts.pop()
                target = self._path_nodes.get("/".join(parts))
            if target is self.root:
                target = self.root.children[0] if self.root.children else None
        if target is None or target is self.root:
            return False
        _ = self._tree_lines
        self.move_cursor(target)
        return True

    def set_badges(self, badges: dict[str, frozenset[str]]) -> None:
        """Replace the badges and redraw (the tree's width follows its labels)."""
        self.badges = badges
        self._invalidate()
        self.refresh()

    def badge_text(self, node: TreeNode[TreeEntry]) -> Text:
        """The note's badges (` ◌ ●`) in the theme's colours; a folder's access-policy mark."""
        text = Text()
        if node.data is None:
            return text
        badges = self.badges.get(node.data.relpath)
        if badges:
            parse = self.app.stylesheet.parse_style
            names = MARKS if node.data.is_dir else ("stale", "agent", "secret", "warning", *MARKS)
            for name in names:
                if name in badges:
                    glyph, glyph_style = BADGES[name]
                    text.append(" " + glyph, style=parse(glyph_style).rich_style)
        return text

    def watch_virtual_size(self, old: Size, new: Size) -> None:
        """The longest label changed: lay the panes out again, the tree sized to it."""
        if old.width != new.width and self.parent is not None:
            self.parent.refresh(layout=True)

    def get_label_width(self, node: TreeNode[TreeEntry]) -> int:
        """The whole label's width, badges included: what the tree would like to show."""
        label = super().render_label(node, Style(), Style())
        return label.cell_len + self.badge_text(node).cell_len

    def widest(self) -> int:
        """The most cells a line may take: the tree's largest width (its `max-width`, as it
        grows to fit its names) less its border and scrollbar."""
        width = self.outer_size.width
        limit = self.styles.max_width
        if limit is not None and isinstance(self.parent, Widget):
            width = int(limit.resolve(self.parent.size, self.app.size))
        return width - (self.outer_size.width - self.scrollable_content_region.width)

    def label_room(self, node: TreeNode[TreeEntry]) -> int:
        """The cells a node's label has at the tree's largest width, after its guides."""
        depth = 0
        parent = node.parent
        while parent is not None and parent is not self.root:
            depth += 1
            parent = parent.parent
        return self.widest() - depth * self.guide_depth

    def render_label(self, node: TreeNode[TreeEntry], base_style: Style, style: Style) -> Text:
        """The default label plus the note's badges; a name too long for the tree's width is
        cut in the middle, never its badges."""
        text = super().render_label(node, base_style, style)
        badges = self.badge_text(node)
        over = text.cell_len + badges.cell_len - self.label_room(node)
        name = str(node.label)
        if over > 0 and self.outer_size.width and cell_len(name) > 1:
            prefix = text[: len(text.plain) - len(name)]
            short = Text(shorten_middle(name, max(1, cell_len(name) - over)))
            short.stylize(style)
            text = Text.assemble(prefix, short)
        text.append_text(badges)
        return text

    def action_expand_cursor(self) -> None:
        """Open the folder under the cursor."""
        node = self.cursor_node
        if node is not None and node.allow_expand:
            node.expand()

    def action_collapse_cursor(self) -> None:
        """Close the folder under the cursor, or go to the parent folder."""
        node = self.cursor_node
        if node is None:
            return
        if node.allow_expand and node.is_expanded:
            node.collapse()
        elif node.parent is not None and node.parent is not self.root:
            self.move_cursor(node.parent)
