#!/usr/bin/env bash
# Builds the static archives Debian 12 does not ship, for the fully static
# tracelint (scripts/release.sh, -DTRACELINT_STATIC=ON): simdjson, fmt and
# isa-l, each from Debian's own source package at the version of the -dev
# package installed (so the headers the regular build uses and the archive
# agree), into PREFIX/{include,lib}. Abseil, protobuf, zlib, libdeflate,
# glibc and libstdc++ come with static archives in their -dev packages;
# toml++ and CLI11 are header-only.
#   scripts/static_deps.sh PREFIX
# Cached: a PREFIX whose stamp names the same versions is left as it is, so
# CI builds them once per run (and never when the cache is kept).
# Needs the deb-src entry and dpkg-dev, nasm (scripts/setup.sh --release).
set -euo pipefail
prefix=$(mkdir -p "$1" && cd "$1" && pwd)
jobs=$(nproc 2>/dev/null || echo 2)

# The source package and version each -dev package was built from.
source_of() { dpkg-query -W -f='${source:Package}' "$1"; }
version_of() { dpkg-query -W -f='${source:Version}' "$1"; }
stamp=""
for dev in libsimdjson-dev libfmt-dev libisal-dev; do
  stamp+="$(source_of "$dev")=$(version_of "$dev") "
done
if [[ -f "$prefix/stamp" && "$(cat "$prefix/stamp")" == "$stamp" ]]; then
  echo "static_deps: cached in $prefix ($stamp)"
  exit 0
fi
rm -rf "$prefix"/{include,lib,src,stamp}
mkdir -p "$prefix/src" "$prefix/lib" "$prefix/include"
start_s=$(date +%s)

# apt-get source SOURCE=VERSION: Debian's upstream tarball with Debian's
# patches applied, the exact version the -dev package was built from.
fetch() {
  local dev=$1 src dir
  src=$(source_of "$dev")
  mkdir -p "$prefix/src/$src"
  (cd "$prefix/src/$src" && apt-get source -q --only-source "$src=$(version_of "$dev")" >/dev/null 2>&1) || {
    echo "static_deps: 'apt-get source $src' failed; is there a deb-src entry? (scripts/setup.sh --release adds it)" >&2
    exit 1
  }
  dir=$(find "$prefix/src/$src" -mindepth 1 -maxdepth 1 -type d | head -1)
  echo "$dir"
}

# simdjson and fmt: their own CMake, static, installed with their package
# configs, which find_package() then prefers through CMAKE_PREFIX_PATH.
cmake_static() {
  local dir=$1; shift
  cmake -S "$dir" -B "$dir/_build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_SHARED_LIBS=OFF \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib "$@" >/dev/null
  cmake --build "$dir/_build" -j "$jobs" >/dev/null
  cmake --install "$dir/_build" >/dev/null
}
simdjson=$(fetch libsimdjson-dev)
cmake_static "$simdjson" -DSIMDJSON_DEVELOPER_MODE=OFF -DSIMDJSON_ENABLE_THREADS=ON
fmt=$(fetch libfmt-dev)
cmake_static "$fmt" -DFMT_DOC=OFF -DFMT_TEST=OFF -DFMT_INSTALL=ON

# isa-l: its plain makefile (nasm, no autotools); only igzip and the CRCs
# it needs. Only the archive: the headers are libisal-dev's, the same version.
isal=$(fetch libisal-dev)
make -C "$isal" -f Makefile.unx -j "$jobs" units="igzip crc" lib >/dev/null
cp "$isal/bin/isa-l.a" "$prefix/lib/libisal.a"

rm -rf "$prefix/src"
echo "$stamp" >"$prefix/stamp"
echo "static_deps: built $stamp in $(($(date +%s) - start_s)) s into $prefix"
