"""``python -m adapters.mcp_server TARGET [options]``: the ``toolkit serve`` command."""

import typer

from adapters.cli._serve import serve_cli

if __name__ == "__main__":
    typer.run(serve_cli)
