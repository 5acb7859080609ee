#!/usr/bin/env bash
# mcpflow's two commands and their helpers.
#   scripts/dev.sh up       install what is missing, start PostgreSQL + FerretDB + Redis (unless MONGO_URL /
#                           REDIS_URL point elsewhere), build, start API and worker; wait for readiness
#   scripts/dev.sh test     typecheck, lint, formatting, import cycles, build, unit and e2e tests against
#                           throwaway services; non-zero exit on any failure
#   scripts/dev.sh down | status | logs [api|worker|mongo|postgres|redis]
# `up` starts only what is not running (a process that died, even one not yet reaped, is not);
# MCPFLOW_SKIP_BUILD=1 starts from the existing dist/ (tests that drive this script).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib/services.sh
source "$ROOT/scripts/lib/services.sh"
# shellcheck source=scripts/lib/processes.sh
source "$ROOT/scripts/lib/processes.sh"

DATA_DIR=${MCPFLOW_DATA_DIR:-$ROOT/.data}
RUN_DIR=$DATA_DIR/run
LOG_DIR=$DATA_DIR/logs


secrets_key() {
  local file=$DATA_DIR/secrets.key
  if [ ! -s "$file" ]; then
    (umask 077 && node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))" >"$file")
    log "generated a local SECRETS_KEY in $file (keep it: it decrypts stored secrets)"
  fi
  cat "$file"
}

# The local admin API key: made once on the first start (kept across restarts), seeded by the API
# (ADMIN_API_KEY, stored hashed) and handed to the user as API_KEY in stack.env.
admin_api_key() {
  local file=$DATA_DIR/admin-api.key
  if [ ! -s "$file" ]; then
    (umask 077 && node -e "process.stdout.write('mcpf_' + require('node:crypto').randomBytes(32).toString('base64url'))" >"$file")
    log "generated the local admin API key in $file (source $DATA_DIR/stack.env: API_KEY)"
  fi
  cat "$file"
}

