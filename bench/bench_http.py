"""HTTP endpoint tools: response-template render time, and a tool call vs bare httpx.

* Template: the stored-config example's template over a 100-item order, rendered by
  :class:`adapters.http.ResponseTemplate` (sandbox + limits) vs plain (unsandboxed) Jinja2.
* Call: the same GET through ``registry.call`` (validation, policy check, request building,
  template, record) vs a bare ``httpx.AsyncClient.get`` kept open, against a uvicorn service
  on 127.0.0.1 in another process. Both run in alternating rounds (medians), so a burst of load
  on this shared machine hits both alike. Each is reported twice: wall time per call (what a
  caller waits, the service's time included) and this process's CPU per call (what our layer
  costs on top of httpx; steadier than wall time on a loaded machine).

Run: ``.venv/bin/python bench/bench_http.py [--quick]``.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx
from jinja2 import Environment
from rich.console import Console
from rich.table import Table

from adapters.http import HttpToolset, ResponseTemplate
from toolkit import ToolRegistry

QUICK = "--quick" in sys.argv
TEMPLATE = (
    "Order ID: {{ orderId }}\nStatus: {{ status }}\nItems:\n"
    "{%- for item in items %}\n- {{ item.name }}: ${{ item.price }}\n{%- endfor %}"
)
ORDER = {
    "orderId": "o1",
    "status": "shipped",
    "items": [{"name": f"item {i}", "price": i * 1.5} for i in range(100)],
}
SERVER = """
import sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
ORDER = {"orderId": "o1", "status": "shipped",
         "items": [{"name": f"item {i}", "price": i} for i in range(10)]}
async def order(request):
    return JSONResponse({**ORDER, "orderId": request.path_params["order"]})
app = Starlette(routes=[Route("/users/{user}/orders/{order}", order)])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _median_us(n: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def bench_template() -> tuple[float, float]:
    ours = ResponseTemplate(TEMPLATE)
    plain = Environment().from_string(TEMPLATE)
    n = 50 if QUICK else 500
    ours_us, plain_us = [], []
    for _ in range(3 if QUICK else 6):
        ours_us.append(_median_us(n, lambda: ours.render(ORDER)))
        plain_us.append(_median_us(n, lambda: plain.render(ORDER)))
    return statistics.median(ours_us), statistics.median(plain_us)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _per_call_ms(n: int, call: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Median wall milliseconds per call, and this process's CPU microseconds per call."""
    times = []
    cpu = time.process_time()
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, (time.process_time() - cpu) / n * 1e6


Timings = dict[str, tuple[float, float]]


async def bench_call(base: str) -> Timings:
    config: dict[str, Any] = {
        "get_order_json": {
            "endpoint": base + "/users/{userId}/orders/{orderId}",
            "parameters": [
                {"name": "userId", "position": "path", "required": True},
                {"name": "orderId", "position": "path", "required": True},
                {"name": "Authorization", "position": "header", "required": True},
            ],
        },
        "get_order": {
            "endpoint": base + "/users/{userId}/orders/{orderId}",
            "parameters": [
                {"name": "userId", "position": "path", "required": True},
                {"name": "orderId", "position": "path", "required": True},
                {"name": "Authorization", "position": "header", "required": True},
            ],
            "response_template": TEMPLATE,
        },
    }
    registry = ToolRegistry()
    toolset = HttpToolset.from_config(config)
    toolset.register_into(registry)
    args = {"userId": "u1", "orderId": "o7", "Authorization": "Bearer t"}
    url = base + "/users/u1/orders/o7"
    async with toolset, httpx.AsyncClient(trust_env=False) as client:

        async def ours() -> object:
            result = await registry.call("get_order_json", args)
            assert not result.is_error, result.content
            return result

        async def templated() -> object:
            result = await registry.call("get_order", args)
            assert not result.is_error, result.content
            return result

        async def bare() -> object:
            response = await client.get(url, headers={"Authorization": "Bearer t"})
            return response.json()

        n = 20 if QUICK else 150
        await _per_call_ms(10, ours)
        await _per_call_ms(10, bare)
        rounds: dict[str, list[tuple[float, float]]] = {"ours": [], "templated": [], "bare": []}
        for _ in range(3 if QUICK else 8):
            rounds["ours"].append(await _per_call_ms(n, ours))
            rounds["templated"].append(await _per_call_ms(n, templated))
            rounds["bare"].append(await _per_call_ms(n, bare))
    return {
        name: (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        for name, runs in rounds.items()
    }


def _serve() -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port)])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the benchmark service did not start within 20 s")


def main() -> None:
    console = Console()
    table = Table(title="HTTP endpoint tools")
    table.add_column("measure")
    table.add_column("ours", justify="right")
    table.add_column("baseline", justify="right")
    table.add_column("ratio", justify="right")
    ours_us, plain_us = bench_template()
    table.add_row(
        "template render, 100 items (µs) vs plain Jinja2",
        f"{ours_us:.0f}",
        f"{plain_us:.0f}",
        f"{ours_us / plain_us:.2f}",
    )
    proc, base = _serve()
    try:
        timings = anyio.run(bench_call, base)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    bare_ms, bare_cpu = timings["bare"]
    for key, what in (
        ("ours", "GET call, JSON result"),
        ("templated", "GET call + response template"),
    ):
        ms, cpu = timings[key]
        table.add_row(
            f"{what}: registry.call vs bare httpx.AsyncClient (ms)",
            f"{ms:.2f}",
            f"{bare_ms:.2f}",
            f"{ms / bare_ms:.2f}",
        )
        table.add_row(
            f"{what}: CPU per call, this process (µs)",
            f"{cpu:.0f}",
            f"{bare_cpu:.0f}",
            f"{cpu / bare_cpu:.2f}",
        )
    console.print(table)


if __name__ == "__main__":
    main()
