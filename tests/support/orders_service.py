"""A small FastAPI "orders" service for HTTP tool tests, recording what it actually received.

:func:`serving_orders` runs it with uvicorn on a free 127.0.0.1 port. :class:`Recorder` wraps
the ASGI app and keeps, per request, the raw path, query string, headers and body bytes, so
tests check the wire rather than a client's intentions.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Response
from fastapi.responses import JSONResponse, PlainTextResponse
from pydantic import BaseModel
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tests.support.serving import serving as _serving


@dataclass
class Received:
    """One request as it arrived."""

    method: str
    raw_path: str
    query: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Recorder:
    """ASGI wrapper recording every HTTP request."""

    app: ASGIApp
    requests: list[Received] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
        self.requests.append(
            Received(
                method=scope["method"],
                raw_path=scope["raw_path"].decode(),
                query=scope["query_string"].decode(),
                headers={k.decode().lower(): v.decode() for k, v in scope["headers"]},
                body=body,
            )
        )
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    @property
    def last(self) -> Received:
        return self.requests[-1]


class NewOrder(BaseModel):
    """A new order."""

    item: str
    quantity: int = 1


def orders_app() -> FastAPI:
    """The orders service: a few endpoints covering the cases HTTP tools must handle."""
    app = FastAPI(title="Orders", version="1.0")
    state: dict[str, int] = {"flaky": 0}

    @app.get("/users/{userId}/orders/{orderId}", operation_id="get_order", tags=["orders"])
    def get_order(userId: str, orderId: str, includeDetails: bool = False) -> dict[str, Any]:
        """Fetch one order of a user."""
        if orderId == "missing":
            raise HTTPException(404, detail=f"order {orderId} of {userId} not found")
        items = [{"name": "widget", "price": 2.5}, {"name": "gadget", "price": 10}]
        return {
            "orderId": orderId,
            "userId": userId,
            "status": "shipped",
            "items": items,
            "details": includeDetails,
        }

    @app.post("/orders", operation_id="create_order", tags=["orders"], status_code=201)
    def create_order(order: NewOrder, x_tenant: str = Header(default="")) -> dict[str, Any]:
        """Create an order."""
        return {"created": order.item, "quantity": order.quantity, "tenant": x_tenant}

    @app.get("/status/{code}", operation_id="status", tags=["test"])
    def status(code: int, retry_after: str = "") -> Response:
        """Answer with the given status."""
        headers = {"Retry-After": retry_after} if retry_after else {}
        return JSONResponse(
            {"detail": f"status {code} as asked"}, status_code=code, headers=headers
        )

    @app.get("/flaky", operation_id="flaky", tags=["test"])
    def flaky(fail: int = 2) -> dict[str, Any]:
        """Fail with 503 ``fail`` times, then succeed."""
        state["flaky"] += 1
        if state["flaky"] <= fail:
            raise HTTPException(503, detail="busy")
        return {"attempts": state["flaky"]}

    @app.post("/flaky-post", operation_id="flaky_post", tags=["test"])
    def flaky_post() -> Response:
        """Always 503."""
        return JSONResponse({"detail": "busy"}, status_code=503)

    @app.get("/slow", operation_id="slow", tags=["test"])
    async def slow(seconds: float = 2.0) -> dict[str, Any]:
        """Sleep, then answer."""
        await asyncio.sleep(seconds)
        return {"slept": seconds}

    @app.get("/text", operation_id="text", tags=["test"])
    def text() -> PlainTextResponse:
        """Plain text."""
        return PlainTextResponse("plain words")

    @app.get("/echo-headers", operation_id="echo_headers", tags=["test"])
    def echo_headers(authorization: str = Header(default="")) -> Response:
        """Reject with the token echoed back (servers do that)."""
        return JSONResponse({"detail": f"bad token {authorization}"}, status_code=401)

    return app


def serving(app: ASGIApp) -> AbstractContextManager[str]:
    """The orders service app served without lifespan events."""
    return _serving(app, lifespan="off")


@contextmanager
def serving_orders() -> Iterator[tuple[str, Recorder]]:
    """The orders service on 127.0.0.1: its base URL and the recorder of what it received."""
    recorder = Recorder(orders_app())
    with serving(recorder) as url:
        yield url, recorder


EXAMPLE = Path("/work/shared/examples/http_tool_config.json")
EXAMPLE_CONFIG: dict[str, Any] = {
    "httpTools": {
        "get_order": {
            "HTTP": {
                "description": "Fetch one order of a user, with its items.",
                "endpoint": "https://api.example.com/users/{userId}/orders/{orderId}",
                "method": "GET",
                "headers": {"Content-Type": "application/json"},
                "parameters": [
                    {
                        "name": "userId",
                        "parameter_type": "String",
                        "description": "User ID",
                        "required": True,
                        "position": "path",
                    },
                    {
                        "name": "orderId",
                        "parameter_type": "String",
                        "description": "Order ID",
                        "required": True,
                        "position": "path",
                    },
                    {
                        "name": "Authorization",
                        "parameter_type": "String",
                        "description": "Auth token",
                        "required": True,
                        "position": "header",
                    },
                    {
                        "name": "includeDetails",
                        "parameter_type": "Boolean",
                        "description": "Include order details",
                        "required": False,
                        "position": "body",
                        "default_value": False,
                    },
                ],
                "timeout_seconds": 30,
                "retry_count": 3,
                "response_template": "Order ID: {{ orderId }}\nStatus: {{ status }}\nItems:\n"
                "{%- for item in items %}\n- {{ item.name }}: ${{ item.price }}\n{%- endfor %}",
            }
        }
    }
}


def example_config(base: str) -> dict[str, Any]:
    """The stored-config example, pointed at the local service."""
    data = copy.deepcopy(EXAMPLE_CONFIG)
    if EXAMPLE.exists():  # the shared example, verbatim, when it is at hand
        data = json.loads(EXAMPLE.read_text())
    http = data["httpTools"]["get_order"]["HTTP"]
    http["endpoint"] = http["endpoint"].replace("https://api.example.com", base)
    return data


def one_tool(base: str, name: str = "t", **config: Any) -> dict[str, Any]:
    """A one-tool config at ``base`` + ``config['endpoint']``."""
    config["endpoint"] = base + config["endpoint"]
    return {name: config}
