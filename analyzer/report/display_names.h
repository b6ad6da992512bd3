#ifndef TRACELINT_ANALYZER_REPORT_DISPLAY_NAMES_H_
#define TRACELINT_ANALYZER_REPORT_DISPLAY_NAMES_H_

// Names and details from the trace as a reader wants them in a report line
// (docs/output-formats.md, "Names in reports"): a C++ kernel signature
// without its parameter list, shape lists without their empty entries. The
// JSON report keeps the trace's text as it was.

#include <string>
#include <string_view>

namespace tracelint {

// "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false,
// 512>(int, int, int, float const*, ...)" -> "cudnn::cnn::wgrad_alg0_engine<
// float, 128, 6, 7, 3, 3, 5, false, 512>": the return type and parameters
// dropped, a template argument list over kMaxTemplateColumns cut after its
// first arguments ("<float, 128, ...>"). Names that are not C++ signatures
// (aten::mm, enumerate(DataLoader)#...__next__) are returned as they are.
inline constexpr size_t kMaxTemplateColumns = 48;
std::string ShortKernelName(std::string_view name);

// Every C++ signature inside a longer text ("bf16 [[8, 4]]; kernel void
// f<int>(int*) (gemm)") shortened as ShortKernelName does, and shape lists
// without empty shapes: "[[], [32, 1024, 14, 14], [], []]" -> "[32, 1024,
// 14, 14]", several non-empty ones as "[a, b], [c]".
std::string CompactDetail(std::string_view text);

// A host thread as a reader knows it: "thread 140234567890123 (python3)"
// (Kineto's name for a thread whose id is a pthread handle) -> "python3";
// an id of under 8 digits keeps its number ("thread 42 (python3)").
std::string ShortTrackName(std::string_view track);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_REPORT_DISPLAY_NAMES_H_
