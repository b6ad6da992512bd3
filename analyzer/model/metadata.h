#ifndef TRACELINT_ANALYZER_MODEL_METADATA_H_
#define TRACELINT_ANALYZER_MODEL_METADATA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/base/time.h"
#include "analyzer/model/read_coverage.h"

namespace tracelint {

struct DeviceInfo {
  int id = -1;
  std::string name;
  std::string vendor;  // "NVIDIA", "AMD", "" when unknown
  int compute_major = -1;
  int compute_minor = -1;
  int sm_count = -1;
  int64_t total_memory_bytes = -1;
  int max_threads_per_sm = -1;

  bool has_tensor_cores_known() const { return compute_major >= 0; }
};

struct RunMetadata {
  std::string source_path;
  std::string format;     // "kineto-json", "chrome-json", "xspace"
  std::string framework;  // "PyTorch", "TensorFlow", "JAX", ""
  std::string framework_version;  // best guess, with how it was guessed
  std::vector<DeviceInfo> devices;
  int rank = -1;
  int world_size = -1;
  std::string backend;
  std::string host_name;
  TimeNs base_time_ns = 0;  // added to every timestamp already
  // baseTimeNanoseconds found after the event array (where Kineto itself
  // writes it): the timestamps were converted before it was known and stay
  // relative to it, but it still dates the capture (run grouping, run order).
  TimeNs late_base_time_ns = 0;
  std::string trace_name;
  // Written by `tracelint capture` (a CUPTI recording): the host side holds
  // CUDA API calls and NVTX ranges only, and no framework recorded anything,
  // so the Kineto-style keys date no PyTorch version.
  bool tracelint_capture = false;
  // The device family the events themselves show ("MTIA" from mtia_*
  // categories), for traces whose deviceProperties are missing; empty
  // when the events do not say.
  std::string accelerator_from_events;
  // Set when the input ended early; events up to the last complete one kept.
  bool truncated = false;
  int64_t truncated_at_byte = -1;  // offset in the decompressed stream
  // Why reading stopped there, for messages: "input ends early" (a cut file)
  // or "malformed JSON" (a syntax error reading cannot go past).
  std::string truncated_reason = "input ends early";
  // Of a truncated trace: what the part read proves of its device work.
  ReadCoverage read_coverage;
  int64_t events_read = 0;

  // Devices the events name outside `devices` whose properties are still
  // known: every listed entry is identical, so any of them describes them.
  // Found by FindDevice; not listed as the trace's devices.
  std::vector<DeviceInfo> unlisted_devices;

  const DeviceInfo* FindDevice(int id) const {
    for (const DeviceInfo& d : devices) {
      if (d.id == id) return &d;
    }
    for (const DeviceInfo& d : unlisted_devices) {
      if (d.id == id) return &d;
    }
    return nullptr;
  }
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_METADATA_H_
