"""Paths on folder descriptors, so no path leaves the store: the walk, regular files only,
`.memtui` and the cross-process lock."""
