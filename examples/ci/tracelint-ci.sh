#!/usr/bin/env bash
# The tracelint part of the CI recipes in this folder (docs/ci.md): one
# analysis per output CI needs, then the gate, whose exit code is the job's.
#
#   tracelint-ci.sh TRACE OUT_DIR [BASELINE_REPORT_JSON]
#
# Writes OUT_DIR/report.json (keep it as an artifact: the next run's
# baseline), `report.md` (the PR/MR comment), tracelint.sarif (code scanning)
# and report.txt. Environment: TRACELINT (binary, default `tracelint`),
# SOURCE_ROOT (checkout the Python frames map into, default .), FAIL_ON
# (high|medium|low, default high), FAIL_ON_RECOVERABLE (e.g. 30%, default
# off), FAIL_ON_REGRESSION_PCT (with a baseline, default 5).
set -uo pipefail

tracelint=${TRACELINT:-tracelint}
trace=${1:?usage: tracelint-ci.sh TRACE OUT_DIR [BASELINE_REPORT_JSON]}
out=${2:?usage: tracelint-ci.sh TRACE OUT_DIR [BASELINE_REPORT_JSON]}
baseline=${3:-}
mkdir -p "$out"

# Outputs only: a damaged (4) or unjudgeable (5) run still gets its report;
# usage (2), unreadable input (3) and write failures (6) stop here.
report() {
  "$tracelint" analyze "$trace" "$@"
  local rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 4 ] && [ "$rc" -ne 5 ]; then
    echo "tracelint-ci: 'tracelint analyze $*' failed with exit code $rc" >&2
    exit "$rc"
  fi
}
baseline_args=()
if [ -n "$baseline" ] && [ -f "$baseline" ]; then
  baseline_args=(--baseline "$baseline")
elif [ -n "$baseline" ]; then
  echo "tracelint-ci: no baseline at $baseline (first run on this branch?): no regression gate" >&2
fi

report --format json -o "$out/report.json"
report --format markdown -o "$out/report.md" "${baseline_args[@]}"
report --format sarif -o "$out/tracelint.sarif" --source-root "${SOURCE_ROOT:-.}"

gate=(--fail-on "${FAIL_ON:-high}")
if [ -n "${FAIL_ON_RECOVERABLE:-}" ]; then gate+=(--fail-on-recoverable "$FAIL_ON_RECOVERABLE"); fi
if [ "${#baseline_args[@]}" -gt 0 ]; then
  gate+=("${baseline_args[@]}" --fail-on-regression "${FAIL_ON_REGRESSION_PCT:-5}")
fi
"$tracelint" analyze "$trace" --format text -o "$out/report.txt" "${gate[@]}"
rc=$?
case "$rc" in
  0) echo "tracelint-ci: passed" ;;
  1) echo "tracelint-ci: gate tripped (see $out/report.txt)" >&2 ;;
  4) echo "tracelint-ci: passed, but the trace was damaged (see the warnings)" >&2; rc=0 ;;
  5) echo "tracelint-ci: the run could not be judged (no steady step or no device activity)" >&2 ;;
  *) echo "tracelint-ci: tracelint failed with exit code $rc" >&2 ;;
esac
exit "$rc"
