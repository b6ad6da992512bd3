#ifndef TRACELINT_ANALYZER_ANALYSIS_TRACE_INTEGRITY_H_
#define TRACELINT_ANALYZER_ANALYSIS_TRACE_INTEGRITY_H_

// Whether one rank's trace can be trusted, checked before any finding is
// shown (docs/trace-integrity.md). Not a rule: it finds no saving; it says
// how far the findings may be believed. The engine applies what it implies
// in one place (lower confidence, withhold findings, cap claims), so no rule
// repeats these checks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

class AnalysisContext;

enum class IntegrityVerdict : uint8_t { kTrusted = 0, kLimited = 1, kUntrusted = 2 };
// kOk: nothing wrong; kLimited: findings stand with less confidence or some
// withheld; kFailed: the trace is not what it claims (a fragment, missing
// work): what depends on it is withheld or capped. kNotApplicable: the
// check's input is absent (no device work to link, no sync calls).
enum class CheckStatus : uint8_t { kOk = 0, kNotApplicable = 1, kLimited = 2, kFailed = 3 };

std::string_view IntegrityVerdictName(IntegrityVerdict v);  // "trusted", ...
std::string_view CheckStatusName(CheckStatus s);            // "ok", "n/a", ...

struct IntegrityCheck {
  std::string id;        // stable: "fragment", "host_events", ...
  CheckStatus status = CheckStatus::kOk;
  double value = 0;      // measured, in `unit`
  double threshold = 0;  // the value at which the check stops being ok
  std::string unit;      // "count", "share", "ns"
  std::string reason;    // one line, what was measured and what it means
};

// A cause whose findings are withheld, and why.
struct WithheldCause {
  std::string cause;   // a Finding::cause ("sync_call", "host_silent", ...)
  std::string reason;
};

// What the checks allow. max_confidence uses the values of
// Finding::Confidence (engine/finding.h): 0 inferred, 1 modelled, 2 measured.
struct TraceIntegrity {
  IntegrityVerdict verdict = IntegrityVerdict::kTrusted;
  std::vector<IntegrityCheck> checks;  // in a fixed order
  int max_confidence = 2;
  double max_claim_share = 1.0;        // 0.5 on a window without step markers
  // Confidence levels every per-step finding loses before the cap: 1 when
  // the steps are iterations inferred from repeats (docs/steady-state.md).
  int confidence_levels_down = 0;
  // A fragment (a handful of events, or markers without one complete step)
  // is not a profile of the job: no per-step claim is made from it, and the
  // run is not judgeable (docs/design/contract.md, exit 5). Empty when not a fragment.
  std::string fragment_reason;
  bool fragment() const { return !fragment_reason.empty(); }
  std::vector<WithheldCause> withheld;
  std::string summary;  // "trusted" or "limited: <first reasons>"
};

// Thresholds (documented in docs/trace-integrity.md).
inline constexpr int64_t kFragmentMinEvents = 100;
// A window without step markers (or a step stitched from disjoint times).
inline constexpr double kWindowMaxClaimShare = 0.5;
inline constexpr double kUnlinkedLimitedShare = 0.10;
// Launch calls with no device work: records dropped, or launches captured
// into a CUDA/HIP graph (which run later, as a replay).
inline constexpr double kEmptyLaunchLimitedShare = 0.5;
inline constexpr int64_t kEmptyLaunchMinCount = 10;
// A sync call waiting this long with the device idle means device work is
// missing from the file (a sliced trace or clock skew).
inline constexpr TimeNs kMissingWorkIdleNs = 100 * kNsPerMs;
// Shorter synchronize waits on an idle device (an inference step is 5 to
// 50 ms): each waits at least this long with the device idle for over half
// of it, and together they hold at least kMissingWorkShortShare of the
// analysed steps. Not proof on its own (a descheduled host thread looks the
// same), so the trace is limited, not failed, and the idle is not charged.
inline constexpr TimeNs kMissingWorkShortIdleNs = 2 * kNsPerMs;
inline constexpr double kMissingWorkShortShare = 0.10;
// A cause with at least this share of its idle inside such waits is withheld.
inline constexpr double kMissingWorkCauseShare = 0.25;
// Device work starting before its launch call began is impossible on one
// clock; more than this is skew, not rounding.
inline constexpr TimeNs kSkewToleranceNs = 2 * kNsPerUs;
inline constexpr TimeNs kSkewFailedNs = 1 * kNsPerMs;
// A step with fewer device activities than this share of the median step.
inline constexpr double kStepWorkMinShare = 0.5;

TraceIntegrity ComputeTraceIntegrity(AnalysisContext& ctx);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_ANALYSIS_TRACE_INTEGRITY_H_
