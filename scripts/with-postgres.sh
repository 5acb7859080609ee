#!/usr/bin/env bash
# Runs a command (a benchmark) with a throwaway PostgreSQL on a free loopback port, FERRETDB_BIN and
# REDIS_SERVER_BIN set, and FERRETDB_POSTGRESQL_URL pointing at its `ferretdb` database; stops and
# removes it afterwards. Installs what is missing like scripts/dev.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib/services.sh
source "$ROOT/scripts/lib/services.sh"
ensure_redis
ensure_ferretdb
ensure_postgres
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpflow-pg.XXXXXX")
trap 'stop_postgres "$WORK/postgres"; rm -rf "$WORK"' EXIT
port=$(free_port)
start_postgres "$WORK/postgres" "$port" "$WORK/postgres.log" >/dev/null
export FERRETDB_POSTGRESQL_URL="postgres://postgres@127.0.0.1:$port/ferretdb"
FERRETDB_BIN=$(ferretdb_bin) REDIS_SERVER_BIN=$(command -v redis-server) "$@"
