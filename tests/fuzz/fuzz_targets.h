#ifndef TRACELINT_TESTS_FUZZ_FUZZ_TARGETS_H_
#define TRACELINT_TESTS_FUZZ_FUZZ_TARGETS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tracelint::fuzz {

// One fuzz target: takes arbitrary bytes and returns an empty string when
// they were handled (parsed, or rejected with a message), else what broke.
// Crashes, hangs and sanitizer reports are caught by the harness. The same
// functions back the libFuzzer binaries (fuzz_main.cc) and the replay of
// tests/fuzz/regressions/ in every build (regression_replay_test.cc).
using FuzzTarget = std::string (*)(const uint8_t* data, size_t size);

// The Kineto JSON parser alone (splitter, parts, merge), tiny parts.
std::string FuzzKinetoJson(const uint8_t* data, size_t size);
// The XSpace (xplane.pb) parser on the bytes.
std::string FuzzXSpace(const uint8_t* data, size_t size);
// Gzip input: decompression, damage reporting and the sniffing head.
std::string FuzzGzip(const uint8_t* data, size_t size);
// Discovery: the bytes describe a directory tree (files, folders, symlinks,
// see fuzz_discovery.cc) that is built in a temporary directory and scanned
// as `analyze DIR` and `batch DIR` would.
std::string FuzzDiscovery(const uint8_t* data, size_t size);
// Report writers: the bytes become kernel, op, thread and path names of a
// small trace with findings, rendered in every format; each output must be
// safe for its medium.
std::string FuzzReports(const uint8_t* data, size_t size);

// `tracelint mcp`'s JSON-RPC reader: Json::Parse, its round trip, and the
// trimming of large results.
std::string FuzzMcpJson(const uint8_t* data, size_t size);

// --annotate: the bytes as a trace, analysed and written back; the output
// is valid JSON whatever they held (fuzz_outputs.cc).
std::string FuzzAnnotate(const uint8_t* data, size_t size);
// `tracelint analyze -` with the bytes on stdin: an exit code of the
// table, the temporary copy never named, none left registered.
std::string FuzzStdin(const uint8_t* data, size_t size);

// `tracelint analyze --merge` with the bytes as a part (fuzz_shard.cc):
// merged and rendered in every format, ending with an exit code of the table.
std::string FuzzShardPart(const uint8_t* data, size_t size);

// The targets by name ("kineto_json", "xspace", "gzip", "discovery",
// "report", "pipeline", "mcp_json", "annotate", "stdin", "shard_part"); nullptr when
// unknown.
FuzzTarget FuzzTargetByName(std::string_view name);

}  // namespace tracelint::fuzz

#endif  // TRACELINT_TESTS_FUZZ_FUZZ_TARGETS_H_
