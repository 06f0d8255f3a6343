"""The calling MCP client as a :class:`toolkit.calls.interaction.ClientChannel` for one ``tools/call``.

``context.log`` becomes ``notifications/message`` (at or above the level the client set with
``logging/setLevel``), ``context.elicit`` becomes ``elicitation/create`` and ``context.sample``
becomes ``sampling/createMessage``, each on the stream of the request being answered.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

import mcp_types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError

from adapters.mcp_server._rounds import Rounds
from toolkit.calls.interaction import LOG_LEVELS, Elicitation, LogLevel, SamplingMessage
from toolkit.errors import ErrorCode, ToolError

__all__ = ["SessionChannel", "session_key"]


def session_key(ctx: ServerRequestContext[Any]) -> str:
    """Which client a request comes from: its HTTP session id, or the one stdio peer."""
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is not None:
        return str(headers.get("mcp-session-id") or "")
    return "stdio"


class SessionChannel:
    """Reach the client of one request.

    Args:
        ctx: The SDK's context of the ``tools/call`` being answered.
        levels: Log level per client (``session_key``), as set by ``logging/setLevel``.
        scrub: Masks secrets in text before it leaves (the registry processor's scrubber), so
            a log line reaches the client as clean as an error message reaches the model.
        rounds: For a 2026-07-28 client: questions end the round (:mod:`._rounds`) instead of
            being sent mid-call.
    """

    #: Its questions only send requests on the session, so they may be asked from any task
    #: of the loop: a gateway's remote call runs in the caller's task (see ``AskInCaller``).
    answers_in_any_task = True

    def __init__(
        self,
        ctx: ServerRequestContext[Any],
        levels: MutableMapping[str, str],
        *,
        scrub: Callable[[str], str] = str,
        rounds: Rounds | None = None,
    ) -> None:
        self._ctx = ctx
        self._levels = levels
        self._scrub = scrub
        self._rounds = rounds

    async def log(self, level: LogLevel, data: Any, logger: str | None) -> None:
        """Send ``data`` unless the client asked for a higher level only."""
        threshold = self._levels.get(session_key(self._ctx), "debug")
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):  # type: ignore[arg-type]
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # deprecated only from 2026-07-28 on
            await self._ctx.session.send_log_message(
                level, self._clean(data), logger=logger, related_request_id=self._ctx.request_id
            )

    def _clean(self, data: Any) -> Any:
        if isinstance(data, str):
            return self._scrub(data)
        if isinstance(data, Mapping):
            return {key: self._clean(value) for key, value in data.items()}
        if isinstance(data, list | tuple):
            return [self._clean(value) for value in data]
        return data

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicitation:
        """Ask the user; ``DENIED`` when the client declared no elicitation capability."""
        self._require("elicitation", "ask its user for input")
        if self._rounds is not None:  # 2026-07-28: the client answers and calls again
            return self._rounds.elicit(message, schema)
        try:
            result = await self._ctx.session.elicit_form(
                message, dict(schema), related_request_id=self._ctx.request_id
            )
        except MCPError as exc:
            raise ToolError(
                f"The client refused to ask its user: {exc}", code=ErrorCode.DENIED
            ) from None
        return Elicitation(action=result.action, content=dict(result.content or {}))

    async def sample(
        self,
        messages: Sequence[SamplingMessage],
        *,
        max_tokens: int,
        system_prompt: str | None,
        temperature: float | None,
    ) -> str:
        """Ask the client's model; ``DENIED`` when it declared no sampling capability."""
        self._require("sampling", "lend its model (sampling)")
        wire = [
            mcp_types.SamplingMessage(
                role=m.role, content=mcp_types.TextContent(type="text", text=m.text)
            )
            for m in messages
        ]
        if self._rounds is not None:  # 2026-07-28: the client answers and calls again
            return self._rounds.sample(
                mcp_types.CreateMessageRequestParams(
                    messages=wire,
                    max_tokens=max_tokens,
                    system_prompt=system_prompt,
                    temperature=temperature,
                )
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = await self._ctx.session.create_message(
                    wire,
                    max_tokens=max_tokens,
                    system_prompt=system_prompt,
                    temperature=temperature,
                    related_request_id=self._ctx.request_id,
                )
        except MCPError as exc:
            raise ToolError(
                f"The client refused to sample its model: {exc}", code=ErrorCode.DENIED
            ) from None
        content = result.content
        blocks = content if isinstance(content, list) else [content]
        return "\n".join(b.text for b in blocks if isinstance(b, mcp_types.TextContent))

    async def close_stream(self) -> bool:
        """Close this call's SSE stream now; the call goes on and its events are kept.

        A client that resumes streams (protocol 2025-11-25 and later, HTTP sessions) reconnects
        with ``Last-Event-ID`` and receives what it missed, the result included, so a long call
        need not hold one connection open.

        Returns:
            ``True`` when the stream was closed; ``False`` when this call's transport cannot
            resume one (stdio, stateless HTTP, an older client), and the stream stays open.
        """
        close = self._ctx.close_sse_stream
        if close is None:
            return False
        await close()
        return True

    def _require(self, capability: str, what: str) -> None:
        declared = self._ctx.session.client_capabilities
        if declared is None and self._rounds is None and self._stateless_http():
            raise ToolError(
                f"This tool needs the client to {what}, but this server runs stateless HTTP: "
                f"without a session it cannot send a 2025-11-25 client a request in the middle "
                f"of a call, whatever the client declared. Serve with --stateful to keep "
                f"sessions, or use a 2026-07-28 client.",
                code=ErrorCode.DENIED,
            )
        if declared is None or getattr(declared, capability, None) is None:
            raise ToolError(
                f"This tool needs the client to {what}, but the client did not declare the "
                f"MCP '{capability}' capability. Use a client that supports it.",
                code=ErrorCode.DENIED,
            )

    def _stateless_http(self) -> bool:
        """An HTTP request without a session: no way to send the client a request mid-call."""
        headers = getattr(self._ctx.request, "headers", None)
        return headers is not None and not headers.get("mcp-session-id")
