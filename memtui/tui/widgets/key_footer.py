"""The footer of memtui's screens: when the keys do not fit, the least needed ones go first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.app import ComposeResult

KEPT_ACTIONS = frozenset({"quit", "back", "close", "cancel"})
"""Keys a narrow footer never hides: quitting and leaving the screen or dialog."""
PALETTE_WIDTH = 14
"""Cells the command palette's key takes at the footer's right end."""


def key_width(key: FooterKey) -> int:
    """The cells a footer key takes: ` key description ` (its padding included)."""
    return cell_len(key.key_display) + cell_len(key.description) + 3


def drop_order(
    keys: list[FooterKey], ids: dict[str, str], drops: tuple[str, ...]
) -> list[FooterKey]:
    """The keys in the order a narrow footer hides them: those whose binding id the screen
    lists in `drops` (in that order), then the rest from the right; never quit or back."""
    listed = sorted(
        (key for key in keys if ids.get(key.action) in drops),
        key=lambda key: drops.index(ids[key.action]),
    )
    rest = [
        key
        for key in reversed(keys)
        if key not in listed and key.action.rpartition(".")[2] not in KEPT_ACTIONS
    ]
    return listed + rest


class KeyFooter(Footer):
    """A footer that fits its width: it hides the screen's `FOOTER_DROPS` binding ids first,
    then other keys from the right, and always shows quit, back and the palette."""

    def compose(self) -> ComposeResult:
        """The keys, F1 last (after the screen's own), fitted to the width once laid out."""
        keys = list(super().compose())
        help_keys = [key for key in keys if getattr(key, "action", "").endswith("help")]
        yield from (key for key in keys if key not in help_keys)
        yield from help_keys
        self.call_after_refresh(self.fit_keys)

    def on_resize(self) -> None:
        """Fit the keys to the new width."""
        self.fit_keys()

    def fit_keys(self) -> None:
        """Show as many keys as fit, hiding the least needed ones first."""
        keys = [key for key in self.query(FooterKey) if not key.has_class("-command-palette")]
        if not keys or not self.size.width:
            return
        ids = {
            active.binding.action: active.binding.id or ""
            for active in self.screen.active_bindings.values()
        }
        drops: tuple[str, ...] = getattr(self.screen, "FOOTER_DROPS", ())
        palette = PALETTE_WIDTH if self.query(".-command-palette") else 0
        room = self.size.width - palette
        total = sum(key_width(key) for key in keys)
        hidden: set[FooterKey] = set()
        for key in drop_order(keys, ids, drops):
            if total <= room:
                break
            hidden.add(key)
            total -= key_width(key)
        for key in keys:
            key.display = key not in hidden
