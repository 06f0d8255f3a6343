"""``call_sync`` of an HTTP tool sends from the calling thread, under every rule of ``await call``.

The tools here run against real services on 127.0.0.1 (uvicorn in a thread). Each test holds
one rule on the blocking path: a total deadline per attempt, the network policy at the check
and at connect time, no redirect followed, the response cap, secrets masked, retries only
where safe, a call's own timeout abandoning the attempt, and ``await call`` keeping the async
client.
"""

from __future__ import annotations

import logging
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import anyio
import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from adapters._net import attempt_deadline, pinned_httpx_sync_transport
from adapters.http import HttpToolset
from adapters.network import NetworkPolicy, NetworkPolicyError
from tests.support.orders_service import Recorder, one_tool, serving
from toolkit import CallOptions, ErrorCode, PinnedTool, ToolRegistry
from toolkit.calls._workers import abandoned_workers
from toolkit.tool import runs_inline

HITS: Counter[str] = Counter()


def registry_for(
    config: dict[str, Any], policy: NetworkPolicy | None = None
) -> tuple[ToolRegistry, HttpToolset]:
    toolset = HttpToolset.from_config(config, network_policy=policy)
    registry = ToolRegistry()
    toolset.register_into(registry)
    return registry, toolset


def _target_app() -> Starlette:
    async def hit(request: Request) -> JSONResponse:
        HITS["target"] += 1
        return JSONResponse({"reached": True})

    return Starlette(routes=[Route("/hit", hit)])


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    with serving(_target_app()) as url:
        yield url


def _redirecting_app(target: str) -> Starlette:
    async def moved(request: Request) -> Response:
        return RedirectResponse(request.query_params.get("to", target + "/hit"), 302)

    return Starlette(routes=[Route("/moved", moved)])


def test_call_sync_uses_the_blocking_client_and_await_call_the_async_one(base: str) -> None:
    registry, toolset = registry_for(one_tool(base, endpoint="/text"))
    with toolset:
        first = registry.call_sync("t", {})
        assert not first.is_error, first.content
        assert first.content == "plain words"
        assert toolset._sync_client is not None  # sent from this thread
        assert toolset._clients == {}  # no event loop was asked to send it

        async def awaited() -> str:
            result = await registry.call("t", {})
            return str(result.content)

        assert anyio.run(awaited) == "plain words"
        assert len(toolset._clients) == 1  # the awaited call used the loop's async client


def test_a_hanging_endpoint_ends_in_timeout_at_the_tools_deadline(base: str) -> None:
    registry, toolset = registry_for(
        one_tool(
            base,
            endpoint="/slow",
            timeout_seconds=0.3,
            parameters=[{"name": "seconds", "parameter_type": "number", "position": "query"}],
        )
    )
    with toolset:
        started = time.monotonic()
        result = registry.call_sync("t", {"seconds": 30})
        took = time.monotonic() - started
    assert result.code is ErrorCode.TIMEOUT, result.content
    assert "within 0.3 s" in result.content
    assert took < 20  # cut at the deadline, not after the service's 30 s


def test_a_calls_own_timeout_abandons_the_attempt_which_ends_at_the_tools_deadline(
    base: str,
) -> None:
    registry, toolset = registry_for(
        one_tool(
            base,
            endpoint="/slow",
            timeout_seconds=3.0,
            parameters=[{"name": "seconds", "parameter_type": "number", "position": "query"}],
        )
    )
    with toolset:
        # Workers that earlier tests left behind come back on their own deadlines; wait for
        # them first, so that the count below moves only by this call's worker.
        _wait_for(lambda: abandoned_workers() == 0, seconds=60)
        before = abandoned_workers()
        result = registry.call_sync("t", {"seconds": 30}, options=CallOptions(timeout=0.2))
        assert result.code is ErrorCode.TIMEOUT, result.content
        assert "0.2 s" in result.content
        assert abandoned_workers() == before + 1  # the attempt was left to its worker
        # The worker's socket waits end by the tool's own deadline: it comes back on its own.
        _wait_for(lambda: abandoned_workers() == before, seconds=20)
        assert abandoned_workers() == before
        again = registry.call_sync("t", {"seconds": 0})
    assert not again.is_error, again.content


