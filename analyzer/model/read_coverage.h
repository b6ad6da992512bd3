#ifndef TRACELINT_ANALYZER_MODEL_READ_COVERAGE_H_
#define TRACELINT_ANALYZER_MODEL_READ_COVERAGE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/base/time.h"

namespace tracelint {

// What a cut trace (RunMetadata::truncated) provably holds of its device
// work, worked out from the order the file wrote it in (docs/robustness.md,
// "Truncated traces"). Profilers write device activity in blocks: one pass
// in time order (Kineto before PyTorch 2), or activity buffers flushed
// newest first (PyTorch 2.x: each block goes back in time before the one
// written before it), or, in re-serialized files, blocks that go back over
// time already written. Only the first two let a prefix of the file prove
// that a time range is complete.
struct ReadCoverage {
  struct Range {
    TimeNs start_ns = 0;
    TimeNs end_ns = 0;  // last activity start inside, inclusive
  };
  struct TrackCoverage {
    uint32_t track = 0;
    TimeNs read_min_ns = 0;  // every activity start read on the track
    TimeNs read_max_ns = 0;
    std::vector<Range> complete;  // sorted, merged: blocks read to their end
  };

  bool computed = false;       // false: not a cut trace, or no device work read
  bool interleaved = false;    // a block went back over time already written
  int64_t blocks = 0;          // blocks begun in the part that was read
  // One block read (so far): activity from first_start_ns up to horizon_ns
  // (the earliest of the tracks' latest starts, less the jitter seen in
  // their order) was read.
  TimeNs first_start_ns = 0;
  TimeNs horizon_ns = 0;
  // Several blocks: per device track, the blocks read to their end (the
  // one being read when the file ended proves nothing).
  std::vector<TrackCoverage> tracks;

  // True when every device activity starting in [start_ns, end_ns] was
  // read (a step's work can be trusted to be whole).
  bool Covers(TimeNs start_ns, TimeNs end_ns) const;
  // Why Covers is false for a range, for the report's notes.
  std::string Describe() const;
};

// Device activity and runtime/driver call starts in file order: the track
// (an index) and start of each. A track's start going back by more than
// kReadCoverageJitterNs begins a new block.
struct ActivityInFileOrder {
  uint32_t track;
  TimeNs ts_ns;
};
inline constexpr TimeNs kReadCoverageJitterNs = 5 * kNsPerMs;

// Streams the starts in file order; memory grows with the tracks and the
// blocks, not with the activities.
class ReadCoverageBuilder {
 public:
  ReadCoverageBuilder();
  ~ReadCoverageBuilder();
  ReadCoverageBuilder(const ReadCoverageBuilder&) = delete;
  ReadCoverageBuilder& operator=(const ReadCoverageBuilder&) = delete;

  void Add(uint32_t track, TimeNs ts_ns);
  ReadCoverage Finish() &&;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

ReadCoverage ComputeReadCoverage(const std::vector<ActivityInFileOrder>& activities);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_MODEL_READ_COVERAGE_H_
