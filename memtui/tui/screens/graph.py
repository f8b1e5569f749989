"""The graph screen: a note's neighbourhood drawn to depth 1-3, plus orphans, hubs and
unresolved."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from memtui.core.display import visible, visible_text
from memtui.tui.layout_graph import (
    DEFAULT_MAX_CHILDREN,
    FOLDER_SUFFIX,
    UNRESOLVED_PREFIX,
    GraphLayout,
    layout_neighbourhood,
)
from memtui.tui.messages import OpenNote
from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.cursor_list import CursorList
from memtui.tui.widgets.graph_view import GraphView
from memtui.tui.widgets.key_footer import KeyFooter
from memtui.tui.wording import count

if TYPE_CHECKING:
    from memtui.notes.index import NoteIndex

SCROLLBAR = 2
"""Columns a vertical scrollbar takes beside a drawing taller than the view."""
MIN_DEPTH = 1
MAX_DEPTH = 3
QUIET = 0.3
"""Seconds without a change before the graph and its lists are computed again."""

Entries = tuple[tuple[str, str], ...]
"""A list's options as (id, text) pairs."""


def unresolved_key(target: str) -> str:
    """The graph key of an unresolved relation target."""
    return UNRESOLVED_PREFIX + target


def note_label(index: NoteIndex, key: str) -> str:
    """A node's label, display-safe: the note's title, the unresolved target text, or a
    folder's path."""
    if key.startswith(UNRESOLVED_PREFIX):
        return visible(key[len(UNRESOLVED_PREFIX) :])
    if key.endswith(FOLDER_SUFFIX):
        return visible(key)
    return visible(index.title(key) or key)


def listed_note(index: NoteIndex, path: str) -> str:
    """A note in a list: its title and its path (many notes share a title like README)."""
    title = note_label(index, path)
    return title if title == visible(path) else f"{title}  ({visible(path)})"


def folder_notes(index: NoteIndex, folder: str) -> list[str]:
    """The notes inside `folder` (a key ending with `/`) and its subfolders, sorted."""
    return sorted(path for path in index.notes if path.startswith(folder))


def neighbourhood(
    index: NoteIndex, centre: str, depth: int
) -> tuple[set[str], list[tuple[str, str, str]]]:
    """The nodes and edges around a note; around a folder: its notes (linked to it without a
    relation) and, deeper, their neighbourhoods."""
    if not centre.endswith(FOLDER_SUFFIX):
        return index.neighbourhood(centre, depth)
    inside = folder_notes(index, centre)
    nodes: set[str] = set(inside)
    edges: set[tuple[str, str, str]] = {(centre, path, "") for path in inside}
    if depth > 1:
        for path in inside:
            more_nodes, more_edges = index.neighbourhood(path, depth - 1)
            nodes |= more_nodes
            edges.update(more_edges)
    return nodes, sorted(edges)


def build_layout(
    index: NoteIndex, centre: str, depth: int, width: int | None = None, height: int = 0
) -> GraphLayout:
    """Lay out `centre`'s neighbourhood from the index, labelled with note titles, fitted to
    `width` when given; a folder lists as many notes as `height` rows show."""
    nodes, found = neighbourhood(index, centre, depth)
    edges = [(source, target, visible(relation)) for source, target, relation in found]
    keys = set(nodes) | {centre}
    labels = {key: note_label(index, key) for key in keys}
    most = DEFAULT_MAX_CHILDREN
    if centre.endswith(FOLDER_SUFFIX) and depth == 1:
        most = max(most, height)
    return layout_neighbourhood(
        centre, keys, edges, depth=depth, labels=labels, width=width, max_children=most
    )


@dataclass(frozen=True)
class Drawing:
    """A centre note's neighbourhood laid out to a depth, with the screen title for it."""

    centre: str
    depth: int
    layout: GraphLayout
    title: str


@dataclass(frozen=True)
class GraphLists:
    """The hubs, orphans and unresolved targets of the whole store."""

    hubs: Entries
    orphans: Entries
    unresolved: Entries
    unresolved_sources: Mapping[str, Sequence[str]]
    """Unresolved target -> the notes that link to it, sorted."""


