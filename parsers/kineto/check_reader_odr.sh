#!/bin/sh
# The copies of kineto_json_reader.cc compiled with -march=haswell/icelake
# share inline (COMDAT) functions with the portable copy. The linker keeps
# the first definition it loads, and the portable object is linked first,
# so every such symbol must also be defined there; otherwise an AVX2/AVX-512
# copy could be the one kept and run on a CPU without those instructions.
# Usage: check_reader_odr.sh PORTABLE_OBJ OTHER_OBJ...
set -eu
portable=$1
shift
shared_symbols() {
  nm -C --defined-only "$1" | awk '$2 == "W" || $2 == "V" || $2 == "u"' | cut -d' ' -f3- |
    grep -v -e 'simdjson::haswell::' -e 'simdjson::icelake::' -e 'simdjson::fallback::' |
    sort -u
}
shared_symbols "$portable" > "${TMPDIR:-/tmp}/odr_portable.$$"
status=0
for obj in "$@"; do
  missing=$(shared_symbols "$obj" | comm -23 - "${TMPDIR:-/tmp}/odr_portable.$$")
  if [ -n "$missing" ]; then
    echo "$obj defines inline symbols the portable copy lacks:"
    echo "$missing"
    status=1
  fi
done
rm -f "${TMPDIR:-/tmp}/odr_portable.$$"
[ $status -eq 0 ] && echo "ok: every shared inline symbol has a portable definition"
exit $status
