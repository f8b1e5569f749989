"""The store's access policy: which agent may write, must have its change reviewed, may only read,
or sees nothing, per path glob (`.memtui/policy.toml`, and `read_only: true` frontmatter)."""
