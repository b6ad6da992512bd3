// bare_walk: the benchmark's reference (bare_walk.h) as a process of its
// own, so that it is timed like `tracelint analyze`: exec, read the file
// from the page cache, walk it, exit.
//
//   bare_walk TRACE.json   -> "events keys numbers strings checksum kernel"

#include <cstdio>

#include "bench/bare_walk.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bare_walk TRACE.json\n");
    return 2;
  }
  absl::StatusOr<tracelint::bench::BareWalkResult> r = tracelint::bench::BareWalkFile(argv[1]);
  if (!r.ok()) {
    std::fprintf(stderr, "bare_walk: %s\n", r.status().ToString().c_str());
    return 1;
  }
  std::printf("%lld %lld %lld %lld %llu %s\n", static_cast<long long>(r->events),
              static_cast<long long>(r->keys), static_cast<long long>(r->numbers),
              static_cast<long long>(r->strings), static_cast<unsigned long long>(r->checksum),
              r->kernel.c_str());
  return 0;
}
