#!/usr/bin/env bash
# Builds the release into dist/ (docs/install.md):
#   dist/tracelint                    fully static x86-64 Linux executable
#   dist/libtracelint_inject.so       capture's injection library (where the
#                                     CUDA Toolkit's CUPTI headers were found)
#   dist/tracelint-<ver>-py3-none-<tags>.whl   both, plus the Python API
#   dist/tracelint-ci.sh              the CI recipes' script (examples/ci/)
# Run on Debian 12 after `scripts/setup.sh --release`. The static deps are
# cached in build-static/deps; the static build is build-static/.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
start_s=$(date +%s)
scripts/static_deps.sh build-static/deps
cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTRACELINT_BUILD_TESTS=OFF \
  -DTRACELINT_STATIC=ON -DTRACELINT_STATIC_DEPS="$PWD/build-static/deps" \
  -DCMAKE_INSTALL_LIBDIR=lib >/dev/null
targets=(tracelint)
# `ninja -t query` asks for the one target: piping the whole target list
# into `grep -q` raced under pipefail (grep exits at the match, ninja dies
# of SIGPIPE, the test reads false) and CI built no injection library.
if ninja -C build-static -t query tracelint_inject >/dev/null 2>&1; then
  targets+=(tracelint_inject)
fi
cmake --build build-static -j "$jobs" --target "${targets[@]}"
rm -rf dist && mkdir -p dist
cp build-static/tracelint dist/tracelint
strip dist/tracelint
inject=""
if [[ -f build-static/libtracelint_inject.so ]]; then
  cp build-static/libtracelint_inject.so dist/
  strip --strip-unneeded dist/libtracelint_inject.so
  inject="$PWD/dist/libtracelint_inject.so"
fi
cp examples/ci/tracelint-ci.sh dist/
echo "release: dist/tracelint $(stat -c %s dist/tracelint) bytes: $(file -b dist/tracelint | cut -d, -f1-4)"

# The wheel: Debian's python3 (its build, wheel and setuptools packages),
# then the platform tags of the binary (scripts/repack_wheel.py).
rm -rf python/build python/build_bin python/*.egg-info
TRACELINT_WHEEL_BINARY="$PWD/dist/tracelint" TRACELINT_WHEEL_INJECT="$inject" \
  /usr/bin/python3 -m build --no-isolation --wheel --outdir dist/wheel-any python >/dev/null
/usr/bin/python3 scripts/repack_wheel.py dist/wheel-any/*.whl dist
rm -rf dist/wheel-any python/build python/build_bin python/*.egg-info
echo "release: $(ls dist/*.whl) $(stat -c %s dist/*.whl) bytes"
echo "release: took $(($(date +%s) - ${start_s:-$(date +%s)})) s"
