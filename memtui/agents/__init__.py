"""What agents talk to: the Anthropic SDK tool class, the MCP server and memory prompts."""
