#ifndef TRACELINT_ANALYZER_BATCH_BATCH_SECTIONS_H_
#define TRACELINT_ANALYZER_BATCH_BATCH_SECTIONS_H_

// The fleet sections of the batch table (groups, trend) in text, Markdown
// and JSON, and the table helpers batch_table.cc shares with them.

#include <optional>
#include <string>
#include <vector>

#include "analyzer/base/time.h"
#include "analyzer/batch/batch_table.h"
#include "analyzer/report/json_writer.h"

namespace tracelint {

// Aligned columns, two spaces apart: numeric ones right-aligned; the last
// column unpadded unless `pad_last`; trailing blanks removed.
std::string AlignColumns(const std::vector<std::vector<std::string>>& lines,
                         const std::vector<bool>& numeric, bool pad_last);

// A Markdown table; cells are escaped here.
std::string MarkdownTable(const std::vector<std::string>& headers, const std::vector<bool>& numeric,
                          const std::vector<std::vector<std::string>>& body);

// "1234.5" for samples/s and samples per dollar; "-" when absent.
std::string FormatSamples(const std::optional<double>& value);

// "2024-04-03 18:51:38 UTC", or "-" for a trace without wall-clock times.
std::string FormatTraceTime(TimeNs ns);

std::string TextSections(const BatchTable& table);
std::string MarkdownSections(const BatchTable& table);
// Adds "group_by", "groups" and "trend" to the open top-level object.
void JsonSections(const BatchTable& table, JsonWriter& w);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BATCH_BATCH_SECTIONS_H_
