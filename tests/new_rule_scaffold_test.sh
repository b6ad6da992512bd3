#!/usr/bin/env bash
# scripts/new_rule.py on a throwaway rule, in a scratch copy of the files it
# edits: it must write the rule, its test and its page, register it, add the
# table rows, and the C++ it writes must compile against the tree as it is.
# Usage: new_rule_scaffold_test.sh SOURCE_DIR CXX
set -euo pipefail
src=$1
cxx=${2:-c++}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/rules/docs"
cp "$src/rules/all_rules.cc" "$scratch/rules/"
cp "$src/rules/docs/index.md" "$scratch/rules/docs/"
cp "$src/README.md" "$scratch/"
python3 "$src/scripts/new_rule.py" --root "$scratch" memset-heavy-steps \
  "memsets take a large share of the step" >/dev/null
for f in rules/memset_heavy_steps.h rules/memset_heavy_steps.cc rules/memset_heavy_steps_test.cc \
         rules/docs/memset-heavy-steps.md; do
  [[ -s "$scratch/$f" ]] || { echo "FAIL: $f not written"; exit 1; }
done
grep -q 'registry.Register("memset-heavy-steps", std::make_unique<MemsetHeavyStepsRule>());' \
  "$scratch/rules/all_rules.cc" || { echo "FAIL: not registered"; exit 1; }
grep -q '#include "rules/memset_heavy_steps.h"' "$scratch/rules/all_rules.cc" \
  || { echo "FAIL: no include"; exit 1; }
for table in rules/docs/index.md README.md; do
  grep -q '| \[memset-heavy-steps\](.*memset-heavy-steps.md) | Memsets take a large share of the step |' \
    "$scratch/$table" || { echo "FAIL: no row in $table"; exit 1; }
done
# The rows stay in id order.
ids=$(grep -o '^| \[[a-z0-9-]*\]' "$scratch/rules/docs/index.md" | tr -d '|[] ')
[[ "$ids" == "$(sort <<<"$ids")" ]] || { echo "FAIL: index rows out of order"; exit 1; }
# A second run for the same id refuses instead of overwriting.
if python3 "$src/scripts/new_rule.py" --root "$scratch" memset-heavy-steps "again" 2>/dev/null; then
  echo "FAIL: a second scaffold of one id was accepted"; exit 1
fi
# What it wrote compiles against the tree (the rules' own headers included).
for f in memset_heavy_steps.cc memset_heavy_steps_test.cc all_rules.cc; do
  "$cxx" -std=c++20 -fsyntax-only -I "$scratch" -I "$src" "$scratch/rules/$f" \
    || { echo "FAIL: rules/$f does not compile"; exit 1; }
done
echo "new_rule_scaffold_test: ok"
