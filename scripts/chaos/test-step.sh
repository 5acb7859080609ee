#!/usr/bin/env bash
# The chaos step of `scripts/dev.sh test`: a short run of the fault harness (chaos.sh) on this
# checkout's built dist/, on free loopback ports and its own data dir, then gate.mjs's verdict in
# one line. The harness's own output and report go to files under <out dir>.
#
#   scripts/chaos/test-step.sh <out dir>     (CHAOS_FAULTS=12 CHAOS_RATE=4 by default; CHAOS_KEEP=1 keeps the work dir, logs included)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:?usage: $0 <out dir>}
mkdir -p "$OUT"
# shellcheck source=scripts/lib/services.sh
source "$ROOT/scripts/lib/services.sh"

# The test command's environment is for its Jest runs, not for the chaos stack (which logs for its report).
ports=()
for _ in 1 2 3 4 5 6; do ports+=("$(free_port)"); done
env -u NODE_ENV -u LOG_LEVEL -u MONGO_URL -u REDIS_URL \
  CHAOS_API_PORT="${ports[0]}" CHAOS_MONGO_PORT="${ports[1]}" CHAOS_POSTGRES_PORT="${ports[2]}" CHAOS_REDIS_PORT="${ports[3]}" \
  CHAOS_METRICS_PORT="${ports[4]}" CHAOS_FIXTURE_PORT="${ports[5]}" \
  CHAOS_SKIP_BUILD=1 CHAOS_KEEP="${CHAOS_KEEP:-0}" CHAOS_SETTLE_S="${CHAOS_SETTLE_S:-120}" CHAOS_TRIGGER_RETRY_S="${CHAOS_TRIGGER_RETRY_S:-60}" \
  CHAOS_RESULTS_DIR="$OUT" CHAOS_WORK_DIR="$OUT/work" \
  "$HERE/chaos.sh" "$ROOT" "${CHAOS_FAULTS:-12}" "${CHAOS_RATE:-4}" >"$OUT/chaos.log" 2>&1
report=$(ls -t "$OUT"/*.json 2>/dev/null | head -n 1)
if [ -z "$report" ]; then
  echo "chaos: FAILED: no report (see $OUT/chaos.log)"
  exit 1
fi
node "$HERE/gate.mjs" "$report"
