# The MCP conformance suite, pinned, with the Node 22 it needs (`fs.globSync`), installed once under
# a cache folder. Sourced by scripts/conformance.sh (client) and scripts/conformance-server.sh.
# Cache: $MCPFLOW_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mcpflow.
CONFORMANCE_VERSION=0.1.16
NODE22_VERSION=22.23.3
CONFORMANCE_CACHE="${MCPFLOW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpflow}/conformance"

# Installs on first use; afterwards $CONFORMANCE_CACHE/node_modules/.bin holds `conformance` and `node` (22).
ensure_conformance_suite() {
  local marker="$CONFORMANCE_CACHE/.installed-$CONFORMANCE_VERSION-node$NODE22_VERSION"
  [ -f "$marker" ] && return 0
  echo "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and node@$NODE22_VERSION into $CONFORMANCE_CACHE"
  mkdir -p "$CONFORMANCE_CACHE"
  npm install --prefix "$CONFORMANCE_CACHE" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node@$NODE22_VERSION" || return 1
  touch "$marker"
}
