#ifndef TRACELINT_PARSERS_KINETO_KINETO_METADATA_H_
#define TRACELINT_PARSERS_KINETO_KINETO_METADATA_H_

// A Kineto file's run metadata (RunMetadata) from its top-level keys and
// what its events showed: devices and their vendor, the PyTorch version the
// file's fingerprints date, rank and world size. GuessPytorchVersion and
// RankFromFileName, which tests and the span stamp use too, are declared in
// kineto_parser.h.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "analyzer/base/time.h"
#include "analyzer/model/diagnostics.h"
#include "analyzer/model/metadata.h"
#include "parsers/kineto/chrome_device_tracks.h"
#include "parsers/kineto/kineto_raw.h"

namespace tracelint::kineto {

// A decimal integer written as text (the "rank" key, baseTimeNanoseconds),
// surrounding whitespace allowed; nullopt when absent or not an integer.
std::optional<int64_t> ParseIntText(const std::optional<std::string>& text);

// Whether anything in the file is Kineto's own (a Kineto event or flow
// category, aten::/ProfilerStep# names, Kineto's top-level keys): only then
// is it a PyTorch trace. Other tools write Chrome trace JSON too.
bool HasKinetoEvidence(uint32_t features, const RawMeta& meta);

// Fills `m` from the top-level keys of the file at `path`; `features` are
// the kFeat* bits its events set, `chrome` what its process and thread
// names said (for a trace without Kineto evidence: format "chrome-json",
// the framework those names show, or "" when they show none).
void FillMetadata(const std::string& path, const RawMeta& meta, uint32_t features,
                  bool bare_array, TimeNs base_time_ns, const ChromeDeviceTracks& chrome,
                  RunMetadata& m);

// ROCm and MTIA traces list one deviceProperties entry with id 0 while
// their events name the device by its system index (2, 9, 17 ...). One
// entry and one device in the events are the same device: give the entry
// the events' id, so the device's properties are found. Returns the
// {old, new} id when it did, for what else names the device as the entry
// does (the allocator's `[memory]` events use torch's device index).
std::optional<std::pair<int, int>> MatchLoneDevice(
    const absl::flat_hash_set<int64_t>& slice_devices, RunMetadata& m,
    ImportDiagnostics& diagnostics);

// ROCm traces list every visible GPU (ids 0-7) while the events may name a
// device by its HSA agent index (9 for GPU 7 behind two CPU agents). When
// every listed entry is identical, the device is one of them whichever it
// is: its properties are known and added to `unlisted_devices`.
void DescribeUnlistedDevices(const absl::flat_hash_set<int64_t>& slice_devices,
                             RunMetadata& m, ImportDiagnostics& diagnostics);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_KINETO_METADATA_H_
