"""`python -m memtui` is the `memtui` command."""

from memtui.cli import entry

entry()
