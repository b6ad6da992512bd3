#!/usr/bin/env bash
# The static release binary against the regular build on one trace
# (docs/install.md): alternating paired runs of `analyze TRACE` (report to
# /dev/null), medians of wall and CPU (user+sys) time, static/regular ratios.
#   bench/static_vs_regular.sh STATIC REGULAR TRACE [PAIRS=7]
# The 100 MB trace: build/tools/gen_kineto/gen_kineto --bytes 100M --out T.json
set -euo pipefail
static=$1 regular=$2 trace=$3 pairs=${4:-7}
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
one() {  # prints "wall_s cpu_s" of one run
  local t0 t1 c
  t0=$(date +%s.%N)
  /usr/bin/time -o "$cpu_file" -f '%U %S' "$1" analyze "$trace" >/dev/null 2>&1 || true
  c=$(tail -1 "$cpu_file")
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v c="$c" 'BEGIN { split(c, u, " "); printf "%.3f %.3f\n", b - a, u[1] + u[2] }'
}
"$static" analyze "$trace" >/dev/null 2>&1 || true  # warm the page cache
for ((i = 0; i < pairs; i++)); do
  if ((i % 2)); then r=$(one "$regular"); s=$(one "$static"); else s=$(one "$static"); r=$(one "$regular"); fi
  echo "static $s"; echo "regular $r"
done | awk '
  { wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3 }
  function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  END {
    ws = median(wall["static"]); wr = median(wall["regular"])
    cs = median(cpu["static"]); cr = median(cpu["regular"])
    printf "static:  wall median %.3f s, cpu median %.3f s (wall%s)\n", ws, cs, wall["static"]
    printf "regular: wall median %.3f s, cpu median %.3f s (wall%s)\n", wr, cr, wall["regular"]
    printf "ratio static/regular: wall %.3f, cpu %.3f\n", ws / wr, cs / cr
  }'
