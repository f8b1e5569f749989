"""Reliability and security proofs: crash safety, concurrency, hostile stores, traversal,
bad input."""
