"""The layering rule at run time: what importing core, notes and agents really loads.

The import-linter contracts in pyproject.toml (run by `.ci/lint`) check the import graph of
memtui's own modules; these tests also catch textual arriving through a third-party package.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import grimp
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
        "memtui.core.parsing.tool_input",
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


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The import cycles of `graph`: each strongly connected set of two or more modules, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == module:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
            elif target not in index:
                index[target] = low[target] = len(index)
                stack.append(target)
                on_stack.add(target)
                work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
            elif target in on_stack:
                low[module] = min(low[module], index[target])
    return sorted(found)


def _cycle_imports(graph: grimp.ImportGraph, members: list[str]) -> list[str]:
    """Each import between the members of one cycle, as `importer:line: import statement`."""
    lines = []
    for importer in members:
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            if imported in members:
                for detail in graph.get_import_details(importer=importer, imported=imported):
                    lines.append(f"{importer}:{detail['line_number']}: {detail['line_contents']}")
    return lines


def test_no_import_cycle_even_through_a_function_level_import() -> None:
    """No memtui module reaches itself again through imports, those made inside functions
    included (a cycle hidden behind a deferred import is still a cycle); imports under
    `TYPE_CHECKING` never run and are left out."""
    graph = grimp.build_graph("memtui", cache_dir=None, exclude_type_checking_imports=True)
    cycles = {" <-> ".join(members): _cycle_imports(graph, members) for members in _cycles(graph)}
    assert cycles == {}


def test_a_cycle_is_found_through_a_function_level_import() -> None:
    """The check above sees a cycle that only a function-level import closes."""
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b", line_number=1, line_contents="import b")
    graph.add_import(importer="pkg.b", imported="pkg.c", line_number=1, line_contents="import c")
    graph.add_import(
        importer="pkg.c", imported="pkg.a", line_number=9, line_contents="    from pkg import a"
    )
    assert _cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]
    assert (
        _cycle_imports(graph, ["pkg.a", "pkg.b", "pkg.c"])[-1] == "pkg.c:9:     from pkg import a"
    )


def _start_up_contract() -> dict[str, Any]:
    """The import-linter contract of what the app's first frame may import (pyproject.toml)."""
    pyproject = Path(__file__).parent.parent / "pyproject.toml"
    contracts = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]["contracts"]
    [contract] = [c for c in contracts if c["name"].startswith("Start-up:")]
    return dict(contract)


def _is_forbidden(module: str, patterns: list[str]) -> bool:
    """Whether `module` is one of the contract's forbidden modules (`.**`: anything below)."""
    return any(
        module.startswith(pattern.removesuffix("**"))
        if pattern.endswith(".**")
        else module == pattern
        for pattern in patterns
    )


def _first_frame_modules() -> set[str]:
    """The modules loaded by what `memtui` runs before the app's first frame: the start-up
    contract's sources (the command line, the app) and the settings."""
    sources = ", ".join(_start_up_contract()["source_modules"])
    return _modules_after_import(
        f"{sources}; from memtui.core.config import load_settings; load_settings()"
    )


def test_the_first_frame_loads_none_of_the_modules_it_defers() -> None:
    """Nothing before the first frame loads a forbidden module of the start-up contract: the
    deferrals its `ignore_imports` lists really are deferred, not moved to the top of their
    modules."""
    forbidden = _start_up_contract()["forbidden_modules"]
    assert {m for m in _first_frame_modules() if _is_forbidden(m, forbidden)} == set()


def test_the_first_frame_takes_from_core_only_its_vocabulary() -> None:
    """Before the first frame the app uses the core's settings, names and wording, nothing of a
    command's path but the regular-file reader the settings are read with."""
    core = {m for m in _first_frame_modules() if m.startswith("memtui.core.")}
    assert core <= {
        "memtui.core.actors",
        "memtui.core.config",
        "memtui.core.config_tables",
        "memtui.core.config_sync",
        "memtui.core.display",
        "memtui.core.keymap",
        "memtui.core.plurals",
        "memtui.core.reporting",
        "memtui.core.result",
        "memtui.core.resolving",
        "memtui.core.resolving.regular",
        "memtui.core.timeframe",
    }


def test_a_sync_loads_none_of_the_command_machinery() -> None:
    """`memtui sync PATH` starts without what only the memory-tool commands and the app use."""
    loaded = _modules_after_import("memtui.cli, memtui.cli.sync_cmd, memtui.notes.sync.driver")
    assert "memtui.core.store" in loaded
    deferred = {
        "memtui.core.applying.approving",
        "memtui.core.applying.dispatch",
        "memtui.core.applying.guard",
        "memtui.core.applying.handlers",
        "memtui.core.parsing.tool_input",
        "calendar",
        "ctypes",
        "difflib",
        "merge3",
        "secrets",
        "socket",
        "tomllib",
        "uuid",
    }
    assert loaded & deferred == set()


def test_a_sync_head_start_loads_neither_the_store_nor_the_sync_machinery() -> None:
    """`memtui sync` takes its lock and starts the fetch before the store and the sync's
    machinery load, so git fetches while Python imports them."""
    loaded = _modules_after_import("memtui.cli, memtui.cli.sync_cmd, memtui.notes.sync.head_start")
    assert "memtui.notes.sync.head_start" in loaded
    heavy = {"memtui.core.store", "memtui.core.recording.history", "memtui.notes.sync.driver"}
    assert loaded & heavy == set()
