#!/usr/bin/env bash
# Chaos harness for mcpflow: its own stack (ports, data dir), two workers, a counting MCP fixture,
# a steady trigger load, SIGKILL faults with recovery, then a report on lost runs and repeated effects.
#
#   scripts/chaos/chaos.sh <mcpflow checkout> [faults=100] [rate=8]   (vendored from the shared harness)
#
# Knobs (environment):
#   CHAOS_API_PORT=3200 CHAOS_MONGO_PORT=27317 CHAOS_POSTGRES_PORT=5732 CHAOS_REDIS_PORT=6679
#   CHAOS_METRICS_PORT=9664 (worker 1; worker 2 gets +1) CHAOS_FIXTURE_PORT=3290
#   CHAOS_KINDS="worker redis ferretdb postgres api fixture"   fault kinds, drawn from a shuffled bag
#                               (every kind once per round of draws); CHAOS_PICK=random draws independently
#   CHAOS_GAP_MS=2000-4000      pause before each fault (after the previous one recovered)
#   CHAOS_DOWN_MS=0-2000        how long a killed process stays down before it is brought back
#   CHAOS_SETTLE_S=300          bounded wait for every accepted run to end
#   CHAOS_TRIGGER_RETRY_S=180   how long one trigger is retried (same Idempotency-Key)
#   CHAOS_NODE_RETRY=3:1000     retry policy of the workflow's mcpTool nodes (maxAttempts:backoffMs) or none
#   CHAOS_SLOW_MS=250           the slow node's sleep
#   CHAOS_SEED=<n>              seed of the fault sequence (bash RANDOM)
#   CHAOS_SKIP_BUILD=1          first `up` starts from the checkout's dist/ (restarts never build)
#   CHAOS_WORK_DIR=<dir>        work dir (default: a new mktemp dir); CHAOS_KEEP=0 deletes it at the end
#   CHAOS_RESULTS_DIR=<dir>     default: $TMPDIR/mcpflow-chaos-results
#   CHAOS_RATE_LIMIT=0          RATE_LIMIT_PER_MINUTE of the chaos stack (0 = off)
# Any other variable mcpflow reads (RUN_LOCK_DURATION_MS, …) passes through to API and workers.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { echo "usage: $0 <mcpflow checkout> [faults=100] [rate=8]" >&2; exit 2; }
[ $# -ge 1 ] || usage
CHECKOUT=$(cd "$1" 2>/dev/null && pwd) || usage
FAULTS=${2:-100}
RATE=${3:-8}
[[ $FAULTS =~ ^[0-9]+$ ]] && [ "$FAULTS" -le 10000 ] || { echo "faults must be 0..10000" >&2; exit 2; }
[[ $RATE =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "rate must be a number" >&2; exit 2; }
[ -x "$CHECKOUT/scripts/dev.sh" ] || { echo "$CHECKOUT has no scripts/dev.sh" >&2; exit 2; }

API_PORT=${CHAOS_API_PORT:-3200}
MONGO_PORT=${CHAOS_MONGO_PORT:-27317}
PG_PORT=${CHAOS_POSTGRES_PORT:-5732}
REDIS_PORT=${CHAOS_REDIS_PORT:-6679}
METRICS1=${CHAOS_METRICS_PORT:-9664}
METRICS2=$((METRICS1 + 1))
FIXTURE_PORT=${CHAOS_FIXTURE_PORT:-3290}
KINDS=(${CHAOS_KINDS:-worker redis ferretdb postgres api fixture})
GAP=${CHAOS_GAP_MS:-2000-4000}
DOWN=${CHAOS_DOWN_MS:-0-2000}
SETTLE_S=${CHAOS_SETTLE_S:-300}
TRIGGER_RETRY_S=${CHAOS_TRIGGER_RETRY_S:-180}
NODE_RETRY=${CHAOS_NODE_RETRY:-3:1000}
SLOW_MS=${CHAOS_SLOW_MS:-250}
SEED=${CHAOS_SEED:-$(( $(date +%s) % 100000 ))}
RANDOM=$SEED
TS=$(date -u +%Y%m%dT%H%M%SZ)
RESULTS=${CHAOS_RESULTS_DIR:-${TMPDIR:-/tmp}/mcpflow-chaos-results}
WORK=${CHAOS_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcpflow-chaos.XXXXXX")}
mkdir -p "$WORK" "$RESULTS"
WORK=$(cd "$WORK" && pwd)
DATA=$WORK/.data
RUN_DIR=$DATA/run
STOP_FILE=$WORK/stop-load
# Bounds on the whole thing: the fault phase, and each restart.
MAX_FAULT_PHASE_S=${CHAOS_MAX_FAULT_PHASE_S:-$((FAULTS * 40 + 120))}
UP_TIMEOUT_S=${CHAOS_UP_TIMEOUT_S:-180}

say() { printf '[chaos %s] %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$WORK/chaos.log" >&2; }
now_ms() { date +%s%3N; }
now_iso() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
rand_in() { # "lo-hi" in ms → a random value in it
  local lo=${1%-*} hi=${1#*-}
  [ "$hi" -gt "$lo" ] 2>/dev/null || { echo "$lo"; return; }
  echo $((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
}
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
alive() { # pid: exists and is not a zombie
  local state
  [[ ${1:-} =~ ^[0-9]+$ ]] || return 1
  state=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$state" ] && [[ $state != Z* ]]
}
pidfile() { cat "$RUN_DIR/$1.pid" 2>/dev/null || true; }

# ---------------------------------------------------------------- ownership: never signal a pid that is not ours
ours() { # pid role: does the live process belong to this harness's stack?
  local pid=$1 role=$2 cmd env
  alive "$pid" || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  case $role in
    api | worker) env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || return 1
      [[ $cmd == *"dist/apps/$role/src/main.js"* ]] && grep -qxF "MCPFLOW_DATA_DIR=$DATA" <<<"$env" ;;
    worker2) env=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null) || return 1
      [[ $cmd == *"dist/apps/worker/src/main.js"* ]] && grep -qxF "CHAOS_WORK_DIR_OF=$WORK" <<<"$env" ;;
    redis) [[ $cmd == *redis-server*":$REDIS_PORT"* ]] ;;
    mongo) [[ $cmd == *"--state-dir=$DATA/mongo"* ]] ;;
    postgres) [[ $cmd == *"-D $DATA/postgres"* ]] ;;
    # A backend of a killed postmaster: orphaned (its parent is no postmaster), so a reused pid
    # under another cluster never matches.
    pgchild) [[ $cmd == postgres:* ]] || return 1
      local ppid; ppid=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')
      ! tr '\0' ' ' <"/proc/$ppid/cmdline" 2>/dev/null | grep -q 'bin/postgres' ;;
    fixture | load) [[ $cmd == *"$HERE/"* && $cmd == *"$WORK/"* ]] ;;
    *) return 1 ;;
  esac
}
remember() { echo "$1 $2" >>"$WORK/pids.txt"; } # role pid: every pid this run started, for the final check
remember_stack() {
  local name pid
  for name in api worker mongo redis postgres; do
    pid=$(pidfile "$name")
    [ -n "$pid" ] && ! grep -qx "$name $pid" "$WORK/pids.txt" 2>/dev/null && remember "$name" "$pid"
  done
}
kill9() { # role pid
  if ours "$2" "$1"; then kill -KILL "$2" 2>/dev/null; return 0; fi
  say "not killing pid '$2' ($1): not alive or not ours"; return 1
}
stop_pid() { # role pid seconds: TERM, bounded wait, KILL
  local role=$1 pid=$2 i
  ours "$pid" "$role" || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < $3 * 10; i++)); do alive "$pid" || return 0; sleep 0.1; done
  ours "$pid" "$role" && kill -KILL "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do alive "$pid" || return 0; sleep 0.1; done
}

