#ifndef TRACELINT_CAPTURE_INJECT_CUPTI_API_H_
#define TRACELINT_CAPTURE_INJECT_CUPTI_API_H_

// CUPTI, opened at run time by its versioned name instead of linked
// (docs/capture.md, "CUPTI 12 and 13"): the injection library then loads
// into programs built against CUDA 12 or 13, with the toolkit's CUPTI or
// the nvidia-cuda-cupti wheel PyTorch installs. Only functions whose
// signatures CUPTI 12 and 13 share are used, through this table.

#include <cupti.h>

#include <string>

namespace tracelint::capture::inject {

struct CuptiApi {
  void* handle = nullptr;
  std::string path;  // the library opened
  decltype(&cuptiGetResultString) GetResultString = nullptr;
  decltype(&cuptiGetVersion) GetVersion = nullptr;
  decltype(&cuptiGetTimestamp) GetTimestamp = nullptr;
  decltype(&cuptiGetContextId) GetContextId = nullptr;
  decltype(&cuptiGetCallbackName) GetCallbackName = nullptr;
  decltype(&cuptiActivityEnable) ActivityEnable = nullptr;
  decltype(&cuptiActivityDisable) ActivityDisable = nullptr;
  // Absent before CUDA 12.2 or so: then every driver call is recorded.
  decltype(&cuptiActivityEnableDriverApi) ActivityEnableDriverApi = nullptr;
  decltype(&cuptiActivityFlushAll) ActivityFlushAll = nullptr;
  decltype(&cuptiActivityFlushPeriod) ActivityFlushPeriod = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks = nullptr;
  decltype(&cuptiActivityGetNextRecord) ActivityGetNextRecord = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords = nullptr;
  // CUPTI's own NVTX injection entry point.
  int (*InitializeInjectionNvtx2)(const void*) = nullptr;
};

// Opens CUPTI once: $TRACELINT_CUPTI_LIBRARY; a libcupti.so.13 or .12 the
// process already loaded; the one matching the loaded CUDA runtime (beside
// it: the toolkit's lib64 or extras/CUPTI, the pip package's
// nvidia/cuda_cupti/lib); then by name through the loader's search, 13
// before 12. nullptr when none is usable; `why` then lists what was tried.
const CuptiApi* LoadCupti(std::string* why);

// The table LoadCupti opened (only after it succeeded).
const CuptiApi& Cupti();

}  // namespace tracelint::capture::inject

#endif  // TRACELINT_CAPTURE_INJECT_CUPTI_API_H_
