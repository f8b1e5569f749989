"""The graph screen: a note's neighbourhood drawn to depth 1-3, plus orphans, hubs and unresolved."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

from memtui.tui.layout_graph import UNRESOLVED_PREFIX, GraphLayout, layout_neighbourhood
from memtui.tui.screens.base import StoreScreen
from memtui.tui.widgets.graph_view import GraphView

if TYPE_CHECKING:
    from memtui.notes.index import NoteIndex

MIN_DEPTH = 1
MAX_DEPTH = 3


def unresolved_key(target: str) -> str:
    """The graph key of an unresolved relation target."""
    return UNRESOLVED_PREFIX + target


def note_label(index: NoteIndex, key: str) -> str:
    """A node's label: the note's title, or the unresolved target text."""
    if key.startswith(UNRESOLVED_PREFIX):
        return key[len(UNRESOLVED_PREFIX) :]
    note = index.notes.get(key)
    return note.title if note is not None and note.title else key


def build_layout(index: NoteIndex, centre: str, depth: int) -> GraphLayout:
    """Lay out `centre`'s neighbourhood from the index, labelled with note titles."""
    nodes, edges = index.neighbourhood(centre, depth)
    keys = set(nodes) | {centre}
    labels = {key: note_label(index, key) for key in keys}
    return layout_neighbourhood(centre, keys, edges, depth=depth, labels=labels)


def describe_node(index: NoteIndex, key: str) -> str:
    """A short plain-text description of a node: its path, and every link in and out of it."""
    if key.startswith(UNRESOLVED_PREFIX):
        target = key[len(UNRESOLVED_PREFIX) :]
        sources = index.unresolved().get(target, [])
        names = ", ".join(sorted({source for source, _ in sources})) or "none"
        return f"Unresolved target “{target}”: no note has this title, permalink or path.\nLinked from: {names}"
    if key.startswith("+more:"):
        return "More neighbours than fit: recentre on a neighbour, or use the lists on the right."
    outgoing = [
        f"{relation.relation_type} → {resolved or '?' + relation.target}"
        for relation, resolved in index.outgoing(key)
    ]
    incoming = [f"{source} → {relation.relation_type}" for source, relation in index.backlinks(key)]
    return (
        f"{key}\n"
        f"Out ({len(outgoing)}): {'; '.join(outgoing) or 'none'}\n"
        f"In ({len(incoming)}): {'; '.join(incoming) or 'none'}"
    )


class GraphScreen(StoreScreen):
    """A note's neighbourhood as a navigable tree, with lists of orphans, hubs and unresolved links."""

    DEFAULT_CSS = """
    GraphScreen #graph-title { height: 1; padding: 0 1; background: $panel; color: $text; }
    GraphScreen #graph-tabs { height: 1fr; }
    GraphScreen #graph-tabs TabPane { padding: 0; }
    GraphScreen GraphView { width: 1fr; height: 1fr; }
    GraphScreen #graph-tabs OptionList { height: 1fr; border: none; }
    GraphScreen #graph-detail {
        height: 4; padding: 0 1; background: $panel; color: $text-muted;
    }
    """

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
        ("graph: depth +", "depth(1)", "Show one more level of links (+)"),
        ("graph: depth -", "depth(-1)", "Show one level less (-)"),
        ("graph: open note", "open_note", "Open the focused note in the main screen (o)"),
        ("graph: show hubs", "show_tab('tab-hubs')", "The most linked notes (2)"),
        ("graph: show orphans", "show_tab('tab-orphans')", "Notes with no links (3)"),
        ("graph: show unresolved", "show_tab('tab-unresolved')", "Link targets with no note (4)"),
        ("graph: show the neighbourhood", "show_tab('tab-graph')", "Back to the drawing (1)"),
        ("go: back", "close", "Leave the graph (escape)"),
    ]

    def __init__(self, relpath: str, *, depth: int = 1) -> None:
        super().__init__()
        self.centre = relpath
        self.depth = max(MIN_DEPTH, min(MAX_DEPTH, depth))
        self.focused_key: str | None = relpath
        self._history: list[str] = []

    def compose(self) -> ComposeResult:
        """Title, tabs (the drawn neighbourhood and the three lists), node details and footer."""
        yield Static(id="graph-title")
        with TabbedContent(id="graph-tabs", initial="tab-graph"):
            with TabPane("Neighbourhood", id="tab-graph"):
                yield GraphView(id="graph-canvas")
            with TabPane("Hubs", id="tab-hubs"):
                yield OptionList(id="graph-hubs")
            with TabPane("Orphans", id="tab-orphans"):
                yield OptionList(id="graph-orphans")
            with TabPane("Unresolved", id="tab-unresolved"):
                yield OptionList(id="graph-unresolved")
        yield Static(id="graph-detail")
        yield Footer()

    def on_mount(self) -> None:
        """Draw once the index is ready, and redraw when notes change."""
        self.follow_index(self._on_index_changed)
        self.refresh_graph()
        self.query_one(GraphView).focus()

    def _on_index_changed(self, _data: object = None) -> None:
        """The index loaded or changed: redraw."""
        self.refresh_graph()

    def refresh_graph(self) -> None:
        """Lay out the centre note's neighbourhood and refill the lists."""
        index = self.ctx.index
        title = self.query_one("#graph-title", Static)
        if index is None:
            title.update("Graph: indexing notes…")
            return
        graph = build_layout(index, self.centre, self.depth)
        more = f" · {graph.hidden} more not drawn" if graph.hidden else ""
        title.update(
            f"Graph · {note_label(index, self.centre)} ({self.centre}) · depth {self.depth}"
            f" · {len(graph.nodes) - 1} neighbours{more}"
        )
        self.query_one(GraphView).show(graph, self.focused_key)
        self._fill_lists(index)

    def _fill_lists(self, index: NoteIndex) -> None:
        """Fill the hubs, orphans and unresolved lists (sorted, deterministic)."""
        hubs = self.query_one("#graph-hubs", OptionList)
        hubs.clear_options()
        hubs.add_options(
            Option(f"{count:>3}  {note_label(index, path)}", id=path)
            for path, count in index.hubs()
        )
        orphans = self.query_one("#graph-orphans", OptionList)
        orphans.clear_options()
        orphans.add_options(
            Option(note_label(index, path), id=path) for path in sorted(index.orphans())
        )
        unresolved = self.query_one("#graph-unresolved", OptionList)
        unresolved.clear_options()
        unresolved.add_options(
            Option(f"{target}  ({len(sources)})", id=unresolved_key(target))
            for target, sources in sorted(index.unresolved().items())
        )

    def recentre(self, key: str) -> None:
        """Make `key` the centre (an unresolved target centres on its first source)."""
        index = self.ctx.index
        if index is None:
            return
        if key.startswith(UNRESOLVED_PREFIX):
            sources = sorted(
                source for source, _ in index.unresolved().get(key[len(UNRESOLVED_PREFIX) :], [])
            )
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
            self.query_one("#graph-detail", Static).update(describe_node(index, event.key))

    @on(GraphView.NodeChosen)
    def _centre_on_node(self, event: GraphView.NodeChosen) -> None:
        """Enter on a node recentres the graph on it."""
        self.recentre(event.key)

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
        app: Any = self.app
        app.open_note(key)
