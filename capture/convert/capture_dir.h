#ifndef TRACELINT_CAPTURE_CONVERT_CAPTURE_DIR_H_
#define TRACELINT_CAPTURE_CONVERT_CAPTURE_DIR_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capture/convert/kineto_from_capture.h"

namespace tracelint::capture {

struct ConvertedCapture {
  std::vector<std::string> trace_files;  // written, in name order
  std::vector<std::string> warnings;     // per process, one line each
  ConvertSummary totals;                 // summed over processes (warnings left empty)
};

// Converts every raw dump (*.tlraw) in `raw_dir` into one Kineto trace per
// process in `out_dir` (CaptureTraceFileName). A dump that cannot be read
// is a warning, not an error; an OK result may hold no trace file (no
// process made a CUDA call).
absl::StatusOr<ConvertedCapture> ConvertCaptureDirectory(const std::string& raw_dir,
                                                         const std::string& out_dir,
                                                         const ConvertOptions& options);

}  // namespace tracelint::capture

#endif  // TRACELINT_CAPTURE_CONVERT_CAPTURE_DIR_H_
