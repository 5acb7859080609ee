#!/usr/bin/env bash
# The API fuzzer step of `scripts/dev.sh test`: Schemathesis (pinned, from PyPI, installed into a
# virtual environment under the cache folder on first use) against a live API + worker started
# from dist/ over MONGO_URL / REDIS_URL (the suite's throwaway services), with a valid admin key,
# over every operation of /openapi.json. Fails on any 5xx and on any answer (status, content type
# or body) its operation does not document. Bounded: FUZZ_MAX_EXAMPLES cases per operation and
# FUZZ_MAX_SECONDS in all (the whole step is also killed after twice that).
#   FUZZ_SEED=<n> picks another reproducible run (the default seed is fixed, so the step is a gate
#   that does not change under you); FUZZ_SEED=random draws one (printed).
# Cache: $MCPFLOW_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/mcpflow. The API may reach no host at
# all (OUTBOUND_DENY='*'): fuzzed toolset and provider URLs are refused before any connection.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib/services.sh
source "$ROOT/scripts/lib/services.sh"

SCHEMATHESIS_VERSION=4.32.5
CACHE="${MCPFLOW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpflow}"
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-12}
MAX_SECONDS=${FUZZ_MAX_SECONDS:-90}
SEED=${FUZZ_SEED:-20261123}
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance

# CPython 3.11.0–3.11.7 and 3.12.0–3.12.1 share one AST recursion counter between threads
# (python/cpython#106905, fixed in 3.11.8 / 3.12.2): Hypothesis parses lambdas' source while it
# draws, and with two Schemathesis workers that fails at random with "SystemError: AST constructor
# recursion depth mismatch". So: the newest fixed python3 this machine has (PATH, then pyenv's
# versions); with only an affected one, a single worker thread.
python_is_fixed() { # interpreter → success when it has the fix
  "$1" -c 'import sys; v = sys.version_info[:3]; sys.exit(0 if v >= (3, 12, 2) or (3, 11, 8) <= v < (3, 12) or v < (3, 11) else 1)' 2>/dev/null
}
python_runs() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' >/dev/null 2>&1; }
choose_python() {
  local candidate
  for candidate in python3.14 python3.13 python3.12 \
    $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.* 2>/dev/null | sort -r -V | sed 's|$|/bin/python3|') python3; do
    python_runs "$candidate" && python_is_fixed "$candidate" && { PYTHON=$candidate; return 0; }
  done
  PYTHON=python3
}

ensure_schemathesis() {
  command -v python3 >/dev/null || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null
  choose_python
  local version
  version=$("$PYTHON" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])') || return 1
  VENV="$CACHE/schemathesis-$SCHEMATHESIS_VERSION-py$version"
  WORKERS=2
  python_is_fixed "$PYTHON" || { WORKERS=1; log "fuzz: python $version has CPython#106905: one worker thread"; }
  [ -f "$VENV/.installed" ] && return 0
  log "installing schemathesis==$SCHEMATHESIS_VERSION into $VENV (python $version)"
  rm -rf "$VENV"
  if ! "$PYTHON" -m venv "$VENV" 2>/dev/null; then
    # Debian's python3 ships venv (and its pip) apart.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null || return 1
    "$PYTHON" -m venv "$VENV" || return 1
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" || return 1
  touch "$VENV/.installed"
}

[ -n "${MONGO_URL:-}" ] && [ -n "${REDIS_URL:-}" ] || { log "fuzz: MONGO_URL and REDIS_URL must be set (scripts/dev.sh test sets them)"; exit 1; }
[ -f "$ROOT/dist/apps/api/src/main.js" ] || { log "fuzz: dist/ is missing: run npm run build first"; exit 1; }
ensure_schemathesis || { log "fuzz: could not install schemathesis==$SCHEMATHESIS_VERSION"; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpflow-fuzz.XXXXXX")
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

ID=fuzz_$(node -e 'console.log(require("node:crypto").randomBytes(4).toString("hex"))')
KEY=$(node -e 'console.log("mcpf_" + require("node:crypto").randomBytes(32).toString("base64url"))')
PORT=$(free_port)
export NODE_ENV=test LOG_LEVEL=warn API_HOST=127.0.0.1 API_PORT=$PORT WORKER_METRICS_PORT=0 QUEUE_PREFIX=$ID ADMIN_API_KEY=$KEY
MONGO_URL=$(node -e 'const u = new URL(process.argv[1]); u.pathname = "/" + process.argv[2]; console.log(u.href)' "$MONGO_URL" "$ID")
SECRETS_KEY=$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))')
export MONGO_URL SECRETS_KEY REDIS_URL OUTBOUND_DENY='*' RATE_LIMIT_PER_MINUTE=10000000 AUTH_FAILURES_PER_MINUTE=100000
node "$ROOT/dist/apps/api/src/main.js" >"$WORK/api.log" 2>&1 &
PIDS+=($!)
node "$ROOT/dist/apps/worker/src/main.js" >"$WORK/worker.log" 2>&1 &
PIDS+=($!)
if ! wait_http "http://127.0.0.1:$PORT/health" 30; then
  log "fuzz: the API did not answer on 127.0.0.1:$PORT"; tail -n 30 "$WORK/api.log" >&2; exit 1
