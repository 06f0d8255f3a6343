"""The anchor of bench_gateway.py: FastMCP's proxy, with its defaults, in front of one server.

``python _fastmcp_proxy.py SERVER_JSON stdio TAG`` or ``... SERVER_JSON http TAG PORT`` (the
tag only tells the process apart): serve
``fastmcp.server.create_proxy({"mcpServers": {"echo": SERVER}})`` over stdio, or over
streamable HTTP on 127.0.0.1:PORT at ``/mcp``. It runs in its own venv (``.peers/fastmcp-venv``)
and imports nothing from this project. Its log level is WARNING, as the gateway's is.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("FASTMCP_LOG_LEVEL", "WARNING")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")


def main(argv: list[str]) -> None:
    from fastmcp.server import create_proxy

    proxy = create_proxy({"mcpServers": {"echo": json.loads(argv[0])}}, name="proxy")
    if argv[1] == "stdio":
        proxy.run("stdio", show_banner=False)
    else:
        proxy.run(
            "http", host="127.0.0.1", port=int(argv[3]), show_banner=False, log_level="warning"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