# ---------------------------------------------------------------- the stack
STACK_ENV=(MCPFLOW_DATA_DIR="$DATA" API_PORT="$API_PORT" MCPFLOW_MONGO_PORT="$MONGO_PORT"
  MCPFLOW_POSTGRES_PORT="$PG_PORT" MCPFLOW_REDIS_PORT="$REDIS_PORT" WORKER_METRICS_PORT="$METRICS1"
  RATE_LIMIT_PER_MINUTE="${CHAOS_RATE_LIMIT:-0}")
# A caller's MONGO_URL / REDIS_URL would point dev.sh at another stack; keys come from the data dir.
CLEAN_ENV=(-u MONGO_URL -u REDIS_URL -u SECRETS_KEY -u ADMIN_API_KEY -u API_URL -u API_KEY -u QUEUE_PREFIX)

devsh() { # [skip-build 0|1] subcommand: scripts/dev.sh with the chaos stack's environment, bounded
  local skip=$1; shift
  (cd "$CHECKOUT" && env "${CLEAN_ENV[@]}" "${STACK_ENV[@]}" MCPFLOW_SKIP_BUILD="$([ "$skip" = 1 ] && echo 1)" \
    timeout "$UP_TIMEOUT_S" scripts/dev.sh "$@") >>"$WORK/devsh.log" 2>&1
}
UP_TRIES=0
up() { # bring back whatever of PostgreSQL, FerretDB, Redis, API, worker 1 is missing (3 tries)
  local i
  for i in 1 2 3; do
    UP_TRIES=$i
    if devsh 1 up; then remember_stack; return 0; fi
    say "scripts/dev.sh up failed (try $i), see $WORK/devsh.log"
    remember_stack
    sleep 2
  done
  return 1
}

