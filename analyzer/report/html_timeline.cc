#include "analyzer/report/html_timeline.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

#include "analyzer/analysis/idle_attribution.h"
#include "analyzer/analysis/steps.h"
#include "analyzer/analysis/step_metrics.h"
#include "analyzer/base/escape.h"
#include "analyzer/model/accelerator.h"
#include "analyzer/report/report_data.h"
#include "fmt/format.h"

namespace tracelint::html {
namespace {

// Sized by its initializers so a cause added without a colour fails to
// compile instead of drawing with an empty fill.
constexpr std::string_view kIdleColors[] = {
    "#ff9da7",  // data_loader
    "#d62728",  // sync_call
    "#f28e2b",  // pageable_copy
    "#8c564b",  // host_side_op
    "#e377c2",  // launch_overhead
    "#dbdb8d",  // launch_stall
    "#aec7e8",  // allocator
    "#98df8a",  // job_submission
    "#bcbd22",  // other_host_work
    "#7f7f7f",  // host_silent
    "#9467bd",  // device_wait_collective
    "#17becf",  // device_wait_other
    "#c7c7c7",  // profiler_overhead
    "#d9d9d9",  // unattributed
};
static_assert(std::size(kIdleColors) == kIdleCauseCount);

constexpr double kWidth = 960;
constexpr double kLabelW = 190;
constexpr double kRight = 10;
constexpr double kTop = 34;
constexpr double kRowH = 11;
constexpr double kLaneGap = 5;
constexpr int kHostRows = 4;    // host nesting depth drawn
constexpr int kDeviceRows = 2;
constexpr size_t kLabelChars = 30;

std::string Dur(TimeNs ns) { return FormatDurationNs(ns); }

std::string_view SliceColor(const Timeline& tl, SliceId s) {
  if (tl.HasFlag(s, kFlagCollective)) return "#b07aa1";
  if (tl.HasFlag(s, kFlagDataLoader)) return "#ff9da7";
  switch (tl.slices().kind[s]) {
    case EventKind::kKernel: return "#4e79a7";
    case EventKind::kMemcpy: return "#f28e2b";
    case EventKind::kMemset: return "#edc948";
    case EventKind::kRuntime:
    case EventKind::kDriver: return "#e15759";
    case EventKind::kCpuOp: return "#9c755f";
    case EventKind::kPythonFunction: return "#c9b29b";
    case EventKind::kUserAnnotation:
    case EventKind::kGpuUserAnnotation: return "#76b7b2";
    default: return "#bab0ac";
  }
}

// Cuts to `n` bytes without splitting a UTF-8 sequence.
std::string Cut(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  size_t end = n - 1;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end)) + "\xE2\x80\xA6";
}

// Writes rects for one row, merging runs of sub-pixel slices into one rect
// that says how many slices it stands for.
class RowWriter {
 public:
  RowWriter(std::string& out, double y, double h) : out_(out), y_(y), h_(h) {}
  ~RowWriter() { Flush(); }
  void Add(double x0, double x1, std::string_view color, std::string title, bool highlight) {
    if (x1 - x0 < 0.6 && pending_ && x0 - p_x1_ < 0.6 && !highlight && !p_highlight_) {
      p_x1_ = std::max(p_x1_, x1);
      ++p_count_;
      return;
    }
    Flush();
    pending_ = true;
    p_x0_ = x0;
    p_x1_ = x1;
    p_color_ = color;
    p_title_ = std::move(title);
    p_count_ = 1;
    p_highlight_ = highlight;
  }

 private:
  void Flush() {
    if (!pending_) return;
    pending_ = false;
    std::string title = p_count_ > 1 ? fmt::format("{} slices merged at this zoom; first: {}",
                                                     p_count_, p_title_)
                                     : p_title_;
    out_ += fmt::format(
        "<rect{} x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>{}</title></rect>",
        p_highlight_ ? " class=\"hl\"" : "", p_x0_, y_, std::max(0.4, p_x1_ - p_x0_), h_,
        p_color_, title);
  }
  std::string& out_;
  double y_;
  double h_;
  bool pending_ = false;
  double p_x0_ = 0;
  double p_x1_ = 0;
  std::string_view p_color_;
  std::string p_title_;
  int p_count_ = 0;
  bool p_highlight_ = false;
};

struct Band {
  int index;  // finding number as the report shows it (1-based)
  TimeNs start_ns;
  TimeNs end_ns;
  const Finding* finding;
};

}  // namespace

std::string IdleCauseLegend(std::string_view accelerator) {
  std::string out = fmt::format("<div class=\"legend\">{} idle by cause: ", accelerator);
  for (int c = 0; c < kIdleCauseCount; ++c) {
    out += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", kIdleColors[c],
                       IdleCauseName(static_cast<IdleCause>(c)));
  }
  return out + "</div>\n";
}

