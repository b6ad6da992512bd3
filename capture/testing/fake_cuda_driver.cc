// A stand-in for libcuda.so.1 in tests of `tracelint capture` on machines
// without a GPU: just the two calls the driver check makes.
//   FAKE_CUDA_INIT_RESULT   what cuInit returns (default 0; 100 = no device)
//   FAKE_CUDA_INIT_SLEEP_S  seconds cuInit takes (a hung driver)
#include <unistd.h>

#include <cstdlib>

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned /*flags*/) {
  if (const char* s = std::getenv("FAKE_CUDA_INIT_SLEEP_S")) ::sleep(std::atoi(s));
  const char* r = std::getenv("FAKE_CUDA_INIT_RESULT");
  return r ? std::atoi(r) : 0;
}

extern "C" __attribute__((visibility("default"))) int cuDeviceGetCount(int* count) {
  *count = 1;
  return 0;
}
