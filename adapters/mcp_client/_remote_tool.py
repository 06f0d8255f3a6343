"""A tool on a remote MCP server as a :class:`toolkit.tool.Tool`: :class:`RemoteTool`."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

import mcp_types

from adapters.mcp_client._tasks import call_as_task
from adapters.mcp_wire import to_tool_result
from toolkit import JsonSchemaTool
from toolkit.calls.spec import TaskSupport, ToolAnnotations, ToolOptions, ToolSpec
from toolkit.context import ToolContext
from toolkit.result import ToolResult

if TYPE_CHECKING:
    from adapters.mcp_client._connection import Connection

__all__ = ["RemoteTool", "sanitize_name"]

_INVALID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize_name(name: str) -> str:
    """Make ``name`` fit ``^[a-zA-Z0-9_-]{1,64}$`` (other characters become ``_``)."""
    return (_INVALID_CHARS.sub("_", name) or "_")[:64]


class RemoteTool(JsonSchemaTool):
    """A tool served by an MCP server, validated locally and called over the pooled connection.

    The server's ``inputSchema`` is the spec's input schema, unchanged. Arguments are checked
    against it (by :class:`toolkit.JsonSchemaTool`) before anything is sent, so an invalid call
    costs no round trip.

    Args:
        connection: The pooled connection to the server.
        tool: The tool as the server listed it.
        name: The registry name (``None``: the server's name for it).
        wire_name: The name sent to the server when ``tool`` was cleaned of hidden characters
            (``None``: ``tool.name``).
        guard: Run with the wire name before each call; raises ``DENIED`` for a tool whose
            definition is no longer trusted (see docs/trust.md).
    """

    def __init__(
        self,
        connection: Connection,
        tool: mcp_types.Tool,
        *,
        name: str | None = None,
        wire_name: str | None = None,
        guard: Callable[[str], None] | None = None,
    ) -> None:
        self._connection = connection
        self._tool = tool
        self._name = name or tool.name
        self._wire = wire_name or tool.name
        self._guard = guard

    @property
    def name(self) -> str:
        """The registry name (the server's name, possibly prefixed)."""
        return self._name

    @property
    def remote_name(self) -> str:
        """The tool's name on the server (what goes on the wire)."""
        return self._wire

    @property
    def server(self) -> str:
        """The config key of the server."""
        return self._connection.config.name

    @cached_property
    def spec(self) -> ToolSpec:
        """The spec every sink sees; annotations are the server's (untrusted) hints."""
        tool, config = self._tool, self._connection.config
        hints = tool.annotations
        return ToolSpec(
            name=self._name,
            description=tool.description or tool.title or tool.name,
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            annotations=ToolAnnotations(
                title=tool.title or (hints.title if hints else None),
                read_only=hints.read_only_hint if hints else None,
                destructive=hints.destructive_hint if hints else None,
                idempotent=hints.idempotent_hint if hints else None,
                open_world=hints.open_world_hint if hints else None,
            ),
            tags=frozenset({"mcp", f"mcp:{config.name}"}),
            # The SDK client checks structuredContent against the server's outputSchema and
            # raises on a mismatch: such results never pass as successes, so the output is strict.
            options=ToolOptions(
                timeout=None,
                retries=config.call_retries,
                strict_output=True,
                task_support=_task_support(tool),  # a gateway serves it as a task in turn
            ),
            source=f"mcp://{config.name}/{tool.name}",
        )

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Send ``tools/call`` with the allowlisted context as headers and ``_meta``.

        Raises:
            ToolError: ``EXECUTION_ERROR`` for an ``isError`` result; ``UNREACHABLE``,
                ``TIMEOUT``, ``AUTH_FAILED`` or ``PROTOCOL_ERROR`` for transport failures;
                ``DENIED`` when the server changed the tool since it was trusted.
        """
        if self._guard is not None:
            self._guard(self._wire)
        config = self._connection.config
        values = context.values
        headers = {h: str(values[k]) for k, h in config.context_headers.items() if k in values}
        meta = {m: values[k] for k, m in config.context_meta.items() if k in values}
        if context.remote_log is not None:  # 2026-07-28 servers log for a call only if asked
            meta[mcp_types.LOG_LEVEL_META_KEY] = "info"
        wire = self._tool
        if wire.name != self._wire:  # the server knows the tool by its own name
            wire = wire.model_copy(update={"name": self._wire})
        target = (
            functools.partial(call_as_task, self._connection, wire)  # polled, fetched
            if self.spec.options.task_support != "forbidden"
            else functools.partial(self._connection.call_tool, self._wire)
        )
        send = functools.partial(
            target,
            arguments,
            meta=meta or None,
            headers=headers,
            progress=context.progress,  # the remote server's progress reaches our caller
            log=context.remote_log,  # and its log messages, where the caller wants them
        )
        asking = self._connection.asking
        result = await (asking.run(self.server, self._name, context, send) if asking else send())
        out = to_tool_result(result, tool=self._name)
        out.call_id = context.call_id
        return out

    def renamed(self, name: str) -> RemoteTool:
        """The same remote tool under another registry name."""
        return RemoteTool(
            self._connection, self._tool, name=name, wire_name=self._wire, guard=self._guard
        )

    def view_facts(self) -> list[tuple[str, str]]:
        """The server, its transport and the tool's name there, for the notebook view."""
        config = self._connection.config
        return [
            ("server", config.name),
            ("transport", str(config.transport)),
            ("remote name", self._wire),
            ("connection", str(self._connection.state)),
        ]

    def __repr__(self) -> str:
        return f"RemoteTool({self._name!r}, server={self.server!r}, remote={self.remote_name!r})"


def _task_support(tool: mcp_types.Tool) -> TaskSupport:
    execution = tool.execution
    support = execution.task_support if execution is not None else None
    return support if support in ("optional", "required") else "forbidden"