std::optional<WorstStep> FindWorstStep(const ReportInput& in) {
  std::optional<WorstStep> worst;
  TimeNs worst_mean_ns = -1;
  for (size_t i = 0; i < in.ranks.size() && i < in.contexts.size(); ++i) {
    if (in.ranks[i]->events_released()) continue;
    // steps() holds the steady steps only: a warm-up, capture or compile step
    // is often the longest, and drawing it would show start-up, not the run.
    const StepSet& steps = in.contexts[i]->steps();
    if (steps.steps.empty()) continue;
    TimeNs mean_ns = in.contexts[i]->step_metrics().mean_step_ns;
    if (mean_ns <= worst_mean_ns) continue;
    worst_mean_ns = mean_ns;
    int best = 0;
    for (size_t s = 1; s < steps.steps.size(); ++s) {
      if (steps.steps[s].duration_ns() > steps.steps[best].duration_ns()) {
        best = static_cast<int>(s);
      }
    }
    worst = WorstStep{i, best};
  }
  if (worst.has_value()) return worst;
  // No steady step anywhere: the longest complete step, marked as such.
  TimeNs longest_ns = -1;
  for (size_t i = 0; i < in.ranks.size() && i < in.contexts.size(); ++i) {
    if (in.ranks[i]->events_released()) continue;
    const StepSet& all = in.contexts[i]->all_steps();
    for (size_t s = 0; s < all.steps.size(); ++s) {
      if (all.steps[s].wall_ns() > longest_ns) {
        longest_ns = all.steps[s].wall_ns();
        worst = WorstStep{i, static_cast<int>(s), true};
      }
    }
  }
  return worst;
}

