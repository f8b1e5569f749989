"""The command core: the one validated place that changes a memory directory (never imports
textual)."""
