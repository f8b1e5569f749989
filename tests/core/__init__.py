"""Tests of the command core: the six commands, paths, history, store and config."""
