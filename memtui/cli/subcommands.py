"""The subcommands of `memtui` and the module that registers and runs each."""

from __future__ import annotations

SUBCOMMANDS: dict[str, str] = {
    "tool": "memtui.cli.tool_cmd",
    "log": "memtui.cli.log_cmd",
    "undo": "memtui.cli.undo_cmd",
    "changes": "memtui.cli.changes_cmd",
    "show": "memtui.cli.show_cmd",
    "approve": "memtui.cli.approve_cmd",
    "reject": "memtui.cli.reject_cmd",
    "policy": "memtui.cli.policy_cmd",
    "protect": "memtui.cli.protect_cmd",
    "edit": "memtui.cli.edit_cmd",
    "mv": "memtui.cli.mv_cmd",
    "rm": "memtui.cli.rm_cmd",
    "export": "memtui.cli.export_cmd",
    "search": "memtui.cli.search_cmd",
    "stale": "memtui.cli.stale_cmd",
    "budget": "memtui.cli.budget_cmd",
    "mcp": "memtui.cli.mcp_cmd",
    "sync": "memtui.cli.sync_cmd",
    "resolve": "memtui.cli.resolve_cmd",
}
"""Subcommand name -> module with `register(subparsers)` and `run(args) -> int`."""
