"""Deterministic left-to-right tree layout of a note's neighbourhood on a character canvas.

Pure code (no Textual) so the layout is testable on its own: the centre note sits on the left,
notes at depth 1, 2, 3 in the columns to its right, each drawn once under the first (sorted)
neighbour that reaches it; edges are box-drawing lines labelled with the relation type and an
arrow for its direction; a parent with too many children gets a "+N more" node.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

UNRESOLVED_PREFIX = "?"
MORE_PREFIX = "+more:"
FOLDER_SUFFIX = "/"
"""A node key ending with `/` is a folder: the centre of a folder's graph."""
MAX_LABEL = 22
MAX_EDGE_LABEL = 18
FITTED_LIMITS = (
    (64, 48),
    (40, 36),
    (32, 30),
    (26, 26),
    (MAX_EDGE_LABEL, MAX_LABEL),
    (14, 16),
    (10, 12),
)
"""(edge, node) label limits tried, widest first, when the layout is fitted to a width: labels
are cut only as far as the drawing needs to fit (past the last, it scrolls)."""
DEFAULT_MAX_CHILDREN = 14

# Connectivity bits of a line cell, turned into box-drawing characters at the end.
_UP, _DOWN, _LEFT, _RIGHT = 1, 2, 4, 8
_BOX = {
    0: " ",
    _LEFT | _RIGHT: "─",
    _LEFT: "─",
    _RIGHT: "─",
    _UP | _DOWN: "│",
    _UP: "│",
    _DOWN: "│",
    _DOWN | _RIGHT: "┌",
    _UP | _RIGHT: "└",
    _DOWN | _LEFT: "┐",
    _UP | _LEFT: "┘",
    _UP | _DOWN | _RIGHT: "├",
    _UP | _DOWN | _LEFT: "┤",
    _LEFT | _RIGHT | _DOWN: "┬",
    _LEFT | _RIGHT | _UP: "┴",
    _UP | _DOWN | _LEFT | _RIGHT: "┼",
}


@dataclass(frozen=True)
class NodeBox:
    """A node placed on the canvas: its key, visible text and where that text starts."""

    key: str
    """A note's relpath, `?target` for an unresolved target, `+more:<parent>` for overflow."""
    text: str
    x: int
    y: int
    depth: int
    kind: str
    """One of "centre", "note", "unresolved", "more"."""
    parent: str | None = None

    @property
    def width(self) -> int:
        """How many cells the node's text occupies."""
        return len(self.text)

    def contains(self, x: int, y: int) -> bool:
        """Whether canvas cell (x, y) is on this node."""
        return y == self.y and self.x <= x < self.x + self.width


@dataclass(frozen=True)
class EdgeLabel:
    """Where an edge's relation label is written, for styling."""

    x: int
    y: int
    text: str


@dataclass
class GraphLayout:
    """A laid-out neighbourhood: the line canvas, the nodes on it and the edge labels."""

    lines: list[str]
    nodes: list[NodeBox]
    labels: list[EdgeLabel] = field(default_factory=list)
    hidden: int = 0
    """How many neighbours were folded into "+N more" nodes."""

    @property
    def width(self) -> int:
        """Canvas width in cells."""
        return max((len(line) for line in self.lines), default=0)

    @property
    def height(self) -> int:
        """Canvas height in rows."""
        return len(self.lines)

    def node(self, key: str) -> NodeBox | None:
        """The node with this key, if it is drawn."""
        return next((n for n in self.nodes if n.key == key), None)

    def node_at(self, x: int, y: int) -> NodeBox | None:
        """The node drawn at canvas cell (x, y), if any."""
        return next((n for n in self.nodes if n.contains(x, y)), None)

    def navigation_order(self) -> list[NodeBox]:
        """Nodes in tab order: column by column, top to bottom."""
        return sorted(self.nodes, key=lambda n: (n.x, n.y))

    def neighbour(self, key: str, direction: str) -> str | None:
        """The node to move to from `key` with an arrow key ("up", "down", "left", "right")."""
        current = self.node(key)
        if current is None:
            return None
        children = [n for n in self.nodes if n.parent == key]
        if direction in ("up", "down"):
            same_column = [n for n in self.nodes if n.depth == current.depth]
            return (
                _nearest(same_column, current.y, direction)
                or _nearest(children, current.y, direction)
                or _nearest(children, current.y, direction, inclusive=True)
            )
        if direction == "left":
            return current.parent
        if not children:
            return None
        return min(children, key=lambda n: (abs(n.y - current.y), n.y)).key


