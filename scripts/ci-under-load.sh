#!/usr/bin/env bash
# Run the test suite the way a busy CI machine runs it: while it runs, other processes keep every
# core busy. A test that only passes on an idle machine (waits on a log line, a fixed sleep, a
# timeout tuned for an idle box) fails here, where it can be fixed, instead of in someone's CI.
#
#   scripts/ci-under-load.sh                      # the whole suite (vitest run), one hog per core
#   scripts/ci-under-load.sh test/runtime         # only these files/dirs (passed to vitest)
#   LOAD_WORKERS=4 scripts/ci-under-load.sh       # more load
#   LOAD_MAX_SECONDS=1800 ...                     # upper bound on the load's lifetime (default 3600)
#
# The load comes from stress-ng when it is installed (apt-get install stress-ng), else from Node busy
# loops. It is bounded twice: it is stopped when the suite ends (also on Ctrl-C or a kill, by the
# trap), and every generator ends by itself after LOAD_MAX_SECONDS even if this script is killed -9.
# Prints the counts and the wall time; the exit code is the suite's. Needs Postgres and Redis like
# `make test` does.
set -uo pipefail
cd "$(dirname "$0")/.."

workers="${LOAD_WORKERS:-$(nproc 2>/dev/null || echo 2)}"
max_seconds="${LOAD_MAX_SECONDS:-3600}"
report="$(mktemp -t berth-ci-under-load-XXXXXX.json)"
load_pids=()
suite_pid=""

stop_load() {
  local pid
  for pid in "${load_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${load_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  load_pids=()
}
cleanup() {
  # interrupted: the suite goes too (its own children are its business: vitest stops its workers)
  [ -n "$suite_pid" ] && kill -TERM "$suite_pid" 2>/dev/null
  stop_load
  [ -n "$suite_pid" ] && wait "$suite_pid" 2>/dev/null
  rm -f "$report"
}
trap cleanup EXIT
# Ctrl-C / kill: stop the suite and the load (EXIT trap) and exit with the conventional status.
trap 'exit 130' INT
trap 'exit 143' TERM

if command -v stress-ng >/dev/null 2>&1; then
  echo "== load: stress-ng --cpu $workers for at most ${max_seconds} s"
  stress-ng --cpu "$workers" --timeout "${max_seconds}s" --quiet &
  load_pids+=("$!")
else
  echo "== load: $workers node busy loop(s) for at most ${max_seconds} s (install stress-ng to use it instead)"
  for _ in $(seq 1 "$workers"); do
    node -e 'const end = Date.now() + Number(process.argv[1]) * 1000; while (Date.now() < end) {}' "$max_seconds" &
    load_pids+=("$!")
  done
fi

start=$(date +%s)
status=0
# In the background with `wait`, so that a signal to this script runs the trap at once (bash defers
# traps until a foreground command ends).
node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile="$report" "$@" &
suite_pid=$!
wait "$suite_pid" || status=$?
suite_pid=""
wall=$(( $(date +%s) - start ))
stop_load

if [ -s "$report" ]; then
  node -e '
    const r = require(process.argv[1]);
    console.log(`tests under load: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped; files: ${r.testResults.filter((f) => f.status === "failed").length} failed of ${r.testResults.length}; wall time ${process.argv[2]} s (${process.argv[3]} load workers)`);
  ' "$report" "$wall" "$workers"
else
  echo "tests under load: no report (vitest exited with $status); wall time ${wall} s"
fi
exit "$status"
