"""What an HTTP endpoint tool makes of an answer or a failed exchange, secrets masked."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from adapters.http._body import BodyTooLargeError, Reply, UnreadableEncodingError
from adapters.http._request import BuiltRequest
from adapters.network import HostNotFoundError, NetworkPolicyError
from toolkit.errors import ErrorCode, ToolError

__all__ = [
    "MAX_ERROR_TEXT",
    "MAX_RETRY_AFTER",
    "RETRY_STATUSES",
    "decode",
    "exchange_failure",
    "mask_text",
    "masked",
    "retry_after",
    "status_error",
    "timed_out",
    "unreachable",
]

#: Statuses worth a retry (with an idempotent method).
RETRY_STATUSES = frozenset({429, 502, 503, 504})
MAX_ERROR_TEXT = 500
MAX_RETRY_AFTER = 30.0


def status_error(name: str, response: Reply, secrets: list[str]) -> ToolError:
    """The failure of a non-2xx answer, with the service's own words (secrets masked)."""
    status = response.status_code
    text = mask_text(_error_text(response), secrets)
    said = f": {text}" if text else ""
    head = f"{name}: the service answered HTTP {status} {response.reason_phrase}{said}"
    details = {"status": status}
    if status in (401, 403):
        return ToolError(
            f"{head}. The credentials were refused; this is not fixed by retrying "
            "(check the tool's auth or token).",
            code=ErrorCode.AUTH_FAILED,
            details=details,
        )
    if status == 404:
        return ToolError(
            f"{head}. Nothing exists at that address; check the identifiers you passed.",
            details=details,
        )
    if status in (409, 422):
        what = "conflicts with the current state" if status == 409 else "was rejected"
        return ToolError(
            f"{head}. The request {what}; change the arguments rather than retrying.",
            code=ErrorCode.INVALID_PARAMS if status == 422 else ErrorCode.EXECUTION_ERROR,
            details=details,
        )
    if status == 429:
        wait = retry_after(response)
        after = f" after {wait:g} s" if wait is not None else " later"
        return ToolError(
            f"{head}. Too many requests; try again{after}.",
            retryable=True,
            details={**details, "retry_after": wait},
        )
    if status >= 500:
        return ToolError(
            f"{head}. The service failed; try again later.",
            code=ErrorCode.UNREACHABLE if status in RETRY_STATUSES else ErrorCode.EXECUTION_ERROR,
            retryable=status in RETRY_STATUSES,
            details=details,
        )
    return ToolError(f"{head}.", details=details)


def mask_text(text: str, secrets: list[str]) -> str:
    """``text`` with every secret replaced by ``***``."""
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def masked(data: Any, secrets: list[str]) -> Any:
    """``data`` (JSON or text) with every secret replaced by ``***``, keys and values alike."""
    if isinstance(data, str):
        return mask_text(data, secrets)
    if isinstance(data, list):
        return [masked(v, secrets) for v in data]
    if isinstance(data, dict):
        return {mask_text(str(k), secrets): masked(v, secrets) for k, v in data.items()}
    return data


def decode(response: Reply) -> tuple[Any, bool]:
    """The body as JSON (and True) when it says it is JSON and parses, else as text."""
    kind = response.content_type.split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return response.json(), True
        except ValueError:
            return response.text, False
    return response.text, False


def _error_text(response: Reply) -> str:
    data, is_json = decode(response)
    if is_json and isinstance(data, dict):
        for key in ("detail", "message", "error", "error_description", "title"):
            if key in data:
                value = data[key]
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                break
        else:
            text = json.dumps(data, ensure_ascii=False)
    else:
        text = response.text if not is_json else json.dumps(data, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_TEXT else text[: MAX_ERROR_TEXT - 1] + "…"


def retry_after(response: Reply) -> float | None:
    """Seconds a `Retry-After` header asks for (capped at MAX_RETRY_AFTER), or None."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            moment = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = (moment - datetime.now(UTC)).total_seconds()
    return max(0.0, min(seconds, MAX_RETRY_AFTER))


def exchange_failure(
    name: str, request: BuiltRequest, exc: Exception, *, expired: bool, seconds: float
) -> Exception:
    """What tool ``name`` raises for a failed exchange; ``expired``: its deadline has passed.

    An ``httpx.ConnectError`` (also a connect timeout before the deadline) comes back as one:
    no connection is retried where safe, and only then becomes ``UNREACHABLE``.
    """
    if isinstance(exc, NetworkPolicyError):
        # The connect-time check (the transport is pinned): the name now resolves to an
        # address the policy refuses, e.g. DNS rebinding since the check before sending,
        # or it does not resolve at all. Never retried.
        return ToolError(str(exc), code=ErrorCode.DENIED)
    if isinstance(exc, BodyTooLargeError):
        return ToolError(
            f"{name}: the response of {request.method} {where(request)} is "
            f"larger than {exc.limit} bytes, the most this tool reads; ask for less "
            "(a filter, a smaller page). The tool's max_response_bytes sets the limit.",
            details={"limit": exc.limit, "reason": "response_too_large"},
        )
    if isinstance(exc, UnreadableEncodingError):
        return ToolError(
            f"{name}: the service's answer cannot be read: {exc}",
            code=ErrorCode.PROTOCOL_ERROR,
        )
    if isinstance(exc, httpx.TimeoutException):
        if isinstance(exc, httpx.ConnectTimeout) and not expired:
            return httpx.ConnectError(str(exc))
        return timed_out(name, request, seconds)
    if isinstance(exc, httpx.ConnectError):
        return exc
    return unreachable(name, request, exc)


def timed_out(name: str, request: BuiltRequest, seconds: float) -> ToolError:
    """``TIMEOUT``: the attempt did not end within its total deadline of ``seconds``."""
    return ToolError(
        f"{name}: {request.method} {where(request)} did not answer in full within "
        f"{seconds:g} s; try again later or ask for less",
        code=ErrorCode.TIMEOUT,
    )


def unreachable(name: str, request: BuiltRequest, exc: Exception) -> ToolError:
    """``UNREACHABLE``: no connection, or a host name that does not resolve."""
    unresolved = isinstance(exc, HostNotFoundError) or "does not resolve" in str(exc)
    why = "its host name does not resolve" if unresolved else type(exc).__name__
    return ToolError(
        f"{name}: could not reach {where(request)} ({why}); "
        "the service may be down, try again later",
        code=ErrorCode.UNREACHABLE,
    )


def where(request: BuiltRequest) -> str:
    """The request's URL without its query (which may carry values not meant for messages)."""
    return request.url.split("?")[0]
