# Shared by scripts/dev.sh and scripts/test.sh: installing what is missing, and waiting for services.
# shellcheck shell=bash

FERRETDB_VERSION=v1.24.0
TOOLS_DIR=${MCPFLOW_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpflow}

log() { printf '[mcpflow] %s\n' "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

ensure_node() {
  command -v node >/dev/null || { log "Node.js >= 20.19 is required (not found)"; exit 1; }
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)' ||
    { log "Node.js >= 20.19 is required (found $(node --version))"; exit 1; }
}

ensure_node_modules() {
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    # `npm ci` refuses this lock file here: the registry serves only this platform's optional
    # native packages, so the lock lacks the other platforms' and ci calls it out of sync.
    # `npm install` installs exactly the locked versions all the same.
    log "installing npm dependencies (npm install from package-lock.json)"
    npm install --no-audit --no-fund --loglevel=error
  fi
}

ensure_redis() {
  command -v redis-server >/dev/null && return 0
  log "installing Debian's redis-server"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  # The package starts a system-wide instance on 6379; mcpflow runs its own, so stop that one.
  as_root service redis-server stop >/dev/null 2>&1 || true
}

ferretdb_bin() { echo "${FERRETDB_BIN:-$TOOLS_DIR/bin/ferretdb-$FERRETDB_VERSION}"; }

# FerretDB v1 (embedded SQLite backend) built from the Go module proxy with the pinned go.sum in
# scripts/ferretdb. `go install …@version` cannot be used: the proxy refuses the module's version
# list (needed for the deprecation check), and the module zip lacks build/version/version.txt.
ensure_ferretdb() {
  local bin; bin=$(ferretdb_bin)
  [ -x "$bin" ] && return 0
  command -v go >/dev/null || { log "Go >= 1.22 is required to build FerretDB (not found)"; exit 1; }
  log "building FerretDB $FERRETDB_VERSION (once, about two minutes) into $bin"
  local work; work=$(mktemp -d)
  cp "$ROOT/scripts/ferretdb/go.mod" "$ROOT/scripts/ferretdb/go.sum" "$ROOT/scripts/ferretdb/tools.go" "$work/"
  (
    cd "$work"
    export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOTELEMETRY=off
    go mod vendor
    echo "$FERRETDB_VERSION" >vendor/github.com/FerretDB/FerretDB/build/version/version.txt
    mkdir -p "$(dirname "$bin")"
    go build -mod=vendor -trimpath -o "$bin.tmp" github.com/FerretDB/FerretDB/cmd/ferretdb
    mv "$bin.tmp" "$bin"
  )
  rm -rf "$work"
}

free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

wait_port() { # port, name, logfile
  local i
  for i in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  log "$2 did not listen on 127.0.0.1:$1 within 20 s"; [ -n "${3:-}" ] && tail -n 20 "$3" >&2
  exit 1
}

wait_http() { # url, seconds
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" 2>/dev/null)" = 200 ] && return 0
    sleep 0.3
  done
  return 1
}
