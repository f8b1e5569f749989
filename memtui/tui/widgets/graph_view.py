"""A scrollable canvas that draws a laid-out note neighbourhood and lets you move between nodes."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from memtui.tui.layout_graph import GraphLayout, NodeBox


class GraphView(ScrollView, can_focus=True):
    """Draws a `GraphLayout` with the Line API; arrows, tab and clicks move a node cursor."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "graph-view--edge",
        "graph-view--label",
        "graph-view--centre",
        "graph-view--note",
        "graph-view--unresolved",
        "graph-view--more",
        "graph-view--cursor",
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move('up')", "Up", show=False, id="graph.node_up"),
        Binding("down,j", "move('down')", "Down", show=False, id="graph.node_down"),
        Binding("left", "move('left')", "Parent", show=False, id="graph.node_left"),
        Binding("right", "move('right')", "Child", show=False, id="graph.node_right"),
        Binding("tab", "cycle(1)", "Next node", show=False, id="graph.node_next"),
        Binding("shift+tab", "cycle(-1)", "Previous node", show=False, id="graph.node_previous"),
        Binding("enter", "choose", "Recentre", id="graph.recentre"),
    ]

    class NodeFocused(Message):
        """The node cursor moved to `key`."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class NodeChosen(Message):
        """The user chose `key` (Enter, or a click on the node under the cursor)."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.graph: GraphLayout | None = None
        self.cursor_key: str | None = None

    def show(self, graph: GraphLayout, cursor_key: str | None) -> None:
        """Draw a new layout and put the cursor on `cursor_key` (or the first node)."""
        self.graph = graph
        self.virtual_size = Size(graph.width + 1, graph.height)
        keys = [node.key for node in graph.nodes]
        self.cursor_key = cursor_key if cursor_key in keys else (keys[0] if keys else None)
        self.refresh()
        self.call_after_refresh(self._scroll_to_cursor)
        if self.cursor_key is not None:
            self.post_message(self.NodeFocused(self.cursor_key))

    def _set_cursor(self, key: str | None) -> None:
        """Move the cursor to `key` and tell the screen."""
        if key is None or key == self.cursor_key:
            return
        self._refresh_node_rows(self.cursor_key, key)
        self.cursor_key = key
        self._scroll_to_cursor()
        self.post_message(self.NodeFocused(key))

    def _refresh_node_rows(self, *keys: str | None) -> None:
        """Repaint only the rows of the nodes `keys` (the cursor's old and new place)."""
        for key in keys:
            node = self.graph.node(key) if self.graph is not None and key is not None else None
            if node is not None:
                self.refresh_line(node.y)

    def _scroll_to_cursor(self) -> None:
        """Scroll so the node under the cursor is visible."""
        node = self.graph.node(self.cursor_key) if self.graph and self.cursor_key else None
        if node is not None:
            self.scroll_to_region(Region(node.x, node.y, node.width, 1), animate=False)

    def action_move(self, direction: str) -> None:
        """Move the cursor to the neighbouring node in `direction`."""
        if self.graph is not None and self.cursor_key is not None:
            self._set_cursor(self.graph.neighbour(self.cursor_key, direction))

    def action_cycle(self, step: int) -> None:
        """Move the cursor to the next (or previous) node in tab order."""
        if self.graph is None or not self.graph.nodes:
            return
        order = [node.key for node in self.graph.navigation_order()]
        index = order.index(self.cursor_key) if self.cursor_key in order else -1
        self._set_cursor(order[(index + step) % len(order)])

    def action_choose(self) -> None:
        """Choose the node under the cursor."""
        if self.cursor_key is not None:
            self.post_message(self.NodeChosen(self.cursor_key))

    def on_click(self, event: events.Click) -> None:
        """Clicking a node moves the cursor there; clicking the cursor node chooses it."""
        if self.graph is None:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        scroll_x, scroll_y = self.scroll_offset
        node = self.graph.node_at(offset.x + scroll_x, offset.y + scroll_y)
        if node is None:
            return
        event.stop()
        if node.key == self.cursor_key:
            self.action_choose()
        else:
            self._set_cursor(node.key)

    def _node_style(self, node: NodeBox) -> Style:
        """The rich style of a node's text."""
        if node.key == self.cursor_key and self.has_focus:
            return self.get_component_rich_style("graph-view--cursor")
        style = self.get_component_rich_style(f"graph-view--{node.kind}")
        if node.key == self.cursor_key:
            return style + Style(reverse=True)
        return style

    def render_line(self, y: int) -> Strip:
        """One row of the canvas, styled and cropped to the scroll position."""
        scroll_x, scroll_y = self.scroll_offset
        row = y + scroll_y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if self.graph is None or row >= self.graph.height:
            return Strip.blank(width, base)
        text = self.graph.lines[row]
        edge = base + self.get_component_rich_style("graph-view--edge")
        styles: list[Style] = [edge] * len(text)
        for label in self.graph.labels:
            if label.y == row:
                style = base + self.get_component_rich_style("graph-view--label")
                for x in range(label.x, min(label.x + len(label.text), len(text))):
                    styles[x] = style
        for node in self.graph.nodes:
            if node.y == row:
                style = base + self._node_style(node)
                for x in range(node.x, min(node.x + node.width, len(text))):
                    styles[x] = style
        segments: list[Segment] = []
        start = 0
        for end in range(1, len(text) + 1):
            if end == len(text) or styles[end] != styles[start]:
                segments.append(Segment(text[start:end], styles[start]))
                start = end
        strip = Strip(segments).crop(scroll_x, scroll_x + width)
        return strip.extend_cell_length(width, base)

    def on_focus(self) -> None:
        """Show the cursor highlight when focused."""
        self.refresh()

    def on_blur(self) -> None:
        """Dim the cursor highlight when focus leaves."""
        self.refresh()
