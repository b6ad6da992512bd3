#!/usr/bin/env bash
# Seeds and runs the libFuzzer targets of a -DTRACELINT_FUZZ=ON build.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# Targets: kineto_json xspace gzip discovery report pipeline annotate stdin shard_part
# (default: all).
# Seeds come from testdata/ (gzip seeds are compressed on the fly), the
# corpus in ../shared/corpus when present and tests/fuzz/regressions/.
# A crash stops that target; its input is kept in BUILD_DIR/fuzz-artifacts/
# and the script exits 1 once every target has run. To keep a crash as a
# regression: fix it, then copy the input to tests/fuzz/regressions/TARGET/
# (fuzz_regression_test replays it in every build).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
seconds=${2:?usage: run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(kineto_json xspace gzip discovery report pipeline mcp_json annotate stdin shard_part)
fi
corpus=../shared/corpus
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d "${TMPDIR:-/tmp}/tracelint_fuzz_seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT

small_json() {  # trace JSON of testdata/ under 40 KB
  find testdata -name '*.json' ! -name 'expected.json' -size -40k | sort
}

seed() {  # seed TARGET DIR: fills DIR with the target's seeds
  local target=$1 dir=$2 f n=0
  mkdir -p "$dir"
  case "$target" in
    kineto_json | pipeline | annotate | stdin)
      for f in $(small_json); do cp "$f" "$dir/$(echo "$f" | tr / _)"; done
      ;;&
    annotate | stdin)
      # Events the annotated output must not copy: invalid UTF-8, a bad
      # escape, a lone surrogate, a raw control character.
      printf '{"traceEvents":[{"ph":"X","name":"k\xff","pid":0,"tid":1,"ts":1,"dur":1},\n{"ph":"X","name":"\\q","pid":0,"tid":1,"ts":2,"dur":1},\n{"ph":"X","name":"\\ud800","pid":0,"tid":1,"ts":3,"dur":1},\n{"ph":"X","name":"a\tb","pid":0,"tid":1,"ts":4,"dur":1}]}' >"$dir/hostile_events.json"
      head -c 4096 /dev/zero >"$dir/zeros"
      ;;&
    pipeline | gzip | stdin)
      for f in $(small_json); do gzip -c "$f" >"$dir/$(echo "$f" | tr / _).gz"; done
      f=$(small_json | head -1)
      # Concatenated members (what a bomb is made of), and a cut trailer.
      cat <(gzip -c "$f") <(gzip -c "$f") >"$dir/two_members.gz"
      gzip -c "$f" | head -c -4 >"$dir/cut_trailer.gz"
      ;;&
    xspace | pipeline)
      if [[ -d "$corpus" ]]; then
        find "$corpus" -name '*.xplane.pb' -size -300k | while read -r f; do
          n=$((n + 1))
          cp "$f" "$dir/xspace_$n.pb"
        done
      fi
      ;;&
    discovery)
      printf 'fa/w0.1.pt.trace.json\nfa/w1.1.pt.trace.json\nfa/w0.2.pt.trace.json\n' >"$dir/spans"
      printf 'fplugins/profile/r1/h.pt.trace.json\ngplugins/profile/r2/h.pt.trace.json.gz\n' \
        >"$dir/tensorboard"
      printf 'dx\nlx/loop\t..\nlup\t..\nfx/t.json\nex/e.json\njx/j.json\n' >"$dir/links"
      printf 's2\nfrun/w.1.pt.trace.json\nfrun/w.2.pt.trace.json\n' >"$dir/span_asked"
      ;;
    mcp_json)
      printf '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' >"$dir/initialize"
      printf '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"analyze","arguments":{"path":"a\\u00e9\\ud83d\\ude00","top":3,"rules":["-*"],"x":[1.5e300,-0,true,null]}}}' >"$dir/call"
      printf '[{"a":[[[[]]]]},"\\"\\\\\\/\\b\\f\\n\\r\\t"]' >"$dir/nested"
      ;;
    report)
      printf 'void gemm<xss>(float*)\0aten::mm\0thread\033[31m\0dir|with\nnewline' >"$dir/markup"
      printf 'k\xff\xfe\0op\0t\0path\xc3' >"$dir/invalid_utf8"
      printf 'a\r\x07b\0`*_[x](y)|\0\xe2\x80\xae\0/tmp/<xss>' >"$dir/controls"
      ;;
    shard_part)
      # Edit scripts for the target's own two-rank part (fuzz_shard.cc), and
      # real parts written by this build: a two-rank run split in two, and
      # a one-file run (a part is made of whole-record lines).
      printf 'E\x00\x10\x00' >"$dir/script_one_edit"
      printf 'E\x01\x00\x05\x02\x00\x0e\x03\x00\x10' >"$dir/script_three_edits"
      "$build/tracelint" analyze testdata/rules2/late_rank_compute --shard 0/2 \
        -o "$dir/late_rank_part0.jsonl" 2>/dev/null
      "$build/tracelint" analyze testdata/rules/dataloader_starvation.json --shard 0/1 \
        -o "$dir/dataloader_part.jsonl" 2>/dev/null
      ;;
  esac
  if [[ -d "tests/fuzz/regressions/$target" ]]; then
    find "tests/fuzz/regressions/$target" -type f ! -name README.md -exec cp {} "$dir/" \;
  fi
  true
}

