"""The history and what it keeps: events, blobs, reviews and file state; what an event records
of a call; the queries over it (lineage, the inbox, a listing's entries)."""