W2_PID=
start_worker2() {
  local from i
  from=$(($(stat -c %s "$WORK/worker2.log" 2>/dev/null || echo 0) + 1))
  # The environment dev.sh gives its worker (cmd_up: MONGO_URL REDIS_URL API_PORT SECRETS_KEY
  # ADMIN_API_KEY exported over the caller's), with its own metrics port; CHAOS_WORK_DIR_OF marks it as ours.
  (cd "$CHECKOUT" && exec env "${CLEAN_ENV[@]}" "${STACK_ENV[@]}" WORKER_METRICS_PORT="$METRICS2" \
    MONGO_URL="$MONGO_URL" REDIS_URL="$REDIS_URL" SECRETS_KEY="$(cat "$DATA/secrets.key")" \
    ADMIN_API_KEY="$(cat "$DATA/admin-api.key")" CHAOS_WORK_DIR_OF="$WORK" \
    nohup node dist/apps/worker/src/main.js) >>"$WORK/worker2.log" 2>&1 &
  W2_PID=$!
  disown "$W2_PID" # no "Killed" notices from bash; it still reaps the process
  remember worker2 "$W2_PID"
  for ((i = 0; i < 600; i++)); do # 60 s
    tail -c +"$from" "$WORK/worker2.log" 2>/dev/null | grep -q 'worker ready' && return 0
    alive "$W2_PID" || break
    sleep 0.1
  done
  say "worker 2 (pid $W2_PID) not ready; last lines:"; tail -n 5 "$WORK/worker2.log" >&2
  return 1
}

FX_PID=
start_fixture() {
  local i
  node "$HERE/fixture.mjs" --checkout "$CHECKOUT" --port "$FIXTURE_PORT" --effects "$WORK/effects.jsonl" >>"$WORK/fixture.log" 2>&1 &
  FX_PID=$!
  disown "$FX_PID"
  remember fixture "$FX_PID"
  for ((i = 0; i < 200; i++)); do # 20 s
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FIXTURE_PORT/health" 2>/dev/null)" = 200 ] && return 0
    alive "$FX_PID" || break
    sleep 0.1
  done
  say "fixture (pid $FX_PID) not listening; last lines:"; tail -n 5 "$WORK/fixture.log" >&2
  return 1
}

