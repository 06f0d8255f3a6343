"""One HTTP endpoint as a :class:`toolkit.Tool`: :class:`HttpTool`."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import random
import time
from collections.abc import Callable
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from adapters._net import attempt_deadline
from adapters.http._answers import (
    RETRY_STATUSES,
    decode,
    exchange_failure,
    mask_text,
    masked,
    retry_after,
    timed_out,
    unreachable,
)
from adapters.http._answers import status_error as _status_error
from adapters.http._body import (
    BodyTooLargeError,
    Reply,
    UnreadableEncodingError,
    receive,
    receive_sync,
)
from adapters.http._config import IDEMPOTENT, HttpToolConfig
from adapters.http._request import BuiltRequest, RequestPlan
from adapters.http._template import ResponseTemplate
from adapters.network import HostNotFoundError, NetworkPolicy, NetworkPolicyError
from toolkit import JsonSchemaTool
from toolkit.calls.runtime import Expired, run_awaitable, run_sync, within
from toolkit.calls.spec import ToolAnnotations, ToolOptions, ToolSpec
from toolkit.context import ToolContext
from toolkit.errors import ErrorCode, ToolError
from toolkit.records.wire_log import log_exchange, wire_log_enabled
from toolkit.result import ToolResult

__all__ = ["HttpTool"]

#: The most read of a non-2xx body (its message is cut to MAX_ERROR_TEXT anyway).
ERROR_BODY_BYTES = 64 * 1024
_BACKOFF = 0.2

ClientFactory = Callable[[], httpx.AsyncClient]
SyncClientFactory = Callable[[], httpx.Client]
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
        sync_client: Returns the pooled blocking ``httpx.Client`` (from
            ``adapters.http._client.endpoint_sync_client``): with it, :meth:`call_inline`
            sends from the calling thread. Used only with a policy of the
            :class:`NetworkPolicy` class itself (a subclass judges in async code).
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
        sync_client: SyncClientFactory | None = None,
    ) -> None:
        self._name = name
        self.config = config
        self._client = client
        self._given_sync_client = sync_client
        stock = type(network_policy) is NetworkPolicy
        self._sync_client = sync_client if stock else None
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
        self._host_is_address = stock and _is_address(urlsplit(config.endpoint).hostname or "")

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
            sync_client=self._given_sync_client,
        )

    @property
    def waits_inline(self) -> bool:
        """Whether :meth:`call_inline` sends from the calling thread (``call_sync`` runs it).

        True with a blocking client and the stock policy; else ``call_sync`` runs :meth:`call`.
        """
        return self._sync_client is not None

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
            except (NetworkPolicyError, HostNotFoundError) as exc:
                raise self._refused(request, exc) from None
            self._address_allowed = self._host_is_address
        attempts = self._attempts
        for attempt in range(1, attempts + 1):
            try:
                outcome: Reply | httpx.ConnectError = await self._send(request)
            except httpx.ConnectError as exc:
                outcome = exc
            retry = self._retry(request, outcome, attempt, attempts)
            if retry is None:
                assert isinstance(outcome, Reply)
                return await self._result(outcome, context, arguments)
            await context.log("warning", retry[0], logger="toolkit.http")
            await anyio.sleep(retry[1])
        raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns

    def call_inline(self, arguments: dict[str, Any], context: ToolContext) -> ToolResult:
        """:meth:`call`, blocking in the calling thread: the same request, rules and failures.

        Every wait of an attempt (a pooled connection, connect, send, each read of the body)
        ends by the attempt's total deadline: the socket's own timeouts are cut to what is
        left of it (``adapters._net``), so no watcher thread is needed to keep it.

        Raises:
            ToolError: As :meth:`call`.
        """
        if self._sync_client is None:  # a policy of one's own judges in async code
            return run_sync(self.call, arguments, context)
        request = self._plan.build(arguments, context)
        if not self._address_allowed:
            try:
                self._policy.check_sync(request.url, server=self._name)
            except (NetworkPolicyError, HostNotFoundError) as exc:
                raise self._refused(request, exc) from None
            self._address_allowed = self._host_is_address
        attempts = self._attempts
        for attempt in range(1, attempts + 1):
            try:
                outcome: Reply | httpx.ConnectError = self._send_sync(request)
            except httpx.ConnectError as exc:
                outcome = exc
            retry = self._retry(request, outcome, attempt, attempts)
            if retry is None:
                assert isinstance(outcome, Reply)
                data, is_json = self._answer(outcome)
                text = None
                if is_json:
                    template = self._template
                    text = (
                        _JSON.encode(data) if template is None else template.render(data, arguments)
                    )
                return self._made(data, text, context)
            context.log_sync("warning", retry[0], logger="toolkit.http")
            time.sleep(retry[1])
        raise AssertionError("unreachable")  # pragma: no cover - the last attempt returns

    @property
    def _attempts(self) -> int:
        config = self.config
        may_retry = config.verb in IDEMPOTENT or config.retry_non_idempotent
        return 1 + (config.retry_count if may_retry else 0)

    def _refused(
        self, request: BuiltRequest, exc: NetworkPolicyError | HostNotFoundError
    ) -> ToolError:
        if isinstance(exc, HostNotFoundError):
            return self._unreachable(request, exc)
        return ToolError(str(exc), code=ErrorCode.DENIED)

    def _retry(
        self,
        request: BuiltRequest,
        outcome: Reply | httpx.ConnectError,
        attempt: int,
        attempts: int,
    ) -> tuple[str, float] | None:
        """What to tell the caller and how long to wait before the next attempt; ``None``:
        ``outcome`` is the answer.

        Raises:
            ToolError: ``UNREACHABLE``: no connection at the last attempt.
        """
        last = attempt == attempts
        if isinstance(outcome, httpx.ConnectError):
            if last:
                raise self._unreachable(request, outcome)
            why, delay = "no connection", _backoff(attempt)
        elif outcome.status_code in RETRY_STATUSES and not last:
            wait = retry_after(outcome)
            why = f"HTTP {outcome.status_code}"
            delay = _backoff(attempt) if wait is None else wait
        else:
            return None
        return (
            f"{why} from {self.config.verb} {self._name}; retrying in {delay:.1f} s "
            f"(attempt {attempt + 1} of {attempts})",
            delay,
        )

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
        self._log_wire(request, outgoing, reply, started)
        return reply

    async def _exchange(self, request: BuiltRequest) -> tuple[httpx.Request, Reply]:
        """Send ``request`` and read its answer within the cap (the caller keeps the deadline)."""
        client = self._client()
        try:
            outgoing = self._outgoing(client, request)
            response = await client.send(outgoing, stream=True)
            try:
                limit, cut = self._cap(response)
                reply = await receive(response, limit, truncate=cut)
            finally:
                await response.aclose()
        except (NetworkPolicyError, BodyTooLargeError, UnreadableEncodingError) as exc:
            raise self._failure(request, exc) from None
        except httpx.HTTPError as exc:
            raise self._failure(request, exc) from None
        return outgoing, reply

    def _send_sync(self, request: BuiltRequest) -> Reply:
        """:meth:`_send` from the calling thread: every wait ends by the attempt's deadline."""
        started = time.perf_counter()
        client = self._sync_client()  # type: ignore[misc]  # call_inline checked it
        with attempt_deadline(self.config.timeout_seconds) as deadline:
            try:
                outgoing = self._outgoing(client, request)
                response = client.send(outgoing, stream=True)
                try:
                    limit, cut = self._cap(response)
                    reply = receive_sync(response, limit, truncate=cut)
                finally:
                    response.close()
            except (NetworkPolicyError, BodyTooLargeError, UnreadableEncodingError) as exc:
                raise self._failure(request, exc) from None
            except httpx.HTTPError as exc:
                expired = time.monotonic() >= deadline - 0.001
                raise self._failure(request, exc, expired=expired) from None
        self._log_wire(request, outgoing, reply, started)
        return reply

    def _outgoing(
        self, client: httpx.Client | httpx.AsyncClient, request: BuiltRequest
    ) -> httpx.Request:
        return client.build_request(
            request.method,
            request.url,
            params=request.params or None,
            headers=request.headers,
            json=request.body,
            extensions={"timeout": self._timeouts},
        )

    def _cap(self, response: httpx.Response) -> tuple[int, bool]:
        """How much of ``response`` is read, and whether the rest is cut instead of failing."""
        ok = 200 <= response.status_code < 300
        limit = self.config.max_response_bytes
        return (limit, False) if ok else (min(limit, ERROR_BODY_BYTES), True)

    def _failure(
        self, request: BuiltRequest, exc: Exception, *, expired: bool = False
    ) -> Exception:
        return exchange_failure(
            self._name, request, exc, expired=expired, seconds=self.config.timeout_seconds
        )

    def _log_wire(
        self, request: BuiltRequest, outgoing: httpx.Request, reply: Reply, started: float
    ) -> None:
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

    def _timeout(self, request: BuiltRequest) -> ToolError:
        return timed_out(self._name, request, self.config.timeout_seconds)

    def _unreachable(self, request: BuiltRequest, exc: Exception) -> ToolError:
        return unreachable(self._name, request, exc)

    async def _result(
        self, response: Reply, context: ToolContext, arguments: dict[str, Any]
    ) -> ToolResult:
        data, is_json = self._answer(response)
        text = None
        if is_json:
            if self._template is not None:
                # A render may take up to its time limit: never on the event loop. A cancelled
                # call leaves it to finish alone, within that limit.
                text = await run_awaitable(self._template.render, data, arguments)
            else:
                text = _JSON.encode(data)
        return self._made(data, text, context)

    def _answer(self, response: Reply) -> tuple[Any, bool]:
        """The answer's data (and whether it is JSON), or its status's failure.

        Rule: a configured secret (an API key the tool sends) never reaches the model, whether
        the service echoes it in an error or in a successful answer.
        """
        if not 200 <= response.status_code < 300:
            raise _status_error(self._name, response, self._secrets())
        data, is_json = decode(response)
        secrets = self._secrets()
        if secrets and any(s.encode() in response.content for s in secrets):
            data = masked(data, secrets)
        return data, is_json

    def _made(self, data: Any, text: str | None, context: ToolContext) -> ToolResult:
        """The result: ``text`` of JSON ``data`` (``None``: ``data`` is the text)."""
        if text is None:
            result = ToolResult(content=data, tool=self._name)
        else:
            result = ToolResult(content=text, structured=data, tool=self._name)
        result.call_id = context.call_id
        return result

    def _secrets(self) -> list[str]:
        """The values to mask: none when no header references a variable (known at build)."""
        return [] if self._plan.static else self.config.secrets()

    def _mask(self, text: str) -> str:
        return mask_text(text, self._secrets())

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


def _backoff(attempt: int) -> float:
    delay: float = min(_BACKOFF * 2.0 ** (attempt - 1), 5.0)
    return delay * (0.5 + random.random() / 2)


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
