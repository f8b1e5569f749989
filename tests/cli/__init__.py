"""Tests of the `memtui` command line: every subcommand run as a user runs it."""