LOAD_PID=
CLEANED=0
cleanup() {
  [ "$CLEANED" = 1 ] && return
  CLEANED=1
  trap - INT TERM
  say "cleaning up"
  touch "$STOP_FILE"
  [ -n "$LOAD_PID" ] && stop_pid load "$LOAD_PID" 10
  [ -n "$W2_PID" ] && stop_pid worker2 "$W2_PID" 40
  [ -n "$FX_PID" ] && stop_pid fixture "$FX_PID" 5
  [ -d "$DATA" ] && { devsh 1 down || say "scripts/dev.sh down failed"; }
  # Every pid this run started (its own, and those dev.sh started for it) must be gone.
  local role pid left=0
  while read -r role pid; do
    if ours "$pid" "$role"; then
      left=$((left + 1))
      if [ "$role" = pgchild ]; then say "still alive after cleanup: orphaned PostgreSQL backend pid $pid (left alone)"
      else say "still alive after cleanup: $role pid $pid; killing it"; kill -KILL "$pid" 2>/dev/null; fi
    fi
  done < <(sort -u "$WORK/pids.txt" 2>/dev/null)
  echo "$left" >"$WORK/leftover-pids"
  [ "$left" = 0 ] && say "no process started by this run is alive" || say "$left processes had to be killed at the end"
  if [ "${CHAOS_KEEP:-1}" = 0 ]; then rm -rf "$WORK"; else say "work dir kept: $WORK"; fi
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT TERM

# ---------------------------------------------------------------- 1. stack
for p in "$API_PORT" "$MONGO_PORT" "$PG_PORT" "$REDIS_PORT" "$METRICS1" "$METRICS2" "$FIXTURE_PORT"; do
  port_in_use "$p" && { say "port $p is taken: choose other CHAOS_*_PORT values"; exit 1; }
done
: >"$WORK/pids.txt"
: >"$WORK/faults.jsonl"
: >"$WORK/procs.jsonl"
say "work dir $WORK, checkout $CHECKOUT ($(git -C "$CHECKOUT" rev-parse --short HEAD 2>/dev/null)), faults $FAULTS, rate $RATE/s, seed $SEED"
say "starting the stack (scripts/dev.sh up$([ "${CHAOS_SKIP_BUILD:-}" = 1 ] && echo ', skipping the build'))"
UP_TIMEOUT_S=${CHAOS_FIRST_UP_TIMEOUT_S:-900} devsh "${CHAOS_SKIP_BUILD:-0}" up ||
  { remember_stack; say "first scripts/dev.sh up failed; last lines:"; tail -n 20 "$WORK/devsh.log" >&2; exit 1; }
remember_stack
# shellcheck disable=SC1091
source "$DATA/stack.env" # API_URL API_KEY MONGO_URL REDIS_URL (not exported: dev.sh must not see them)
start_worker2 || exit 1
start_fixture || exit 1
say "stack up: API $API_URL, worker pids $(pidfile worker) + $W2_PID, fixture pid $FX_PID"

cat >"$WORK/meta.json" <<EOF
{"checkout": "$CHECKOUT", "commit": "$(git -C "$CHECKOUT" rev-parse HEAD 2>/dev/null)", "faults": $FAULTS, "rate": $RATE,
 "seed": $SEED, "kinds": "${KINDS[*]}", "gapMs": "$GAP", "downMs": "$DOWN", "workDir": "$WORK", "startedAt": "$(now_iso)",
 "ports": {"api": $API_PORT, "mongo": $MONGO_PORT, "postgres": $PG_PORT, "redis": $REDIS_PORT, "metrics": [$METRICS1, $METRICS2], "fixture": $FIXTURE_PORT}}
EOF

# ---------------------------------------------------------------- 2. toolset + workflow
WORKFLOW=$(API_URL=$API_URL API_KEY=$API_KEY node "$HERE/client.mjs" setup --mcp-url "http://127.0.0.1:$FIXTURE_PORT/mcp" \
  --retry "$NODE_RETRY" --slow-ms "$SLOW_MS" --out "$WORK/setup.json" 2>>"$WORK/chaos.log") ||
  { say "setup failed"; tail -n 5 "$WORK/chaos.log" >&2; exit 1; }
say "workflow $WORKFLOW"

# ---------------------------------------------------------------- 3. load
rm -f "$STOP_FILE"
API_URL=$API_URL API_KEY=$API_KEY node "$HERE/client.mjs" load --setup "$WORK/setup.json" --rate "$RATE" \
  --stop-file "$STOP_FILE" --out "$WORK/triggers.jsonl" --retry-seconds "$TRIGGER_RETRY_S" \
  --max-seconds "$((MAX_FAULT_PHASE_S + 60))" >>"$WORK/load.log" 2>&1 &
LOAD_PID=$!
disown "$LOAD_PID"
remember load "$LOAD_PID"

# ---------------------------------------------------------------- 4. faults
fault_log() { echo "$1" >>"$WORK/faults.jsonl"; }
# What is alive now, by role (pid or -).
snapshot() { local n; for n in api worker mongo redis postgres; do printf '%s=%s ' "$n" "$(alive "$(pidfile $n)" && pidfile $n || echo -)"; done
  printf 'worker2=%s fixture=%s' "$(alive "$W2_PID" && echo "$W2_PID" || echo -)" "$(alive "$FX_PID" && echo "$FX_PID" || echo -)"; }
# Anything that died without being killed is logged, then brought back.
heal() { # context
  local n dead=()
  for n in api worker mongo redis postgres; do alive "$(pidfile $n)" || dead+=("$n"); done
  alive "$W2_PID" || dead+=(worker2)
  alive "$FX_PID" || dead+=(fixture)
  [ ${#dead[@]} -eq 0 ] && return 0
  say "unexpected: ${dead[*]} not alive ($1)"
  echo "{\"type\": \"unexpected-exit\", \"at\": \"$(now_iso)\", \"context\": \"$1\", \"dead\": \"${dead[*]}\"}" >>"$WORK/procs.jsonl"
  for n in "${dead[@]}"; do
    case $n in
      worker2) start_worker2 ;;
      fixture) start_fixture ;;
    esac
  done
  up
}

BAG=()
next_kind() { # sets kind
  local i j tmp
  if [ "${CHAOS_PICK:-bag}" = random ]; then kind=${KINDS[RANDOM % ${#KINDS[@]}]}; return; fi
  if [ ${#BAG[@]} -eq 0 ]; then
    BAG=("${KINDS[@]}")
    for ((i = ${#BAG[@]} - 1; i > 0; i--)); do j=$((RANDOM % (i + 1))); tmp=${BAG[i]}; BAG[i]=${BAG[j]}; BAG[j]=$tmp; done
  fi
  kind=${BAG[0]}
  BAG=("${BAG[@]:1}")
}

fault_start=$SECONDS
prev_kind=none
for ((n = 1; n <= FAULTS; n++)); do
  if ((SECONDS - fault_start > MAX_FAULT_PHASE_S)); then say "fault phase over its bound (${MAX_FAULT_PHASE_S} s): stopping at fault $n"; break; fi
  sleep_ms "$(rand_in "$GAP")"
  heal "after fault $((n - 1)) ($prev_kind)"
  next_kind
  prev_kind=$kind
  down=$(rand_in "$DOWN")
  target=$kind
  case $kind in
    worker) if ((RANDOM % 2)); then target=worker1; pid=$(pidfile worker); role=worker; else target=worker2; pid=$W2_PID; role=worker2; fi ;;
    ferretdb) pid=$(pidfile mongo); role=mongo ;;
    postgres) pid=$(pidfile postgres); role=postgres ;;
    redis | api) pid=$(pidfile "$kind"); role=$kind ;;
    fixture) pid=$FX_PID; role=fixture ;;
  esac
  children=
  [ "$role" = postgres ] && children=$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ')
  for c in $children; do remember pgchild "$c"; done
  at=$(now_iso); t0=$(now_ms)
  if ! kill9 "$role" "$pid"; then
    fault_log "{\"type\": \"fault\", \"n\": $n, \"kind\": \"$kind\", \"target\": \"$target\", \"pid\": \"$pid\", \"at\": \"$at\", \"ok\": false, \"note\": \"target not alive or not ours\"}"
    continue
  fi
  for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.05; done
  sleep_ms "$down"
  ok=true
  UP_TRIES=0
  case $target in
    worker2) start_worker2 || ok=false ;;
    fixture) start_fixture || ok=false ;;
    *) up || ok=false ;;
  esac
  t1=$(now_ms)
  say "fault $n/$FAULTS: SIGKILL $target (pid $pid), down ${down} ms, back after $((t1 - t0)) ms$([ "$UP_TRIES" -gt 1 ] && echo " ($UP_TRIES tries of dev.sh up)"): $ok"
  fault_log "{\"type\": \"fault\", \"n\": $n, \"kind\": \"$kind\", \"target\": \"$target\", \"pid\": $pid, \"at\": \"$at\", \"downMs\": $down, \"recoverMs\": $((t1 - t0)), \"upTries\": $UP_TRIES, \"backAt\": \"$(now_iso)\", \"ok\": $ok, \"after\": \"$(snapshot)\"}"
done
heal "after the last fault ($prev_kind)"

# ---------------------------------------------------------------- 5. stop the load, settle, report
say "faults done; stopping the load (pending triggers are retried for at most ${TRIGGER_RETRY_S} s)"
touch "$STOP_FILE"
for ((i = 0; i < (TRIGGER_RETRY_S + 30) * 10; i++)); do alive "$LOAD_PID" || break; sleep 0.1; done
alive "$LOAD_PID" && { say "load still running: stopping it"; stop_pid load "$LOAD_PID" 5; }
tail -n 1 "$WORK/load.log" >&2
heal "before the report"
say "waiting (at most ${SETTLE_S} s) for every accepted run to end, then reporting"
API_URL=$API_URL API_KEY=$API_KEY node "$HERE/client.mjs" report --dir "$WORK" --out "$RESULTS/$TS.json" \
  --settle-seconds "$SETTLE_S" 2>>"$WORK/report.log" || say "report failed: see $WORK/report.log"
say "result: $RESULTS/$TS.json (summary: $RESULTS/$TS.txt)"
