#ifndef TRACELINT_CAPTURE_CONVERT_RAW_READER_H_
#define TRACELINT_CAPTURE_CONVERT_RAW_READER_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "capture/convert/records.h"

namespace tracelint::capture {

// Reads a raw dump (raw_format.h). Not a dump: an error naming `label`. A
// dump cut inside a record: the records before the cut, with `truncated`.
absl::StatusOr<CaptureRecords> DecodeRawCapture(std::string_view bytes, std::string_view label);
absl::StatusOr<CaptureRecords> ReadRawCaptureFile(const std::string& path);

}  // namespace tracelint::capture

#endif  // TRACELINT_CAPTURE_CONVERT_RAW_READER_H_
