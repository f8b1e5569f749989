"""The app's key binding ids and the key syntax, without Textual, so the config can check a keymap.

`[keymap]` in config.toml remaps a binding by its id (`"main.search" = "ctrl+f"`). Every id the
app's screens declare is listed here (a test keeps the list and the app in step), and a key is
checked the way Textual reads one: modifiers joined by `+`, then one key name or character.
"""

from __future__ import annotations

import unicodedata

BINDING_IDS = frozenset(
    {
        "app.back",
        "app.help",
        "app.quit",
        "app.sync",
        "changes.approve",
        "changes.approve_all",
        "changes.close",
        "changes.edit",
        "changes.external_edit",
        "changes.filter",
        "changes.open",
        "changes.reject",
        "changes.revert",
        "clash.later",
        "confirm.cancel",
        "confirm.no",
        "confirm.yes",
        "conflict.edit",
        "conflict.mine",
        "conflict.save",
        "conflict.theirs",
        "deleted.edit",
        "deleted.save",
        "deleted.theirs",
        "dialog.help",
        "editor.close",
        "editor.save",
        "graph.close",
        "graph.depth_less",
        "graph.depth_more",
        "graph.node_down",
        "graph.node_left",
        "graph.node_next",
        "graph.node_previous",
        "graph.node_right",
        "graph.node_up",
        "graph.open",
        "graph.recentre",
        "graph.tab_graph",
        "graph.tab_hubs",
        "graph.tab_orphans",
        "graph.tab_unresolved",
        "help.close",
        "as_of.close",
        "as_of.restore",
        "budget.close",
        "history.as_of",
        "history.close",
        "history.filter",
        "history.undo",
        "hunk.cancel",
        "hunk.done",
        "list.down",
        "list.up",
        "main.budget",
        "main.changes",
        "main.delete",
        "main.edit",
        "main.external_edit",
        "main.graph",
        "main.history",
        "main.labels",
        "main.new",
        "main.protect",
        "main.note_history",
        "main.raw",
        "main.reload",
        "main.rename",
        "main.review",
        "main.search",
        "main.side",
        "main.undo",
        "merged.edit",
        "merged.save",
        "new.cancel",
        "new.submit",
        "protect.cancel",
        "rename.cancel",
        "rename.submit",
        "review.archive",
        "review.archive_all",
        "review.close",
        "review.delete",
        "review.edit",
        "review.keep_both",
        "review.keep_newer",
        "review.open",
        "review.select",
        "review.select_all",
        "review.undo",
        "search.clear",
        "sync.close",
        "sync.now",
        "sync.resolve",
        "search.close",
        "search.results",
        "table.down",
        "table.up",
        "text.down",
        "text.end",
        "text.home",
        "text.page_down",
        "text.page_up",
        "text.up",
        "tree.collapse",
        "tree.down",
        "tree.expand",
        "tree.up",
    }
)
"""Every binding id of the app (what `[keymap]` may remap)."""

MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})
NAMED_KEYS = frozenset(
    {
        "escape",
        "enter",
        "return",
        "tab",
        "space",
        "backspace",
        "delete",
        "insert",
        "home",
        "end",
        "pageup",
        "pagedown",
        "up",
        "down",
        "left",
        "right",
        "slash",
        "backslash",
        "at",
        "minus",
        "plus",
        "underscore",
        "hyphen_minus",
        "less_than_sign",
        "greater_than_sign",
        *(f"f{number}" for number in range(1, 25)),
    }
)
"""Key names that are not a character's Unicode name with `_` for spaces."""


def key_problem(key: str) -> str | None:
    """Why `key` (one key, like `ctrl+f`) is not a key Textual understands, or None if it is."""
    *modifiers, name = key.split("+")
    unknown = [modifier for modifier in modifiers if modifier not in MODIFIERS]
    if unknown or len(set(modifiers)) != len(modifiers):
        return f'"{key}" has a modifier memtui does not know (use ctrl, shift, alt or meta)'
    if not name:
        return f'"{key}" names no key'
    if len(name) == 1 and name.isprintable() and not name.isspace():
        return None
    if name in NAMED_KEYS:
        return None
    try:
        unicodedata.lookup(name.replace("_", " ").upper())
    except KeyError:
        return f'"{key}" is not a key name (like escape, f5, slash, a or ctrl+s)'
    return None


def keys_problem(keys: str) -> str | None:
    """Why a comma-separated list of keys is not valid, or None if every key is."""
    parts = [part.strip() for part in keys.split(",")]
    if not keys.strip() or not all(parts):
        return f'"{keys}" is not a list of keys (like "ctrl+f" or "s,ctrl+f")'
    for part in parts:
        problem = key_problem(part)
        if problem is not None:
            return problem
    return None
