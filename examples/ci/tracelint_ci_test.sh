#!/usr/bin/env bash
# ctest ci_recipe_test: runs tracelint-ci.sh, the script both CI recipes
# call, on the bundled example and checks its outputs and exit codes.
#   tracelint_ci_test.sh TRACELINT_BINARY SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
script="$src/examples/ci/tracelint-ci.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/tracelint_ci_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL: $1: expected $2, got $3"; fail=1; else echo "ok: $1"; fi
}

# The example's DataLoader finding is high: the default gate trips.
TRACELINT=$bin SOURCE_ROOT=$src "$script" "$src/testdata/example" "$work/a" >/dev/null 2>&1
check "high finding trips FAIL_ON=high" 1 $?
for f in report.json report.md tracelint.sarif report.txt; do
  check "writes $f" yes "$([ -s "$work/a/$f" ] && echo yes || echo no)"
done
check "markdown has the verdict" 1 "$(grep -c '^\*\*Verdict: input' "$work/a/report.md")"
check "sarif is 2.1.0" 1 "$(grep -c '"version": "2.1.0"' "$work/a/tracelint.sarif")"

# Against its own report as the baseline: no regression, the finding still gates.
TRACELINT=$bin "$script" "$src/testdata/example" "$work/b" "$work/a/report.json" >/dev/null 2>&1
check "baseline run still gated by the finding" 1 $?
check "markdown carries the baseline comparison" yes \
  "$(grep -q '^### tracelint diff' "$work/b/report.md" && echo yes || echo no)"

# A missing baseline (first run on main) is not an error.
TRACELINT=$bin FAIL_ON=high FAIL_ON_RECOVERABLE=100% "$script" "$src/testdata/example" "$work/c" \
  "$work/none.json" >/dev/null 2>&1
check "missing baseline: still gated by the finding" 1 $?

# Host work only: not judgeable, never a pass.
TRACELINT=$bin "$script" "$src/testdata/rules/cpu_only.json" "$work/d" >/dev/null 2>&1
check "unjudgeable run" 5 $?

# Nothing to read (the output stays outside the trace's directory).
mkdir -p "$work/traces"
TRACELINT=$bin "$script" "$work/traces/missing.json" "$work/e" >/dev/null 2>&1
check "unreadable trace" 3 $?

# The recipes parse as YAML (skipped without python3-yaml).
if python3 -c 'import yaml' 2>/dev/null; then
  for y in github-actions.yml gitlab-ci.yml; do
    python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$src/examples/ci/$y"
    check "$y parses" 0 $?
  done
else
  echo "skipped: python3-yaml not installed, recipes' YAML not parsed"
fi
exit $fail
