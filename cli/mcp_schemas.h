#ifndef TRACELINT_CLI_MCP_SCHEMAS_H_
#define TRACELINT_CLI_MCP_SCHEMAS_H_

// The JSON schemas of analyze's report, diff and batch, as the MCP tools'
// output schemas. Generated at build time by cli/CMakeLists.txt from
// analyzer/report/report.schema.json, analyzer/diff/diff.schema.json and
// analyzer/batch/batch.schema.json, without "$schema" and "$id": MCP
// clients validate with draft-07 validators by default, which refuse an
// unknown meta-schema, and a client compiling the schema twice must not
// meet the same $id twice. Everything else is the schema as committed.

#include <string_view>

namespace tracelint::mcp {

std::string_view ReportSchemaText();
std::string_view DiffSchemaText();
std::string_view BatchSchemaText();

}  // namespace tracelint::mcp

#endif  // TRACELINT_CLI_MCP_SCHEMAS_H_
