// libFuzzer entry point (clang, -DTRACELINT_FUZZ=ON), built once per target:
// TRACELINT_FUZZ_TARGET names the function of fuzz_targets.h it drives.
// tests/fuzz/run_fuzzers.sh seeds and runs them.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tests/fuzz/fuzz_pipeline.h"
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string problem = tracelint::fuzz::TRACELINT_FUZZ_TARGET(data, size);
  if (!problem.empty()) {
    std::fprintf(stderr, "tracelint fuzz: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
