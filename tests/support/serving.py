"""Run an ASGI app with uvicorn in a thread on a free 127.0.0.1 port, for tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

import uvicorn
from starlette.types import ASGIApp


@contextmanager
def serving(
    app: ASGIApp,
    *,
    lifespan: Literal["on", "off"] = "on",
    host: str = "127.0.0.1",
    port: int = 0,
) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread on ``host`` (a loopback address) and ``port``.

    Yields its base URL. Port 0 picks a free one.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((host, port))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start within 20 s")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
