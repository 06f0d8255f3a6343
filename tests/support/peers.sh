#!/usr/bin/env bash
# Install the third-party MCP servers the test suite talks to, into .peers/ (gitignored).
# Idempotent: does nothing when all are already installed.
#   - @modelcontextprotocol/server-everything (npm; used over stdio only)
#   - mcp-server-time (PyPI; pins mcp<2, so it gets its own venv, never ours)
#   - fastmcp (PyPI; the gateway benchmark's anchor, in its own venv)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
peers="$root/.peers"
mkdir -p "$peers"

if [ ! -x "$peers/node_modules/.bin/mcp-server-everything" ]; then
  npm install --prefix "$peers" --no-audit --no-fund --silent @modelcontextprotocol/server-everything
fi

if [ ! -x "$peers/time-venv/bin/mcp-server-time" ]; then
  python3 -m venv "$peers/time-venv"
  "$peers/time-venv/bin/pip" install --quiet --disable-pip-version-check mcp-server-time
fi
# FastMCP's proxy, the anchor of bench/bench_gateway.py, in a venv of its own.
if ! "$peers/fastmcp-venv/bin/python" -c "import fastmcp" 2>/dev/null; then
  python3 -m venv "$peers/fastmcp-venv"
  "$peers/fastmcp-venv/bin/pip" install --quiet --disable-pip-version-check "fastmcp>=4.2,<5"
fi
echo "MCP test peers ready in $peers"
