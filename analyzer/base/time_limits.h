#ifndef TRACELINT_ANALYZER_BASE_TIME_LIMITS_H_
#define TRACELINT_ANALYZER_BASE_TIME_LIMITS_H_

#include "analyzer/base/time.h"

namespace tracelint {

// Every time in a timeline lies in [-kMaxTraceTimeNs, kMaxTraceTimeNs]
// (about 146 years either side of the epoch; real traces use epoch times,
// about 1.8e18 ns). Parsers reject or clamp times beyond it at the model
// boundary (TimelineBuilder::AddSlice, the Kineto emitter), so the
// difference of any two times, and the sum of two durations, fits in int64.
inline constexpr TimeNs kMaxTraceTimeNs = (TimeNs{1} << 62) - 1;

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_TIME_LIMITS_H_
