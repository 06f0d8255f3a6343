#!/usr/bin/env bash
# Install the third-party MCP servers the test suite talks to, into .peers/ (gitignored).
# Idempotent: does nothing when both are already installed.
#   - @modelcontextprotocol/server-everything (npm; used over stdio only)
#   - mcp-server-time (PyPI; pins mcp<2, so it gets its own venv, never ours)
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
echo "MCP test peers ready in $peers"
