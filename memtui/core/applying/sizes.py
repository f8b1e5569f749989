"""Human-readable sizes for directory listings, exactly as the memory tool prints them."""

from __future__ import annotations

_UNITS = ("B", "K", "M", "G")


def format_size(size: int) -> str:
    """Format a byte count like the SDK: `0B`, `1023B`, `1K`, `1.0K` (1025), `1.5M`, `1024G`."""
    if size == 0:
        return "0B"
    unit_index = min((size.bit_length() - 1) // 10, len(_UNITS) - 1)
    value = size / (1024**unit_index)
    if value == int(value):
        return f"{int(value)}{_UNITS[unit_index]}"
    return f"{value:.1f}{_UNITS[unit_index]}"
