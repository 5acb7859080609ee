#!/usr/bin/env bash
# MCP conformance of libs/mcp's client (scripts/conformance-client.mjs, run from dist/: build first).
# Installs the pinned suite and the Node 22 it needs (`fs.globSync`) under a cache folder on first
# use, then runs each scenario; any scenario that does not pass fails the script.
#   scripts/conformance.sh [scenario…]     (default: the four below)
# Cache: $MCPFLOW_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mcpflow; the suite's servers listen on
# loopback ports of their own.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCENARIOS=(initialize tools_call sse-retry elicitation-sep1034-client-defaults)
[ $# -gt 0 ] && SCENARIOS=("$@")

source "$ROOT/scripts/lib/conformance-suite.sh"
ensure_conformance_suite || exit 1
CACHE=$CONFORMANCE_CACHE
[ -f "$ROOT/dist/libs/mcp/src/index.js" ] || { echo "dist/ is missing: run npm run build first" >&2; exit 1; }

CLIENT="$(command -v node) $ROOT/scripts/conformance-client.mjs"
LOGS=$(mktemp -d "${TMPDIR:-/tmp}/mcpflow-conformance.XXXXXX")
trap 'rm -rf "$LOGS"' EXIT
FAILED=()
for scenario in "${SCENARIOS[@]}"; do
  log="$LOGS/${scenario//\//_}.log"
  PATH="$CACHE/node_modules/.bin:$PATH" conformance client --command "$CLIENT" --scenario "$scenario" >"$log" 2>&1
  status=$?
  summary=$(grep -E '^Passed: ' "$log" | tail -1)
  if [ $status -eq 0 ] && grep -q 'OVERALL: PASSED' "$log"; then
    echo "✓ $scenario — ${summary:-passed}"
  else
    echo "✗ $scenario — ${summary:-no result} (exit $status); its output:"
    sed 's/^/    /' "$log" | tail -40
    FAILED+=("$scenario")
  fi
done
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "conformance: ${#FAILED[@]} of ${#SCENARIOS[@]} scenarios failed: ${FAILED[*]}"
  exit 1
fi
echo "conformance: all ${#SCENARIOS[@]} scenarios passed"
