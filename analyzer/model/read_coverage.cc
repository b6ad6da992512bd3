#include "analyzer/model/read_coverage.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "fmt/format.h"

namespace tracelint {
namespace {

constexpr TimeNs kMinNs = std::numeric_limits<TimeNs>::min();
constexpr TimeNs kMaxNs = std::numeric_limits<TimeNs>::max();

struct Run {
  TimeNs min_ns;
  TimeNs max_ns;
  int64_t block;
};

struct TrackState {
  bool seen = false;
  bool open = false;  // a run in the block being read
  Run run{0, 0, 0};
  TimeNs jitter_ns = 0;  // the largest step back inside a run
  TimeNs read_min_ns = kMaxNs;
  TimeNs read_max_ns = kMinNs;
  std::vector<Run> complete;
};

// a - b for a >= b, exact even when the difference does not fit TimeNs
// (timestamps at the int64 edges are hostile input, not UB).
uint64_t Distance(TimeNs a, TimeNs b) {
  return static_cast<uint64_t>(a) - static_cast<uint64_t>(b);
}

// `a` begins before `b` ends, by more than the jitter (and the other way).
bool Before(TimeNs a, TimeNs b) {
  return a < b && Distance(b, a) > static_cast<uint64_t>(kReadCoverageJitterNs);
}

bool Overlap(const Run& a, const Run& b) { return Before(a.min_ns, b.max_ns) && Before(b.min_ns, a.max_ns); }

}  // namespace

struct ReadCoverageBuilder::State {
  std::vector<TrackState> tracks;
  std::vector<uint32_t> open;  // tracks with a run in the block being read
  int64_t blocks = 0;
};

ReadCoverageBuilder::ReadCoverageBuilder() : state_(std::make_unique<State>()) {}
ReadCoverageBuilder::~ReadCoverageBuilder() = default;

void ReadCoverageBuilder::Add(uint32_t track, TimeNs ts_ns) {
  State& st = *state_;
  if (track >= st.tracks.size()) st.tracks.resize(static_cast<size_t>(track) + 1);
  if (st.blocks == 0) st.blocks = 1;
  TrackState& t = st.tracks[track];
  if (t.open && Before(ts_ns, t.run.max_ns)) {
    // Back in time past any jitter: the file began a new block, and every
    // track's run in the block before it ended (profilers flush whole
    // activity buffers, all streams at once). Each run closes once, so the
    // work stays linear in the activities however the file jumps.
    for (uint32_t id : st.open) {
      TrackState& other = st.tracks[id];
      other.complete.push_back(other.run);
      other.open = false;
    }
    st.open.clear();
    ++st.blocks;
  }
  if (t.open) {
    // Not a new block: any step back is at most the jitter.
    if (ts_ns < t.run.max_ns) {
      t.jitter_ns = std::max(t.jitter_ns, static_cast<TimeNs>(Distance(t.run.max_ns, ts_ns)));
    }
    t.run.min_ns = std::min(t.run.min_ns, ts_ns);
    t.run.max_ns = std::max(t.run.max_ns, ts_ns);
  } else {
    t.run = Run{ts_ns, ts_ns, st.blocks - 1};
    t.open = true;
    st.open.push_back(track);
  }
  t.seen = true;
  t.read_min_ns = std::min(t.read_min_ns, ts_ns);
  t.read_max_ns = std::max(t.read_max_ns, ts_ns);
}

ReadCoverage ReadCoverageBuilder::Finish() && {
  ReadCoverage out;
  out.computed = true;
  out.blocks = state_->blocks;
  std::vector<TrackState>& tracks = state_->tracks;
  if (out.blocks == 0) return out;
  if (out.blocks == 1) {
    out.first_start_ns = kMaxNs;
    out.horizon_ns = kMaxNs;
    TimeNs jitter_ns = 0;
    for (const TrackState& t : tracks) {
      if (!t.seen) continue;
      out.first_start_ns = std::min(out.first_start_ns, t.run.min_ns);
      out.horizon_ns = std::min(out.horizon_ns, t.run.max_ns);
      jitter_ns = std::max(jitter_ns, t.jitter_ns);
    }
    out.horizon_ns = out.horizon_ns < kMinNs + jitter_ns ? kMinNs : out.horizon_ns - jitter_ns;
    return out;
  }

  // The runs of the block being read when the file ended: nothing between
  // two complete runs of a track can be bridged if one of these lies there.
  std::vector<Run> partial;
  for (const TrackState& t : tracks) {
    if (t.open) partial.push_back(t.run);
  }
  for (size_t id = 0; id < tracks.size(); ++id) {
    const TrackState& t = tracks[id];
    if (!t.seen) continue;
    std::vector<Run> all = t.complete;
    if (t.open) all.push_back(t.run);
    std::sort(all.begin(), all.end(),
              [](const Run& a, const Run& b) { return a.min_ns < b.min_ns; });
    for (size_t i = 1; i < all.size(); ++i) {
      if (Overlap(all[i - 1], all[i])) {
        out.interleaved = true;
        return out;
      }
    }
    ReadCoverage::TrackCoverage cov;
    cov.track = static_cast<uint32_t>(id);
    cov.read_min_ns = t.read_min_ns;
    cov.read_max_ns = t.read_max_ns;
    std::vector<Run> done = t.complete;
    std::sort(done.begin(), done.end(),
              [](const Run& a, const Run& b) { return a.min_ns < b.min_ns; });
    for (const Run& r : done) {
      // The newest block written first (a flush of the last buffer) has
      // nothing after it.
      TimeNs end_ns = r.block == 0 && r.max_ns == t.read_max_ns ? kMaxNs : r.max_ns;
      bool bridge = !cov.complete.empty() &&
                    std::none_of(partial.begin(), partial.end(), [&](const Run& p) {
                      return p.max_ns >= cov.complete.back().end_ns && p.min_ns <= r.min_ns;
                    });
      if (bridge) {
        cov.complete.back().end_ns = std::max(cov.complete.back().end_ns, end_ns);
      } else {
        cov.complete.push_back({r.min_ns, end_ns});
      }
    }
    out.tracks.push_back(std::move(cov));
  }
  return out;
}

bool ReadCoverage::Covers(TimeNs start_ns, TimeNs end_ns) const {
  if (!computed) return true;
  if (interleaved) return false;
  if (blocks <= 1) return blocks == 1 && start_ns >= first_start_ns && end_ns < horizon_ns;
  bool any = false;
  for (const TrackCoverage& t : tracks) {
    bool inside = std::any_of(t.complete.begin(), t.complete.end(), [&](const Range& r) {
      return r.start_ns <= start_ns && end_ns <= r.end_ns;
    });
    if (inside) {
      any = true;
    } else if (t.read_max_ns >= start_ns && t.read_min_ns <= end_ns) {
      return false;  // the track has work here that may not all have been read
    }
  }
  return any;
}

std::string ReadCoverage::Describe() const {
  if (!computed) return "";
  if (interleaved) {
    return "the file writes its device work in blocks that go back over time already written, "
           "so a cut leaves no step provably whole";
  }
  if (blocks == 0) return "no device work was read before the cut";
  if (blocks == 1) return "device work is read in time order only from where the file has it up to where the cut left each stream";
  return fmt::format(
      "the file writes its device work in {} blocks out of time order; only steps inside "
      "blocks read to their end are whole",
      blocks);
}

ReadCoverage ComputeReadCoverage(const std::vector<ActivityInFileOrder>& activities) {
  ReadCoverageBuilder builder;
  for (const ActivityInFileOrder& a : activities) builder.Add(a.track, a.ts_ns);
  return std::move(builder).Finish();
}

}  // namespace tracelint
