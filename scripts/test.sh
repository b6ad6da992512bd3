#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test (what CI runs):
#  1. the release build (build/) and its ctest suite;
#  2. the release stage: scripts/release.sh builds the fully static binary and
#     the wheel once into dist/, then tests/release/release_test.sh checks
#     them as a user gets them (an empty chroot, the wheel in a fresh venv,
#     the Python API, a notebook under Jupyter, the MCP TypeScript SDK);
#  3. the sanitizer stage: a clang-14 build with ASan + UBSan, neither
#     recoverable, and libFuzzer coverage (build-sanitize/), its ctest suite,
#     then each fuzz target for TRACELINT_FUZZ_SECONDS (default 30) seconds.
# TRACELINT_RELEASE_STAGE=0 skips stage 2, TRACELINT_SANITIZE_STAGE=0 stage 3
# (a quick local run).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
scripts/setup.sh --test
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$jobs"

if [[ "${TRACELINT_RELEASE_STAGE:-1}" != 0 ]]; then
  release_start_s=$(date +%s)
  scripts/release.sh
  tests/release/release_test.sh dist build
  echo "test: release stage took $(($(date +%s) - release_start_s)) s"
else
  echo "test: release stage skipped (TRACELINT_RELEASE_STAGE=0)"
fi

if [[ "${TRACELINT_SANITIZE_STAGE:-1}" == 0 ]]; then
  echo "test: sanitizer stage skipped (TRACELINT_SANITIZE_STAGE=0)"
  exit 0
fi
stage_start_s=$(date +%s)
# -O1 and line tables only: the sanitizers' stacks stay readable while the
# build and the tests run about twice as fast as with -O0 -g.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DTRACELINT_BUILD_TESTS=ON -DTRACELINT_SANITIZE=ON -DTRACELINT_FUZZ=ON >/dev/null
cmake --build build-sanitize -j "$jobs"
echo "test: sanitizer build took $(($(date +%s) - stage_start_s)) s"
# Every test runs under the sanitizers; to leave a slow one out, add
# -E '^(name)$' here with the reason and its measured time.
# corpus_truncation_test: 1,800 cuts of the corpus, 71-126 s in the release
# build on 2 cores (several times that under ASan); the contract keeps long
# corpus sweeps out of the sanitized run, and mutation_replay and the fuzz
# targets cover cut inputs there.
# memory_limits_test: RLIMIT_AS (ulimit -v) and peak-RSS checks of the
# release binary on a 73 MB gzip bomb; ASan reserves terabytes of address
# space and doubles memory, so they mean nothing there (the contract's
# "Memory budget": release builds only; it also skips itself under ASan).
ctest_start_s=$(date +%s)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j "$jobs" \
  -E '^(corpus_truncation_test|memory_limits_test)$'
echo "test: sanitizer suite took $(($(date +%s) - ctest_start_s)) s"
tests/fuzz/run_fuzzers.sh build-sanitize "${TRACELINT_FUZZ_SECONDS:-30}"
echo "test: sanitizer stage took $(($(date +%s) - stage_start_s)) s"
