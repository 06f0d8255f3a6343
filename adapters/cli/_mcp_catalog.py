"""``toolkit mcp resources|read|prompts|prompt``: a config's remote resources and prompts."""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from adapters.mcp_client import McpClientPool

__all__ = ["add_catalog_commands"]

_out = Console()
_err = Console(stderr=True)

Runner = Callable[[Path, Callable[[McpClientPool], Awaitable[Any]]], Any]
ConfigArg = Annotated[Path, typer.Argument(help="A JSON or YAML file with 'mcpServers'.")]


#: What a table shows where the server said nothing (a MIME type it did not declare).
_NONE = "—"


def _print(text: str) -> None:
    _out.print(text, soft_wrap=True, markup=False, highlight=False)


def add_catalog_commands(app: typer.Typer, run: Runner) -> None:
    """Add the commands to ``app``; ``run(config, work)`` opens the pool and reports errors."""

    @app.command("resources")
    def resources(config: ConfigArg, server: str) -> None:
        """List the resources and resource templates of one server."""

        async def work(pool: McpClientPool) -> None:
            table = Table("URI", "name", "MIME type", "description", title=f"{server}: resources")
            for r in await pool.resources(server):
                table.add_row(str(r.uri), r.name, r.mime_type or _NONE, r.description or "")
            for t in await pool.resource_templates(server):
                table.add_row(t.uri_template, t.name, t.mime_type or _NONE, t.description or "")
            _out.print(table)

        run(config, work)

    @app.command("read")
    def read(config: ConfigArg, server: str, uri: str) -> None:
        """Print the contents at URI (binary contents as a line naming their size)."""

        async def work(pool: McpClientPool) -> None:
            for item in (await pool.read_resource(server, uri)).contents:
                text = getattr(item, "text", None)
                if text is not None:
                    _print(text)
                else:
                    size = len(base64.b64decode(getattr(item, "blob", "") or ""))
                    _print(f"[binary {item.uri}: {item.mime_type}, {size:,} bytes]")

        run(config, work)

    @app.command("prompts")
    def prompts(config: ConfigArg, server: str) -> None:
        """List the prompts of one server with their arguments (* required)."""

        async def work(pool: McpClientPool) -> None:
            table = Table("name", "arguments", "description", title=f"{server}: prompts")
            for p in await pool.prompts(server):
                args = ", ".join(a.name + ("*" if a.required else "") for a in p.arguments or [])
                table.add_row(p.name, args, p.description or "")
            _out.print(table)

        run(config, work)

    @app.command("prompt")
    def prompt(
        config: ConfigArg,
        server: str,
        name: str,
        arguments: Annotated[str, typer.Argument(help="JSON object of string arguments.")] = "{}",
    ) -> None:
        """Print the messages of one prompt, each after its role."""
        try:
            parsed = json.loads(arguments)
        except ValueError as exc:
            _err.print(
                f'[red]error:[/red] arguments are not JSON ({exc}); pass e.g. \'{{"a": "1"}}\''
            )
            raise typer.Exit(2) from None
        if not isinstance(parsed, dict):
            _err.print("[red]error:[/red] arguments must be a JSON object of strings")
            raise typer.Exit(2)

        async def work(pool: McpClientPool) -> None:
            result = await pool.get_prompt(server, name, {k: str(v) for k, v in parsed.items()})
            for message in result.messages:
                content = message.content
                if content.type == "text":
                    body = content.text
                elif content.type == "resource":
                    body = f"[resource {content.resource.uri}]"
                    body += f"\n{getattr(content.resource, 'text', '') or ''}"
                else:
                    body = f"[{content.type}]"
                _print(f"{message.role}: {body}")

        run(config, work)
