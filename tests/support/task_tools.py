"""Long-running tools for the tasks tests, and a worker process serving them over HTTP.

``python -m tests.support.task_tools DB PORT`` serves them statelessly on 127.0.0.1:PORT
with a task runner over the SQLite file ``DB`` (leases of 2 s), printing ``ready`` once up.
"""

from __future__ import annotations

import sys

import anyio

from toolkit import ToolRegistry, mcp_tool
from toolkit.context import ToolContext
from toolkit.errors import ToolError


@mcp_tool(task=True)
async def export_report(rows: int, seconds: float, context: ToolContext) -> dict[str, int]:
    """Export a report of ``rows`` rows, taking about ``seconds`` seconds.

    Args:
        rows: How many rows to export.
        seconds: How long the export takes.
    """
    steps = 4
    for step in range(steps):
        await context.report_progress(step, steps, f"exported {step * rows // steps} rows")
        await anyio.sleep(seconds / steps)
    return {"rows": rows}


@mcp_tool(task="required")
async def deploy(service: str, seconds: float = 0.2) -> str:
    """Deploy ``service`` (always runs as a task).

    Args:
        service: The service to deploy.
        seconds: How long the deployment takes.
    """
    await anyio.sleep(seconds)
    return f"deployed {service}"


@mcp_tool(task=True)
async def broken_export(seconds: float = 0.1) -> str:
    """An export that fails.

    Args:
        seconds: How long it runs before failing.
    """
    await anyio.sleep(seconds)
    raise ToolError("The export source is offline: try again in an hour.")


@mcp_tool
def quick_count(text: str) -> int:
    """Count the words of ``text`` (never a task).

    Args:
        text: Any text.
    """
    return len(text.split())


def build() -> ToolRegistry:
    """A registry with the task tools."""
    registry = ToolRegistry()
    for tool in (export_report, deploy, broken_export, quick_count):
        registry.register(tool)
    return registry


#: The task tools, for ``toolkit serve tests.support.task_tools:registry``.
registry = build()


def main() -> None:
    """Serve the task tools over stateless HTTP, tasks kept in the SQLite file ``argv[1]``."""
    import uvicorn

    from adapters.mcp_server import build_server, http_app
    from toolkit.tasks.runner import TaskRunner
    from toolkit.tasks.store import SqliteTaskStore

    db, port = sys.argv[1], int(sys.argv[2])
    runner = TaskRunner(SqliteTaskStore(db), lease=2.0, heartbeat=0.5)
    app = http_app(build_server(build(), tasks=runner))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    print("ready", flush=True)
    server.run()


if __name__ == "__main__":
    main()
