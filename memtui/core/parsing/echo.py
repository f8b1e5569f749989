"""Caps on echoed and recorded text, so a huge argument cannot flood a reply or the history (M5)."""

from __future__ import annotations

import hashlib

ECHO_LIMIT = 4096
"""Characters of an argument a message echoes before it is cut (spec rule M5)."""
RECORD_LIMIT = 4096
"""Characters of any argument a refused or failed call keeps in the history."""
RESULT_LIMIT = 16384
"""Characters of a refused or failed call's result kept: every message with its echoed
arguments (M5) fits whole, so the history holds exactly what the caller was told."""


def echo(text: str) -> str:
    """`text` for a message: whole up to 4,096 characters, else its head and `… (N more
    characters)`."""
    if len(text) <= ECHO_LIMIT:
        return text
    return f"{text[:ECHO_LIMIT]}… ({len(text) - ECHO_LIMIT} more characters)"


def capped(text: str) -> str:
    """`text` as the history keeps it for a refused or failed call: whole, or head, length and hash.

    Over the limit it becomes `<head>… (N characters in all, sha256 <hex>)`, so the record still
    identifies the exact input without storing it.
    """
    if len(text) <= RECORD_LIMIT:
        return text
    digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
    return f"{text[:RECORD_LIMIT]}… ({len(text)} characters in all, sha256 {digest})"
