"""A raw JSON-RPC MCP server over stdio that misbehaves on request (no SDK, so nothing is tidied).

Run: ``python misbehaving_server.py LOG_DIR [bad-names] [templates]``. Every ``tools/call`` appends one line to
``LOG_DIR/<tool>.log`` before it does anything else, so tests count side effects on disk.

Tools:
    fail: answers the call with a JSON-RPC error (``code`` argument, default -32000).
    die: exits without answering (the call may have run).
    count: answers normally.
    announce: sends ``notifications/tools/list_changed``; later lists carry bad names.
    huge: answers with one line of ``size`` bytes.
    spawn: starts a grandchild (``setsid`` when ``detach``) that sleeps; writes its pid.

With ``templates`` it also serves resource templates, one of them ambiguous
(``x://{a}{b}{c}{d}{e}{f}{g}{h}!``), and reads any URI as its own text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

LOG = Path(sys.argv[1])
STATE = {"announced": "bad-names" in sys.argv[2:]}
TEMPLATES = "templates" in sys.argv[2:]
AMBIGUOUS = "x://{a}{b}{c}{d}{e}{f}{g}{h}!"
SCHEMA = {"type": "object", "properties": {}, "additionalProperties": True}


def tool(name: str, **annotations: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name, "description": f"{name} tool", "inputSchema": SCHEMA}
    if annotations:
        out["annotations"] = annotations
    return out


def tools() -> list[dict[str, Any]]:
    listed = [
        tool("fail"),
        tool("fail_idempotent", idempotentHint=True),
        tool("die"),
        tool("die_readonly", readOnlyHint=True),
        tool("count"),
        tool("announce"),
        tool("huge"),
        tool("spawn"),
    ]
    if STATE["announced"]:
        listed += [tool("bad name!"), tool("x" * 80), tool("count"), tool("fresh")]
    return listed


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def call(rid: Any, name: str, args: dict[str, Any]) -> None:
    with (LOG / f"{name}.log").open("a") as f:
        f.write("ran\n")
    if name.startswith("fail"):
        code = int(args.get("code", -32000))
        send({"id": rid, "error": {"code": code, "message": f"tool broke with {code}"}})
    elif name.startswith("die"):
        os._exit(3)
    elif name == "announce":
        STATE["announced"] = True
        send({"method": "notifications/tools/list_changed"})
        send({"id": rid, "result": text("announced")})
    elif name == "huge":
        send({"id": rid, "result": text("x" * int(args.get("size", 1000)))})
    elif name == "spawn":
        argv = ["setsid", "sleep", "300"] if args.get("detach") else ["sleep", "300"]
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        (LOG / "grandchild.pid").write_text(str(proc.pid))
        send({"id": rid, "result": text(str(proc.pid))})
    else:
        send({"id": rid, "result": text(f"{name} ok")})


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        rid, method = message.get("id"), message.get("method")
        if rid is None or method is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            (LOG / "client.json").write_text(json.dumps(params.get("clientInfo")))
            result = {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {
                    "tools": {"listChanged": True},
                    **({"resources": {}} if TEMPLATES else {}),
                },
                "serverInfo": {"name": "misbehaving", "version": "0"},
            }
            send({"id": rid, "result": result})
        elif method == "tools/list":
            send({"id": rid, "result": {"tools": tools()}})
        elif method == "tools/call":
            call(rid, params["name"], params.get("arguments") or {})
        elif method == "resources/templates/list" and TEMPLATES:
            listed = [{"uriTemplate": t, "name": t[0]} for t in (AMBIGUOUS, "y://{a}.{b}")]
            send({"id": rid, "result": {"resourceTemplates": listed}})
        elif method == "resources/list" and TEMPLATES:
            send({"id": rid, "result": {"resources": []}})
        elif method == "resources/read" and TEMPLATES:
            contents = [{"uri": params["uri"], "text": params["uri"]}]
            send({"id": rid, "result": {"contents": contents}})
        elif method == "ping":
            send({"id": rid, "result": {}})
        else:
            send({"id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
