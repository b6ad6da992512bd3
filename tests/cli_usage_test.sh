#!/usr/bin/env bash
# The command line's own words, end to end through the binary (main.cc):
# no arguments, a missing path, an option given twice, a number too large,
# --price-per-hour alone, `tracelint rules ID`. Each case checks the exit
# code and that the message is tracelint's, not CLI11's.
#   cli_usage_test.sh TRACELINT SOURCE_DIR
set -u
bin=$1
src=$2
example=$src/testdata/example
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME CODE STDERR_PATTERN [STDERR_ABSENT] -- ARGS...
expect() {
  local name=$1 code=$2 want=$3 absent=$4
  shift 5
  "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" != "$code" ]; then
    echo "FAIL $name: exit $rc, want $code"; cat "$tmp/err"; failures=$((failures + 1)); return
  fi
  if ! grep -qE -- "$want" "$tmp/err"; then
    echo "FAIL $name: stderr lacks /$want/:"; cat "$tmp/err"; failures=$((failures + 1)); return
  fi
  if [ -n "$absent" ] && grep -qE -- "$absent" "$tmp/err"; then
    echo "FAIL $name: stderr has /$absent/:"; cat "$tmp/err"; failures=$((failures + 1)); return
  fi
  echo "ok   $name"
}

expect no-arguments 2 '^usage: tracelint COMMAND' 'A subcommand is required' --
grep -q '^  analyze ' "$tmp/err" || { echo "FAIL no-arguments: no command list"; failures=$((failures + 1)); }
[ -s "$tmp/out" ] && { echo "FAIL no-arguments: wrote to stdout"; failures=$((failures + 1)); }
expect analyze-without-path 2 "^tracelint: analyze needs a path \(trace file" 'is required' -- analyze
expect diff-without-new 2 "^tracelint: diff needs 'new'" 'is required' -- diff "$example"
expect repeated-option 2 '^tracelint: --top was given 2 times; it takes one value, so give it once' \
  'At Most' -- analyze "$example" --top 3 --top 4
expect number-too-large 2 '^tracelint: --top: 99999999999999999999 is too large a number' \
  'Could not convert' -- analyze "$example" --top 99999999999999999999
expect not-a-number 2 "^tracelint: --top: .*'ten'" 'Could not convert' \
  -- analyze "$example" --top ten
expect price-without-batch-size 0 \
  '^tracelint: note: --price-per-hour needs --batch-size .*neither samples/s nor samples per dollar' \
  '' -- analyze "$example" --price-per-hour 12.5 --no-config
expect rules-no-rule-selected 2 "^tracelint: the rule selection '-\*' selects no rule" '' \
  -- analyze "$example" --rules '-*' --no-config

# `tracelint rules ID`: the user's page, without contributor internals.
for id in $("$bin" rules | awk '$1 ~ /^[a-z]/ {print $1}'); do
  "$bin" rules "$id" >"$tmp/page" 2>&1 || { echo "FAIL rules $id: exit $?"; failures=$((failures + 1)); continue; }
  if grep -nE '(analyzer|rules|parsers|cli|tests)/[A-Za-z_/]+\.(h|cc|py)|Tests:|docs/design/|[A-Za-z]+Test\.[A-Za-z]' "$tmp/page"; then
    echo "FAIL rules $id: contributor internals above"; failures=$((failures + 1))
  else
    echo "ok   rules $id"
  fi
done

# --version names the commit the binary was built from when it knows it.
"$bin" --version | grep -qE '^tracelint [0-9.]+( \(commit [0-9a-f]{12}\))?$' \
  || { echo "FAIL --version: $("$bin" --version)"; failures=$((failures + 1)); }

if [ "$failures" -gt 0 ]; then
  echo "cli_usage_test: $failures failure(s)"
  exit 1
fi
echo "cli_usage_test: all cases pass"
