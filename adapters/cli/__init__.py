"""The ``toolkit`` command line: inspect and call tools, talk to MCP servers, serve, demo."""

from adapters._extras import require

require("adapters.cli", "cli")

from adapters.cli._app import app, main

__all__ = ["app", "main"]