def drawing(
    index: NoteIndex, centre: str, depth: int, view: tuple[int, int] | None = None
) -> Drawing:
    """Lay out the neighbourhood of `centre`, fitted to the `view` (width, height) when given,
    a scrollbar's width aside when it is taller, and title it."""
    width, height = view if view is not None else (None, 0)
    graph = build_layout(index, centre, depth, width, height)
    if width is not None and graph.height > height:
        graph = build_layout(index, centre, depth, width - SCROLLBAR, height)
    more = f" · {graph.hidden} more not drawn" if graph.hidden else ""
    if centre.endswith(FOLDER_SUFFIX):
        notes = count(len(folder_notes(index, centre)), "note")
        title = f"Graph · folder {visible(centre)} · {notes} · depth {depth}{more}"
    else:
        title = (
            f"Graph · {note_label(index, centre)} ({visible(centre)}) · depth {depth}"
            f" · {count(len(graph.nodes) - 1, 'neighbour')}{more}"
        )
    return Drawing(centre, depth, graph, title)


def graph_lists(index: NoteIndex) -> GraphLists:
    """List the hubs, orphans and unresolved targets."""
    unresolved = index.unresolved_uses().items()
    return GraphLists(
        hubs=tuple(
            (path, f"{links:>3}  {listed_note(index, path)}") for path, links in index.hubs()
        ),
        orphans=tuple((path, listed_note(index, path)) for path in sorted(index.orphans())),
        unresolved=tuple(
            (unresolved_key(target), f"{visible(target)}  ({sum(used for _, used in uses)})")
            for target, uses in unresolved
        ),
        unresolved_sources={target: [source for source, _ in uses] for target, uses in unresolved},
    )


LISTED_LINKS = 12
"""Links named per direction in a node's description; a hub's hundreds would not fit anyway."""


def describe_node(
    index: NoteIndex, key: str, unresolved: Mapping[str, Sequence[str]] | None = None
) -> str:
    """A short plain-text description of a node: its path, and every link in and out of it.

    `unresolved` (target -> linking notes) saves scanning the index for an unresolved node.
    """
    if key.startswith(UNRESOLVED_PREFIX):
        target = key[len(UNRESOLVED_PREFIX) :]
        if unresolved is None:
            unresolved = {
                name: sorted({source for source, _ in sources})
                for name, sources in index.unresolved().items()
            }
        sources = unresolved.get(target, [])
        names = ", ".join(sources) or "none"
        return (
            f"Unresolved target “{target}”: no note has this title, permalink or path.\n"
            f"Linked from: {names}"
        )
    if key.startswith("+more:"):
        return "More neighbours than fit: recentre on a neighbour, or use the lists on the right."
    if key.endswith(FOLDER_SUFFIX):
        return (
            f"{key}: the folder's notes, and their links at depth 2 and 3. Enter on a note "
            "centres the graph on it."
        )
    outgoing = [
        f"{relation.relation_type} → {resolved or '?' + relation.target}"
        for relation, resolved in index.outgoing(key)
    ]
    incoming = [f"{source} → {relation.relation_type}" for source, relation in index.backlinks(key)]
    return (
        f"{key}\n"
        f"Out ({len(outgoing)}): {listed(outgoing)}\n"
        f"In ({len(incoming)}): {listed(incoming)}"
    )


def listed(links: Sequence[str]) -> str:
    """The first LISTED_LINKS links joined, then how many more there are (the panel is short)."""
    if not links:
        return "none"
    more = len(links) - LISTED_LINKS
    return "; ".join(links[:LISTED_LINKS]) + (f"; … {more} more" if more > 0 else "")


