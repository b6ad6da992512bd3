#!/usr/bin/env bash
# The release artifacts, tested as a user gets them (scripts/test.sh runs this
# after scripts/release.sh; docs/install.md):
#   1. dist/tracelint is fully static and uses nothing a static glibc cannot do;
#   2. it analyses a corpus trace inside an EMPTY chroot (the binary and the
#      trace only) with the same findings and verdict as the regular build;
#   3. its capture check looks for the driver without loading it;
#   4. the wheel installs with pip into a fresh venv: `tracelint` on the PATH,
#      `python -m tracelint`, the Python API on corpus traces, pandas frames;
#   5. a notebook calling tracelint.analyze runs under Jupyter and shows the report;
#   6. the official MCP TypeScript SDK drives `tracelint mcp`.
#   tests/release/release_test.sh [DIST_DIR] [BUILD_DIR]
# A part that cannot run here (not root, no corpus, no npm registry) says so
# and is skipped; under CI=true it fails instead.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
corpus_dir=$(cd ../shared/corpus 2>/dev/null && pwd || true)
dist=$(cd "${1:-dist}" && pwd)
build=$(cd "${2:-build}" && pwd)
corpus_trace=../shared/corpus/pytorch__kineto/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz
# Without the corpus (like every corpus test, a visible skip) the chroot
# check runs on the repository's generated example instead.
chroot_trace=$corpus_trace
if [[ ! -f $corpus_trace ]]; then
  echo "release_test: SKIP corpus trace $corpus_trace absent; the chroot check uses testdata/example"
  chroot_trace=$(ls testdata/example/*.json | head -1)
fi
work=$(mktemp -d /tmp/tracelint-release.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0; failed=0; skipped=0
pass() { echo "release_test: PASS $*"; passed=$((passed + 1)); }
fail() { echo "release_test: FAIL $*"; failed=$((failed + 1)); }
skip() {
  if [[ "${CI:-}" == true ]]; then fail "$* (cannot be skipped under CI=true)"; return; fi
  echo "release_test: SKIP $*"; skipped=$((skipped + 1))
}
time_part() { echo "release_test: $1 took $(($(date +%s) - $2)) s"; }

# 1. Static.
start=$(date +%s)
file_says=$(file -b "$dist/tracelint")
ldd_says=$(ldd "$dist/tracelint" 2>&1 || true)  # ldd exits 1 on a static binary
if [[ $file_says == *"statically linked"* && $ldd_says == *"not a dynamic executable"* ]]; then
  pass "dist/tracelint is statically linked ($(stat -c %s "$dist/tracelint") bytes; ldd: not a dynamic executable)"
else
  fail "dist/tracelint is not static: $file_says; ldd: $ldd_says"
fi
# Functions a static glibc can only run by loading shared objects at run
# time (NSS, iconv's gconv modules, named locales, dlopen): no object or
# archive tracelint links calls one (its own code, Abseil, protobuf,
# simdjson, fmt, zlib, libdeflate, isa-l). libc.a and libstdc++.a define
# and reference some of them internally (std::locale's named locales,
# wide-character conversion), paths tracelint never takes: it runs in the
# "C" locale, which the empty chroot below checks with a locale and time
# zone that do not exist there.
if [[ -f build-static/build.ninja ]]; then
  inputs=$(ninja -C build-static -t commands tracelint | tail -1 | tr ' ' '\n' | grep -E '\.(a|o)$')
  bad=$(cd build-static && for a in $inputs; do
          nm -u "$a" 2>/dev/null | awk '{print $NF}' | grep -xE \
            'dlopen|dlmopen|__libc_dlopen_mode|getpwnam|getpwuid|getpwnam_r|getpwuid_r|getgrnam|getgrgid|getaddrinfo|gethostbyname|gethostbyname_r|getservbyname|iconv_open|__gconv_open|setlocale|newlocale|uselocale|nl_langinfo' |
            sed "s|^|$(basename "$a"): |"
        done | sort -u | tr '\n' ' ')
  if [[ -z $bad ]]; then
    pass "no NSS, iconv, locale or dlopen call in the $(echo "$inputs" | wc -l) objects and archives tracelint links"
  else
    fail "the static link's inputs call $bad"
  fi
else
  skip "no build-static/ to check the static link's inputs"
fi
chroot_bin=$(command -v chroot || echo /usr/sbin/chroot)

# 2. The empty chroot: only the binary and the trace.
if [[ $(id -u) -ne 0 ]]; then
  skip "chroot: needs root (CI runs as root)"
else
  root="$work/chroot"
  mkdir -p "$root"
  cp "$dist/tracelint" "$root/tracelint"
  trace_name=trace.pt.trace.json${chroot_trace##*.json}
  mkdir -p "$root/trace" "$root/out"  # a report may not go into the trace's directory
  cp "$chroot_trace" "$root/trace/$trace_name"
  # A hostile environment too: a locale and time zone that do not exist there.
  env -i LC_ALL=de_DE.UTF-8 TZ=Europe/Berlin HOME=/nonexistent \
    "$chroot_bin" "$root" /tracelint analyze "/trace/$trace_name" --format json -o /out/report.json 2>"$work/chroot.err"
  rc=$?
  "$build/tracelint" analyze "$chroot_trace" --format json -o "$work/regular.json" 2>/dev/null
  rc_regular=$?
  if [[ $rc -ne $rc_regular ]]; then
    fail "chroot: exit $rc, regular build $rc_regular: $(cat "$work/chroot.err")"
  elif /usr/bin/python3 - "$root/out/report.json" "$work/regular.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
keys = ("findings", "verdict", "verdict_text")
sys.exit(0 if all(a[k] == b[k] for k in keys) and a["findings"] else 1)
PY
  then
    pass "chroot: the static binary alone in an empty root gives the regular build's findings ($(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$root/out/report.json") findings) and verdict"
  else
    fail "chroot: findings or verdict differ from the regular build's"
  fi
  # The text and HTML reports need nothing from the machine either.
  if env -i "$chroot_bin" "$root" /tracelint analyze "/trace/$trace_name" --format html -o /out/r.html 2>/dev/null &&
     env -i "$chroot_bin" "$root" /tracelint analyze "/trace/$trace_name" -o /out/r.txt 2>/dev/null &&
     grep -q '<html' "$root/out/r.html" && [[ -s "$root/out/r.txt" ]]; then
    pass "chroot: text and HTML reports"
  else
    fail "chroot: text or HTML report"
  fi
  # 3. capture: no driver there, said in one line, without loading libcuda.
  [[ -f "$dist/libtracelint_inject.so" ]] && cp "$dist/libtracelint_inject.so" "$root/"
  # No /proc in the chroot, so the binary cannot see where it lies: the
  # library is named.
  out=$(env -i TRACELINT_INJECT_LIBRARY=/libtracelint_inject.so "$chroot_bin" "$root" \
          /tracelint capture -- /bin/true 2>&1); rc=$?
  if [[ $rc -eq 3 && $(echo "$out" | wc -l) -eq 1 ]] &&
     echo "$out" | grep -qE 'no CUDA driver on this machine|built without CUDA'; then
    pass "chroot: capture without a driver: exit 3, one line: $out"
  else
    fail "chroot: capture said (exit $rc): $out"
  fi
fi
time_part "static and chroot" "$start"

# 3. The driver check of the static binary passes on the driver's files.
if [[ -f "$dist/libtracelint_inject.so" ]]; then
  fake="$work/fake-root"
  mkdir -p "$fake/proc/driver/nvidia" "$fake/dev"
  echo "NVRM version: test" >"$fake/proc/driver/nvidia/version"
  : >"$fake/dev/nvidiactl"; : >"$fake/dev/nvidia0"
  out=$(TRACELINT_CAPTURE_DRIVER_ROOT=$fake "$dist/tracelint" capture --out "$work/cap" -- /bin/true 2>&1); rc=$?
  if [[ $rc -eq 3 ]] && echo "$out" | grep -q 'made no CUDA call' && echo "$out" | grep -q 'on 1 CUDA device'; then
    pass "static capture: the driver found by its files, the program run with the injection library"
  else
    fail "static capture with a fake driver root (exit $rc): $out"
  fi
elif grep -q '^TRACELINT_CUPTI_INCLUDE:PATH=.*NOTFOUND' build-static/CMakeCache.txt 2>/dev/null; then
  # The capture part builds where CUPTI is found and is skipped where not
  # (README.md), so this skip stands even under CI=true.
  echo "release_test: SKIP static capture: the static build found no CUPTI headers (cupti.h), so dist/ has no injection library"
  skipped=$((skipped + 1))
else
  fail "static capture: dist/ has no injection library although the static build found CUPTI headers ($(sed -n 's/^TRACELINT_CUPTI_INCLUDE:PATH=//p' build-static/CMakeCache.txt 2>/dev/null))"
fi

# The injection library's floor (docs/capture.md): glibc 2.34, libgcc_s, nothing of CUDA.
if [[ -f "$dist/libtracelint_inject.so" ]]; then
  newest=$(objdump -T "$dist/libtracelint_inject.so" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  needed=$(readelf -d "$dist/libtracelint_inject.so" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
  if [[ $(printf '%s\n' "$newest" GLIBC_2.34 | sort -V | tail -1) == GLIBC_2.34 &&
        $needed == "ld-linux-x86-64.so.2 libc.so.6 libgcc_s.so.1 " ]]; then
    pass "libtracelint_inject.so needs glibc <= 2.34 (newest $newest) and only $needed"
  else
    fail "libtracelint_inject.so needs $newest and $needed"
  fi
fi

# 4. The wheel in a fresh venv.
start=$(date +%s)
wheel=$(ls "$dist"/tracelint-*-py3-none-*.whl 2>/dev/null | head -1)
if [[ -z $wheel ]]; then
  fail "no wheel in $dist"
else
  tags=$(basename "$wheel" .whl | cut -d- -f3-)
  /usr/bin/python3 -m venv --system-site-packages "$work/venv" &&
    "$work/venv/bin/pip" install -q --no-index "$wheel" >"$work/pip.log" 2>&1
  if [[ -x "$work/venv/bin/tracelint" ]] && PATH="$work/venv/bin:$PATH" tracelint version | grep -q '^tracelint ' &&
     "$work/venv/bin/python" -m tracelint version | grep -q '^tracelint '; then
    pass "wheel $(basename "$wheel") ($(stat -c %s "$wheel") bytes; tags $tags): pip puts tracelint on the PATH, python -m tracelint runs it"
  else
    fail "wheel install: $(cat "$work/pip.log")"
  fi
  # The tags pip reads: WHEEL's header block, every tag of the file name.
  if /usr/bin/python3 - "$wheel" "$tags" <<'PY'
import email.parser, sys, zipfile
whl, tags = sys.argv[1:3]
z = zipfile.ZipFile(whl)
meta = email.parser.Parser().parsestr(z.read(next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL"))).decode())
want = {f"py3-none-{p}" for p in tags.split("-")[-1].split(".")}
sys.exit(0 if set(meta.get_all("Tag")) == want and meta["Root-Is-Purelib"] == "false" else 1)
PY
  then
    pass "the wheel's WHEEL file carries the file name's tags, Root-Is-Purelib: false"
  else
    fail "the wheel's WHEEL file and file name disagree"
  fi
  # The wheel's binary finds the wheel's injection library (<venv>/lib/tracelint).
  if [[ -f "$dist/libtracelint_inject.so" ]]; then
    out=$(TRACELINT_CAPTURE_DRIVER_ROOT=$fake "$work/venv/bin/tracelint" capture --out "$work/cap-wheel" \
            -- /bin/true 2>&1); rc=$?
    if [[ $rc -eq 3 ]] && echo "$out" | grep -q 'made no CUDA call'; then
      pass "the wheel's tracelint runs the program with the wheel's injection library"
    else
      fail "capture from the wheel (exit $rc): $out"
    fi
  fi
  err=$("$work/venv/bin/python" -m tracelint analyze /no/such/trace.json 2>&1); rc=$?
  if [[ $rc -eq 3 ]] && ! echo "$err" | grep -q Traceback; then
    pass "python -m tracelint: a user mistake is one line, exit 3, no traceback"
  else
    fail "python -m tracelint on a missing file (exit $rc): $err"
  fi
  if TRACELINT_SOURCE_DIR=$PWD "$work/venv/bin/python" -m unittest discover -s python/tests -t python/tests \
       >"$work/unittest.log" 2>&1; then
    pass "Python API: $(tail -3 "$work/unittest.log" | grep -E '^(OK|Ran)' | tr '\n' ' ')$(grep -c 'skipped' "$work/unittest.log" >/dev/null && grep -o 'skipped=[0-9]*' "$work/unittest.log" | head -1)"
  else
    fail "Python API tests:"; cat "$work/unittest.log"
  fi
  grep -E '^(test_|.*skipped)' "$work/unittest.log" | head -40
  # 5. The notebook, executed with the venv's Python as its kernel.
  if "$work/venv/bin/python" -c 'import nbconvert, ipykernel' 2>/dev/null; then
    cp python/examples/analyze.ipynb "$work/analyze.ipynb"
    # The kernel must be the venv's Python (Debian's python3 kernelspec
    # would run /usr/bin/python3, which has no tracelint).
    "$work/venv/bin/python" -m ipykernel install --sys-prefix --name tracelint-venv >/dev/null 2>&1
    if (cd "$work" && TRACELINT_EXAMPLE="$repo/testdata/example" \
          "$work/venv/bin/python" -m nbconvert --to notebook --execute --output executed.ipynb \
            --ExecutePreprocessor.kernel_name=tracelint-venv \
          analyze.ipynb >"$work/nb.log" 2>&1) &&
       /usr/bin/python3 - "$work/executed.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
outs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
html = "".join("".join(o.get("data", {}).get("text/html", "")) for o in outs)
errors = [o for o in outs if o.get("output_type") == "error"]
sys.exit(0 if not errors and "<iframe" in html and "tracelint" in html and "srcdoc=" in html else 1)
PY
    then
      pass "notebook: jupyter nbconvert --execute ran it; its output holds the rendered HTML report"
    else
      fail "notebook:"; cat "$work/nb.log"
    fi
  else
    skip "notebook: jupyter-nbconvert or python3-ipykernel missing (scripts/setup.sh --test)"
  fi
fi
time_part "wheel and notebook" "$start"

# The CI recipes install from the release (dist/ standing in for it).
start=$(date +%s)
if out=$(bash examples/ci/tracelint_ci_test.sh "$build/tracelint" "$repo" "$dist" 2>&1); then
  pass "CI recipes: $(echo "$out" | grep -c '^ok:') checks, installs from dist/ included"
else
  fail "CI recipes:"; echo "$out"
fi
echo "$out" | grep -E 'skipped|release' || true
time_part "CI recipes" "$start"

# 6. The MCP TypeScript SDK (npm), cached under build/mcp-client.
start=$(date +%s)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  skip "MCP client: node or npm missing (scripts/setup.sh --test)"
else
  client=$build/mcp-client
  mkdir -p "$client"
  cp tests/release/mcp_client_test.mjs tests/release/package.json "$client/"
  ok=0
  for attempt in 1 2 3; do  # the registry is the network: retry
    if [[ -d "$client/node_modules/@modelcontextprotocol/sdk" ]] ||
       (cd "$client" && npm install --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1); then
      ok=1; break
    fi
    sleep $((attempt * 5))
  done
  if ((ok == 0)); then
    skip "MCP client: npm install failed: $(tail -3 "$work/npm.log")"
  elif (cd "$client" && TRACELINT="$dist/tracelint" TRACELINT_ROOT="$repo" \
          node mcp_client_test.mjs "$dist/tracelint" "$corpus_dir" \
          >"$work/mcp.log" 2>&1); then
    pass "MCP client: $(grep -c '^ok' "$work/mcp.log") checks with $(cd "$client" && node -p 'JSON.parse(require("fs").readFileSync("node_modules/@modelcontextprotocol/sdk/package.json")).version') of @modelcontextprotocol/sdk"
    cat "$work/mcp.log"
  else
    fail "MCP client:"; cat "$work/mcp.log"
  fi
fi
time_part "MCP client" "$start"

echo "release_test: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
