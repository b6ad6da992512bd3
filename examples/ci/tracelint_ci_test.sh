#!/usr/bin/env bash
# ctest ci_recipe_test: runs tracelint-ci.sh, the script both CI recipes
# call, on the bundled example and checks its outputs and exit codes. With
# DIST (tests/release/release_test.sh passes dist/), it also runs the
# recipes' install commands with dist/ standing in for the release
# (TRACELINT_RELEASE_URL=file://DIST).
#   tracelint_ci_test.sh TRACELINT_BINARY SOURCE_DIR [DIST]
set -uo pipefail
bin=$1
src=$2
dist=${3:-}
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
# The recipes' install steps, on the release files in DIST.
if [ -z "$dist" ]; then
  echo "skipped: no release directory given, the recipes' install steps not run (release_test.sh runs them)"
elif ! /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
  echo "skipped: python3-yaml not installed, the recipes' install steps not run"
else
  url="file://$(cd "$dist" && pwd)"
  # GitHub Actions: the "Install tracelint" step as written, then the job's
  # environment file it wrote.
  mkdir -p "$work/gh"
  /usr/bin/python3 -c '
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"]["tracelint"]["steps"]
print(next(s["run"] for s in steps if s.get("name") == "Install tracelint"))' \
    "$src/examples/ci/github-actions.yml" >"$work/gh/install.sh"
  RUNNER_TEMP="$work/gh" GITHUB_ENV="$work/gh/env" TRACELINT_RELEASE_URL="$url" \
    bash -eo pipefail "$work/gh/install.sh" >"$work/gh/log" 2>&1
  check "github-actions.yml installs from the release" 0 $?
  gh_bin=$(sed -n 's/^TRACELINT=//p' "$work/gh/env" 2>/dev/null)
  gh_ci=$(sed -n 's/^TRACELINT_CI=//p' "$work/gh/env" 2>/dev/null)
  TRACELINT=$gh_bin SOURCE_ROOT=$src "$gh_ci" "$src/testdata/example" "$work/gh/out" >/dev/null 2>&1
  check "github-actions.yml: the installed tracelint-ci.sh gates the example" 1 $?
  # GitLab CI: the script's install lines, pip and the tools directory of a
  # fresh venv standing in for the image's (apt-get left out: the image's).
  /usr/bin/python3 -m venv "$work/gl/venv" >/dev/null 2>&1
  /usr/bin/python3 -c '
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["tracelint"]
for k, v in job["variables"].items():
    print(f"export {k}={v}")
for line in job["script"]:
    if "apt-get" in line:
        continue
    if "TRACELINT_RELEASE_URL" in line or line.startswith(("chmod", "tracelint version")):
        print(line.replace("/usr/local/bin", sys.argv[2] + "/bin").replace("pip ", sys.argv[2] + "/bin/pip "))' \
    "$src/examples/ci/gitlab-ci.yml" "$work/gl/venv" >"$work/gl/install.sh"
  sed "s|^export TRACELINT_RELEASE_URL=.*|export TRACELINT_RELEASE_URL=$url|" "$work/gl/install.sh" >"$work/gl/run.sh"
  PATH="$work/gl/venv/bin:$PATH" bash -eo pipefail "$work/gl/run.sh" >"$work/gl/log" 2>&1
  check "gitlab-ci.yml installs the wheel from the release" 0 $?
  PATH="$work/gl/venv/bin:$PATH" SOURCE_ROOT=$src tracelint-ci.sh "$src/testdata/example" "$work/gl/out" >/dev/null 2>&1
  check "gitlab-ci.yml: tracelint-ci.sh with the wheel's tracelint gates the example" 1 $?
  [ $fail -ne 0 ] && cat "$work/gh/log" "$work/gl/log" 2>/dev/null
fi
exit $fail
