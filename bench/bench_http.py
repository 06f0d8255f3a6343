"""HTTP endpoint tools: response-template render time, and a tool call vs bare httpx.

* Template: the stored-config example's template over a 100-item order, rendered by
  :class:`adapters.http.ResponseTemplate` (sandbox + limits) vs plain (unsandboxed) Jinja2.
* Call: the same request through the registry (validation, policy check, request building,
  bounded read, secret masking, record) vs the same request with a bare httpx client kept
  open (the same URL, header and JSON body, the body parsed as JSON), against a uvicorn
  service on 127.0.0.1 in another process, so the service's CPU never counts. ``await
  registry.call`` is paired with ``httpx.AsyncClient``, ``registry.call_sync`` with
  ``httpx.Client`` (what a sync caller would write instead). Each pair runs in alternating
  rounds, and the ratio is the median of the rounds' ratios, so a burst of load on a shared
  machine hits both sides alike. The figure is this process's CPU per call
  (``time.process_time``, every thread: the background loop of ``call_sync`` counts); the wall
  time per call is printed beside it.
* The calls are measured on the machine as found (its load average printed) and again while
  ``--load N`` processes (default 1; 0 with ``--quick``) each keep one CPU busy.

Run: ``.venv/bin/python bench/bench_http.py [--quick] [--load N]``.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
from jinja2 import Environment
from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.http import HttpToolset, ResponseTemplate
from bench._load import busy, machine
from toolkit import ToolRegistry

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
async def create(request):
    body = await request.json()
    return JSONResponse({**ORDER, "orderId": "o9", "item": body["item"], "quantity": body["quantity"]})
app = Starlette(routes=[Route("/users/{user}/orders/{order}", order),
                        Route("/users/{user}/orders", create, methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""
HEADERS = {"Authorization": "Bearer t"}
GET_ARGS = {"userId": "u1", "orderId": "o7", "Authorization": "Bearer t"}
POST_ARGS = {"userId": "u1", "item": "book", "quantity": 2, "Authorization": "Bearer t"}
BODY = {"item": "book", "quantity": 2}


def _median_us(n: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def bench_template(quick: bool) -> tuple[float, float]:
    ours = ResponseTemplate(TEMPLATE)
    plain = Environment().from_string(TEMPLATE)
    n = 50 if quick else 500
    ours_us, plain_us = [], []
    for _ in range(3 if quick else 6):
        ours_us.append(_median_us(n, lambda: ours.render(ORDER)))
        plain_us.append(_median_us(n, lambda: plain.render(ORDER)))
    return statistics.median(ours_us), statistics.median(plain_us)


def _configs(base: str) -> dict[str, Any]:
    path = [
        {"name": "userId", "position": "path", "required": True},
        {"name": "Authorization", "position": "header", "required": True},
    ]
    get = {
        "endpoint": base + "/users/{userId}/orders/{orderId}",
        "parameters": [*path, {"name": "orderId", "position": "path", "required": True}],
    }
    return {
        "get_order_json": get,
        "get_order": {**get, "response_template": TEMPLATE},
        "create_order": {
            "endpoint": base + "/users/{userId}/orders",
            "method": "POST",
            "parameters": [
                *path,
                {"name": "item", "required": True},
                {"name": "quantity", "parameter_type": "Integer", "required": True},
            ],
        },
    }


@dataclass
class Pair:
    """One comparison: our call and the bare one, with per-round figures."""

    label: str
    condition: str
    ours_cpu: list[float]
    bare_cpu: list[float]
    ours_ms: list[float]
    bare_ms: list[float]

    @property
    def ratio(self) -> float:
        """The median of the rounds' CPU ratios."""
        return statistics.median(o / b for o, b in zip(self.ours_cpu, self.bare_cpu, strict=True))


def _timed(n: int, call: Callable[[], object]) -> tuple[float, float]:
    """This process's CPU µs per call, and the median wall ms per call."""
    times = []
    cpu = time.process_time()
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return (time.process_time() - cpu) / n * 1e6, statistics.median(times) * 1000


