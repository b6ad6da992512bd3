#!/usr/bin/env bash
# Configures and builds tracelint in ./build (optimised, -O2, without debug
# info: -g costs about 30% of the compile time, which the README's quick start
# cannot afford on 2 cores; pass -DCMAKE_BUILD_TYPE=RelWithDebInfo for a
# build to debug or profile).
#   scripts/build.sh            everything, tests included
#   scripts/build.sh --quick    only the tracelint binary (the README's quick start)
# Other arguments go to cmake (-DTRACELINT_SANITIZE=ON, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake_args=(-DTRACELINT_BUILD_TESTS=ON)  # a --quick build before must not stick
targets=()
for arg in "$@"; do
  if [[ "$arg" == --quick ]]; then
    cmake_args+=(-DTRACELINT_BUILD_TESTS=OFF)
    targets=(--target tracelint)
  else
    cmake_args+=("$arg")
  fi
done
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  "${cmake_args[@]}" >/dev/null
cmake --build build -j "$jobs" "${targets[@]}"
