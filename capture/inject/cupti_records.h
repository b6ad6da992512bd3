#ifndef TRACELINT_CAPTURE_INJECT_CUPTI_RECORDS_H_
#define TRACELINT_CAPTURE_INJECT_CUPTI_RECORDS_H_

// CUPTI activity buffers -> the plain records of capture/convert/records.h.
// Compiled only into libtracelint_inject.so (it needs cupti_activity.h).

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "capture/convert/raw_format.h"

namespace tracelint::capture::inject {

class RecordTranslator {
 public:
  explicit RecordTranslator(RawWriter& writer) : w_(writer) {}
  // Appends every record of one completed buffer; returns how many were kept.
  size_t Translate(uint8_t* buffer, size_t valid_bytes);

 private:
  StrId ApiName(uint32_t domain, uint32_t cbid);

  RawWriter& w_;
  std::unordered_map<uint64_t, StrId> api_names_;  // (domain << 32 | cbid)
};

}  // namespace tracelint::capture::inject

#endif  // TRACELINT_CAPTURE_INJECT_CUPTI_RECORDS_H_