status=0
for target in "${targets[@]}"; do
  binary="$build/tests/fuzz/${target}_fuzzer"
  [[ -x "$binary" ]] || { echo "fuzz: $binary not built (-DTRACELINT_FUZZ=ON)" >&2; exit 2; }
  seed "$target" "$work/seeds_$target"
  mkdir -p "$work/new_$target"
  # Small inputs keep executions fast (hundreds per second where the target
  # allows); longer seeds are cut to max_len, which exercises truncation.
  dict=()
  max_len=16384
  case "$target" in
    kineto_json | pipeline | annotate | stdin) dict=(-dict=tests/fuzz/json.dict) ;;
    xspace) max_len=65536 ;;
    discovery) max_len=2048 ;;
    report) dict=(-dict=tests/fuzz/report.dict) max_len=1024 ;;
    mcp_json) dict=(-dict=tests/fuzz/json.dict) max_len=4096 ;;
    shard_part) dict=(-dict=tests/fuzz/json.dict) max_len=65536 ;;
  esac
  log="$work/$target.log"
  start_s=$(date +%s)
  rc=0
  # -entropic=0: libFuzzer 14's entropic schedule keeps every feature seen
  # fewer than 256 times as "rare" and searches that list linearly for each
  # feature of each execution; with the ~10,000 features an input of these
  # targets covers, that search was 40-70% of the time (perf) and held
  # every target below 150 executions per second.
  # shard_part forges parts whose values no analysis makes (fuzz_shard.cc):
  # the invariant checks that abort on those under TRACELINT_STRICT_INVARIANTS
  # report them on stderr in a release merge, which is what it must survive.
  strict=(TRACELINT_STRICT_INVARIANTS=1)
  [[ $target == shard_part ]] && strict=(-u TRACELINT_STRICT_INVARIANTS)
  env "${strict[@]}" "$binary" "$work/new_$target" "$work/seeds_$target" \
    "${dict[@]}" -entropic=0 -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$artifacts/${target}-" \
    >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(($(date +%s) - start_s))
  if ((rc != 0)); then
    status=1
    echo "fuzz: $target: CRASH after ${runs:-?} executions ($took s); input in $artifacts/"
    grep -E "ERROR|tracelint fuzz|SUMMARY|runtime error" "$log" | head -5
  else
    echo "fuzz: $target: ${runs:-?} executions in $took s ($(( ${runs:-0} / (took > 0 ? took : 1) ))/s), no crash"
  fi
done
exit "$status"
