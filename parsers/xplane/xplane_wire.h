#ifndef TRACELINT_PARSERS_XPLANE_XPLANE_WIRE_H_
#define TRACELINT_PARSERS_XPLANE_XPLANE_WIRE_H_

// Protobuf wire-level helpers that work without libprotobuf: the top level
// of an XSpace is walked by hand so that each XPlane is parsed (and freed)
// on its own. That keeps peak memory near one plane, lifts the 2 GiB
// message limit from the file to the single plane, and lets an error name
// the plane and byte offset where the file stops making sense.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tracelint::xplane {

struct SerializedPlane {
  std::string_view bytes;  // one serialized XPlane
  int64_t offset = 0;      // of `bytes` in the whole input
};

struct XSpaceTopLevel {
  std::vector<SerializedPlane> planes;
  std::vector<std::string> hostnames;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  // A file cut short keeps the fields before the cut: where the first
  // incomplete field starts (-1: none) and what was cut.
  int64_t truncated_at = -1;
  std::string truncation;
};

// Splits a serialized XSpace into its fields. Fails (InvalidArgument /
// DataLoss, message naming the byte offset) when the top level is not
// well-formed: bad tag, bad varint, or a garbage length. Input that ends
// inside a field (a cut file) is not an error: the complete fields before
// it are returned with truncated_at and truncation set.
absl::StatusOr<XSpaceTopLevel> SplitXSpace(std::string_view bytes);

// The name (field 2) of a serialized XPlane, without parsing its lines;
// empty when absent or malformed.
std::string_view PeekPlaneName(std::string_view plane_bytes);

// Explains why libprotobuf refused `plane_bytes` as an XPlane: walks the
// schema and returns e.g. "lines[3].events[17].stats[2]: invalid wire type
// 7 at byte 1234" (offsets are `base_offset` + position). Returns "" when
// the wire structure is valid.
std::string DescribeXPlaneWireError(std::string_view plane_bytes, int64_t base_offset);

// Protobuf has no magic number. An XSpace starts with field 1 (planes,
// length-delimited: 0x0A), a varint length, then XPlane fields (id varint,
// name/lines/metadata/stats length-delimited) that must stay consistent for
// as far as `head` reaches; text-like heads are refused.
bool LooksLikeXSpace(std::string_view head);

}  // namespace tracelint::xplane

#endif  // TRACELINT_PARSERS_XPLANE_XPLANE_WIRE_H_
