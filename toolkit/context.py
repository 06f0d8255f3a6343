"""Per-call context handed to tools, and the marker for injected parameters."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from toolkit.calls.interaction import ClientChannel, Elicitation, LogLevel

__all__ = ["Injected", "LogCallback", "ProgressCallback", "ToolContext"]

ProgressCallback = Callable[[float, float | None, str | None], Awaitable[None]]
#: ``(level, data, logger)``: where a remote tool's server's log messages for a call go.
LogCallback = Callable[["LogLevel", Any, "str | None"], Awaitable[None]]


class _InjectedMarker:
    """Type of :data:`Injected`; a singleton."""

    _instance: _InjectedMarker | None = None

    def __new__(cls) -> _InjectedMarker:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "Injected"


#: Mark a parameter as filled by the caller, never by the model: ``Annotated[str, Injected]``.
#: It is left out of every schema; the value comes from ``ToolContext.injected[name]`` (or
#: ``ToolContext.values[name]``), else the parameter's default.
Injected: Final = _InjectedMarker()


@dataclass(slots=True)
class ToolContext:
    """What the caller knows about a call that the model must not control.

    A tool receives it by declaring a parameter annotated ``ToolContext``; that parameter never
    appears in a schema.

    Attributes:
        tool: Name of the tool being called (set by the invoker).
        call_id: Id of this call (the model's tool-call id when there is one).
        attempt: 1 for the first attempt, 2 for the first retry, …
        values: Caller data such as tenant or user (from the graph config, the server request…).
        injected: Values for parameters marked ``Injected``, by parameter name.
        progress: Where :meth:`report_progress` sends updates (an MCP client, a UI), if anywhere.
        client: The calling client, when the sink can reach it (``log``, ``elicit``, ``sample``).
        remote_log: Where a remote tool's server's log messages during this call go (a
            LangGraph run's stream), besides Python logging; ``None``: Python logging only.
    """

    tool: str = ""
    call_id: str = ""
    attempt: int = 1
    values: Mapping[str, Any] = field(default_factory=dict)
    injected: Mapping[str, Any] = field(default_factory=dict)
    progress: ProgressCallback | None = None
    client: ClientChannel | None = None
    remote_log: LogCallback | None = None

    def for_call(self, tool: str, call_id: str) -> ToolContext:
        """A copy for one call of ``tool``, keeping this context's call id if it has one.

        The invoker makes one per call, so it is built directly (a third of the cost of
        ``dataclasses.replace``); a subclass, whose fields are its own, goes through ``replace``.
        """
        if type(self) is not ToolContext:
            return dataclasses.replace(self, tool=tool, call_id=self.call_id or call_id)
        return ToolContext(
            tool=tool,
            call_id=self.call_id or call_id,
            attempt=self.attempt,
            values=self.values,
            injected=self.injected,
            progress=self.progress,
            client=self.client,
            remote_log=self.remote_log,
        )

    def get(self, key: str, default: Any = None) -> Any:
        """A caller value by key, or ``default``."""
        return self.values.get(key, default)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Report progress of a long call; a no-op when nobody listens."""
        if self.progress is not None:
            await self.progress(progress, total, message)

    def report_progress_sync(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """:meth:`report_progress` for a sync tool (it runs in a thread, without an event loop).

        Raises:
            RuntimeError: Called from async code, which awaits :meth:`report_progress`.
        """
        if self.progress is not None:
            from toolkit.calls._sync import call_from_thread

            call_from_thread(self.progress, progress, total, message)

    def log_sync(self, level: LogLevel, message: Any, *, logger: str | None = None) -> None:
        """:meth:`log` for a sync tool (it runs in a thread, without an event loop).

        Raises:
            RuntimeError: Called from async code, which awaits :meth:`log`.
        """
        if self.client is not None:
            from toolkit.calls._sync import call_from_thread

            call_from_thread(self.client.log, level, message, logger)

    async def log(self, level: LogLevel, message: Any, *, logger: str | None = None) -> None:
        """Send a log record to the calling client; a no-op when it cannot receive one.

        Args:
            level: ``"debug"``, ``"info"``, ``"notice"``, ``"warning"``, ``"error"``, …
            message: Text or any JSON-serializable value.
            logger: Name of the logger, shown by the client.
        """
        if self.client is not None:
            await self.client.log(level, message, logger)

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the user of the calling client for input (MCP ``elicitation/create``).

        Args:
            message: What to ask, shown to the user.
            schema: A flat JSON Schema object of the fields to fill in.

        Returns:
            The user's :class:`~toolkit.calls.interaction.Elicitation` (accept, decline or cancel).

        Raises:
            ToolError: ``DENIED`` when the client cannot ask its user (no such capability).
        """
        return await self._channel("ask the user for input").elicit(message, schema)

    async def sample(
        self,
        prompt: str | Sequence[Any],
        *,
        max_tokens: int = 512,
        system_prompt: str | None = None,
        temperature: float | None = None,
    ) -> str:
        """Ask the calling client's model for a completion (MCP ``sampling/createMessage``).

        Args:
            prompt: A user message, or a list of ``SamplingMessage``.
            max_tokens: Most tokens to generate.
            system_prompt: A system prompt the client may use.
            temperature: Sampling temperature, if the tool cares.

        Returns:
            The text the model answered.

        Raises:
            ToolError: ``DENIED`` when the client has no model to lend (no such capability).
        """
        from toolkit.calls.interaction import SamplingMessage

        messages = [SamplingMessage("user", prompt)] if isinstance(prompt, str) else list(prompt)
        return await self._channel("ask its model").sample(
            messages, max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature
        )

    def _channel(self, what: str) -> ClientChannel:
        if self.client is None:
            from toolkit.errors import ErrorCode, ToolError

            raise ToolError(
                f"Tool {self.tool or '?'} needs to {what}, but it was not called by a client "
                "that can do so (only an MCP client that declared the capability can).",
                code=ErrorCode.DENIED,
            )
        return self.client