def _nearest(
    nodes: list[NodeBox], y: int, direction: str, *, inclusive: bool = False
) -> str | None:
    """The node of `nodes` nearest above (`up`) or below (`down`) row `y` (or on it, when
    `inclusive`), or None."""
    if direction == "up":
        above = [n for n in nodes if n.y < y or (inclusive and n.y == y)]
        return max(above, key=lambda n: n.y).key if above else None
    below = [n for n in nodes if n.y > y or (inclusive and n.y == y)]
    return min(below, key=lambda n: n.y).key if below else None


def shorten(text: str, limit: int) -> str:
    """`text` cut to `limit` cells with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def node_kind(key: str, centre: str) -> str:
    """The drawing kind of a node key."""
    if key == centre:
        return "centre"
    if key.startswith(MORE_PREFIX):
        return "more"
    if key.startswith(UNRESOLVED_PREFIX):
        return "unresolved"
    return "note"


def node_text(key: str, label: str, kind: str, limit: int = MAX_LABEL) -> str:
    """The visible text of a node: brackets for notes, `?` marks for unresolved targets."""
    short = shorten(label, limit)
    if kind == "unresolved":
        return f"‹? {short}›"
    if kind == "more":
        return f"( {short} )"
    if kind == "centre":
        return f"◆ {short} ◆"
    return f"[ {short} ]"


def _spanning_tree(
    centre: str,
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str, str]],
    depth: int,
) -> tuple[dict[str, list[str]], dict[tuple[str, str], list[str]]]:
    """Breadth-first tree over the undirected edges, children sorted; and the edge labels."""
    allowed = set(nodes) | {centre}
    adjacent: dict[str, set[str]] = defaultdict(set)
    labels: dict[tuple[str, str], list[str]] = defaultdict(list)
    for source, target, relation in edges:
        if source not in allowed or target not in allowed or source == target:
            continue
        adjacent[source].add(target)
        adjacent[target].add(source)
        if not relation:
            continue
        outgoing = f"{relation} ▶"
        incoming = f"◀ {relation}"
        if outgoing not in labels[(source, target)]:
            labels[(source, target)].append(outgoing)
        if incoming not in labels[(target, source)]:
            labels[(target, source)].append(incoming)
    children: dict[str, list[str]] = defaultdict(list)
    seen = {centre}
    frontier = [centre]
    for _ in range(depth):
        next_frontier: list[str] = []
        for parent in frontier:
            for child in sorted(adjacent[parent] - seen):
                seen.add(child)
                children[parent].append(child)
                next_frontier.append(child)
        frontier = next_frontier
    return children, labels


def layout_neighbourhood(
    centre: str,
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str, str]],
    *,
    depth: int = 1,
    labels: Mapping[str, str] | None = None,
    max_children: int = DEFAULT_MAX_CHILDREN,
    width: int | None = None,
) -> GraphLayout:
    """Lay out `centre`'s neighbourhood (nodes and (source, target, relation) edges) as a tree.

    With a `width`, relation labels and note titles are cut only as far as needed to fit it
    (see FITTED_LIMITS); without one they are cut at MAX_EDGE_LABEL and MAX_LABEL. An edge
    with an empty relation is drawn without a label.
    """
    node_list, edge_list = list(nodes), list(edges)
    limits = FITTED_LIMITS if width is not None else ((MAX_EDGE_LABEL, MAX_LABEL),)
    for edge_limit, node_limit in limits:
        layout = _layout(
            centre, node_list, edge_list, depth, labels, max_children, edge_limit, node_limit
        )
        if width is None or layout.width <= width:
            break
    return layout


def _layout(  # noqa: C901
    centre: str,
    nodes: Iterable[str],
    edges: Iterable[tuple[str, str, str]],
    depth: int,
    labels: Mapping[str, str] | None,
    max_children: int,
    edge_limit: int,
    node_limit: int,
) -> GraphLayout:
    """The layout with relation labels cut at `edge_limit` and node labels at `node_limit`."""
    names = dict(labels or {})
    edge_list = sorted(set(edges))
    children, edge_labels = _spanning_tree(centre, nodes, edge_list, depth)
    hidden = 0
    for parent, kids in list(children.items()):
        if len(kids) > max_children:
            kept = kids[: max_children - 1]
            overflow = len(kids) - len(kept)
            hidden += overflow
            more_key = MORE_PREFIX + parent
            names[more_key] = f"+{overflow} more"
            children[parent] = [*kept, more_key]

    def label_of(key: str) -> str:
        if key in names:
            return names[key]
        return key[len(UNRESOLVED_PREFIX) :] if key.startswith(UNRESOLVED_PREFIX) else key

    # Depth of every drawn node, and the column widths.
    depth_of = {centre: 0}
    order = [centre]
    for key in order:
        for child in children.get(key, []):
            depth_of[child] = depth_of[key] + 1
            order.append(child)
    parent_of = {child: parent for parent, kids in children.items() for child in kids}
    texts = {
        key: node_text(key, label_of(key), node_kind(key, centre), node_limit) for key in order
    }
    max_depth = max(depth_of.values())
    column_width = [
        max(len(texts[k]) for k in order if depth_of[k] == d) for d in range(max_depth + 1)
    ]
    gap_width = []
    for d in range(1, max_depth + 1):
        longest = max(
            len(_edge_text(edge_labels, parent_of[k], k, edge_limit))
            for k in order
            if depth_of[k] == d
        )
        gap_width.append(longest + 8)
    column_x = [0]
    for d in range(1, max_depth + 1):
        column_x.append(column_x[-1] + column_width[d - 1] + gap_width[d - 1])

    # Rows: leaves take consecutive rows, sibling groups of different parents are one row apart.
    row_of: dict[str, int] = {}
    next_row = 0
    after_gap = True

    def place(key: str) -> int:
        nonlocal next_row, after_gap
        kids = children.get(key, [])
        if not kids:
            row_of[key] = next_row
            next_row += 1
            after_gap = False
            return row_of[key]
        if not after_gap and len(kids) > 1:
            next_row += 1
        rows = [place(kid) for kid in kids]
        row_of[key] = rows[(len(rows) - 1) // 2]
        if depth_of[key] > 0 and not after_gap and len(kids) > 1:
            next_row += 1
            after_gap = True
        return row_of[key]

    place(centre)
    height = max(row_of.values()) + 1
    width = column_x[-1] + column_width[-1]
    cells = [[0] * width for _ in range(height)]
    overlay: dict[tuple[int, int], str] = {}
    placed_labels: list[EdgeLabel] = []
    boxes: list[NodeBox] = []

    for key in order:
        x, y = column_x[depth_of[key]], row_of[key]
        boxes.append(
            NodeBox(
                key=key,
                text=texts[key],
                x=x,
                y=y,
                depth=depth_of[key],
                kind=node_kind(key, centre),
                parent=parent_of.get(key),
            )
        )
        for i, char in enumerate(texts[key]):
            overlay[(x + i, y)] = char
        kids = children.get(key, [])
        if not kids:
            continue
        start = x + len(texts[key]) + 1
        trunk = start + 1
        for cx in range(start, trunk):
            cells[y][cx] |= _LEFT | _RIGHT
        cells[y][trunk] |= _LEFT
        kid_rows = [row_of[k] for k in kids]
        top, bottom = min([*kid_rows, y]), max([*kid_rows, y])
        for ry in range(top, bottom + 1):
            if ry > top:
                cells[ry][trunk] |= _UP
            if ry < bottom:
                cells[ry][trunk] |= _DOWN
        for kid in kids:
            ky = row_of[kid]
            end = column_x[depth_of[kid]] - 2
            cells[ky][trunk] |= _RIGHT
            for cx in range(trunk + 1, end + 1):
                cells[ky][cx] |= _LEFT | _RIGHT
            text = _edge_text(edge_labels, key, kid, edge_limit)
            if text:
                label = f" {text} "
                lx = trunk + 2
                for i, char in enumerate(label):
                    overlay[(lx + i, ky)] = char
                placed_labels.append(EdgeLabel(lx + 1, ky, text))

    overlay_rows: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for (ox, oy), char in overlay.items():
        overlay_rows[oy].append((ox, char))
    lines = []
    for y in range(height):
        row = [_BOX[cells[y][x]] for x in range(width)]
        for ox, char in overlay_rows.get(y, ()):
            row[ox] = char
        lines.append("".join(row).rstrip())
    return GraphLayout(lines=lines, nodes=boxes, labels=placed_labels, hidden=hidden)


def _edge_text(
    edge_labels: Mapping[tuple[str, str], list[str]], parent: str, child: str, limit: int
) -> str:
    """The label of the tree edge parent -> child: its relation types with direction arrows."""
    return shorten(", ".join(edge_labels.get((parent, child), [])), limit)
