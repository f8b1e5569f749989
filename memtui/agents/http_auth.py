"""Bearer-token check for `memtui mcp --http`: only a client that holds the token is served.

Listening on 127.0.0.1 keeps other machines out, not other local processes (another user's, a
browser tab's fetch); every request must carry `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import hmac
import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_ENV = "MEMTUI_MCP_TOKEN"
"""The environment variable a token can be given in (kept out of `ps`, unlike `--token`)."""
MIN_TOKEN_LENGTH = 16


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_problem(token: str) -> str | None:
    """Why `token` is not usable (too short, or not printable ASCII), or None."""
    if len(token) < MIN_TOKEN_LENGTH:
        return f"the token must be at least {MIN_TOKEN_LENGTH} characters long"
    if not token.isascii() or not token.isprintable() or " " in token:
        return "the token must be printable ASCII without spaces"
    return None


class BearerAuth:
    """ASGI middleware: HTTP requests without the right bearer token get 401; others pass."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        """Guard `app` with `token`."""
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass lifespan events and authorised requests through; refuse the rest."""
        if scope["type"] != "http" or self._authorised(scope):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {"error": "unauthorized", "message": "send the header Authorization: Bearer <token>"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="memtui"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    def _authorised(self, scope: Scope) -> bool:
        """True if the request's Authorization header is `Bearer <the token>`: the scheme in any
        case (RFC 9110), then one or more spaces."""
        for name, value in scope.get("headers", []):
            if name.lower() == b"authorization":
                scheme, space, credentials = bytes(value).partition(b" ")
                if not space or scheme.lower() != b"bearer":
                    return False
                return hmac.compare_digest(credentials.lstrip(b" "), self._token)
        return False