def _wait_for(condition: Callable[[], bool], seconds: float) -> None:
    limit = time.monotonic() + seconds
    while not condition() and time.monotonic() < limit:
        time.sleep(0.05)


def test_the_policy_refuses_before_anything_is_sent(base: str, recorder: Recorder) -> None:
    for endpoint in (base + "/text", base.replace("127.0.0.1", "localhost") + "/text"):
        registry, toolset = registry_for(
            {"t": {"endpoint": endpoint}}, policy=NetworkPolicy.untrusted()
        )
        with toolset:
            results = [registry.call_sync("t", {}) for _ in range(2)]
        assert [r.code for r in results] == [ErrorCode.DENIED, ErrorCode.DENIED], results
        assert "loopback" in results[0].content
    assert recorder.requests == []


def test_the_blocking_transport_judges_every_new_connection() -> None:
    with serving(_target_app()) as url:
        client = httpx.Client(transport=pinned_httpx_sync_transport(NetworkPolicy.untrusted()))
        with client, pytest.raises(NetworkPolicyError, match="loopback"):
            client.get(url + "/hit")
        client = httpx.Client(transport=pinned_httpx_sync_transport(NetworkPolicy()))
        with client:
            assert client.get(url + "/hit").status_code == 200
    unix = pinned_httpx_sync_transport(NetworkPolicy())._pool._network_backend
    with pytest.raises(PermissionError, match="TCP connections only"):
        unix.connect_unix_socket("/tmp/any.sock")


def test_a_wait_past_the_attempts_deadline_does_not_start() -> None:
    with serving(_target_app()) as url:
        client = httpx.Client(transport=pinned_httpx_sync_transport(NetworkPolicy()))
        with client, attempt_deadline(0.0), pytest.raises(httpx.ConnectTimeout):
            client.get(url + "/hit")


