"""The Textual-free keymap registry the config checks against matches the app's bindings."""

from __future__ import annotations

import textual.keys

from memtui.core.keymap import BINDING_IDS, key_problem, keys_problem
from tests.tui.test_conventions import memtui_node_classes


def app_bindings() -> dict[str, str]:
    """Binding id -> default keys, for every binding the app's screens and widgets declare."""
    bindings: dict[str, str] = {}
    for cls in memtui_node_classes():
        for binding in vars(cls).get("BINDINGS", []):
            bindings[binding.id] = binding.key
    return bindings


def test_the_registry_holds_exactly_the_app_binding_ids() -> None:
    assert set(app_bindings()) == BINDING_IDS


def test_every_default_key_of_the_app_passes_the_key_check() -> None:
    assert {bid: keys_problem(keys) for bid, keys in app_bindings().items()} == dict.fromkeys(
        app_bindings()
    )


def test_every_key_textual_names_passes_the_key_check() -> None:
    names = [key.value for key in textual.keys.Keys if not key.value.startswith("<")]
    names += list(textual.keys.KEY_TO_UNICODE_NAME) + list(textual.keys.REPLACED_KEYS)
    assert [name for name in names if name != "ctrl-at" and key_problem(name)] == []
