#!/usr/bin/env bash
# Compares the JSON reports two tracelint binaries give on every trace file
# under a directory (a change that must not alter any report: limits,
# refactors). Prints one line per file and a summary; exit 1 on any
# difference in the report or the exit code.
#   scripts/compare_reports.sh OLD_TRACELINT NEW_TRACELINT TRACE_DIR [ANALYZE_ARGS...]
set -uo pipefail
old=$1 new=$2 dir=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
same=0 differ=0
while IFS= read -r -d '' f; do
  "$old" analyze "$f" --format json -o "$work/old.json" "$@" 2>"$work/old.err"
  old_rc=$?
  "$new" analyze "$f" --format json -o "$work/new.json" "$@" 2>"$work/new.err"
  new_rc=$?
  touch "$work/old.json" "$work/new.json"
  if [[ $old_rc == "$new_rc" ]] && cmp -s "$work/old.json" "$work/new.json" &&
     cmp -s "$work/old.err" "$work/new.err"; then
    echo "same   rc=$new_rc $f"
    same=$((same + 1))
  else
    echo "DIFFER rc=$old_rc->$new_rc $f"
    diff <(cat "$work/old.err" "$work/old.json") <(cat "$work/new.err" "$work/new.json") | head -20
    differ=$((differ + 1))
  fi
  rm -f "$work/old.json" "$work/new.json"
done < <(find "$dir" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.pb' \) \
           ! -name 'MANIFEST*' -print0 | sort -z)
echo "$same identical, $differ different"
[[ $differ == 0 ]]
