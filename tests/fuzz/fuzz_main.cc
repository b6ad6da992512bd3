// libFuzzer entry point (clang, -DTRACELINT_FUZZ=ON): the whole pipeline on
// arbitrary bytes. Seed it with testdata/ and ../shared/corpus files.
#include <cstdio>
#include <cstdlib>

#include "tests/fuzz/fuzz_pipeline.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string problem = tracelint::fuzz::RunPipelineOnBytes(data, size);
  if (!problem.empty()) {
    std::fprintf(stderr, "tracelint fuzz: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
