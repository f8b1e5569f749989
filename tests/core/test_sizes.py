"""The listing size format matches the SDK's `_format_file_size` exactly."""

from __future__ import annotations

import pytest

from memtui.core.applying.sizes import format_size


@pytest.mark.parametrize(
    ("size", "expected"),
    [
        (0, "0B"),
        (1, "1B"),
        (1023, "1023B"),
        (1024, "1K"),
        (1025, "1.0K"),
        (1126, "1.1K"),
        (1536, "1.5K"),
        (4096, "4K"),
        (10240, "10K"),
        (10291, "10.0K"),
        (1048575, "1024.0K"),
        (1048576, "1M"),
        (1572864, "1.5M"),
        (2**30, "1G"),
        (2**40, "1024G"),
        (2**40 + 2**29, "1024.5G"),
    ],
)
def test_format_size_table(size: int, expected: str) -> None:
    assert format_size(size) == expected


def test_format_size_agrees_with_sdk_function() -> None:
    from anthropic.lib.tools._beta_builtin_memory_tool import _format_file_size

    sizes = [*range(0, 5000), *(2**k + d for k in range(10, 45) for d in (-1, 0, 1, 51, 103))]
    assert [format_size(n) for n in sizes] == [_format_file_size(n) for n in sizes]
