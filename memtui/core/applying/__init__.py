"""A command carried out on folder descriptors: `view`, the five changes planned then written
atomically, the before/after states the history keeps, and undo."""
