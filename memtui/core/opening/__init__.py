"""The first command of a process: start-up recovery (stale temp files, outside changes) and
the baseline of a folder never seen."""
