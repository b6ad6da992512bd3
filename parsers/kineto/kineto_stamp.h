#ifndef TRACELINT_PARSERS_KINETO_KINETO_STAMP_H_
#define TRACELINT_PARSERS_KINETO_KINETO_STAMP_H_

// What run grouping needs of a Kineto JSON file, read without parsing its
// events: the top-level keys (distributedInfo, deviceProperties,
// baseTimeNanoseconds) wherever they are, before or after the event array,
// and the earliest timestamp of the first events. `analyze --list` groups
// files from this alone, so listing a directory of multi-GB traces costs
// their heads and tails, not their parse.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "analyzer/base/time.h"
#include "analyzer/model/metadata.h"

namespace tracelint {

// Files up to this size (on disk, compressed or not) are scanned to the end
// by the event splitter, which reads the keys after the event array
// exactly. A larger plain .json has its last kKinetoTailBytes read instead;
// a larger gzip cannot be read from its end, and decompressing GBs only to
// date a file costs what a parse costs, so its keys after the events stay
// unread (KinetoStamp::tail_read false).
inline constexpr uint64_t kKinetoFullScanBytes = uint64_t{32} << 20;
inline constexpr uint64_t kKinetoTailBytes = uint64_t{64} << 10;

struct KinetoStamp {
  // format, framework, devices (names), rank, world size, host name; and
  // base_time_ns or late_base_time_ns as the full parse would set them.
  RunMetadata metadata;
  // Earliest ts among the complete events of the first part of the array
  // (about 1 MiB), base time before the events added; -1 when none.
  TimeNs first_event_ns = -1;
  // Whether the keys after the event array were read.
  bool tail_read = false;
};

// Errors: unreadable file, or not a Kineto JSON object.
absl::StatusOr<KinetoStamp> ReadKinetoStamp(const std::string& path);

}  // namespace tracelint

#endif  // TRACELINT_PARSERS_KINETO_KINETO_STAMP_H_