class GraphScreen(StoreScreen):
    """A note's neighbourhood as a navigable tree, with lists of orphans, hubs and
    unresolved links."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus,equals_sign", "depth(1)", "Depth +", id="graph.depth_more"),
        Binding("minus", "depth(-1)", "Depth -", id="graph.depth_less"),
        Binding("o", "open_note", "Open", id="graph.open"),
        Binding("1", "show_tab('tab-graph')", "Graph", show=False, id="graph.tab_graph"),
        Binding("2", "show_tab('tab-hubs')", "Hubs", show=False, id="graph.tab_hubs"),
        Binding("3", "show_tab('tab-orphans')", "Orphans", show=False, id="graph.tab_orphans"),
        Binding(
            "4", "show_tab('tab-unresolved')", "Unresolved", show=False, id="graph.tab_unresolved"
        ),
        Binding("escape,q", "close", "Back", id="graph.close"),
    ]

    PALETTE: ClassVar[list[tuple[str, str, str]]] = [
        (
            "graph: recentre on the focused node",
            "recentre_focused",
            "Centre the graph there (enter)",
        ),
        ("graph: depth +", "depth(1)", "Show one more level of links"),
        ("graph: depth -", "depth(-1)", "Show one level less"),
        ("graph: open note", "open_note", "Open the focused note in the main screen"),
        ("graph: show hubs", "show_tab('tab-hubs')", "The most linked notes"),
        ("graph: show orphans", "show_tab('tab-orphans')", "Notes with no links"),
        ("graph: show unresolved", "show_tab('tab-unresolved')", "Link targets with no note"),
        ("graph: show the neighbourhood", "show_tab('tab-graph')", "Back to the drawing"),
        ("go: back", "close", "Leave the graph"),
    ]

    def __init__(self, relpath: str, *, depth: int = 1) -> None:
        super().__init__()
        self.centre = relpath
        self.depth = max(MIN_DEPTH, min(MAX_DEPTH, depth))
        self.focused_key: str | None = relpath
        self._history: list[str] = []
        self._drawn: Drawing | None = None
        self._lists: GraphLists | None = None
        self._view = (0, 0)
        """The drawing's room (width, height), as last laid out (the graph view's)."""

    def compose(self) -> ComposeResult:
        """Title, tabs (the drawn neighbourhood and the three lists), node details and footer."""
        yield Static(id="graph-title", markup=False)
        with TabbedContent(id="graph-tabs", initial="tab-graph"):
            with TabPane("Neighbourhood", id="tab-graph"):
                yield GraphView(id="graph-canvas")
            with TabPane("Hubs", id="tab-hubs"):
                yield CursorList(id="graph-hubs", markup=False)
            with TabPane("Orphans", id="tab-orphans"):
                yield CursorList(id="graph-orphans", markup=False)
            with TabPane("Unresolved", id="tab-unresolved"):
                yield CursorList(id="graph-unresolved", markup=False)
        yield Static(id="graph-detail", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        """Draw and list in the background once the index is ready, and again when notes change."""
        self._drawing = self.refresher("graph-drawing", self._draw, self._show_drawing, quiet=QUIET)
        self._listing = self.refresher("graph-lists", self._list, self._show_lists, quiet=QUIET)
        self.follow_index(self._on_index_changed)
        self.query_one("#graph-title", Static).update("Graph: drawing…")
        self.refresh_graph()
        self.query_one(GraphView).focus()

    def _on_index_changed(self, _data: object = None) -> None:
        """The index loaded or changed: draw and list again."""
        self._drawing.request()
        self._listing.request()

    def refresh_graph(self) -> None:
        """Lay out the centre note's neighbourhood again, in the background."""
        self._fit_width()
        self._drawing.request(now=True)

    def _fit_width(self) -> None:
        """Remember the size the drawing has (taken on the UI thread for the layout's); the
        canvas keeps one column for the cursor past the drawing's end."""
        view = self.query_one(GraphView)
        width = view.size.width or self.app.size.width - 4
        self._view = (max(20, width - 1), view.size.height or self.app.size.height - 10)

    def on_resize(self) -> None:
        """Fit the drawing to the new size."""
        view = self._view
        self._fit_width()
        if self._view != view:
            self._drawing.request()

    def _draw(self) -> Drawing | None:
        """The drawing for the current centre and depth, fitted to the width, or None while
        indexing (in a thread)."""
        index = self.ctx.index
        return None if index is None else drawing(index, self.centre, self.depth, self._view)

    def _list(self) -> GraphLists | None:
        """The hubs, orphans and unresolved targets, or None while indexing (in a thread)."""
        index = self.ctx.index
        if index is None:
            return None
        return graph_lists(index)

    def _show_drawing(self, data: Drawing | None) -> None:
        """Show a drawing if it is still for the current centre and depth and differs.

        The first drawing starts the lists, so they do not slow it down.
        """
        if data is None:
            self.query_one("#graph-title", Static).update("Graph: indexing notes…")
            return
        if (data.centre, data.depth) != (self.centre, self.depth):
            return
        old, self._drawn = self._drawn, data
        if old is None:
            self._listing.request(now=True)
        self.query_one("#graph-title", Static).update(data.title)
        if old is None or old.layout != data.layout:
            self.query_one(GraphView).show(data.layout, self.focused_key)

    def _show_lists(self, lists: GraphLists | None) -> None:
        """Refill the lists that changed."""
        if lists is None:
            return
        old, self._lists = self._lists, lists
        for name in ("hubs", "orphans", "unresolved"):
            entries: Entries = getattr(lists, name)
            if old is None or getattr(old, name) != entries:
                options = self.query_one(f"#graph-{name}", CursorList)
                options.replace_options(Option(text, id=key) for key, text in entries)

    def _sources(self, target: str) -> Sequence[str]:
        """The notes linking to an unresolved target, as last listed."""
        return self._lists.unresolved_sources.get(target, ()) if self._lists is not None else ()

    def recentre(self, key: str) -> None:
        """Make `key` the centre (an unresolved target centres on its first source)."""
        index = self.ctx.index
        if index is None:
            return
        if key.startswith(UNRESOLVED_PREFIX):
            sources = self._sources(key[len(UNRESOLVED_PREFIX) :])
            if not sources:
                return
            self.focused_key = key
            key = sources[0]
        elif key.startswith("+more:") or key not in index.notes:
            return
        else:
            self.focused_key = key
        if key != self.centre:
            self._history.append(self.centre)
        self.centre = key
        self.refresh_graph()
        self.action_show_tab("tab-graph")

    @on(GraphView.NodeFocused)
    def _show_node(self, event: GraphView.NodeFocused) -> None:
        """Describe the node under the cursor."""
        self.focused_key = event.key
        index = self.ctx.index
        if index is not None:
            unresolved = self._lists.unresolved_sources if self._lists is not None else None
            detail = describe_node(index, event.key, unresolved)
            self.query_one("#graph-detail", Static).update(visible_text(detail))

    @on(GraphView.NodeChosen)
    def _centre_on_node(self, event: GraphView.NodeChosen) -> None:
        """Enter on a node recentres the graph on it; on the centre note, opens it."""
        if event.key != self.centre:
            self.recentre(event.key)
        elif self.centre.endswith(FOLDER_SUFFIX):
            self.notify(
                "This is the folder: move to one of its notes (↓ or →) and press Enter to "
                "centre on it.",
                timeout=4,
            )
        else:
            self.action_open_note()

    @on(OptionList.OptionSelected)
    def _centre_on_listed(self, event: OptionList.OptionSelected) -> None:
        """Enter on a list item centres the graph on it."""
        if event.option.id is not None:
            self.recentre(event.option.id)

    def action_show_tab(self, tab_id: str) -> None:
        """Switch to a tab and focus what is in it."""
        self.query_one(TabbedContent).active = tab_id
        pane = self.query_one(f"#{tab_id}", TabPane)
        for widget in pane.query("GraphView, OptionList"):
            widget.focus()
            break

    def action_recentre_focused(self) -> None:
        """Recentre on the node under the cursor."""
        if self.focused_key is not None:
            self.recentre(self.focused_key)

    def action_depth(self, step: int) -> None:
        """Show one level more (or less) of the neighbourhood."""
        depth = max(MIN_DEPTH, min(MAX_DEPTH, self.depth + step))
        if depth == self.depth:
            self.notify(f"Depth stays between {MIN_DEPTH} and {MAX_DEPTH}.", timeout=2)
            return
        self.depth = depth
        self.refresh_graph()

    def action_open_note(self) -> None:
        """Open the note under the cursor in the main screen."""
        key = self.focused_key
        index = self.ctx.index
        if key is None or index is None or key not in index.notes:
            self.notify("Only existing notes can be opened.", severity="warning", timeout=3)
            return
        self.post_message(OpenNote(key))
