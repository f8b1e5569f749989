"""The HTTP transport's token check, on the ASGI layer: the `Bearer` scheme in any case, the token
exactly."""

from __future__ import annotations

from typing import Any

import pytest

from memtui.agents.http_auth import BearerAuth

TOKEN = "a-token-of-sufficient-length-0123"


async def status_for(authorization: bytes | None) -> int:
    """The status BearerAuth gives a request with this Authorization header (200: passed on)."""
    passed: list[bool] = []

    async def app(_scope: Any, _receive: Any, _send: Any) -> None:
        passed.append(True)

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(dict(message))

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    headers = [(b"host", b"127.0.0.1")]
    if authorization is not None:
        headers.append((b"authorization", authorization))
    await BearerAuth(app, TOKEN)({"type": "http", "headers": headers}, receive, send)
    if passed:
        return 200
    return int(sent[0]["status"])


@pytest.mark.parametrize("scheme", [b"Bearer", b"bearer", b"BEARER", b"bEaReR"])
async def test_the_scheme_is_matched_in_any_case(scheme: bytes) -> None:
    assert await status_for(scheme + b" " + TOKEN.encode()) == 200
    assert await status_for(scheme + b"   " + TOKEN.encode()) == 200


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        b"",
        b"Bearer",
        b"Bearer ",
        b"Bearer" + TOKEN.encode(),
        b"Basic " + TOKEN.encode(),
        b"Bearer " + TOKEN.upper().encode(),
        b"Bearer " + TOKEN.encode() + b"x",
        b"Bearer " + TOKEN[:-1].encode(),
        b"Bearer x " + TOKEN.encode(),
    ],
)
async def test_anything_but_the_token_is_refused(authorization: bytes | None) -> None:
    assert await status_for(authorization) == 401
