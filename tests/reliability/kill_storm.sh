#!/usr/bin/env bash
# The long kill storm of issue 17 ("Killed at any moment"): the test_kill_storm program (built by the ci
# preset) with YWB_KILL_STORM_KILLS=N instead of CI's 10. It prints the seed first and a summary line at the
# end (kills, where they landed by phase, resumes, wall time); a failure names the kill and what it broke.
#   tests/reliability/kill_storm.sh [KILLS=100] [SEED]     BUILD=build/ci by default; LOG=file keeps the output
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD:-$root/build/ci}/tests/engine/test_kill_storm
if [ ! -x "$bin" ]; then
  echo "kill_storm.sh: $bin not built (cmake --preset ci && cmake --build --preset ci --target test_kill_storm)" >&2
  exit 2
fi
export YWB_KILL_STORM_KILLS=${1:-100}
if [ -n "${2:-}" ]; then export YWB_KILL_STORM_SEED=$2; fi
export QT_QPA_PLATFORM=offscreen QTEST_FUNCTION_TIMEOUT=86400000
start=$(date +%s)
set +e
"$bin" 2>&1 | tee "${LOG:-/dev/null}"
rc=${PIPESTATUS[0]}
set -e
echo "kill_storm.sh: ${YWB_KILL_STORM_KILLS} kills asked, exit $rc, $(( $(date +%s) - start )) s wall on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
exit "$rc"
