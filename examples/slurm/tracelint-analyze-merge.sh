#!/bin/bash
# Merges the parts of tracelint-analyze-array.sbatch into the report one
# `tracelint analyze` process would have written for the whole run (text,
# JSON, Markdown and SARIF identical; HTML without the timeline). Ranks of a
# task that wrote nothing are reported as not read (exit 4), never silently
# left out. Run it after the array, e.g.
#   jid=$(sbatch --parsable --array=0-15 tracelint-analyze-array.sbatch /traces/job-1234 /scratch/tl)
#   sbatch --dependency=afterany:$jid --wrap "tracelint-analyze-merge.sh /scratch/tl"
# Further options (--fail-on high, --top 20, ...) go to the merge.
set -uo pipefail
out_dir=${1:?usage: tracelint-analyze-merge.sh OUT_DIR [tracelint analyze options...]}
shift
tracelint=${TRACELINT:-tracelint}
"$tracelint" analyze --merge "$out_dir"/part-*.jsonl -o "$out_dir/report.txt" "$@"
rc=$?
"$tracelint" analyze --merge "$out_dir"/part-*.jsonl --format json -o "$out_dir/report.json" "$@" \
  2>/dev/null
"$tracelint" analyze --merge "$out_dir"/part-*.jsonl --format sarif -o "$out_dir/report.sarif" \
  "$@" 2>/dev/null
exit $rc
