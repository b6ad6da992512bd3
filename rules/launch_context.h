#ifndef TRACELINT_RULES_LAUNCH_CONTEXT_H_
#define TRACELINT_RULES_LAUNCH_CONTEXT_H_

// Small read-only helpers the rules share to go from a device activity back
// to the host op that caused it (launch link + parent chain) and to place
// instants in steps. Header-only so that rules/CMakeLists.txt need not list it.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/device_activity.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/strings.h"
#include "analyzer/engine/finding.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/model/timeline.h"
#include "fmt/format.h"

namespace tracelint::rules_internal {

struct LaunchContext {
  SliceId launch = kNoIndex;  // the runtime/driver call, kNoIndex if unlinked
  // Innermost cpu_op/user annotation above the launch that records shapes
  // ("Input type"), else the innermost one at all.
  SliceId op = kNoIndex;
  bool backward = false;      // some ancestor is autograd evaluate_function
};

inline bool IsHostOpKind(EventKind k) {
  return k == EventKind::kCpuOp || k == EventKind::kUserAnnotation;
}

inline LaunchContext FindLaunchContext(const Timeline& tl, SliceId device_slice) {
  LaunchContext out;
  const SliceColumns& c = tl.slices();
  out.launch = c.launch[device_slice];
  if (out.launch == kNoIndex) return out;
  SliceId innermost_op = kNoIndex;
  for (SliceId p = c.parent[out.launch]; p != kNoIndex; p = c.parent[p]) {
    if (tl.HasFlag(p, kFlagBackward)) out.backward = true;
    if (!IsHostOpKind(c.kind[p]) || tl.HasFlag(p, kFlagStepMarker)) continue;
    if (innermost_op == kNoIndex) innermost_op = p;
    if (out.op == kNoIndex && tl.FindArg(p, "Input type") != nullptr) out.op = p;
  }
  if (out.op == kNoIndex) out.op = innermost_op;
  return out;
}

// Renders any argument as text; arrays arrive from the parsers as JSON text.
inline std::string ArgText(const Timeline& tl, const Arg* arg) {
  if (arg == nullptr) return "";
  const ArgValue& v = arg->value;
  switch (v.type) {
    case ArgValue::Type::kString: return std::string(tl.str(v.s));
    case ArgValue::Type::kInt: return fmt::format("{}", v.i);
    case ArgValue::Type::kUInt: return fmt::format("{}", v.u);
    case ArgValue::Type::kDouble: return fmt::format("{}", v.d);
    case ArgValue::Type::kBool: return v.b ? "true" : "false";
    case ArgValue::Type::kNone: return "";
  }
  return "";
}

inline std::string ArgText(const Timeline& tl, SliceId s, std::string_view key) {
  return s == kNoIndex ? std::string() : ArgText(tl, tl.FindArg(s, key));
}

// Python frames enclosing a host slice, outermost first (innermost last),
// keeping the innermost `max_frames`.
inline std::vector<std::string> PythonStack(const Timeline& tl, SliceId host_slice,
                                            size_t max_frames) {
  std::vector<std::string> frames;
  const SliceColumns& c = tl.slices();
  for (SliceId p = host_slice; p != kNoIndex && frames.size() < max_frames; p = c.parent[p]) {
    if (c.kind[p] == EventKind::kPythonFunction) frames.emplace_back(tl.str(c.name[p]));
  }
  std::reverse(frames.begin(), frames.end());
  return frames;
}

// analysis/steps.h's, where the rules have long looked for it.
using ::tracelint::StepIndexAt;

// Tensor dtypes of an op's "Input type" list (["float", "c10::Half", "", "Scalar"]),
// normalized ("float32", "float16", "bfloat16", "fp8", "uint8", ...); entries that are
// not tensors come back empty so positions still match the op's inputs.
inline std::string NormalizeDtype(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  if (t.starts_with("c10::")) t.remove_prefix(5);
  if (t == "float" || t == "Float") return "float32";
  if (t == "double" || t == "Double") return "float64";
  if (t == "Half") return "float16";
  if (t == "BFloat16") return "bfloat16";
  if (t.starts_with("Float8_")) return "fp8";
  if (t == "unsigned char" || t == "Byte") return "uint8";
  if (t == "signed char" || t == "Char") return "int8";
  if (t == "short int" || t == "Short") return "int16";
  if (t == "int" || t == "Int") return "int32";
  if (t == "long int" || t == "long" || t == "Long") return "int64";
  if (t == "bool" || t == "Bool") return "bool";
  return "";
}

// The items of a JSON list of strings, as written; a bare string is a
// one-item list.
inline std::vector<std::string> QuotedItems(std::string_view list) {
  std::vector<std::string> out;
  if (list.find('"') == std::string_view::npos) {
    if (!list.empty()) out.emplace_back(list);
    return out;
  }
  while (true) {
    size_t open = list.find('"');
    if (open == std::string_view::npos) break;
    size_t close = list.find('"', open + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(list.substr(open + 1, close - open - 1));
    list.remove_prefix(close + 1);
  }
  return out;
}

inline std::vector<std::string> TensorDtypes(std::string_view input_types) {
  std::vector<std::string> out;
  for (const std::string& item : QuotedItems(input_types)) out.push_back(NormalizeDtype(item));
  return out;
}

// The first tensor dtype of the list, or "".
inline std::string FirstTensorDtype(std::string_view input_types) {
  for (std::string& d : TensorDtypes(input_types)) {
    if (!d.empty()) return d;
  }
  return "";
}

// Share of a whole, 0 when the whole is empty (never NaN).
inline double SafeShare(double part, double whole) {
  if (!(whole > 0) || !std::isfinite(part)) return 0;
  return part / whole;
}

inline std::string Percent(double share) { return fmt::format("{:.1f}%", share * 100); }

// Numeric thread ids above this are pthread handles (140234567890123), not
// the small ids a reader can match; a named thread goes by its name then.
inline constexpr int64_t kReadableThreadIdMax = 9'999'999;

// "thread 1102"; a thread a trace names by a string ("ThreadId(1)") has a
// hashed, negative tid, and goes by its name instead, as does one whose id
// is a huge number when the trace names it ("pt_main_thread").
inline std::string HostThreadName(const Timeline& tl, SliceId s) {
  const Track& t = tl.tracks()[tl.slices().track[s]];
  if ((t.tid < 0 || t.tid > kReadableThreadIdMax) && t.name != kEmptyStringId) {
    return std::string(tl.str(t.name));
  }
  return fmt::format("thread {}", t.tid);
}

inline std::string StreamName(const Timeline& tl, SliceId s) {
  const Track& t = tl.tracks()[tl.slices().track[s]];
  const Track& origin = t.overflow_of == kNoIndex ? t : tl.tracks()[t.overflow_of];
  return fmt::format("device {} stream {}", origin.device, origin.tid);
}

// An NVIDIA GPU, by its vendor or, in traces without one, by its name.
inline bool IsNvidia(const DeviceInfo& info) {
  if (!info.vendor.empty()) return EqualsIgnoreCase(info.vendor, "NVIDIA");
  return ContainsIgnoreCase(info.name, "NVIDIA") || ContainsIgnoreCase(info.name, "Tesla") ||
         ContainsIgnoreCase(info.name, "GeForce") || ContainsIgnoreCase(info.name, "Quadro");
}

// Why per-step numbers are per window (no markers) or partial, for messages.
inline std::string StepCaveat(const StepSet& steps) {
  if (steps.source == StepSource::kWindow) {
    return " No step markers in this trace: figures are for one window over the whole trace.";
  }
  if (steps.source == StepSource::kInferred) {
    return " No step markers in this trace: figures are per iteration, the iterations inferred "
           "from what repeats.";
  }
  return "";
}

// Marks `outcome` not judged (and returns false) when no step is complete.
inline bool HasCompleteSteps(const StepSet& steps, RuleOutcome& outcome) {
  if (!steps.steps.empty() && steps.TotalNs() > 0) return true;
  outcome.applicable = false;
  outcome.not_judged_reason = "no complete step to measure";
  return false;
}

// The gate shared by rules that measure device time against steps: marks
// `outcome` not judged (and returns false) when the trace has no device
// activity or no complete step.
inline bool HasDeviceActivityAndSteps(AnalysisContext& ctx, RuleOutcome& outcome) {
  if (ctx.device_activity().empty()) {
    outcome.applicable = false;
    outcome.not_judged_reason = "no GPU activity in this trace (CPU-only or device not traced)";
    return false;
  }
  return HasCompleteSteps(ctx.steps(), outcome);
}

}  // namespace tracelint::rules_internal

#endif  // TRACELINT_RULES_LAUNCH_CONTEXT_H_
