#include "analyzer/analysis/iterations.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "analyzer/base/strings.h"

namespace tracelint {
namespace {

bool IsHost(const Timeline& tl, SliceId s) {
  return tl.tracks()[tl.slices().track[s]].kind == TrackKind::kHostThread;
}

// The host thread with the most slices: the one running the loop.
TrackId MainThread(const Timeline& tl) {
  absl::flat_hash_map<TrackId, int64_t> count;
  const SliceColumns& c = tl.slices();
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsHost(tl, s)) continue;
    TrackId t = c.track[s];
    while (tl.tracks()[t].overflow_of != kNoIndex) t = tl.tracks()[t].overflow_of;
    ++count[t];
  }
  TrackId best = kNoIndex;
  int64_t most = 0;
  for (const auto& [t, n] : count) {
    if (n > most || (n == most && t < best)) {
      best = t;
      most = n;
    }
  }
  return best;
}

// The slices of one name that `keep` accepts, outermost only (a slice
// nested in another of the same name is part of it), in time order.
struct Group {
  std::vector<SliceId> slices;
};

std::map<StringId, Group> GroupByName(const Timeline& tl,
                                      const std::function<bool(SliceId)>& keep) {
  const SliceColumns& c = tl.slices();
  std::map<StringId, Group> groups;
  for (SliceId s = 0; s < c.size(); ++s) {
    if (!IsHost(tl, s) || c.dur_ns[s] <= 0 || !keep(s)) continue;
    groups[c.name[s]].slices.push_back(s);
  }
  for (auto& [name, g] : groups) {
    std::sort(g.slices.begin(), g.slices.end(), [&](SliceId a, SliceId b) {
      return c.ts_ns[a] != c.ts_ns[b] ? c.ts_ns[a] < c.ts_ns[b] : a < b;
    });
    std::vector<SliceId> outer;
    for (SliceId s : g.slices) {
      if (!outer.empty() && c.ts_ns[s] < c.end_ns(outer.back())) continue;
      outer.push_back(s);
    }
    g.slices = std::move(outer);
  }
  return groups;
}

// The group with the most repeats that passes the spacing test.
std::optional<IterationAnchors> Best(const Timeline& tl, const std::map<StringId, Group>& groups,
                                     std::string_view what, bool ends_iteration) {
  const SliceColumns& c = tl.slices();
  std::optional<IterationAnchors> best;
  for (const auto& [name, g] : groups) {
    if (g.slices.size() < kMinIterations) continue;
    if (best.has_value() && g.slices.size() <= best->slices.size()) continue;
    std::vector<TimeNs> instants;
    for (SliceId s : g.slices) instants.push_back(ends_iteration ? c.end_ns(s) : c.ts_ns[s]);
    const double cv = SpacingCv(instants);
    if (cv < 0 || cv >= kMaxSpacingCv) continue;
    IterationAnchors a;
    a.name = std::string(tl.str(name));
    a.what = std::string(what);
    a.ends_iteration = ends_iteration;
    a.slices = g.slices;
    a.spacing_cv = cv;
    best = std::move(a);
  }
  return best;
}

bool IsModuleForward(std::string_view name) { return name.starts_with("nn.Module: "); }

}  // namespace

double SpacingCv(const std::vector<TimeNs>& instants_ns) {
  if (instants_ns.size() < 2) return -1;
  std::vector<double> spacing;
  for (size_t i = 1; i < instants_ns.size(); ++i) {
    spacing.push_back(static_cast<double>(instants_ns[i] - instants_ns[i - 1]));
  }
  if (spacing.size() >= 4) spacing.erase(spacing.begin());
  double mean = 0;
  for (double v : spacing) mean += v;
  mean /= static_cast<double>(spacing.size());
  if (mean <= 0) return -1;
  double var = 0;
  for (double v : spacing) var += (v - mean) * (v - mean);
  var /= static_cast<double>(spacing.size());
  return std::sqrt(var) / mean;
}

std::optional<IterationAnchors> FindIterationAnchors(const Timeline& tl) {
  const SliceColumns& c = tl.slices();
  // 1. Optimizer steps end a training iteration.
  auto optimizer = GroupByName(tl, [&](SliceId s) {
    return tl.HasFlag(s, kFlagOptimizer) && tl.str(c.name[s]).starts_with("Optimizer.step");
  });
  if (auto a = Best(tl, optimizer, "optimizer steps", true)) return a;
  // 2. A top-level module forward on the main thread starts one.
  const TrackId main = MainThread(tl);
  if (main != kNoIndex) {
    auto forwards = GroupByName(tl, [&](SliceId s) {
      if (c.kind[s] != EventKind::kPythonFunction || !IsModuleForward(tl.str(c.name[s]))) {
        return false;
      }
      TrackId t = c.track[s];
      while (tl.tracks()[t].overflow_of != kNoIndex) t = tl.tracks()[t].overflow_of;
      if (t != main) return false;
      for (SliceId p = c.parent[s]; p != kNoIndex; p = c.parent[p]) {
        if (IsModuleForward(tl.str(c.name[p]))) return false;
      }
      return true;
    });
    if (auto a = Best(tl, forwards, "top-level module forwards", false)) return a;
  }
  // 3. A JAX jitted call or a TF session run.
  auto calls = GroupByName(tl, [&](SliceId s) {
    std::string_view n = tl.str(c.name[s]);
    return n.starts_with("PjitFunction(") || n == "session.run" || n == "SessionRun" ||
           n.starts_with("Session::Run");
  });
  if (auto a = Best(tl, calls, "jitted calls or session runs", false)) return a;
  // 4. A compiled region.
  auto compiled = GroupByName(tl, [&](SliceId s) {
    std::string_view n = tl.str(c.name[s]);
    return n.starts_with("Torch-Compiled Region") || n.starts_with("## Call CompiledFxGraph");
  });
  return Best(tl, compiled, "compiled regions", false);
}

}  // namespace tracelint
