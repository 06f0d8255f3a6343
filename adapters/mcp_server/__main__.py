"""``python -m adapters.mcp_server TARGET [options]``: the ``toolkit serve`` command."""

import typer

from adapters.mcp_server._cli import serve_cli

if __name__ == "__main__":
    typer.run(serve_cli)
