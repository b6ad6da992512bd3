#!/usr/bin/env bash
# tracelint batch as an array job on a real single-node Slurm cluster
# (issue 15). Usage: slurm_batch_test.sh TRACELINT SOURCE_DIR
#
# 1. Four shards as plain processes, run at once, merge to exactly the
#    single-process table (text and JSON); a merge without one shard lists
#    that shard's runs as missing (exit 4).
# 2. munged, slurmctld and slurmd started on localhost from a generated
#    minimal slurm.conf in a temporary directory (own ports, own munge key
#    and socket; nothing under /etc is touched), then
#    `sbatch --array=0-3 --wait examples/slurm/tracelint-array.sbatch`, the
#    merge, and the same comparison.
# 3. A sharded `tracelint analyze` of one 16-rank run: four shards as plain
#    processes and as a Slurm array (examples/slurm/tracelint-analyze-*),
#    merged to exactly the one-process report (JSON and text); a merge
#    without one part exits 4 and names its shard.
# Exit 77 (ctest: skipped) only when the Slurm daemons cannot be started,
# saying why; under CI=true that is a failure instead (docs/design/contract.md).
set -uo pipefail

tracelint=$(realpath "${1:?usage: slurm_batch_test.sh TRACELINT SOURCE_DIR}")
src=$(realpath "${2:?usage: slurm_batch_test.sh TRACELINT SOURCE_DIR}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracelint_slurm.XXXXXX")
started_pids=()

