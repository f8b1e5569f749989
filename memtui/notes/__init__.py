"""The knowledge layer: parse notes, index relations, search and review (never imports textual)."""
