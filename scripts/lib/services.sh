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

# PostgreSQL (Debian's `postgresql`), the backend of the embedded FerretDB: its binaries live in
# /usr/lib/postgresql/<major>/bin, off PATH.
pg_bindir() { find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1; }

ensure_postgres() {
  local dir; dir=$(pg_bindir)
  [ -n "$dir" ] && [ -x "$dir/initdb" ] && return 0
  log "installing Debian's postgresql"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  # The package starts a system-wide cluster on 5432; mcpflow runs its own, so stop that one.
  as_root service postgresql stop >/dev/null 2>&1 || true
}

# initdb and postgres refuse to run as root: as root, they run as Debian's `postgres` user.
as_pg_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# start_postgres <cluster dir> <port> <log file>: creates the cluster once (trust auth, loopback only),
# starts it on 127.0.0.1:<port> with its unix socket in the cluster dir, creates the `ferretdb`
# database; prints the postmaster's pid.
start_postgres() {
  local dir=$1 port=$2 logfile=$3 bin; bin=$(pg_bindir)
  mkdir -p "$dir"; touch "$logfile"
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$dir" "$logfile"; chmod 700 "$dir"
    if ! runuser -u postgres -- test -w "$dir"; then
      # The postgres user must reach the cluster folder: let it traverse (x only, no listing) the parents.
      local parent; parent=$(dirname "$dir")
      log "letting the postgres user traverse the folders above $dir (chmod o+x)"
      while [ "$parent" != / ]; do chmod o+x "$parent" 2>/dev/null || true; parent=$(dirname "$parent"); done
    fi
  fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    as_pg_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null ||
      { log "initdb failed in $dir"; exit 1; }
  fi
  as_pg_owner "$bin/pg_ctl" -D "$dir" -l "$logfile" -w -t 30 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null ||
    { log "PostgreSQL did not start; last lines of $logfile:"; tail -n 20 "$logfile" >&2; exit 1; }
  as_pg_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" | grep -q 1 ||
    as_pg_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres ferretdb
  # FerretDB v1's equality pushdown cannot use its own btree indexes: GIN twins (see the file);
  # MCPFLOW_GIN_TWINS=off leaves them out (to measure without them).
  [ "${MCPFLOW_GIN_TWINS:-on}" = off ] ||
  as_pg_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d ferretdb -q -v ON_ERROR_STOP=1 -f - \
    <"$(dirname "${BASH_SOURCE[0]}")/ferretdb-gin-twins.sql" >/dev/null ||
    { log "could not install the GIN twins of FerretDB's indexes"; exit 1; }
  head -n 1 "$dir/postmaster.pid"
}

# stop_postgres <cluster dir>: a fast shutdown (clients disconnected, data flushed).
stop_postgres() {
  [ -f "$1/postmaster.pid" ] || return 0
  as_pg_owner "$(pg_bindir)/pg_ctl" -D "$1" -m fast -w -t 30 stop >/dev/null 2>&1 || true
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