cleanup() {
  for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
    [[ -s $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  for pid in "${started_pids[@]}"; do kill "$pid" 2>/dev/null; done
  sleep 0.5
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

skip() {
  if [[ ${CI:-} == true ]]; then
    echo "FAIL (CI=true, no skipping): $*"
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}

# The archive: each case study trace a run of its own.
archive=$tmp/archive
for f in "$src"/testdata/rules/*.json; do
  name=$(basename "$f" .json)
  mkdir -p "$archive/$name"
  cp "$f" "$archive/$name/rank0.json"
done
runs=$(ls "$archive" | wc -l)
echo "archive: $runs runs"

# cpu_only is a run nobody can judge (no device activity): its row says so
# and the batch exits 5, as analyze does on it (docs/design/contract.md, exit codes).
want_rc=5
"$tracelint" batch "$archive" -o "$tmp/single.txt"
rc=$?
[[ $rc == "$want_rc" ]] || fail "single-process batch: exit $rc, want $want_rc"
grep -q '^[^ ]*cpu_only  *not judgeable ' "$tmp/single.txt" ||
  fail "the cpu_only run is not marked not judgeable"
"$tracelint" batch "$archive" --format json -o "$tmp/single.json"
rc=$?
[[ $rc == "$want_rc" ]] || fail "single json: exit $rc, want $want_rc"

compare() {  # compare DIR LABEL: merge DIR/shard-*.jsonl, compare with the single process
  local dir=$1 label=$2
  "$tracelint" batch --merge "$dir"/shard-*.jsonl -o "$dir/merged.txt"
  rc=$?
  [[ $rc == "$want_rc" ]] || fail "$label: merge exit $rc, want $want_rc"
  "$tracelint" batch --merge "$dir"/shard-*.jsonl --format json -o "$dir/merged.json"
  rc=$?
  [[ $rc == "$want_rc" ]] || fail "$label: merge json exit $rc, want $want_rc"
  diff -u "$tmp/single.txt" "$dir/merged.txt" || fail "$label: merged text table differs"
  cmp -s "$tmp/single.json" "$dir/merged.json" || fail "$label: merged JSON differs"
  echo "$label: merged table identical to the single-process table (text and JSON)"
}

# --- 1. four shards as plain processes, at once ---------------------------
mkdir -p "$tmp/plain"
pids=()
for i in 0 1 2 3; do
  "$tracelint" batch "$archive" --shard "$i/4" --format jsonl -j 1 \
    -o "$tmp/plain/shard-$i.jsonl" 2>"$tmp/plain/shard-$i.err" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid"
  rc=$?
  [[ $rc == 0 || $rc == 5 ]] || fail "a plain shard process failed (exit $rc)"
done
cat "$tmp"/plain/shard-*.err
compare "$tmp/plain" "4 plain processes"

mkdir -p "$tmp/lost"
cp "$tmp"/plain/shard-{0,1,3}.jsonl "$tmp/lost/"
"$tracelint" batch --merge "$tmp"/lost/shard-*.jsonl -o "$tmp/lost/merged.txt" 2>"$tmp/lost/err"
rc=$?
# A missing shard is 4; the not-judgeable run outranks it (5) unless it was
# in the missing shard.
lost_rc=5
grep '"type":"run"' "$tmp/plain/shard-2.jsonl" | grep -q 'cpu_only' && lost_rc=4
[[ $rc == "$lost_rc" ]] || fail "merge without shard 2: exit $rc, want $lost_rc"
grep -q "shard 2/4" "$tmp/lost/err" || fail "merge without shard 2 does not name it"
lost=$(grep -c '"type":"run"' "$tmp/plain/shard-2.jsonl")
# The status column, not a reason that says "missing correlation ids".
missing=$(grep -cE '^[^ ]+ +missing ' "$tmp/lost/merged.txt")
[[ $lost == "$missing" ]] || fail "shard 2 had $lost runs, the merge lists $missing missing"
echo "missing shard: exit $rc, its $lost runs listed as missing:"
grep -E '^[^ ]+ +missing ' "$tmp/lost/merged.txt"

# --- 1b. a sharded analyze of one 16-rank run, as plain processes ---------
# Sixteen ranks of one job from the late-rank case study (a straggler and
# the ranks waiting on it), renumbered.
job=$tmp/job16
mkdir -p "$job"
python3 - "$src/testdata/rules2/late_rank_compute" "$job" <<'PY' || fail "could not write the 16-rank run"
import json, sys
src, out = sys.argv[1], sys.argv[2]
for rank in range(16):
    with open(f"{src}/rank{1 if rank == 5 else 0}.json") as f:
        trace = json.load(f)
    trace["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": 16}
    with open(f"{out}/rank{rank}.json", "w") as f:
        json.dump(trace, f)
PY
"$tracelint" analyze "$job" --format json -o "$tmp/job16.json"
analyze_rc=$?
"$tracelint" analyze "$job" -o "$tmp/job16.txt"
compare_analyze() {  # compare_analyze DIR LABEL: merge DIR/part-*.jsonl, compare with one process
  local dir=$1 label=$2
  "$tracelint" analyze --merge "$dir"/part-*.jsonl --format json -o "$dir/merged.json"
  rc=$?
  [[ $rc == "$analyze_rc" ]] || fail "$label: merge exit $rc, want $analyze_rc"
  "$tracelint" analyze --merge "$dir"/part-*.jsonl -o "$dir/merged.txt"
  cmp -s "$tmp/job16.json" "$dir/merged.json" || fail "$label: merged JSON report differs"
  diff -u "$tmp/job16.txt" "$dir/merged.txt" || fail "$label: merged text report differs"
  echo "$label: merged report identical to one process (JSON and text, exit $rc)"
}
mkdir -p "$tmp/plain16"
pids=()
for i in 0 1 2 3; do
  "$tracelint" analyze "$job" --shard "$i/4" --threads 1 -o "$tmp/plain16/part-$i.jsonl" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || fail "a plain analyze shard failed"
done
compare_analyze "$tmp/plain16" "sharded analyze, 4 plain processes"
rm "$tmp/plain16/part-1.jsonl"
"$tracelint" analyze --merge "$tmp"/plain16/part-*.jsonl -o /dev/null 2>"$tmp/plain16/err"
rc=$?
[[ $rc == 4 ]] || fail "analyze merge without part 1: exit $rc, want 4"
grep -q "shard 1/4: no part given" "$tmp/plain16/err" || fail "the merge does not name shard 1"

# --- 2. a real Slurm cluster ----------------------------------------------
for tool in munged slurmctld slurmd sbatch sinfo; do
  command -v "$tool" >/dev/null ||
    skip "$tool not installed (scripts/setup.sh --test installs slurm-wlm and munge)"
done
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/slurm"
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge.key"
munged --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge.seed" --force 2>"$tmp/log/munged.err" ||
  skip "munged did not start: $(cat "$tmp/log/munged.err" "$tmp/log/munged.log" 2>/dev/null | tail -3)"

user=$(id -un)
node=$(hostname -s)
port=$((20000 + RANDOM % 20000))
cat >"$tmp/slurm.conf" <<CONF
ClusterName=tltest$$
SlurmctldHost=$node(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=tltest Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -f "$SLURM_CONF" -i 2>"$tmp/log/slurmctld.err" ||
  skip "slurmctld did not start: $(tail -3 "$tmp/log/slurmctld.err" "$tmp/log/slurmctld.log" 2>/dev/null)"
slurmd -f "$SLURM_CONF" -N "$node" 2>"$tmp/log/slurmd.err" ||
  skip "slurmd did not start: $(tail -3 "$tmp/log/slurmd.err" "$tmp/log/slurmd.log" 2>/dev/null)"
state=""
for _ in $(seq 1 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -1)
  [[ $state == idle* || $state == mixed* ]] && break
  sleep 0.5
done
[[ $state == idle* || $state == mixed* ]] ||
  skip "the Slurm node did not come up (state '${state}'): $(tail -3 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log" 2>/dev/null)"
echo "slurm: $(sinfo -V), node $node $state, controller on 127.0.0.1:$port"

mkdir -p "$tmp/slurm_out"
start=$(date +%s)
TRACELINT=$tracelint timeout 120 sbatch --array=0-3 --wait --chdir "$tmp" \
  --cpus-per-task=1 --mem=100 --time=10 \
  -o "$tmp/log/task-%a.out" -e "$tmp/log/task-%a.out" \
  "$src/examples/slurm/tracelint-array.sbatch" "$archive" "$tmp/slurm_out"
rc=$?
echo "sbatch --array=0-3 --wait: exit $rc after $(($(date +%s) - start)) s"
for f in "$tmp"/log/task-*.out; do echo "--- $(basename "$f")"; cat "$f"; done
[[ $rc == 0 ]] || fail "the array job failed (exit $rc)"
[[ $(ls "$tmp"/slurm_out/shard-*.jsonl | wc -l) == 4 ]] || fail "want 4 shard outputs"
compare "$tmp/slurm_out" "slurm array of 4"
echo "merged table:"
cat "$tmp/slurm_out/merged.txt"

# The sharded analyze recipe: four array tasks, then the merge script.
mkdir -p "$tmp/slurm16"
TRACELINT=$tracelint timeout 120 sbatch --array=0-3 --wait --chdir "$tmp" \
  --cpus-per-task=1 --mem=100 --time=10 \
  -o "$tmp/log/analyze-%a.out" -e "$tmp/log/analyze-%a.out" \
  "$src/examples/slurm/tracelint-analyze-array.sbatch" "$job" "$tmp/slurm16"
rc=$?
for f in "$tmp"/log/analyze-*.out; do echo "--- $(basename "$f")"; cat "$f"; done
[[ $rc == 0 ]] || fail "the analyze array job failed (exit $rc)"
[[ $(ls "$tmp"/slurm16/part-*.jsonl | wc -l) == 4 ]] || fail "want 4 analyze parts"
TRACELINT=$tracelint bash "$src/examples/slurm/tracelint-analyze-merge.sh" "$tmp/slurm16"
rc=$?
[[ $rc == "$analyze_rc" ]] || fail "tracelint-analyze-merge.sh: exit $rc, want $analyze_rc"
cmp -s "$tmp/job16.json" "$tmp/slurm16/report.json" || fail "slurm: merged JSON report differs"
diff -u "$tmp/job16.txt" "$tmp/slurm16/report.txt" || fail "slurm: merged text report differs"
echo "slurm array of 4 analyze shards: merged report identical to one process"
head -12 "$tmp/slurm16/report.txt"
echo "PASS"
