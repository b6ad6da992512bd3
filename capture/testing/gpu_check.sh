#!/usr/bin/env bash
# The GPU end-to-end check of `tracelint capture` and its overhead
# (docs/capture.md, "Overhead"). Needs a GPU, nvcc, and a build with CUPTI.
#   capture/testing/gpu_check.sh BUILD_DIR OUT_DIR [RUNS]
# Writes OUT_DIR/summary.txt; the reports and traces stay in OUT_DIR.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
runs=${3:-5}
src=$(cd "$(dirname "$0")" && pwd)
tl="$build/tracelint"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# The program's own wall time, written to $1 (the capture's conversion and
# analysis, which run after the program, are not in it).
cat >"$out/timed.sh" <<'EOT'
#!/usr/bin/env bash
f=$1; shift
s=$(date +%s%N); "$@"; rc=$?; e=$(date +%s%N)
echo $(( (e - s) / 1000000 )) >"$f"; exit $rc
EOT
chmod +x "$out/timed.sh"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
minmax() { sort -n | awk 'NR==1{m=$1} {x=$1} END {print m "-" x}'; }

# overhead NAME STEPS_NAME CMD...: RUNS alternating plain/captured runs.
overhead() {
  local name=$1 steps=$2; shift 2
  "$@" >/dev/null  # warm-up (module loading, caches), untimed
  : >"$out/$name.plain"; : >"$out/$name.captured"
  for i in $(seq "$runs"); do
    "$out/timed.sh" "$out/t" "$@" >>"$out/$name.plain.log"; cat "$out/t" >>"$out/$name.plain"
    rm -rf "$out/cap_$name.$i"
    "$tl" capture --out "$out/cap_$name.$i" --steps "$steps" --format json \
      -o "$out/$name.$i.json" -- "$out/timed.sh" "$out/t" "$@" \
      >>"$out/$name.captured.log" 2>&1 || true
    cat "$out/t" >>"$out/$name.captured"
  done
  local p c
  p=$(median <"$out/$name.plain"); c=$(median <"$out/$name.captured")
  say "$name: program wall time, median of $runs: plain ${p} ms ($(minmax <"$out/$name.plain")), captured ${c} ms ($(minmax <"$out/$name.captured")), ratio $(awk -v a="$c" -v b="$p" 'BEGIN {printf "%.3f", a / b}')"
  # The loop's own time per step, as the program prints it ("N ms per step").
  local sp sc
  sp=$(grep -o '[0-9.]* ms per step' "$out/$name.plain.log" | awk '{print $1}' | median)
  sc=$(grep -o '[0-9.]* ms per step' "$out/$name.captured.log" | awk '{print $1}' | median)
  if [ -n "$sp" ] && [ -n "$sc" ]; then
    say "$name: time per step, median of $runs: plain ${sp} ms, captured ${sc} ms, ratio $(awk -v a="$sc" -v b="$sp" 'BEGIN {printf "%.3f", a / b}')"
  fi
}

# has NAME FILE PATTERN: whether the report names it.
has() {
  if grep -q -- "$3" "$2"; then say "$1: has $3"; else say "$1: MISSING $3"; fi
}

say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo unknown)"
"$nvcc" -O2 -o "$out/capture_demo" "$src/capture_demo.cu"

# 1. The demo: report, and the findings it must give.
rm -rf "$out/cap_demo"
set +e
"$tl" capture --out "$out/cap_demo" --steps demo_step -- "$out/capture_demo" 30 >"$out/demo.txt" 2>"$out/demo.err"
say "demo: exit $?"
set -e
cat "$out/demo.err" | tee -a "$summary"
for want in "h2d-copy-dominance (exposed_h2d_copy)" "host-side-ops (sync_call)" "ProfilerStep#"; do
  has demo "$out/demo.txt" "$want"
done
overhead demo demo_step "$out/capture_demo" 30

# 2. A PyTorch training loop, when torch with CUDA is importable.
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  cat >"$out/train.py" <<'EOT'
import time, torch, torchvision
model = torchvision.models.resnet18().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x_host = torch.randn(128, 3, 224, 224)          # pageable: no pin_memory
y = torch.randint(0, 1000, (128,), device="cuda")
y_host = y.cpu()
losses, accuracy = [], []
steps, warmup = 40, 5
for step in range(steps):
    if step == warmup:
        torch.cuda.synchronize()
        start = time.perf_counter()
    with torch.cuda.nvtx.range("train_step"):
        x = x_host.to("cuda")
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad(); loss.backward(); opt.step()
        # Metrics on the host every step: .cpu() waits for the whole step,
        # then the host works (the sleep stands for logging and metric code)
        # while the GPU has nothing queued.
        pred = logits.argmax(1).cpu()
        accuracy.append((pred == y_host).float().mean().item())
        time.sleep(0.002)
        losses.append(loss.item())
torch.cuda.synchronize()
print(f"train.py: {(time.perf_counter() - start) / (steps - warmup) * 1000:.3f} ms per step")
EOT
  rm -rf "$out/cap_torch"
  set +e
  "$tl" capture --out "$out/cap_torch" --steps train_step -- python3 "$out/train.py" >"$out/torch.txt" 2>"$out/torch.err"
  say "torch: exit $?"
  set -e
  cat "$out/torch.err" | tee -a "$summary"
  for want in "h2d-copy-dominance (exposed_h2d_copy)" "host-side-ops (sync_call)" "ProfilerStep#" \
      "Job:       training"; do
    has torch "$out/torch.txt" "$want"
  done
  overhead torch train_step python3 "$out/train.py"
else
  say "torch: not importable with CUDA here; skipped"
fi
