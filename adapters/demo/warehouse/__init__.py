"""A small warehouse domain: bins, stock and moves, as a team would already have it.

The functions are ordinary business code with type hints and docstrings; ``@mcp_tool`` makes
them tools without changing how the rest of the application calls them.
"""