fi

SEED_ARGS=(--seed "$SEED")
[ "$SEED" = random ] && SEED_ARGS=()
log "fuzz: schemathesis $SCHEMATHESIS_VERSION, every operation, ≤ $MAX_EXAMPLES examples each, ≤ $MAX_SECONDS s, seed ${SEED}"
# Revoking keys goes last, on its own: earlier, stateful tests would revoke the key they test with
# (GET /api-keys lists it) and every later request would be a 401.
REVOKE=ApiKeys_revoke
# Schemathesis's own output (pytest-shaped closing lines and all) goes to $REPORTS/schemathesis.log and
# its run report to $REPORTS/schemathesis-<run>.json; this script prints one line per run, read from
# that report, and on a failure each failing case with the curl line that reproduces it.
REPORTS=${MCPFLOW_REPORTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/mcpflow-fuzz-report.XXXXXX")}
mkdir -p "$REPORTS"
: >"$REPORTS/schemathesis.log"
log "fuzz: Schemathesis's whole report: $REPORTS/schemathesis.log"
fuzz() { # run name, budget in seconds, then schemathesis arguments…
  local name=$1 budget=$2 status
  shift 2
  local report="$REPORTS/schemathesis-$name.json"
  printf '\n── %s ──\n' "$name" >>"$REPORTS/schemathesis.log"
  # From the scratch folder: Schemathesis keeps state (.schemathesis/) in its working directory.
  (cd "$WORK" && timeout --signal=TERM $((budget * 2)) "$VENV/bin/st" run "http://127.0.0.1:$PORT/openapi.json" \
    --header "Authorization: Bearer $KEY" --checks "$CHECKS" --max-examples "$MAX_EXAMPLES" --max-time "$budget" \
    --workers "$WORKERS" --request-timeout 20 --generation-database none --no-color "${SEED_ARGS[@]}" \
    --report json --report-json-path "$report" "$@") >>"$REPORTS/schemathesis.log" 2>&1
  status=$?
  summarize_run "$name" "$report" "$status"
  [ "$status" -eq 0 ] || failing_cases "$REPORTS/schemathesis.log" "$name"
  return "$status"
}
summarize_run() { # run name, its JSON report, exit status → one line
  node -e '
    const fs = require("node:fs");
    const [name, file, status] = process.argv.slice(1);
    if (!fs.existsSync(file)) { console.log(`fuzz ${name}: no report (exit ${status})`); process.exit(0); }
    const r = JSON.parse(fs.readFileSync(file, "utf8"));
    const phases = Object.entries(r.phases).map(([phase, p]) => `${phase} ${p.status}`).join(", ");
    const failures = r.failures.reduce((sum, f) => sum + f.count, 0);
    const warnings = Object.values(r.warnings).reduce((sum, list) => sum + list.length, 0);
    console.log(`fuzz ${name}: ${r.operations.tested}/${r.operations.selected} operations, ${r.test_cases.generated} test cases, ` +
      `${failures} failures, ${r.errors.length} errors, ${warnings} warnings (${phases}; ${r.running_time.toFixed(1)} s)`);
  ' "$1" "$2" "$3"
}
failing_cases() { # the whole log, the run name → its FAILURES section, without the banner lines
  awk -v run="── $2 ──" '
    $0 == run { inside = 1; next }
    /^── .* ──$/ { inside = 0 }
    inside && /^=+ FAILURES =+$/ { show = 1; next }
    inside && /^=+ [A-Z]+ =+$/ { show = 0 }
    inside && show { gsub(/^_+ | _+$/, ""); print "    " $0 }
  ' "$1" | head -n 150
}
# The key-in-path MCP routes (/mcp/{id}/key/{key}…) are off here (MCP_KEY_IN_PATH): each answers 404 to
# anything, so fuzzing them tests nothing.
fuzz every-operation "$MAX_SECONDS" --exclude-operation-id "$REVOKE" --exclude-path-regex '/key/'
status=$?
# What generators do not send: JSON nested thousands deep, NUL inside strings (a few requests, well under a second).
node "$ROOT/scripts/fuzz-bodies.mjs" "http://127.0.0.1:$PORT" "$KEY" || status=1
fuzz revoke-key 20 --include-operation-id "$REVOKE" || status=1
if grep -q -i -E 'unhandled|internal' "$WORK/api.log"; then
  log "fuzz: the API logged faults:"; grep -i -E 'unhandled|internal' "$WORK/api.log" | tail -n 20 >&2
fi
[ "$status" -eq 0 ] && echo "fuzz: no failure; Schemathesis's report: $REPORTS/schemathesis.log" ||
  echo "fuzz: Schemathesis found failures (exit $status); its report: $REPORTS/schemathesis.log"
exit "$status"
