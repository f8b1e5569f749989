"""`memtui mcp --http`: streamable HTTP on 127.0.0.1 with the MCP SDK's HTTP client."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from memtui.core.store import MemoryStore
from tests.agents.mcp_client import result_text
from tests.agents.test_mcp_raw import INITIALIZE

TOKEN = "memtui-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Block until the server accepts connections (or fail with its stderr)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(process.stderr.read().decode() if process.stderr else "exited")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("memtui mcp --http did not start listening")


async def test_http_round_trip(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp", str(tmp_path), "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "MEMTUI_MCP_TOKEN": TOKEN},
    )
    try:
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        client_info = Implementation(name="http-agent", version="1.0")
        async with (
            httpx2.AsyncClient(headers=AUTH) as http_client,
            streamable_http_client(url, http_client=http_client) as (read, write),
            ClientSession(read, write, client_info=client_info) as session,
        ):
            await session.initialize()
            created = await session.call_tool(
                "memory", {"command": "create", "path": "/memories/h.md", "file_text": "web\n"}
            )
            refused = await session.call_tool(
                "memory", {"command": "create", "path": "/memories/h.md", "file_text": "web\n"}
            )
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()
    assert (result_text(created), created.is_error) == (
        "File created successfully at: /memories/h.md",
        False,
    )
    assert (result_text(refused), refused.is_error) == (
        "Error: File /memories/h.md already exists",
        True,
    )
    assert (tmp_path / "h.md").read_bytes() == b"web\n"
    events = MemoryStore(tmp_path).history.events(newest_first=False)
    assert [(event.actor, event.command, event.is_error) for event in events] == [
        ("agent:http-agent", "create", False),
        ("agent:http-agent", "create", True),
    ]
    assert events[0].session == events[1].session


def listening_addresses(port: int) -> set[str]:
    """The local addresses (hex, as in /proc/net/tcp*) of sockets listening on `port`."""
    addresses = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                addresses.add(address)
    return addresses


def test_http_listens_on_loopback_only_and_checks_host(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memtui",
            "mcp",
            str(tmp_path),
            "--http",
            "--port",
            str(port),
            "--token",
            TOKEN,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        assert listening_addresses(port) == {"0100007F"}
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream", **AUTH}
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        spoofed = httpx2.post(url, json=body, headers={**headers, "Host": "evil.example"})
        foreign = httpx2.post(url, json=body, headers={**headers, "Origin": "http://evil.example"})
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert spoofed.status_code == 421
    assert foreign.status_code == 403


def test_http_requires_the_bearer_token_it_prints(tmp_path: Path) -> None:
    """Without MEMTUI_MCP_TOKEN or --token a token is made and printed; only it is served."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "MEMTUI_MCP_TOKEN"}
    process = subprocess.Popen(
        [sys.executable, "-m", "memtui", "mcp", str(tmp_path), "--http", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline().decode()
        prefix = (
            f"memtui mcp: serving http://127.0.0.1:{port}/mcp; clients must send the header "
            "Authorization: Bearer "
        )
        assert line.startswith(prefix), line
        token = line[len(prefix) :].strip()
        assert len(token) >= 32
        wait_for_port(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"Accept": "application/json, text/event-stream"}
        body = INITIALIZE[0]
        missing = httpx2.post(url, json=body, headers=headers)
        wrong = httpx2.post(url, json=body, headers={**headers, "Authorization": "Bearer nope"})
        basic = httpx2.post(url, json=body, headers={**headers, "Authorization": f"Basic {token}"})
        right = httpx2.post(url, json=body, headers={**headers, "Authorization": f"Bearer {token}"})
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr is not None:
            process.stderr.close()
    for refused in (missing, wrong, basic):
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == 'Bearer realm="memtui"'
    assert right.status_code == 200
    assert (
        not (tmp_path / ".memtui" / "history.db").exists()
        or MemoryStore(tmp_path).history.count_events() == 0
    )


def test_a_short_token_is_refused_at_start(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "mcp", str(tmp_path), "--http", "--token", "short"],
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"memtui mcp: --token: the token must be at least 16 characters long\n"
