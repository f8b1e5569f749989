"""Estimated tokens of memory text, offline: one token per started 4 bytes of UTF-8.

This is the estimate Letta's `letta memory tokens` and its start-up warning use for `system/`
(after Codex's `APPROX_BYTES_PER_TOKEN = 4`), so a Letta store's total here is the total its
own 20,000-token guidance is stated in. Measured against real tokenizers on memory-shaped text
(docs/performance.md: the demo store, Basic Memory's notes, the labelled statements), Anthropic's
published legacy Claude tokenizer gives 3.6-3.8 bytes per token and OpenAI's o200k 3.7-4.2, so
the estimate is within about 10% (low for Claude); text in non-Latin scripts, with more bytes
per character, is estimated higher than it tokenizes. No tokenizer and no network are needed,
and a file's estimate comes from its size alone, without reading it.
"""

from __future__ import annotations

BYTES_PER_TOKEN = 4


def tokens_for_bytes(size: int) -> int:
    """Estimated tokens of `size` bytes of text."""
    return -(-max(size, 0) // BYTES_PER_TOKEN)


def estimate_tokens(text: str) -> int:
    """Estimated tokens of a text."""
    return tokens_for_bytes(len(text.encode("utf-8", errors="surrogatepass")))
