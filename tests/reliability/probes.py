"""Entry points run in a child process so a hang is killed at its bound: index, MCP tools, app.

`python -m tests.reliability.probes index|mcp|app ROOT` prints one line `PROBE <json>`; the
mcp probe reads its calls as JSON from stdin.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MARKER = "PROBE "
SEARCH_QUERY = "well-formed note"
OPENED = (
    "huge-20mb.md",
    "million-lines.md",
    "one-long-line.md",
    "nul-bytes.md",
    "invalid-utf8.md",
    "tab\there.md",
    "alias-bomb.md",
    "fifo.md",
    "unreadable.md",
)
"""The bad notes the app probe opens in the preview, through the tree."""


class ProbeTimeout(Exception):
    """The probe did not finish within its bound."""


def run_probe(kind: str, root: Path, bound: float, payload: object = None) -> dict[str, Any]:
    """Run one probe on `root` in a child process; kill it and raise after `bound` seconds.

    `payload` is sent to the probe as JSON on stdin.
    """
    try:
        process = subprocess.run(
            [sys.executable, "-m", "tests.reliability.probes", kind, str(root)],
            cwd=REPO,
            capture_output=True,
            timeout=bound,
            input=json.dumps(payload).encode(),
        )
    except subprocess.TimeoutExpired as error:
        raise ProbeTimeout(f"{kind} probe did not finish within {bound} s") from error
    out = process.stdout.decode("utf-8", "replace")
    err = process.stderr.decode("utf-8", "replace")
    lines = [line for line in out.splitlines() if line.startswith(MARKER)]
    assert process.returncode == 0 and lines, f"{kind} probe failed:\n{err[-3000:]}"
    report: dict[str, Any] = json.loads(lines[-1][len(MARKER) :])
    report["stderr"] = err
    return report


def index_report(root: Path) -> dict[str, Any]:
    """Load the NoteIndex of `root`: seconds, problems, notes and every note's warnings."""
    from memtui.notes.index import NoteIndex
    from tests.reliability.hostile import OUTSIDE_MARKER

    started = time.perf_counter()
    index = NoteIndex.load(root)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "problems": list(index.problems),
        "notes": sorted(index.notes),
        "warnings": {name: index.notes[name].warnings for name in index.notes},
        "leak": any(OUTSIDE_MARKER in text for text in index.texts.values()),
    }


async def mcp_report(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Every call through an MCP client session on a server for `root`: seconds and answers."""
    from mcp import Client

    from memtui.agents.mcp_server import MemoryService, build_server

    answers: dict[str, str] = {}
    started = time.perf_counter()
    service = MemoryService(root, actor="hostile")
    async with Client(build_server(service)) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            answers[f"{name} {arguments.get('path', '')}".strip()] = text
    return {"seconds": time.perf_counter() - started, "answers": answers}


async def _until(pilot: Any, condition: Any, timeout: float) -> bool:
    """Pause until `condition()` holds or `timeout` seconds passed."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            return False
        await pilot.pause(0.05)
    return True


async def _open_note(pilot: Any, name: str) -> dict[str, Any]:
    """Show one note in the main screen's preview; what the header and warnings say."""
    screen = pilot.app.screen
    preview = screen.preview

    def header() -> str:
        return str(preview.query_one("#preview-header").render())

    started = time.perf_counter()
    screen.show_path(name)
    shown = await _until(
        pilot,
        lambda: preview.relpath == name or header().startswith(f"Cannot read {name}"),
        60.0,
    )
    await pilot.pause()
    box = preview.query_one("#preview-warnings")
    cursor = screen.note_tree.cursor_entry
    return {
        "shown": shown,
        "in_tree": cursor is not None and cursor.relpath == name,
        "seconds": time.perf_counter() - started,
        "header": header(),
        "warnings": str(box.render()) if box.display else "",
        "mode": preview.mode,
    }


async def app_report(root: Path) -> dict[str, Any]:
    """Open the app on `root`, let the index finish, open the bad notes and search."""
    from memtui.tui.app import MemtuiApp

    app = MemtuiApp(root, actor="human:probe", watch=False)
    report: dict[str, Any] = {}
    started = time.perf_counter()
    async with app.run_test(size=(120, 40)) as pilot:
        ready = await _until(
            pilot,
            lambda: (
                app.ctx.index is not None
                and app.index_current
                and app.ctx.searcher is not None
                and app.badges
            ),
            300.0,
        )
        report["index_ready"] = ready
        report["index_seconds"] = time.perf_counter() - started
        report["notifications"] = [str(n.message) for n in app._notifications]
        report["badges"] = {name: sorted(kinds) for name, kinds in app.badges.items()}
        report["opened"] = {name: await _open_note(pilot, name) for name in OPENED}
        searched = time.perf_counter()
        await pilot.press("slash")
        screen = app.screen
        await pilot.press(*SEARCH_QUERY)
        report["search_done"] = await _until(
            pilot,
            lambda: (
                getattr(screen, "shown_query", None) == SEARCH_QUERY
                and str(screen.query_one("#search-status").render()) != "searching…"
            ),
            60.0,
        )
        report["search_hits"] = sorted({hit.path for hit in getattr(screen, "hits", [])})
        report["search_seconds"] = time.perf_counter() - searched
        await pilot.press("escape")
    report["seconds"] = time.perf_counter() - started
    return report


def main(argv: list[str]) -> int:
    """Run the probe named by argv[0] on the store argv[1] and print its report."""
    kind, root = argv[0], Path(argv[1])
    if kind == "index":
        report = index_report(root)
    elif kind == "mcp":
        report = asyncio.run(mcp_report(root, json.load(sys.stdin)))
    else:
        report = asyncio.run(app_report(root))
    print(MARKER + json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
