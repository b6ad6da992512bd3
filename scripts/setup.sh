#!/usr/bin/env bash
# Installs tracelint's dependencies from Debian 12's packages: what building
# and running needs; with --test, also what the tests need.
# Idempotent; run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libsimdjson-dev libabsl-dev libfmt-dev libcli11-dev
  libprotobuf-dev protobuf-compiler libdeflate-dev libisal-dev zlib1g-dev
  libtomlplusplus-dev
)
# Test-only (docs/design/contract.md, "Dependencies: build vs test").
test_packages=(
  libgtest-dev libgmock-dev python3 python3-jsonschema chromium
  slurm-wlm munge  # slurm_batch_test: a single-node Slurm cluster
  clang-14 libclang-rt-14-dev  # the sanitizer and fuzzing stage of scripts/test.sh
)
for arg in "$@"; do
  case "$arg" in
    --test) packages+=("${test_packages[@]}") ;;
    *) echo "usage: scripts/setup.sh [--test]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "setup: all dependencies present"
