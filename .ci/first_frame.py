"""Run a memtui command in a pseudo-terminal until its first frame, then quit it with ctrl+q.

Exit 0 when the frame was drawn and the app quit cleanly; 1 otherwise, printing what it showed.
Used by .ci/wheel-smoke to prove an installed (not editable) package starts.
"""

import os
import pty
import select
import sys
import tempfile
import time
from pathlib import Path

LIMIT = 60.0


def main(command: list[str]) -> int:
    """Start `command` on a pty, wait for its first-frame marker, quit it, check its exit."""
    marker = Path(tempfile.mkdtemp()) / "first-frame"
    env = dict(os.environ, MEMTUI_FIRST_FRAME_FILE=str(marker), TERM="xterm-256color")
    env.update(COLUMNS="120", LINES="40")
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(command[0], command, env)
    output = bytearray()
    deadline = time.monotonic() + LIMIT
    quit_sent = False
    while time.monotonic() < deadline:
        if marker.exists() and not quit_sent:
            os.write(fd, b"\x11")
            quit_sent = True
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            break
        output += chunk
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if marker.exists() and code == 0:
        print(f"first frame drawn, then quit with exit 0: {' '.join(command)}")
        return 0
    tail = output.decode("utf-8", "replace")[-2000:]
    print(f"no clean first frame from {' '.join(command)}:\n{tail}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
