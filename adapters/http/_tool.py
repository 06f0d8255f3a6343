"""One HTTP endpoint as a :class:`toolkit.Tool`: :class:`HttpTool`."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from adapters.http._body import BodyTooLargeError, Reply, UnreadableEncodingError, receive
from adapters.http._config import IDEMPOTENT, HttpToolConfig
from adapters.http._request import BuiltRequest, RequestPlan
from adapters.http._template import ResponseTemplate
from adapters.network import HostNotFoundError, NetworkPolicy, NetworkPolicyError
from toolkit import JsonSchemaTool
from toolkit.calls.runtime import Expired, run_awaitable, within
from toolkit.calls.spec import ToolAnnotations, ToolOptions, ToolSpec
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.records.wire_log import log_exchange, wire_log_enabled
from toolkit.result import ToolResult

__all__ = ["HttpTool"]

#: Statuses worth a retry (with an idempotent method).
RETRY_STATUSES = frozenset({429, 502, 503, 504})
MAX_ERROR_TEXT = 500
#: The most read of a non-2xx body (its message is cut to MAX_ERROR_TEXT anyway).
ERROR_BODY_BYTES = 64 * 1024
MAX_RETRY_AFTER = 30.0
_BACKOFF = 0.2

ClientFactory = Callable[[], httpx.AsyncClient]
#: A JSON answer as the model reads it (compact, Unicode kept); built once, not per call.
_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


class HttpTool(JsonSchemaTool):
    """An HTTP endpoint declared by an :class:`HttpToolConfig`.

    Arguments are validated against the spec's JSON Schema (through :class:`JsonSchemaTool`)
    before anything is sent. Context-bound parameters (``value_from: context.<key>``) are not in
    the schema: the model never sees or sets them.

    Args:
        name: The registry name.
        config: The endpoint's config (checked by the toolset at load time).
        client: Returns the pooled ``httpx.AsyncClient`` for the running event loop.
        network_policy: Checked for every request before it is sent.
        template: The compiled response template (``None``: JSON as JSON text).
        source: Where the tool came from, for its spec (a file, an OpenAPI document).
    """

    def __init__(
        self,
        name: str,
        config: HttpToolConfig,
        *,
        client: ClientFactory,
        network_policy: NetworkPolicy,
        template: ResponseTemplate | None = None,
        source: str = "",
    ) -> None:
        self._name = name
        self.config = config
        self._client = client
        self._policy = network_policy
        self._template = template
        self._source = source or f"http:{config.verb} {config.endpoint}"
        # Worked out once: what every call sends, and its per-read timeouts (the total
        # deadline is the attempt's cancel scope).
        self._plan = RequestPlan(config)
        self._timeouts = httpx.Timeout(config.timeout_seconds).as_dict()
        # The endpoint's host is fixed (no placeholder may reach it). When it is an address,
        # the frozen policy's verdict on it cannot change: once allowed, it is not asked again
        # (a subclass of the policy may decide otherwise, so it is asked every time).
        self._address_allowed = False
        self._host_is_address = type(network_policy) is NetworkPolicy and _is_address(
            urlsplit(config.endpoint).hostname or ""
        )

    @property
    def name(self) -> str:
        """The registry name."""
        return self._name

    @cached_property
    def spec(self) -> ToolSpec:
        """The spec every sink sees; context-bound parameters are left out."""
        config = self.config
        properties: dict[str, Any] = {}
        required: list[str] = []
        for param in config.parameters:
            if param.context_key is not None:
                continue
            properties[param.name] = param.json_schema()
            if param.required and param.default_value is None:
                required.append(param.name)
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        read_only = config.read_only
        if read_only is None:
            read_only = config.verb in ("GET", "HEAD", "OPTIONS")
        return ToolSpec(
            name=self._name,
            description=config.description or f"{config.verb} {config.endpoint}",
            input_schema=schema,
            annotations=ToolAnnotations(
                read_only=read_only,
                destructive=config.verb == "DELETE" or None,
                idempotent=config.verb in IDEMPOTENT,
                open_world=True,
            ),
            tags=frozenset({"http"}),
            options=ToolOptions(timeout=None, retries=0),
            source=self._source,
        )

    def renamed(self, name: str) -> HttpTool:
        """The same endpoint under another registry name."""
        return HttpTool(
            name,
            self.config,
            client=self._client,
            network_policy=self._policy,
            template=self._template,
            source=self._source,
        )

    async def call(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """Send the request (with retries where safe) and turn the response into a result.

        Raises:
            ToolError: ``INVALID_PARAMS`` (bad path or header value), ``DENIED`` (network
                policy), ``TIMEOUT`` (past the attempt's total deadline), ``UNREACHABLE``
                (no connection, or a host name that does not resolve), ``AUTH_FAILED``
                (401/403), ``PROTOCOL_ERROR`` (a body in an encoding that was not asked for) or
                ``EXECUTION_ERROR`` (other non-2xx statuses, with the server's text; an answer
                larger than ``max_response_bytes``).
        """
        request = self._plan.build(arguments, context)
        if not self._address_allowed:
            try:
                await self._policy.check(request.url, server=self._name)
            except NetworkPolicyError as exc:
                raise ToolError(str(exc), code=ErrorCode.DENIED) from None
            except HostNotFoundError as exc:
                raise self._unreachable(request, exc) from None
            self._address_allowed = self._host_is_address
        response = await self._send_with_retries(request, context)
        return await self._result(response, context, arguments)

    @property
    def _may_retry(self) -> bool:
        return self.config.verb in IDEMPOTENT or self.config.retry_non_idempotent

    async def _send_with_retries(self, request: BuiltRequest, context: ToolContext) -> Reply:
        attempts = 1 + (self.config.retry_count if self._may_retry else 0)
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = await self._send(request)
            except httpx.ConnectError as exc:
                if last:
                    raise self._unreachable(request, exc) from None
                await self._retrying(context, "no connection", _backoff(attempt), attempt, attempts)
                continue
            if response.status_code in RETRY_STATUSES and not last:
                wait = _retry_after(response)
                delay = _backoff(attempt) if wait is None else wait
                await self._retrying(
                    context, f"HTTP {response.status_code}", delay, attempt, attempts
                )
                continue
            return response
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns

    async def _retrying(
        self, context: ToolContext, why: str, delay: float, attempt: int, attempts: int
    ) -> None:
        """Tell the caller (its log, a LangGraph run's stream) why the call takes longer."""
        await context.log(
            "warning",
            f"{why} from {self.config.verb} {self._name}; retrying in {delay:.1f} s "
            f"(attempt {attempt + 1} of {attempts})",
            logger="toolkit.http",
        )
        await anyio.sleep(delay)

    async def _send(self, request: BuiltRequest) -> Reply:
        """One attempt, within its deadline and its cap.

        Rule: ``timeout_seconds`` is a total deadline for the attempt (waiting for a pooled
        connection, connect, send, the headers and every read of the body), not a per-read
        timeout; a service that drips its answer is cut off at the deadline. The body is
        read within ``max_response_bytes`` decoded bytes (see ``adapters.http._body``).
        """
        started = time.perf_counter()
        timeout = self.config.timeout_seconds
        if _on_asyncio():  # the core's deadlines: one timer per loop, not one per attempt
            try:
                outgoing, reply = await within(timeout, self._exchange(request))
            except Expired:
                raise self._timeout(request) from None
        else:
            with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
                outgoing, reply = await self._exchange(request)
            if scope.cancelled_caught:
                raise self._timeout(request)
        if wire_log_enabled():
            log_exchange(
                "http",
                request.method,
                str(outgoing.url),
                status=reply.status_code,
                duration_ms=(time.perf_counter() - started) * 1000,
                request_body=outgoing.content or None,
                response_body=reply.content,
                secrets=self._secrets(),
            )
        return reply

    async def _exchange(self, request: BuiltRequest) -> tuple[httpx.Request, Reply]:
        """Send ``request`` and read its answer within the cap (the caller keeps the deadline)."""
        config = self.config
        client = self._client()
        try:
            outgoing = client.build_request(
                request.method,
                request.url,
                params=request.params or None,
                headers=request.headers,
                json=request.body,
                extensions={"timeout": self._timeouts},
            )
            response = await client.send(outgoing, stream=True)
            try:
                ok = 200 <= response.status_code < 300
                limit = config.max_response_bytes
                reply = await receive(
                    response, limit if ok else min(limit, ERROR_BODY_BYTES), truncate=not ok
                )
            finally:
                await response.aclose()
        except NetworkPolicyError as exc:
            # The connect-time check (the transport is pinned): the name now resolves to an
            # address the policy refuses, e.g. DNS rebinding since the check above, or it
            # does not resolve at all. Never retried.
            raise ToolError(str(exc), code=ErrorCode.DENIED) from None
        except BodyTooLargeError as exc:
            raise ToolError(
                f"{self._name}: the response of {request.method} {_where(request)} is "
                f"larger than {exc.limit} bytes, the most this tool reads; ask for less "
                "(a filter, a smaller page). The tool's max_response_bytes sets the limit.",
                details={"limit": exc.limit, "reason": "response_too_large"},
            ) from None
        except UnreadableEncodingError as exc:
            raise ToolError(
                f"{self._name}: the service's answer cannot be read: {exc}",
                code=ErrorCode.PROTOCOL_ERROR,
            ) from None
        except httpx.TimeoutException as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                raise httpx.ConnectError(str(exc)) from exc
            raise self._timeout(request) from None
        except httpx.HTTPError as exc:
            if isinstance(exc, httpx.ConnectError):
                raise
            raise self._unreachable(request, exc) from None
        return outgoing, reply

    def _timeout(self, request: BuiltRequest) -> ToolError:
        return ToolError(
            f"{self._name}: {request.method} {_where(request)} did not answer in full within "
            f"{self.config.timeout_seconds:g} s; try again later or ask for less",
            code=ErrorCode.TIMEOUT,
        )

    def _unreachable(self, request: BuiltRequest, exc: Exception) -> ToolError:
        why = "its host name does not resolve" if _unresolved(exc) else type(exc).__name__
        return ToolError(
            f"{self._name}: could not reach {_where(request)} ({why}); "
            "the service may be down, try again later",
            code=ErrorCode.UNREACHABLE,
        )

    async def _result(
        self, response: Reply, context: ToolContext, arguments: dict[str, Any]
    ) -> ToolResult:
        """The result the model sees: a 2xx body is masked like an error body.

        Rule: a configured secret (an API key the tool sends) never reaches the model, whether
        the service echoes it in an error or in a successful answer.
        """
        status = response.status_code
        if not 200 <= status < 300:
            raise self._status_error(response)
        data, is_json = _decode(response)
        secrets = self._secrets()
        if secrets and any(s.encode() in response.content for s in secrets):
            data = _masked(data, secrets)
        if is_json:
            if self._template is not None:
                # A render may take up to its time limit: never on the event loop. A cancelled
                # call leaves it to finish alone, within that limit.
                text = await run_awaitable(self._template.render, data, arguments)
            else:
                text = _JSON.encode(data)
            result = ToolResult(content=text, structured=data, tool=self._name)
        else:
            result = ToolResult(content=data, tool=self._name)
        result.call_id = context.call_id
        return result

    def _status_error(self, response: Reply) -> ToolError:
        status = response.status_code
        text = self._mask(_error_text(response))
        said = f": {text}" if text else ""
        head = f"{self._name}: the service answered HTTP {status} {response.reason_phrase}{said}"
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
            wait = _retry_after(response)
            after = f" after {wait:g} s" if wait is not None else " later"
            return ToolError(
                f"{head}. Too many requests; try again{after}.",
                retryable=True,
                details={**details, "retry_after": wait},
            )
        if status >= 500:
            return ToolError(
                f"{head}. The service failed; try again later.",
                code=ErrorCode.UNREACHABLE
                if status in RETRY_STATUSES
                else ErrorCode.EXECUTION_ERROR,
                retryable=status in RETRY_STATUSES,
                details=details,
            )
        return ToolError(f"{head}.", details=details)

    def _secrets(self) -> list[str]:
        """The values to mask: none when no header references a variable (known at build)."""
        return [] if self._plan.static else self.config.secrets()

    def _mask(self, text: str) -> str:
        return _mask_text(text, self._secrets())

    def view_facts(self) -> list[tuple[str, str]]:
        """The request a call sends, for the notebook view (secrets masked)."""
        config = self.config
        facts = [("request", self._mask(f"{config.verb} {config.endpoint}"))]
        bound = [p.name for p in config.parameters if p.context_key is not None]
        if bound:
            facts.append(("from context", ", ".join(bound)))
        if config.response_template is not None:
            facts.append(("response", "rendered by a template"))
        return facts

    def __repr__(self) -> str:
        return f"HttpTool({self._name!r}, {self.config.verb} {self.config.endpoint!r})"


def _mask_text(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def _masked(data: Any, secrets: list[str]) -> Any:
    """``data`` (JSON or text) with every secret replaced by ``***``, keys and values alike."""
    if isinstance(data, str):
        return _mask_text(data, secrets)
    if isinstance(data, list):
        return [_masked(v, secrets) for v in data]
    if isinstance(data, dict):
        return {_mask_text(str(k), secrets): _masked(v, secrets) for k, v in data.items()}
    return data


def _decode(response: Reply) -> tuple[Any, bool]:
    kind = response.content_type.split(";")[0].strip().lower()
    if kind == "application/json" or kind.endswith("+json"):
        try:
            return response.json(), True
        except ValueError:
            return response.text, False
    return response.text, False


def _error_text(response: Reply) -> str:
    data, is_json = _decode(response)
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


def _retry_after(response: Reply) -> float | None:
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


def _backoff(attempt: int) -> float:
    delay: float = min(_BACKOFF * 2.0 ** (attempt - 1), 5.0)
    return delay * (0.5 + random.random() / 2)


def _unresolved(exc: BaseException) -> bool:
    return isinstance(exc, HostNotFoundError) or "does not resolve" in str(exc)


def _on_asyncio() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # another event loop (trio)
        return False


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _where(request: BuiltRequest) -> str:
    return request.url.split("?")[0]