cmd_up() {
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  local name
  for name in api worker mongo redis; do forget_dead "$RUN_DIR/$name.pid"; done
  ensure_node
  ensure_node_modules
  local mongo_url=${MONGO_URL:-} redis_url=${REDIS_URL:-}
  if [ -z "$mongo_url" ]; then
    ensure_ferretdb
    local mongo_port=${MCPFLOW_MONGO_PORT:-27117} backend=${MCPFLOW_FERRETDB_BACKEND:-postgresql}
    local handler=(--handler=sqlite --sqlite-url="file:$DATA_DIR/mongo/")
    if [ "$backend" = postgresql ]; then
      ensure_postgres
      local pg_port=${MCPFLOW_POSTGRES_PORT:-5532}
      if ! pid_alive "$RUN_DIR/postgres.pid"; then
        start_postgres "$DATA_DIR/postgres" "$pg_port" "$LOG_DIR/postgres.log" >"$RUN_DIR/postgres.pid"
      fi
      handler=(--handler=postgresql --postgresql-url="postgres://postgres@127.0.0.1:$pg_port/ferretdb")
    fi
    if ! pid_alive "$RUN_DIR/mongo.pid"; then
      mkdir -p "$DATA_DIR/mongo"
      start_bg mongo "$(ferretdb_bin)" "${handler[@]}" \
        --listen-addr="127.0.0.1:$mongo_port" --state-dir="$DATA_DIR/mongo" \
        --telemetry=disable --debug-addr=- --log-level=warn
      wait_port "$mongo_port" "FerretDB" "$LOG_DIR/mongo.log"
    fi
    mongo_url="mongodb://127.0.0.1:$mongo_port/mcpflow"
  fi
  if [ -z "$redis_url" ]; then
    ensure_redis
    local redis_port=${MCPFLOW_REDIS_PORT:-6479}
    if ! pid_alive "$RUN_DIR/redis.pid"; then
      mkdir -p "$DATA_DIR/redis"
      start_bg redis redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$DATA_DIR/redis" \
        --appendonly yes --save '' --maxmemory-policy noeviction --daemonize no
      wait_port "$redis_port" "Redis" "$LOG_DIR/redis.log"
    fi
    redis_url="redis://127.0.0.1:$redis_port"
  fi
  local api_port=${API_PORT:-3000}
  local api_url="http://127.0.0.1:$api_port"
  local started=()
  for name in api worker; do pid_alive "$RUN_DIR/$name.pid" || started+=("$name"); done
  if [ ${#started[@]} -eq 0 ]; then
    log "already running"; cmd_status; return 0
  fi
  if [[ " ${started[*]} " == *" api "* ]] && port_in_use "$api_port"; then
    log "port $api_port is taken by a process this script did not start (another API?): set API_PORT"; exit 1
  fi
  if [ "${MCPFLOW_SKIP_BUILD:-}" != 1 ]; then log "building"; npm run --silent build; fi
  export MONGO_URL=$mongo_url REDIS_URL=$redis_url API_PORT=$api_port
  export SECRETS_KEY=${SECRETS_KEY:-$(secrets_key)}
  export ADMIN_API_KEY=${ADMIN_API_KEY:-$(admin_api_key)}
  local worker_log_from=1
  for name in "${started[@]}"; do
    log "starting $name"
    [ "$name" = worker ] && worker_log_from=$(($(stat -c %s "$LOG_DIR/worker.log" 2>/dev/null || echo 0) + 1))
    start_bg "$name" node "dist/apps/$name/src/main.js"
  done
  local ready=0
  wait_http "$api_url/health/ready" 60 && ready=1
  # The worker serves no HTTP: it is up once it logged "worker ready" (or gone if it exited first).
  if [[ " ${started[*]} " == *" worker "* ]]; then
    wait_log "$LOG_DIR/worker.log" "$worker_log_from" 'worker ready' "$RUN_DIR/worker.pid" 60 || ready=0
  fi
  # A process that died at start (e.g. EADDRINUSE) leaves no pid file behind: the files stay true.
  for name in "${started[@]}"; do
    if ! pid_alive "$RUN_DIR/$name.pid"; then
      rm -f "$RUN_DIR/$name.pid"
      log "$name exited at start; last lines of $LOG_DIR/$name.log:"; tail -n 30 "$LOG_DIR/$name.log" >&2
      ready=0
    fi
  done
  if [ $ready != 1 ]; then
    log "the stack is not ready; last lines of $LOG_DIR/api.log:"; tail -n 30 "$LOG_DIR/api.log" >&2
    exit 1
  fi
  (umask 077 && printf 'API_URL=%s\nAPI_KEY=%s\nMONGO_URL=%s\nREDIS_URL=%s\n' "$api_url" "$ADMIN_API_KEY" "$mongo_url" "$redis_url" >"$DATA_DIR/stack.env")
  chmod 600 "$DATA_DIR/stack.env"
  log "ready: $api_url (settings in $DATA_DIR/stack.env, logs: scripts/dev.sh logs)"
  echo "$api_url"
}

cmd_down() {
  local name
  for name in worker api redis mongo; do stop_pidfile "$RUN_DIR/$name.pid"; done
  # After FerretDB, its only client: pg_ctl's fast shutdown flushes and waits.
  stop_postgres "$DATA_DIR/postgres"; rm -f "$RUN_DIR/postgres.pid"
  log "stopped"
}

cmd_status() {
  local name state=0
  for name in api worker mongo postgres redis; do
    if pid_alive "$RUN_DIR/$name.pid"; then echo "$name: running (pid $(cat "$RUN_DIR/$name.pid"))"
    elif [ -f "$RUN_DIR/$name.pid" ]; then echo "$name: dead"; state=1
    else echo "$name: not started here"; fi
  done
  if [ -f "$DATA_DIR/stack.env" ]; then
    local url; url=$(sed -n 's/^API_URL=//p' "$DATA_DIR/stack.env")
    echo "ready: $(curl -s -o /dev/null -w '%{http_code}' "$url/health/ready" || true) ($url/health/ready)"
  fi
  return $state
}

cmd_logs() {
  local names=("${@:-api worker mongo postgres redis}") files=() n
  for n in ${names[*]}; do [ -f "$LOG_DIR/$n.log" ] && files+=("$LOG_DIR/$n.log"); done
  [ ${#files[@]} -gt 0 ] || { log "no logs yet in $LOG_DIR"; return 0; }
  if [ -t 1 ]; then tail -n 100 -F "${files[@]}"; else tail -n 200 "${files[@]}"; fi
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  logs) shift; cmd_logs "$@" ;;
  test) shift; exec "$ROOT/scripts/test.sh" "$@" ;;
  *) echo "usage: scripts/dev.sh up|down|status|logs [name]|test" >&2; exit 2 ;;
esac
