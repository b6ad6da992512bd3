#include "parsers/annotate/annotate_writer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/base/json_escape.h"
#include "parsers/annotate/annotate_timeline.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"
#include "parsers/common/input_stream.h"
#include "parsers/common/json_event_splitter.h"

namespace tracelint {
namespace {

// Flow ids of the tracelint arrows start here, far from the correlation ids
// a trace's own flows use.
constexpr int64_t kFlowIdBase = int64_t{1} << 40;
// Beyond this many ns from the trace's origin (about 11 days), a us value
// with three decimals no longer fits a double exactly.
constexpr TimeNs kExactUsLimitNs = TimeNs{1'000'000'000'000'000};

// The rule that owns each idle cause (idle_attribution.h).
std::string_view OwnerRule(IdleCause cause) {
  switch (cause) {
    case IdleCause::kSyncCall:
    case IdleCause::kHostSideOp: return "host-side-ops";
    case IdleCause::kPageableCopy: return "h2d-copy-dominance";
    case IdleCause::kDeviceWaitCollective: return "comm-clustered-allreduce";
    case IdleCause::kUnattributed: return "unattributed";
    default: return "gpu-idle-gaps";
  }
}

std::string Us(TimeNs ns) { return ExactUs(ns); }
std::string Str(std::string_view s) { return "\"" + JsonEscape(s) + "\""; }

// The finding numbers a slice carries in its args.
std::string FindingArgs(const Finding& f, int index) {
  return fmt::format(
      "\"finding\":{},\"rule\":{},\"cause\":{},\"title\":{},\"severity\":{},"
      "\"confidence\":{},\"recoverable_ns_per_step\":{},\"recoverable_share\":{},"
      "\"one_time_ns\":{},\"fingerprint\":{},\"fix\":{}",
      index, Str(f.rule_id), Str(f.cause), Str(f.title), Str(FindingSeverityName(f.severity)),
      Str(ConfidenceName(f.confidence)), f.recoverable_ns_per_step, f.recoverable_share,
      f.one_time_ns, Str(f.fingerprint), Str(f.fix));
}

class EventList {
 public:
  void Add(std::string event) {
    if (!out_.empty()) out_ += ",\n";
    out_ += event;
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace

std::string AnnotationEvents(const ReportInput& in, size_t rank_pos, TimeNs base_time_ns,
                             const HostPidTid& host_pid_tid) {
  const Timeline& tl = *in.ranks[rank_pos];
  AnalysisContext& ctx = *in.contexts[rank_pos];
  const int rank = RankOf(tl, rank_pos);
  const int64_t pid = kAnnotatePidBase + static_cast<int64_t>(rank_pos);
  // Epoch timestamps in us with three decimals are past what a double
  // holds exactly, so a reader's ts + dur of one gap piece could overlap the
  // next piece. Such traces get whole-us times, where sums stay exact.
  const TimeNs quantum_ns = tl.Bounds().second - base_time_ns > kExactUsLimitNs ? kNsPerUs : 1;
  auto floor_q = [&](TimeNs t) {
    TimeNs rel = t - base_time_ns;
    return rel - ((rel % quantum_ns) + quantum_ns) % quantum_ns;
  };
  auto ceil_q = [&](TimeNs t) { return floor_q(t + quantum_ns - 1); };

  // Slices go on one thread per finding rule and one per (owning rule,
  // device) for the idle gaps; a slice that overlaps the previous one of
  // its thread moves to an overflow thread, as a Chrome thread's slices
  // must nest.
  struct Slice {
    std::string thread;  // thread label
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;
    std::string name;
    std::string args;  // object members
    SliceId cause_slice = kNoIndex;
    int tid = 0;
  };
  std::vector<Slice> slices;
  std::vector<std::pair<int, const Finding*>> mine;  // (1-based index, finding)
  for (size_t f = 0; f < in.findings.size(); ++f) {
    const Finding& finding = in.findings[f];
    bool this_rank = finding.location.rank == rank ||
                     (finding.location.rank < 0 && rank_pos == 0) || in.ranks.size() == 1;
    if (!this_rank) continue;
    mine.emplace_back(static_cast<int>(f) + 1, &finding);
    const FindingLocation& l = finding.location;
    if (l.end_ns <= l.start_ns) continue;
    slices.push_back(
        {finding.rule_id + ": findings", l.start_ns, l.end_ns,
         fmt::format("#{} {}", f + 1, finding.cause.empty() ? finding.rule_id : finding.cause),
         fmt::format("{},\"first_step\":{},\"last_step\":{},\"track\":{}",
                     FindingArgs(finding, static_cast<int>(f) + 1), l.first_step, l.last_step,
                     Str(l.track))});
  }
  const std::vector<Step>& steps = ctx.steps().steps;
  const SliceColumns& sc = tl.slices();
  for (const IdlePiece& p : ctx.idle_attribution().pieces) {
    std::string_view cause = IdleCauseName(p.cause);
    std::string_view owner = OwnerRule(p.cause);
    std::string args = fmt::format("\"cause\":{},\"owner\":{},\"device\":{},\"gap\":{}",
                                   Str(cause), Str(owner), p.device, p.gap);
    if (p.step_index >= 0 && p.step_index < static_cast<int>(steps.size())) {
      args += fmt::format(",\"step\":{}", steps[p.step_index].number);
    }
    for (const auto& [index, f] : mine) {
      if (f->rule_id == owner && (f->cause.empty() || f->cause == cause)) {
        args += ",\"charged_to\":{" + FindingArgs(*f, index) + "}";
        break;
      }
    }
    if (p.cause_slice != kNoIndex) {
      args += fmt::format(",\"caused_by\":{}", Str(tl.str(sc.name[p.cause_slice])));
    }
    slices.push_back({fmt::format("{}: GPU {} idle gaps", owner, p.device), p.start_ns, p.end_ns,
                      std::string(cause), std::move(args), p.cause_slice});
  }

  // Threads in label order; lanes by start time.
  std::vector<size_t> order(slices.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(slices[a].thread, slices[a].start_ns) <
           std::tie(slices[b].thread, slices[b].start_ns);
  });
  std::vector<std::string> thread_names;
  std::map<std::string, std::vector<std::pair<TimeNs, int>>> lanes;  // label -> (end, tid)
  for (size_t i : order) {
    Slice& sl = slices[i];
    std::vector<std::pair<TimeNs, int>>& mine_lanes = lanes[sl.thread];
    auto free = std::find_if(mine_lanes.begin(), mine_lanes.end(),
                             [&](const auto& lane) { return lane.first <= sl.start_ns; });
    if (free == mine_lanes.end()) {
      thread_names.push_back(mine_lanes.empty() ? sl.thread
                                                : fmt::format("{} (overlap {})", sl.thread,
                                                              mine_lanes.size()));
      mine_lanes.emplace_back(0, static_cast<int>(thread_names.size()));
      free = mine_lanes.end() - 1;
    }
    free->first = sl.end_ns;
    sl.tid = free->second;
  }

  EventList events;
  events.Add(fmt::format(
      "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}",
      pid, Str(fmt::format("tracelint (rank {})", rank))));
  events.Add(fmt::format("{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,"
                         "\"args\":{{\"sort_index\":-1}}}}",
                         pid));
  for (size_t t = 0; t < thread_names.size(); ++t) {
    events.Add(fmt::format(
        "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
        pid, t + 1, Str(thread_names[t])));
    events.Add(fmt::format("{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{},\"tid\":{},"
                           "\"args\":{{\"sort_index\":{}}}}}",
                           pid, t + 1, t + 1));
  }
  int64_t flow_id = kFlowIdBase + static_cast<int64_t>(rank_pos) * (int64_t{1} << 32);
  for (const Slice& sl : slices) {
    events.Add(fmt::format(
        "{{\"ph\":\"X\",\"cat\":\"tracelint\",\"name\":{},\"pid\":{},\"tid\":{},\"ts\":{},"
        "\"dur\":{},\"args\":{{{}}}}}",
        Str(sl.name), pid, sl.tid, Us(floor_q(sl.start_ns)),
        Us(floor_q(sl.end_ns) - floor_q(sl.start_ns)), sl.args));
    if (sl.cause_slice == kNoIndex) continue;
    // The arrow from the gap to the host op that caused it.
    const Track* host = &tl.tracks()[sc.track[sl.cause_slice]];
    if (host->overflow_of != kNoIndex) host = &tl.tracks()[host->overflow_of];
    auto [host_pid, host_tid] = host_pid_tid(*host);
    ++flow_id;
    events.Add(fmt::format(
        "{{\"ph\":\"s\",\"cat\":\"tracelint\",\"name\":\"caused by\",\"id\":{},\"pid\":{},"
        "\"tid\":{},\"ts\":{}}}",
        flow_id, pid, sl.tid, Us(floor_q(sl.start_ns))));
    events.Add(fmt::format(
        "{{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"tracelint\",\"name\":\"caused by\",\"id\":{},"
        "\"pid\":{},\"tid\":{},\"ts\":{}}}",
        flow_id, host_pid, host_tid, Us(ceil_q(sc.ts_ns[sl.cause_slice]))));
  }
  return events.Take();
}

}  // namespace tracelint
