// The MCP server's JSON-RPC reader (cli/mcp_json.h) on hostile bytes: every
// message `tracelint mcp` reads goes through Json::Parse, and every result
// through TrimToFit before it is written.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/mcp_json.h"
#include "cli/mcp_tools.h"
#include "tests/fuzz/fuzz_targets.h"

namespace tracelint::fuzz {

std::string FuzzMcpJson(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<mcp::Json> doc = mcp::Json::Parse(text);
  if (!doc.ok()) return "";  // refused with a message: a protocol error
  // What is written back must read back as the same document.
  std::string dumped = doc->Dump();
  absl::StatusOr<mcp::Json> again = mcp::Json::Parse(dumped);
  if (!again.ok()) return "Dump wrote JSON that Parse refuses: " + std::string(again.status().message());
  if (again->Dump() != dumped) return "Parse(Dump(x)) differs from x";
  // Trimming drops array tails only: the result still parses, never grows,
  // and keeps the document's top-level type.
  mcp::Json trimmed = *std::move(doc);
  mcp::TrimToFit(trimmed, 64);
  std::string small = trimmed.Dump();
  if (small.size() > dumped.size()) return "TrimToFit made the document larger";
  absl::StatusOr<mcp::Json> reread = mcp::Json::Parse(small);
  if (!reread.ok() || reread->type() != again->type()) return "TrimToFit broke the document";
  return "";
}

}  // namespace tracelint::fuzz
