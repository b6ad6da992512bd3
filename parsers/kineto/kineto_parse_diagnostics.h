#ifndef TRACELINT_PARSERS_KINETO_KINETO_PARSE_DIAGNOSTICS_H_
#define TRACELINT_PARSERS_KINETO_KINETO_PARSE_DIAGNOSTICS_H_

// The import diagnostics a Kineto/Chrome JSON read leaves from its input
// stream and splitter: limits that stopped it or dropped events, and damage
// it skipped (docs/robustness.md, "Limits" and "Damage is found where it
// is"), each naming its byte and what to do.

#include <cstdint>
#include <string>

#include "analyzer/base/memory_budget.h"
#include "analyzer/model/diagnostics.h"
#include "parsers/common/input_stream.h"
#include "parsers/common/json_event_splitter.h"
#include "parsers/parse_options.h"

namespace tracelint::kineto {

// "stopped at the decompressed-size limit of N bytes (...): ...; raise the
// limit with --max-decompressed-bytes SIZE ...".
std::string DecompressedLimitText(const InputStream& in);

// limit_reached (reading stopped at a cap) and event_over_*_limit (events
// dropped), each naming the limit and its flag.
void AddLimitDiagnostics(const InputStream& in, const JsonEventSplitter& splitter,
                         const ParseLimits& limits, int64_t events, const MemoryLedger& ledger,
                         uint64_t memory_stop_bytes, ImportDiagnostics& diagnostics);

// What the splitter skipped: elements that are no objects, trailing bytes,
// oversized metadata, junk between events (malformed_json) and damaged
// events (damaged_json).
void AddSplitterDiagnostics(const JsonEventSplitter& splitter, ImportDiagnostics& diagnostics);

}  // namespace tracelint::kineto

#endif  // TRACELINT_PARSERS_KINETO_KINETO_PARSE_DIAGNOSTICS_H_
