"""memtui: see, search and curate what AI agents keep in their file-based memory."""

__version__ = "0.1.0"
