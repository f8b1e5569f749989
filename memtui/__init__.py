"""memtui: see, search and curate what AI agents keep in their file-based memory."""

__version__ = "0.1.0"


def installed_version() -> str:
    """The installed package's version (from its metadata), as `--version` and MCP report it.

    `importlib.metadata` is imported here, not at the top: it costs about 20 ms, which every
    `memtui` command would pay at start-up.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memtui")
    except PackageNotFoundError:
        return "unknown (not installed)"
