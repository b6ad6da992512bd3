#!/usr/bin/env bash
# Installs tracelint's dependencies from Debian 12's packages: what building
# and running needs; with --release, also what scripts/release.sh needs (the
# static binary's deps are built from Debian's source packages, so this adds
# a deb-src entry); with --test, what the tests need (the release build
# included: CI tests the static binary and the wheel).
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
  # The wheel, the Python API, the notebook and the MCP client tests
  # (tests/release/): Debian's packaging and Jupyter; npm for the MCP SDK.
  python3-venv python3-build python3-wheel python3-setuptools python3-pandas
  jupyter-nbconvert python3-ipykernel nodejs npm
)
# scripts/release.sh: apt-get source (dpkg-dev) and isa-l's assembly (nasm).
release_packages=(dpkg-dev nasm)
release=0
for arg in "$@"; do
  case "$arg" in
    --test) packages+=("${test_packages[@]}"); release=1 ;;
    --release) release=1 ;;
    *) echo "usage: scripts/setup.sh [--test] [--release]" >&2; exit 2 ;;
  esac
done
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
need_update=0
if ((release)); then
  packages+=("${release_packages[@]}")
  # `apt-get source` needs deb-src: Debian 12's deb822 file gets it on its
  # Debian entries (those with Types: deb alone).
  sources=/etc/apt/sources.list.d/debian.sources
  if [[ -f $sources ]] && ! grep -q '^Types:.*deb-src' "$sources"; then
    $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
    need_update=1
  elif [[ ! -f $sources ]] && ! grep -rqs '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "setup: add a deb-src line for bookworm to your apt sources (scripts/static_deps.sh uses apt-get source)" >&2
  fi
fi

missing=()
for p in "${packages[@]}"; do
  # A Node.js from elsewhere (NodeSource's bundles npm) counts as present:
  # Debian's npm would conflict with it.
  if [[ $p == nodejs || $p == npm ]] && command -v "${p/nodejs/node}" >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

export DEBIAN_FRONTEND=noninteractive
if ((${#missing[@]})) || ((need_update)); then
  $SUDO apt-get update -q
fi
if ((${#missing[@]})); then
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
echo "setup: all dependencies present"
