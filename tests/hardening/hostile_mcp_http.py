"""A raw MCP server over HTTP (no SDK) that answers ``initialize`` well and tool calls badly.

Tools:
    ok: a small JSON answer.
    bomb: a gzip body that decodes to ``BOMB_BYTES`` of one endless JSON string.
    endless_event: an event stream whose one ``data:`` line never ends (up to ``BOMB_BYTES``).
    big_event: a well-formed answer of ``size`` characters in one event.
    drip: a JSON answer whose body comes one byte every 0.3 s (at most 60 bytes).

``STATE`` records how the drip ended (its stream closed by the client, or run to the end).
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

BOMB_BYTES = 256 * 1024 * 1024
_BLOCK = 1024 * 1024
STATE: dict[str, Any] = {}
_TOOLS = ["ok", "bomb", "endless_event", "big_event", "drip"]
_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": True}


def _reply(rid: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def gzip_bomb(head: bytes) -> Iterator[bytes]:
    """``head`` then ``a`` until ``BOMB_BYTES``, gzip-compressed; each 1 MiB block costs ~1 KB."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    yield packer.compress(head) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(b"a" * _BLOCK) + packer.flush(zlib.Z_FULL_FLUSH)
    for _ in range(BOMB_BYTES // _BLOCK):
        yield block  # a full flush resets the window: every block compresses the same


async def _drip(body: bytes) -> AsyncIterator[bytes]:
    STATE["drip"] = "running"
    try:
        for byte in body[:60]:
            yield bytes([byte])
            await anyio.sleep(0.3)
        STATE["drip"] = "finished"
    finally:
        if STATE["drip"] == "running":
            STATE["drip"] = "closed by client"
        STATE["drip_ended"] = time.monotonic()


async def _endless_event(rid: Any) -> AsyncIterator[bytes]:
    yield b"event: message\ndata: " + json.dumps({"jsonrpc": "2.0", "id": rid})[:-1].encode()
    chunk = b"a" * 65536
    for _ in range(BOMB_BYTES // len(chunk)):
        yield chunk
        await anyio.sleep(0)


async def mcp(request: Request) -> Response:
    if request.method != "POST":
        return Response(status_code=405)
    message = json.loads(await request.body())
    rid, method = message.get("id"), message.get("method")
    params = message.get("params") or {}
    if rid is None:
        return Response(status_code=202)
    if method == "initialize":
        return JSONResponse(
            _reply(
                rid,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                },
            )
        )
    if method == "tools/list":
        tools = [{"name": n, "inputSchema": _SCHEMA} for n in _TOOLS]
        return JSONResponse(_reply(rid, {"tools": tools}))
    if method != "tools/call":
        error = {"code": -32601, "message": f"no {method}"}
        return JSONResponse({"jsonrpc": "2.0", "id": rid, "error": error})
    name, arguments = params["name"], params.get("arguments") or {}
    if name == "bomb":
        head = json.dumps(_reply(rid, {"content": [{"type": "text", "text": ""}]}))
        stream = gzip_bomb(head[: head.index('"text": "') + 9].encode())
        return StreamingResponse(
            stream, media_type="application/json", headers={"content-encoding": "gzip"}
        )
    if name == "endless_event":
        return StreamingResponse(_endless_event(rid), media_type="text/event-stream")
    text = "x" * int(arguments.get("size", 4))
    body = json.dumps(_reply(rid, {"content": [{"type": "text", "text": text}]}))
    if name == "big_event":
        event = f"event: message\ndata: {body}\n\n".encode()
        return StreamingResponse(iter([event]), media_type="text/event-stream")
    if name == "drip":
        return StreamingResponse(_drip(body.encode()), media_type="application/json")
    return Response(body, media_type="application/json")


app = Starlette(routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"])])
