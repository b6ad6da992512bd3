#!/usr/bin/env bash
# Installs dependencies, builds everything and runs every test (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