@pytest.mark.parametrize("to", ["target", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_is_not_followed(target: str, to: str) -> None:
    HITS.clear()
    where = target + "/hit" if to == "target" else to
    with serving(_redirecting_app(target)) as url:
        config = {
            "t": {
                "endpoint": url + "/moved",
                "parameters": [{"name": "to", "position": "query"}],
            }
        }
        registry, toolset = registry_for(config)
        with toolset:
            result = registry.call_sync("t", {"to": where})
    assert result.is_error and "HTTP 302" in result.content, result.content
    assert HITS["target"] == 0


def test_an_answer_past_the_cap_is_refused(base: str) -> None:
    registry, toolset = registry_for(one_tool(base, endpoint="/text", max_response_bytes=5))
    with toolset:
        result = registry.call_sync("t", {})
    assert result.code is ErrorCode.EXECUTION_ERROR, result.content
    assert "larger than 5 bytes" in result.content


def test_secrets_stay_out_of_results_records_and_the_wire_log(
    base: str,
    recorder: Recorder,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TOOLKIT_WIRE_LOG", "1")
    monkeypatch.setenv("ORDERS_KEY", "k-sync-secret")
    config = one_tool(
        base,
        endpoint="/echo-headers",
        headers={"Authorization": "Bearer ${ORDERS_KEY}"},
    )
    registry, toolset = registry_for(config)
    with caplog.at_level(logging.DEBUG, logger="toolkit.wire"), toolset:
        result = registry.call_sync("t", {})
    assert recorder.last.headers["authorization"] == "Bearer k-sync-secret"
    assert result.code is ErrorCode.AUTH_FAILED
    assert "k-sync-secret" not in result.content
    lines = [r.getMessage() for r in caplog.records if r.name == "toolkit.wire"]
    assert len(lines) == 1 and lines[0].startswith(f"http GET {base}/echo-headers -> 401 in ")
    assert "k-sync-secret" not in lines[0]


def test_a_secret_named_argument_is_masked_in_the_record(base: str) -> None:
    config = one_tool(
        base,
        endpoint="/echo-headers",
        parameters=[{"name": "Authorization", "position": "header", "required": True}],
    )
    registry, toolset = registry_for(config)
    with toolset:
        result = registry.call_sync("t", {"Authorization": "Bearer arg-secret-7"})
    assert result.record is not None
    assert "arg-secret-7" not in repr(result.record.arguments)


def test_retries_only_where_safe(base: str, recorder: Recorder) -> None:
    config = one_tool(
        base,
        endpoint="/flaky",
        retry_count=2,
        parameters=[{"name": "fail", "parameter_type": "integer", "position": "query"}],
    )
    registry, toolset = registry_for(config)
    with toolset:
        result = registry.call_sync("t", {"fail": 2})
    assert not result.is_error, result.content
    assert len(recorder.requests) == 3
    recorder.requests.clear()
    registry, toolset = registry_for(
        one_tool(base, endpoint="/flaky-post", method="POST", retry_count=3)
    )
    with toolset:
        result = registry.call_sync("t", {})
    assert result.code is ErrorCode.UNREACHABLE
    assert len(recorder.requests) == 1


def test_no_connection_is_unreachable_after_its_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens once the probe is closed
    registry, toolset = registry_for(
        {"t": {"endpoint": f"http://127.0.0.1:{port}/x", "retry_count": 1}}
    )
    with toolset:
        result = registry.call_sync("t", {})
    assert result.code is ErrorCode.UNREACHABLE, result.content
    assert "ConnectError" in result.content


class _OwnPolicy(NetworkPolicy):
    """A policy of one's own (it decides in async code): asked at every call, on the loop."""

    asked: ClassVar[list[str]] = []

    async def check(self, url: str, *, server: str = "") -> None:
        self.asked.append(threading.current_thread().name)
        if len(self.asked) > 1:
            raise NetworkPolicyError(f"{server}: closed after the first request")
        await super().check(url, server=server)


def test_a_policy_of_its_own_is_still_asked_at_every_call(base: str) -> None:
    _OwnPolicy.asked.clear()
    registry, toolset = registry_for(one_tool(base, endpoint="/text"), policy=_OwnPolicy())
    with toolset:
        first, second = registry.call_sync("t", {}), registry.call_sync("t", {})
        assert toolset._sync_client is None  # it never sends from the calling thread
    assert not first.is_error, first.content
    assert second.code is ErrorCode.DENIED
    assert threading.current_thread().name not in _OwnPolicy.asked


def test_a_pinned_http_tool_waits_inline_too(base: str, recorder: Recorder) -> None:
    config = one_tool(
        base,
        endpoint="/flaky",
        parameters=[{"name": "fail", "parameter_type": "integer", "position": "query"}],
    )
    toolset = HttpToolset.from_config(config)
    registry = ToolRegistry()
    pinned = PinnedTool(toolset.tools[0], {"fail": 0})
    registry.add(pinned)
    assert runs_inline(pinned)
    with toolset:
        result = registry.call_sync("t", {})
        assert toolset._sync_client is not None and toolset._clients == {}
    assert not result.is_error, result.content
    assert recorder.last.query == "fail=0"


def test_threads_share_the_blocking_client(base: str, recorder: Recorder) -> None:
    registry, toolset = registry_for(one_tool(base, endpoint="/text"))
    results: list[Any] = []

    def caller() -> None:
        results.extend(registry.call_sync("t", {}) for _ in range(5))

    with toolset:
        threads = [threading.Thread(target=caller) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert toolset._clients == {}
    assert len(results) == 40
    assert all(r.content == "plain words" for r in results), [r.content for r in results]
    assert len(recorder.requests) == 40


def test_tls_certificates_are_still_verified(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"),
        ],
        check=True,
        capture_output=True,
    )
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        _target_app(), log_level="warning", ssl_keyfile=str(key), ssl_certfile=str(cert)
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        limit = time.monotonic() + 20
        while not server.started and time.monotonic() < limit:
            time.sleep(0.01)
        HITS.clear()
        registry, toolset = registry_for({"t": {"endpoint": f"https://127.0.0.1:{port}/hit"}})
        with toolset:
            result = registry.call_sync("t", {})
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
    # A self-signed certificate: the handshake ran on the pinned connection, and failed.
    assert result.code is ErrorCode.UNREACHABLE, result.content
    assert HITS["target"] == 0
