#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include "parsers/kineto/kineto_raw.h"

namespace tracelint::kineto {
namespace {

// Arg names the parser and the analyses read, with every spelling seen
// across Kineto versions. Anything else in "args" is skipped at parse time
// to keep the memory per event small.
constexpr std::array<std::pair<std::string_view, ArgKey>, 30> kArgKeys = {{
    {"grid", ArgKey::kGrid},
    {"block", ArgKey::kBlock},
    {"registers per thread", ArgKey::kRegistersPerThread},
    {"shared memory", ArgKey::kSharedMemory},
    {"blocks per SM", ArgKey::kBlocksPerSm},
    {"est. achieved occupancy %", ArgKey::kOccupancyPct},
    {"bytes", ArgKey::kBytes},
    // MTIA dma_request events: "size" in bytes, "direction" HOST_TO_DEVICE ...
    {"size", ArgKey::kBytes},
    {"direction", ArgKey::kCopyDirection},
    {"correlation", ArgKey::kCorrelation},
    {"External id", ArgKey::kExternalId},
    {"external id", ArgKey::kExternalId},
    {"Total Allocated", ArgKey::kTotalAllocated},
    {"Total Reserved", ArgKey::kTotalReserved},
    {"Device Id", ArgKey::kDeviceId},
    {"Device Type", ArgKey::kDeviceType},
    {"device", ArgKey::kDevice},
    {"stream", ArgKey::kStream},
    {"Input Dims", ArgKey::kInputDims},
    {"Input dims", ArgKey::kInputDims},
    {"Input type", ArgKey::kInputType},
    {"Collective name", ArgKey::kCollectiveName},
    {"In msg nelems", ArgKey::kInMsgNelems},
    {"Out msg nelems", ArgKey::kOutMsgNelems},
    {"dtype", ArgKey::kDtype},
    // with_flops: Kineto's estimate for matmul/conv/add/mul ops.
    {"flops", ArgKey::kFlops},
    {"Record function id", ArgKey::kRecordFunctionId},
    {"Ev Idx", ArgKey::kEvIdx},
    {"Concrete Inputs", ArgKey::kConcreteInputs},
    {"name", ArgKey::kNodeName},
}};

constexpr size_t kMaxKeyBytes = 32;

constexpr bool AllKeysFit() {
  for (const auto& entry : kArgKeys) {
    if (entry.first.size() > kMaxKeyBytes) return false;
  }
  return true;
}
static_assert(AllKeysFit(), "raise kMaxKeyBytes");

}  // namespace

ArgKey ClassifyArgKey(std::string_view key) {
  // Called for every arg of every event. Bucketing the names by length
  // rejects most keys without hashing them, and leaves a few comparisons
  // for the rest.
  using Bucket = std::vector<std::pair<std::string_view, ArgKey>>;
  static const auto* const index = [] {
    auto* by_size = new std::array<Bucket, kMaxKeyBytes + 1>();
    for (const auto& [name, id] : kArgKeys) (*by_size)[name.size()].emplace_back(name, id);
    return by_size;
  }();
  if (key.size() > kMaxKeyBytes) return ArgKey::kIgnore;
  if (key.empty()) return ArgKey::kIgnore;
  for (const auto& [name, id] : (*index)[key.size()]) {
    // The first and last bytes reject almost every other name of the same
    // length before a memcmp call.
    if (name.front() == key.front() && name.back() == key.back() && name == key) return id;
  }
  return ArgKey::kIgnore;
}

std::string_view KeptArgName(ArgKey k, std::string_view key_as_written) {
  switch (k) {
    case ArgKey::kInputDims: return "Input Dims";
    default: return key_as_written;
  }
}

bool IsKeptAsArg(ArgKey k) {
  return k >= ArgKey::kInputDims && k < ArgKey::kRecordFunctionId;
}

bool WantsArrayText(ArgKey k) {
  return k == ArgKey::kGrid || k == ArgKey::kBlock || k == ArgKey::kInputDims ||
         k == ArgKey::kInputType || k == ArgKey::kConcreteInputs;
}

bool KeepsArgFor(ArgKey k, std::string_view event_name, std::string_view category) {
  // Only TF1 timeline ops ("cat": "Op") link by node name; elsewhere a
  // "name" arg would cost an interned string per event for nothing.
  if (k == ArgKey::kNodeName) return category == "Op";
  if (k != ArgKey::kConcreteInputs) return true;
  return event_name.find("attention") != std::string_view::npos ||
         event_name.find("convolution") != std::string_view::npos;
}

}  // namespace tracelint::kineto
