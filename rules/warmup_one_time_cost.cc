#include "rules/warmup_one_time_cost.h"

#include <algorithm>
#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/job_profile.h"
#include "analyzer/analysis/step_phase.h"
#include "analyzer/analysis/steps.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace tracelint {
namespace {

constexpr std::string_view kTopItems = "TopItems";
constexpr std::string_view kWarmupScheduleTorch =
    "`torch.profiler.schedule(wait=1, warmup=2, active=3)`";

// A `tracelint capture` starts recording with the program: its lever is
// --delay, whichever framework the program uses.
constexpr std::string_view kCaptureDelay =
    "`tracelint capture --delay S`, with S past the first steps";

// TensorFlow and JAX users start their profiler by hand: the advice is where
// to start it, in their API (in none for a framework the trace does not name).
std::string NonTorchFix(OneTimeKind kind, const JobProfile& job) {
  const bool tf = job.framework == JobFramework::kTensorFlow;
  const bool jax = job.framework == JobFramework::kJax;
  const std::string start =
      job.capture ? fmt::format("start the capture after the first steps ({})", kCaptureDelay)
      : tf ? "start the profiler after the first steps (tf.profiler.experimental.start after "
             "warm-up, or the Keras TensorBoard callback's profile_batch=(10, 15))"
      : jax ? "start the profiler after the first steps (jax.profiler.start_trace once the "
              "jitted step has run a few times)"
            : "start the profiler after the first steps, once the step has run a few times";
  switch (kind) {
    case OneTimeKind::kCompilation:
      return fmt::format(
          "{} is a one-time cost of each function's first call with new shapes: "
          "{}. If it recurs, shapes change between steps: pad or bucket them.",
          tf ? "tf.function/XLA compilation" : jax ? "XLA compilation" : "Compilation", start);
    default:
      return fmt::format("This is a one-time start-up cost, paid once per process: {}.",
                         start);
  }
}

std::string FixFor(OneTimeKind kind, const JobProfile& job) {
  if (!job.is_pytorch()) return NonTorchFix(kind, job);
  const std::string_view warmup = job.capture ? kCaptureDelay : kWarmupScheduleTorch;
  switch (kind) {
    case OneTimeKind::kCompilation:
      return fmt::format(
          "Compilation is a one-time cost: profile after the first compiled calls ({}). If it "
          "shows up in every step, the model recompiles: check `TORCH_LOGS=recompiles`.",
          warmup);
    case OneTimeKind::kGraphCapture:
      return fmt::format(
          "Graph capture is a one-time cost: profile the graph replays, not the capture (start "
          "the profiler after capture, e.g. {}).",
          warmup);
    case OneTimeKind::kAutotuning:
      return fmt::format(
          "cuDNN benchmark is a one-time cost: `torch.backends.cudnn.benchmark=True` times the "
          "candidate algorithms on the first call for each input shape. Profile after warm-up "
          "({}) and keep input shapes fixed so it runs once.",
          warmup);
    case OneTimeKind::kModuleLoading:
      return fmt::format(
          "Module loading is a one-time cost of each kernel's first launch: profile after "
          "warm-up ({}).",
          warmup);
    case OneTimeKind::kContextCreation:
      return fmt::format(
          "Context creation and the first allocations are a one-time start-up cost: profile "
          "after warm-up ({}).",
          warmup);
  }
  return "";
}

}  // namespace

std::vector<RuleOptionSpec> WarmupOneTimeCostRule::options() const {
  return {{std::string(kTopItems), 3, "count",
           "longest one-time events listed per finding", 1, 100}};
}

RuleOutcome WarmupOneTimeCostRule::Check(AnalysisContext& ctx, const RuleOptions& options) const {
  RuleOutcome outcome;
  const StepSet& all = ctx.all_steps();
  const StepPhaseSet& phase = ctx.step_phase();
  const size_t top_items = static_cast<size_t>(std::max(1.0, options.Get(kTopItems)));
  const TimeNs trace_start_ns = ctx.timeline().Bounds().first;
  for (const OneTimeCost& cost : phase.costs) {
    Finding f;
    f.cause = std::string(OneTimeKindKey(cost.kind));
    f.one_time_ns = cost.total_ns;
    f.recoverable_ns_per_step = 0;
    f.recoverable_share = 0;
    f.confidence = Confidence::kMeasured;
    const OneTimeEvent& longest = cost.events.front();
    f.title = fmt::format("One-time {}: {}", OneTimeKindLabel(cost.kind),
                          FormatDurationNs(cost.total_ns));

    // The steps this work made non-steady, and those it was cut out of
    // as time (docs/steady-state.md, "One-time work inside a step").
    std::vector<std::string> left_out, cut_from;
    for (size_t i = 0; i < all.steps.size(); ++i) {
      const Step& s = all.steps[i];
      bool touches = std::any_of(cost.events.begin(), cost.events.end(), [&](const auto& e) {
        return e.start_ns < s.end_ns && e.end_ns > s.start_ns;
      });
      if (!touches) continue;
      if (f.location.first_step < 0) f.location.first_step = s.number;
      f.location.last_step = s.number;
      const bool steady = i < phase.phases.size() && phase.phases[i] == StepPhase::kSteady;
      (steady ? cut_from : left_out).push_back(StepName(all, s.number));
    }
    std::vector<std::string> where;
    if (!cut_from.empty()) {
      where.push_back(fmt::format("cut out of {} as time, the rest of {} judged",
                                  fmt::join(cut_from, ", "),
                                  cut_from.size() == 1 ? "it" : "them"));
    }
    if (!left_out.empty()) {
      where.push_back(fmt::format("{} left out of per-step statistics and savings",
                                  fmt::join(left_out, ", ")));
    }
    f.message = fmt::format(
        "{} took {} in this trace ({} event{}; the longest: {}, {}). It is paid once, not every "
        "step: {}.",
        OneTimeKindLabel(cost.kind), FormatDurationNs(cost.total_ns), cost.events.size(),
        cost.events.size() == 1 ? "" : "s", longest.name,
        FormatDurationNs(longest.end_ns - longest.start_ns),
        where.empty() ? std::string("it lies outside the analysed steps")
                      : fmt::format("{}", fmt::join(where, "; ")));
    f.evidence.push_back({fmt::format("one-time cost {}", FormatDurationNs(cost.total_ns)),
                          static_cast<double>(cost.total_ns), 0, "ns"});
    f.evidence.push_back({fmt::format("{} event{}", cost.events.size(),
                                      cost.events.size() == 1 ? "" : "s"),
                          static_cast<double>(cost.events.size()), 0, "count"});
    f.location.start_ns = longest.start_ns;
    f.location.end_ns = longest.end_ns;
    for (size_t i = 0; i < cost.events.size() && i < top_items; ++i) {
      const OneTimeEvent& e = cost.events[i];
      f.location.top_items.push_back(
          {e.name, e.end_ns - e.start_ns, 1,
           fmt::format("at +{} in the trace", FormatDurationNs(e.start_ns - trace_start_ns))});
    }
    f.fix = FixFor(cost.kind, ctx.job_profile());
    outcome.findings.push_back(std::move(f));
  }
  return outcome;
}

}  // namespace tracelint