std::string StepTimeline(const ReportInput& in, const WorstStep& worst) {
  const Timeline& tl = *in.ranks[worst.rank_pos];
  const std::string_view accelerator = AcceleratorName(tl.metadata());
  AnalysisContext& ctx = *in.contexts[worst.rank_pos];
  const Step& step = (worst.not_steady ? ctx.all_steps() : ctx.steps()).steps[worst.step_index];
  const TimeNs start_ns = step.start_ns;
  const TimeNs end_ns = std::max(step.end_ns, start_ns + 1);
  const double plot_w = kWidth - kLabelW - kRight;
  auto x_of = [&](TimeNs t) {
    return kLabelW + plot_w * static_cast<double>(std::clamp(t, start_ns, end_ns) - start_ns) /
                         (end_ns - start_ns);
  };
  const int rank = RankOf(tl, worst.rank_pos);

  std::vector<Band> bands;
  for (size_t f = 0; f < in.findings.size(); ++f) {
    const FindingLocation& l = in.findings[f].location;
    if (l.end_ns <= l.start_ns || l.end_ns <= start_ns || l.start_ns >= end_ns) continue;
    if (l.rank >= 0 && in.ranks.size() > 1 && l.rank != rank) continue;
    bands.push_back({static_cast<int>(f) + 1, l.start_ns, l.end_ns, &in.findings[f]});
  }
  auto in_band = [&](TimeNs a, TimeNs b) {
    for (const Band& band : bands) {
      if (a < band.end_ns && b > band.start_ns) return true;
    }
    return false;
  };

  // Lanes: each device's streams, then its idle lane, then the host threads.
  std::vector<TrackId> device_tracks;
  std::vector<TrackId> host_tracks;
  const SliceColumns& sc = tl.slices();
  for (TrackId t = 0; t < tl.tracks().size(); ++t) {
    auto [first, last] = tl.track_range(t);
    bool any = false;
    for (SliceId s = first; s < last && sc.ts_ns[s] < end_ns; ++s) {
      if (sc.end_ns(s) > start_ns) {
        any = true;
        break;
      }
    }
    if (!any) continue;
    const Track& track = tl.tracks()[t];
    if (track.kind == TrackKind::kDeviceStream) device_tracks.push_back(t);
    if (track.kind == TrackKind::kHostThread) host_tracks.push_back(t);
  }
  auto track_key = [&](TrackId t) {
    const Track& k = tl.tracks()[t];
    return std::make_tuple(k.device, k.pid, k.tid, t);
  };
  std::sort(device_tracks.begin(), device_tracks.end(),
            [&](TrackId a, TrackId b) { return track_key(a) < track_key(b); });
  std::sort(host_tracks.begin(), host_tracks.end(),
            [&](TrackId a, TrackId b) { return track_key(a) < track_key(b); });
  std::map<int, std::vector<const IdlePiece*>> idle_by_device;
  for (const IdlePiece& p : ctx.idle_attribution().pieces) {
    if (!worst.not_steady && p.step_index == worst.step_index) {
      idle_by_device[p.device].push_back(&p);
    }
  }

  std::string body;
  double y = kTop;
  auto lane_label = [&](std::string_view label, std::string_view full, double lane_h) {
    body += fmt::format(
        "<text class=\"lane\" x=\"4\" y=\"{:.1f}\">{}<title>{}</title></text>"
        "<line class=\"grid\" x1=\"0\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
        y + 9, EscapeHtml(Cut(label, kLabelChars)), EscapeHtml(full), kWidth, y + lane_h + 2,
        y + lane_h + 2);
  };
  auto draw_track = [&](TrackId t, int rows) {
    const Track& track = tl.tracks()[t];
    std::string name(tl.str(track.name));
    if (name.empty()) {
      name = track.kind == TrackKind::kDeviceStream
                 ? fmt::format("{} {} stream {}", accelerator, track.device, track.tid)
                 : fmt::format("thread {}", track.tid);
    }
    int used_rows = 1;
    auto [first, last] = tl.track_range(t);
    std::vector<std::unique_ptr<RowWriter>> writers;
    for (int r = 0; r < rows; ++r) {
      writers.push_back(std::make_unique<RowWriter>(body, y + r * kRowH, kRowH - 1));
    }
    for (SliceId s = first; s < last && sc.ts_ns[s] < end_ns; ++s) {
      if (sc.end_ns(s) <= start_ns || sc.depth[s] >= rows) continue;
      used_rows = std::max(used_rows, sc.depth[s] + 1);
      EventKind kind = sc.kind[s];
      bool pointed_at = (kind == EventKind::kMemcpy || kind == EventKind::kMemset ||
                         tl.HasFlag(s, kFlagCollective)) &&
                        in_band(sc.ts_ns[s], sc.end_ns(s));
      std::string title = fmt::format("{}\n+{} from step start, {}", EscapeHtml(tl.str(sc.name[s])),
                                      Dur(sc.ts_ns[s] - start_ns), Dur(sc.dur_ns[s]));
      writers[sc.depth[s]]->Add(x_of(sc.ts_ns[s]), x_of(sc.end_ns(s)), SliceColor(tl, s),
                                std::move(title), pointed_at);
    }
    writers.clear();  // flush before the label so rows stay below it in z-order
    lane_label(name, name, used_rows * kRowH);
    y += used_rows * kRowH + kLaneGap;
  };

  int last_device = -2;
  auto idle_lane = [&](int device) {
    auto it = idle_by_device.find(device);
    if (it == idle_by_device.end()) return;
    {
      RowWriter w(body, y, kRowH - 1);
      for (const IdlePiece* p : it->second) {
        std::string_view cause = IdleCauseName(p->cause);
        std::string title =
            fmt::format("{} {} idle: {}\n+{} from step start, {}", accelerator, device, cause,
                        Dur(p->start_ns - start_ns), Dur(p->end_ns - p->start_ns));
        if (p->cause_slice != kNoIndex) {
          title += fmt::format("\ncaused by: {}", EscapeHtml(tl.str(sc.name[p->cause_slice])));
        }
        w.Add(x_of(p->start_ns), x_of(p->end_ns), kIdleColors[static_cast<int>(p->cause)],
              std::move(title), false);
      }
    }
    lane_label(fmt::format("{} {} idle (by cause)", accelerator, device),
               fmt::format("{} idle gaps by cause", accelerator), kRowH);
    y += kRowH + kLaneGap;
  };
  for (TrackId t : device_tracks) {
    int device = tl.tracks()[t].device;
    if (device != last_device && last_device != -2) idle_lane(last_device);
    last_device = device;
    draw_track(t, kDeviceRows);
  }
  if (last_device != -2) idle_lane(last_device);
  for (TrackId t : host_tracks) draw_track(t, kHostRows);

  const double height = y + 8;
  std::string out = fmt::format(
      "<svg class=\"chart timeline\" id=\"timeline\" viewBox=\"0 0 {} {:.0f}\" role=\"img\" "
      "aria-label=\"timeline of step {}\" preserveAspectRatio=\"xMinYMin meet\">\n",
      kWidth, height, step.number);
  for (int i = 0; i <= 4; ++i) {
    double x = kLabelW + plot_w * i / 4;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{:.0f}\"/>"
        "<text class=\"axis\" x=\"{:.1f}\" y=\"12\" text-anchor=\"{}\">+{}</text>\n",
        x, x, kTop - 14, height, x, i == 0 ? "start" : (i == 4 ? "end" : "middle"),
        // In 128 bits: a hostile span times 4 can pass int64.
        Dur(static_cast<TimeNs>(static_cast<__int128>(end_ns - start_ns) * i / 4)));
  }
  for (const Band& band : bands) {
    double x0 = x_of(band.start_ns);
    double x1 = std::max(x0 + 2, x_of(band.end_ns));
    out += fmt::format(
        "<g class=\"band\"><rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{:.0f}\"/>"
        "<text x=\"{:.2f}\" y=\"{}\">#{}</text><title>finding #{}: {} ({})</title></g>\n",
        x0, kTop - 12, x1 - x0, height - kTop + 12, x0 + 2, kTop - 3, band.index, band.index,
        EscapeHtml(band.finding->title), EscapeHtml(band.finding->rule_id));
  }
  out += body;
  return out + "</svg>\n";
}

}  // namespace tracelint::html
