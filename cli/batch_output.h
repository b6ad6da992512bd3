#ifndef TRACELINT_CLI_BATCH_OUTPUT_H_
#define TRACELINT_CLI_BATCH_OUTPUT_H_

// What `batch` and `batch --merge` share, so that both print the same
// table and warnings and return the same exit code from the same records.

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/engine/engine.h"
#include "cli/batch_command.h"
#include "analyzer/analysis/fleet.h"
#include "analyzer/batch/batch_records.h"

namespace tracelint {

// The view options of `args`, checked (prices read); InvalidArgument or
// NotFound for a bad option.
absl::StatusOr<BatchView> ViewOf(const BatchArgs& args);

// Prints each record's warnings and errors to `err`, renders the table of
// `records` (in the order found) through `view` in args.format (not jsonl)
// and writes it. Returns the exit code over the runs, combined with
// `extra_exit` (kExitOk, or kExitDamaged for a missing shard).
// `options_json`: what the JSON table records as "options" (BatchOptionsJson).
int FinishBatch(std::vector<BatchRecord> records, const BatchView& view, const BatchArgs& args,
                int extra_exit, std::ostream& out, std::ostream& err,
                const std::string& options_json = "");

// The rule selection and options in effect and the config file, as a
// compact JSON object (a shard header carries it for the merge).
std::string BatchRuleOptionsJson(const BatchArgs& args, const PreparedRules& rules);
// The options a batch ran with, as a JSON object: `rule_options_json`'s
// members (BatchRuleOptionsJson; empty when unknown), then the search depth
// and the view.
std::string BatchOptionsJson(const BatchArgs& args, std::string_view rule_options_json);

// The text table's width: --width, else the terminal's, else (a pipe)
// COLUMNS when it is set, else no limit.
int BatchWidth(const BatchArgs& args, const std::ostream& out);

// The progress line: "tracelint: 12/400 runs analysed, 3.10 runs/s, ETA
// 2m05s" ("ETA ?" before the first run is done).
std::string BatchProgressText(size_t done, size_t total, double elapsed_s);

}  // namespace tracelint

#endif  // TRACELINT_CLI_BATCH_OUTPUT_H_