async def _atimed(n: int, call: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    times = []
    cpu = time.process_time()
    for _ in range(n):
        start = time.perf_counter()
        await call()
        times.append(time.perf_counter() - start)
    return (time.process_time() - cpu) / n * 1e6, statistics.median(times) * 1000


def _ok(result: Any) -> Any:
    assert not result.is_error, result.content
    return result


def _record(pair: Pair, ours: tuple[float, float], bare: tuple[float, float]) -> None:
    pair.ours_cpu.append(ours[0])
    pair.ours_ms.append(ours[1])
    pair.bare_cpu.append(bare[0])
    pair.bare_ms.append(bare[1])


async def _async_pairs(
    registry: ToolRegistry, base: str, n: int, rounds: int, label: str
) -> list[Pair]:
    get_url, post_url = base + "/users/u1/orders/o7", base + "/users/u1/orders"
    async with httpx.AsyncClient(trust_env=False) as client:

        async def get_bare() -> object:
            return (await client.get(get_url, headers=HEADERS)).json()

        async def post_bare() -> object:
            return (await client.post(post_url, headers=HEADERS, json=BODY)).json()

        cases: list[tuple[str, Callable[[], Awaitable[object]], Callable[[], Awaitable[object]]]]
        cases = [
            (
                "GET call, JSON result: await call / httpx.AsyncClient",
                lambda: _aok(registry.call("get_order_json", GET_ARGS)),
                get_bare,
            ),
            (
                "POST call, JSON body: await call / httpx.AsyncClient",
                lambda: _aok(registry.call("create_order", POST_ARGS)),
                post_bare,
            ),
            (
                "GET call + response template: await call / httpx.AsyncClient",
                lambda: _aok(registry.call("get_order", GET_ARGS)),
                get_bare,
            ),
        ]
        pairs = [Pair(what, label, [], [], [], []) for what, _, _ in cases]
        for _, ours, bare in cases:  # warm up: connections open, caches filled
            await _atimed(10, ours)
            await _atimed(10, bare)
        for turn in range(rounds):
            for pair, (_, ours, bare) in zip(pairs, cases, strict=True):
                if turn % 2:  # each side goes first in every other round
                    bare_t = await _atimed(n, bare)
                    _record(pair, await _atimed(n, ours), bare_t)
                else:
                    _record(pair, await _atimed(n, ours), await _atimed(n, bare))
    return pairs


async def _aok(call: Awaitable[Any]) -> Any:
    return _ok(await call)


def _sync_pairs(registry: ToolRegistry, base: str, n: int, rounds: int, label: str) -> list[Pair]:
    get_url, post_url = base + "/users/u1/orders/o7", base + "/users/u1/orders"
    with httpx.Client(trust_env=False) as client:
        cases: list[tuple[str, Callable[[], object], Callable[[], object]]] = [
            (
                "GET call, JSON result: call_sync / httpx.Client",
                lambda: _ok(registry.call_sync("get_order_json", GET_ARGS)),
                lambda: client.get(get_url, headers=HEADERS).json(),
            ),
            (
                "POST call, JSON body: call_sync / httpx.Client",
                lambda: _ok(registry.call_sync("create_order", POST_ARGS)),
                lambda: client.post(post_url, headers=HEADERS, json=BODY).json(),
            ),
        ]
        pairs = [Pair(what, label, [], [], [], []) for what, _, _ in cases]
        for _, ours, bare in cases:
            _timed(10, ours)
            _timed(10, bare)
        for turn in range(rounds):
            for pair, (_, ours, bare) in zip(pairs, cases, strict=True):
                if turn % 2:
                    bare_t = _timed(n, bare)
                    _record(pair, _timed(n, ours), bare_t)
                else:
                    _record(pair, _timed(n, ours), _timed(n, bare))
    return pairs


def bench_calls(base: str, quick: bool, label: str) -> list[Pair]:
    """Every pair, on one toolset (its pooled connections reused, as the bare clients')."""
    n, rounds = (10, 4) if quick else (12, 40)
    registry = ToolRegistry()
    toolset = HttpToolset.from_config(_configs(base))
    toolset.register_into(registry)
    try:
        pairs = _sync_pairs(registry, base, n, rounds, label)
        pairs += anyio.run(_async_pairs, registry, base, n, rounds, label)
    finally:
        toolset.close()
    return pairs


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve() -> tuple[subprocess.Popen[bytes], str]:
    """The benchmark service in its own process, and its base URL."""
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


def main(argv: list[str] | None = None) -> int:
    """Run the template and call measurements and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few iterations (smoke run)")
    parser.add_argument(
        "--load",
        type=int,
        default=None,
        help="busy processes for the second measurement (default: 1; 0 with --quick)",
    )
    args = parser.parse_args(argv)
    load = args.load if args.load is not None else (0 if args.quick else 1)
    console = Console(width=160)
    note = " (--quick: indicative only)" if args.quick else ""
    ours_us, plain_us = bench_template(args.quick)
    table = Table(title=f"HTTP endpoint tools: response template{note}")
    for column in ("measure", "ours", "plain Jinja2", "ratio"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    table.add_row(
        "template render, 100 items (µs)",
        f"{ours_us:.0f}",
        f"{plain_us:.0f}",
        f"{ours_us / plain_us:.2f}",
    )
    console.print(table)
    proc, base = serve()
    try:
        pairs = bench_calls(base, args.quick, f"as found ({machine()})")
        if load:
            with busy(load) as label:
                pairs += bench_calls(base, args.quick, f"{label} ({machine()})")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    table = Table(
        title="HTTP endpoint tools: CPU per call of this process (time.process_time, all "
        f"threads), ours / bare httpx, median of paired rounds{note}"
    )
    for column in ("call: ours / bare", "condition", "ours", "bare", "ratio", "wall ms"):
        table.add_column(column, justify="left" if column[0] in "cw" else "right")
    for pair in pairs:
        ours_ms, bare_ms = statistics.median(pair.ours_ms), statistics.median(pair.bare_ms)
        table.add_row(
            pair.label,
            pair.condition,
            f"{statistics.median(pair.ours_cpu):,.0f} µs",
            f"{statistics.median(pair.bare_cpu):,.0f} µs",
            f"{pair.ratio:.2f}x",
            f"{ours_ms:.2f} / {bare_ms:.2f}",
        )
    console.print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
