#ifndef TRACELINT_TESTS_FUZZ_FUZZ_PIPELINE_H_
#define TRACELINT_TESTS_FUZZ_FUZZ_PIPELINE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/engine/registry.h"

namespace tracelint::fuzz {

// Every rule, registered once for the process (the targets run thousands
// of inputs; registering per input was measurable under ASan).
const RuleRegistry& AllRules();

// Runs arbitrary bytes through everything a user's file goes through:
// sniff + parse (any format), timeline invariants, every analysis, every
// rule and both reporters. Returns an empty string when the input was
// handled (parsed, or rejected with a Status), else what broke. Crashes,
// hangs and sanitizer reports are caught by the caller's harness.
std::string RunPipelineOnBytes(const uint8_t* data, size_t size);

}  // namespace tracelint::fuzz

#endif  // TRACELINT_TESTS_FUZZ_FUZZ_PIPELINE_H_
