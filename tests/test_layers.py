"""The layering rule at run time: what importing core, notes and agents really loads.

The import-linter contracts in pyproject.toml (run by `.ci/lint`) check the import graph of
memtui's own modules; these tests also catch textual arriving through a third-party package.
"""

from __future__ import annotations

import subprocess
import sys

import pytest


def _modules_after_import(module: str) -> set[str]:
    """Import `module` in a fresh interpreter and return every module name it pulled in."""
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


@pytest.mark.parametrize(
    "module",
    [
        "memtui.core.store",
        "memtui.core.commands",
        "memtui.notes.index",
        "memtui.notes.search",
        "memtui.notes.stale",
        "memtui.agents",
        "memtui.agents.mcp_server",
        "memtui.agents.anthropic",
    ],
)
def test_non_ui_layers_never_import_textual(module: str) -> None:
    loaded = _modules_after_import(module)
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_core_imports_no_other_memtui_layer() -> None:
    loaded = _modules_after_import("memtui.core.store")
    others = {m for m in loaded if m.startswith(("memtui.notes", "memtui.agents", "memtui.tui"))}
    assert others == set()


def test_agents_import_only_core_and_notes() -> None:
    """Every agents module loads without the CLI or the app (agents build on core and notes)."""
    from pathlib import Path

    import memtui.agents

    folder = Path(memtui.agents.__file__).parent
    modules = sorted(f"memtui.agents.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__")
    loaded = _modules_after_import(", ".join(modules))
    assert {m for m in loaded if m.startswith(("memtui.cli", "memtui.tui"))} == set()
