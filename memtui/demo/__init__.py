"""The bundled demo store: realistic notes plus a backdated history, for `memtui --demo`
and tests."""

from __future__ import annotations

from memtui.demo.bundled import DEMO_NOTES_DIR, demo_note_paths
from memtui.demo.script import DEMO_NOW, create_demo_store, demo_clock

__all__ = ["DEMO_NOTES_DIR", "DEMO_NOW", "create_demo_store", "demo_clock", "demo_note_paths"]
