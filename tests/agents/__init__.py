"""Tests of the agent adapters: Anthropic SDK tool, MCP server, prompts, example."""
