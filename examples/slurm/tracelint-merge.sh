#!/bin/bash
# Merges the shard outputs of tracelint-array.sbatch into one table: the
# same table one `tracelint batch` process prints. Runs of a task that wrote
# nothing are listed as "missing" (exit 4), never silently left out.
# Run it after the array, e.g.
#   jid=$(sbatch --parsable --array=0-15 tracelint-array.sbatch /archive/runs /scratch/tl)
#   sbatch --dependency=afterany:$jid --wrap "tracelint-merge.sh /scratch/tl"
set -uo pipefail
out_dir=${1:?usage: tracelint-merge.sh OUT_DIR [tracelint batch options...]}
shift
tracelint=${TRACELINT:-tracelint}
"$tracelint" batch --merge "$out_dir"/shard-*.jsonl -o "$out_dir/runs.txt" "$@"
rc=$?
"$tracelint" batch --merge "$out_dir"/shard-*.jsonl --format csv -o "$out_dir/runs.csv" "$@"
exit $rc
