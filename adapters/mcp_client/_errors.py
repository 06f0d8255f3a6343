"""Transport and protocol failures -> :class:`toolkit.ToolError` with a stable code.

Messages name the server and what a person or the model can do about it; they pass through
the connection's redactor so credentials never reach them.

Design rule: a reply, any reply, means the server is alive. Only a failure of the transport
itself is ``UNREACHABLE``. A JSON-RPC error the server sent — even one whose code happens to
be ``-32000``, the number the SDK also uses for its own "connection closed" — is the
server's answer and maps to ``EXECUTION_ERROR`` / ``INVALID_PARAMS`` / ``TIMEOUT`` with the
server's message; the connection stays up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import anyio
import httpx2
import mcp_types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from adapters.network import NetworkPolicyError
from toolkit.errors import ErrorCode, ToolError

__all__ = ["FailureFacts", "is_connection_lost", "to_tool_error"]


@dataclass(frozen=True, slots=True)
class FailureFacts:
    """What the connection observed around a failure (beyond the exception itself)."""

    server: str
    auth_status: int | None = None
    violation: str | None = None
    stderr_tail: str = ""
    returncode: int | None = None
    token_configured: bool = True
    auth_type: str = "bearer"
    transport: str = "stdio"
    target: str = ""  # the command line or URL, secrets masked


#: What to check, per auth type, when a server refuses our credentials.
_CREDENTIALS = {
    "oauth": "the sign-in ('toolkit mcp login' signs in again) and 'client_id'",
    "client_credentials": "'client_id' and 'client_secret' or the private key",
    "identity_assertion": "'client_id', 'client_secret', 'issuer' and the ID token",
}

#: The message of the error the SDK raises itself when the transport ends.
_SDK_CLOSED_MESSAGE = "Connection closed"

_LOST = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ConnectionError,
    httpx2.TransportError,
    OSError,
)


def is_connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` means the connection is gone and the next call must reconnect."""
    if isinstance(exc, NetworkPolicyError):
        return False
    if isinstance(exc, MCPError):
        return _sdk_closed(exc) or (
            exc.code == mcp_types.INVALID_REQUEST and "session terminated" in exc.message.lower()
        )
    if isinstance(exc, BaseExceptionGroup):
        return any(is_connection_lost(e) for e in exc.exceptions)
    return isinstance(exc, _LOST)


def _sdk_closed(exc: MCPError) -> bool:
    """The SDK's own "connection closed" (raised locally), not a server's ``-32000`` reply."""
    return (
        exc.code == mcp_types.CONNECTION_CLOSED
        and exc.message == _SDK_CLOSED_MESSAGE
        and exc.error.data is None
    )


def to_tool_error(
    exc: BaseException, facts: FailureFacts, redact: Callable[[str], str], *, phase: str
) -> ToolError:
    """Classify a failure of ``phase`` (``"connect"``, ``"call"``, ``"list"``)."""
    server = f"MCP server {facts.server!r}"
    if facts.auth_status == 401 and not facts.token_configured:
        return ToolError(
            f"{server} requires authentication (HTTP 401), but no token configured for it; add "
            '"auth": {"type": "bearer", "token": "${MY_TOKEN}"} to its config. Retrying will '
            "not help.",
            code=ErrorCode.AUTH_FAILED,
        )
    if facts.auth_status in (401, 403):
        return ToolError(
            f"{server} refused our credentials (HTTP {facts.auth_status}); check "
            f"{_CREDENTIALS.get(facts.auth_type, 'the token or API key')} in its config. "
            "Retrying will not help.",
            code=ErrorCode.AUTH_FAILED,
        )
    if facts.violation is not None:
        return ToolError(
            f"{server} broke the protocol: it wrote non-JSON-RPC output to stdout "
            f"({facts.violation!r}). A stdio server must write logs to stderr.",
            code=ErrorCode.PROTOCOL_ERROR,
        )
    if isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        return to_tool_error(exc.exceptions[0], facts, redact, phase=phase)
    if isinstance(exc, NetworkPolicyError):
        return ToolError(redact(str(exc)), code=ErrorCode.DENIED, retryable=False)
    if isinstance(exc, TimeoutError):
        return ToolError(
            f"{server} did not answer in time during {phase}; the server may be overloaded. "
            "Try again later or with a smaller request.",
            code=ErrorCode.TIMEOUT,
        )
    if isinstance(exc, FileNotFoundError):
        return ToolError(
            f"{server} could not be started: {redact(str(exc.filename or exc))} was not found "
            "on PATH; install it or give the full path in 'command'.",
            code=ErrorCode.UNREACHABLE,
            retryable=False,
        )
    if isinstance(exc, ValidationError):
        return ToolError(
            f"{server} answered something the MCP protocol does not allow "
            f"({exc.error_count()} validation error(s)); report it to the server's authors.",
            code=ErrorCode.PROTOCOL_ERROR,
        )
    if isinstance(exc, MCPError):
        return _from_mcp_error(exc, server, facts, redact, phase)
    if is_connection_lost(exc):
        return _unreachable(server, facts, redact(str(exc) or type(exc).__name__), phase)
    return ToolError(
        f"{server} failed during {phase}: {redact(str(exc) or type(exc).__name__)}",
        code=ErrorCode.PROTOCOL_ERROR,
    )


def _from_mcp_error(
    exc: MCPError, server: str, facts: FailureFacts, redact: Callable[[str], str], phase: str
) -> ToolError:
    message = redact(exc.message)
    if is_connection_lost(exc):
        return _unreachable(server, facts, message, phase)
    if exc.code == mcp_types.REQUEST_TIMEOUT:
        return ToolError(f"{server} timed out: {message}", code=ErrorCode.TIMEOUT)
    if exc.code == mcp_types.INVALID_PARAMS:
        return ToolError(
            f"{server} rejected the arguments: {message}", code=ErrorCode.INVALID_PARAMS
        )
    if exc.code == mcp_types.METHOD_NOT_FOUND:
        return ToolError(
            f"{server} does not support this request ({message}).", code=ErrorCode.PROTOCOL_ERROR
        )
    if exc.code == mcp_types.PARSE_ERROR:
        return ToolError(
            f"{server} sent a malformed message: {message}", code=ErrorCode.PROTOCOL_ERROR
        )
    return ToolError(f"{server} answered with an error: {message}", code=ErrorCode.EXECUTION_ERROR)


def _unreachable(server: str, facts: FailureFacts, detail: str, phase: str) -> ToolError:
    parts = [f"{server} is unreachable ({detail})."]
    if facts.returncode is not None:
        parts.append(f"The server process exited with code {facts.returncode}.")
    if facts.stderr_tail:
        parts.append(f"Its last output: {facts.stderr_tail}")
    if phase != "connect":  # it was up a moment ago: the pool reconnects on the next call
        parts.append("The next call reconnects; try again.")
        return ToolError(" ".join(parts), code=ErrorCode.UNREACHABLE)
    # Never reached: calling again repeats the same failure until the config or server changes.
    if facts.transport == "stdio":
        what = f"its 'command' and 'args' ({facts.target})" if facts.target else "its 'command'"
        parts.append(f"Check {what} in the config: they must start an MCP server on stdio.")
    else:
        where = f" ({facts.target})" if facts.target else ""
        parts.append(f"Check its 'url'{where} in the config and that the server is running.")
    parts.append("Retrying will not help until then.")
    # Retryable while the pool's own connection attempts last; the last one is final.
    return ToolError(" ".join(parts), code=ErrorCode.UNREACHABLE)
