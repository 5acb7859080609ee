#!/usr/bin/env bash
# MCP conformance of mcpflow as an MCP server (a published server of the built API, from dist/:
# build first): installs the pinned suite + Node 22 on first use (scripts/lib/conformance-suite.sh)
# and runs the server scenarios a tools-only server can satisfy (scripts/conformance-server.mjs).
#   MONGO_URL=… REDIS_URL=… scripts/conformance-server.sh [scenario…]
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/scripts/lib/conformance-suite.sh"
ensure_conformance_suite || exit 1
[ -f "$ROOT/dist/apps/api/src/main.js" ] || { echo "dist/ is missing: run npm run build first" >&2; exit 1; }
exec node "$ROOT/scripts/conformance-server.mjs" "$CONFORMANCE_CACHE/node_modules/.bin/conformance" "$@"
