"""The HTTP server bounds request reads: silent, slow and idle clients cannot hold it."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import anyio
import httpx
import pytest
import uvicorn

from adapters.mcp_server import build_server, http_app
from adapters.mcp_server._http import uvicorn_config
from adapters.mcp_server._timeouts import MAX_HEAD_BYTES, timed_protocol
from toolkit import ToolRegistry, mcp_tool

#: Both HTTP parsers the server may run on keep the same bounds.
PARSERS = ["httptools", "h11"]

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@mcp_tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: First.
        b: Second.
    """
    return a + b


@contextmanager
def bounded_server(read_timeout: float, parser: str = "auto") -> Iterator[tuple[str, int]]:
    """Our app with serve_http's uvicorn settings on a free port; yields (host, port)."""
    registry = ToolRegistry()
    registry.register(add)
    app = http_app(build_server(registry, name="bounded"))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn_config(app, port=port, read_timeout=read_timeout)
    config.http = timed_protocol(read_timeout, parser)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield "127.0.0.1", port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # a silent socket
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # headers that never end (slowloris)
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{",  # slow body
    ],
)
@pytest.mark.parametrize("parser", PARSERS)
def test_slow_or_silent_clients_are_cut_off(sent: bytes, parser: str) -> None:
    with bounded_server(read_timeout=0.5, parser=parser) as (host, port):
        sock = socket.create_connection((host, port))
        sock.sendall(sent)
        assert _closed_within(sock, 5)
        sock.close()


@pytest.mark.parametrize("parser", PARSERS)
def test_a_kept_alive_connection_has_a_deadline_for_each_request(parser: str) -> None:
    # Answered requests move the connection's deadline; a slow one after them is still cut.
    body = json.dumps(_call(1)).encode()
    request = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    with bounded_server(read_timeout=1.0, parser=parser) as (host, port):
        sock = socket.create_connection((host, port))
        sock.settimeout(5)
        for _ in range(3):
            sock.sendall(request)
            reply = b""
            while b'"result"' not in reply:
                chunk = sock.recv(4096)
                assert chunk, f"connection closed after {reply!r}"
                reply += chunk
            assert reply.startswith(b"HTTP/1.1 200") and reply.count(b"HTTP/1.1") == 1
            time.sleep(0.2)
        sock.sendall(request[:40])
        assert _closed_within(sock, 5)
        sock.close()


def _post(headers: bytes) -> bytes:
    body = json.dumps(_call(1)).encode()
    return (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json\r\n%sContent-Length: %d\r\n\r\n%s" % (headers, len(body), body)
    )


def _refused(host: str, port: int, request: bytes, piece: int) -> bytes:
    """Send ``request`` in pieces of ``piece`` bytes; what came back before the close."""
    sock = socket.create_connection((host, port))
    sock.settimeout(5)
    reply = b""
    with suppress(ConnectionResetError, BrokenPipeError):
        for start in range(0, len(request), piece):
            sock.sendall(request[start : start + piece])
            time.sleep(0.01)  # each piece its own read on the server
        while chunk := sock.recv(65536):
            reply += chunk
    sock.close()
    return reply


@pytest.mark.parametrize("parser", PARSERS)
def test_a_request_head_over_16_kib_is_refused_and_the_connection_closed(parser: str) -> None:
    # Without a bound a client could send headers for the whole read deadline, held in memory.
    # Many small headers and one long one: both are counted.
    many = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 100) for i in range(200))
    one = b"X-Long: " + b"v" * (MAX_HEAD_BYTES + 5000) + b"\r\n"
    with bounded_server(read_timeout=10, parser=parser) as (host, port):
        for headers in (many, one):
            reply = _refused(host, port, _post(headers), piece=4096)
            assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
            if parser == "httptools":  # bounded however fast it arrives (h11: while buffered)
                reply = _refused(host, port, _post(headers), piece=1 << 20)
                assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
                # The client is told which bound it crossed and what to do.
                assert b"headers are over 16384 bytes: send fewer or shorter" in reply
        # A head within the bound is served as usual.
        ok = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 100) for i in range(100))
        sock = socket.create_connection((host, port))
        sock.settimeout(5)
        sock.sendall(_post(ok))
        reply = b""
        while b'"result"' not in reply:
            chunk = sock.recv(65536)
            assert chunk, f"connection closed after {reply!r}"
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 200"), reply[:200]
        sock.close()


@pytest.mark.parametrize(
    "shape",
    ["content-length and chunked", "two content-lengths", "a NUL in a header", "a 20 KB target"],
)
def test_httptools_refuses_ambiguous_or_oversized_requests(shape: str) -> None:
    # Shapes a proxy and the server could read differently (request smuggling), a control byte
    # in a header, and a target past the head bound: each is answered 400 and closed, never run.
    body = json.dumps(_call(1)).encode()
    head = b"Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
    target = b"/mcp"
    if shape == "content-length and chunked":
        head += b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n"
        body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    elif shape == "two content-lengths":
        head += b"Content-Length: %d\r\nContent-Length: 5\r\n" % len(body)
    elif shape == "a NUL in a header":
        head += b"X-Note: a\x00b\r\nContent-Length: %d\r\n" % len(body)
    else:
        target += b"?q=" + b"q" * 20_000
        head += b"Content-Length: %d\r\n" % len(body)
    request = b"POST " + target + b" HTTP/1.1\r\n" + head + b"\r\n" + body
    with bounded_server(read_timeout=10, parser="httptools") as (host, port):
        reply = _refused(host, port, request, piece=1 << 20)
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    assert b'"result"' not in reply


def test_the_server_runs_on_httptools_where_it_is_installed_and_h11_on_request() -> None:
    from uvicorn.protocols.http.h11_impl import H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    assert issubclass(timed_protocol(1.0), HttpToolsProtocol)
    assert issubclass(timed_protocol(1.0, "h11"), H11Protocol)
    assert timed_protocol(2.5, "httptools").read_timeout == 2.5
    with pytest.raises(ValueError, match="unknown HTTP parser 'picohttp'"):
        timed_protocol(1.0, "picohttp")


def _call(i: int) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": i, "b": 1}},
    }


@pytest.mark.slow
def test_1000_idle_sockets_and_200_concurrent_calls_are_all_answered() -> None:
    with bounded_server(read_timeout=30) as (host, port):
        idle = [socket.create_connection((host, port)) for _ in range(1000)]
        answers: dict[int, object] = {}

        async def one(client: httpx.AsyncClient, i: int) -> None:
            reply = await client.post(f"http://{host}:{port}/mcp", json=_call(i), headers=HEADERS)
            answers[i] = reply.json()["result"]["structuredContent"]["result"]

        async def main() -> None:
            limits = httpx.Limits(max_connections=200)
            async with httpx.AsyncClient(limits=limits, timeout=60) as client:
                async with anyio.create_task_group() as tg:
                    for i in range(200):
                        tg.start_soon(one, client, i)

        try:
            anyio.run(main)
        finally:
            for sock in idle:
                sock.close()
    assert answers == {i: i + 1 for i in range(200)}
