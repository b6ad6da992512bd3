#ifndef TRACELINT_ANALYZER_BATCH_PRICE_TABLE_H_
#define TRACELINT_ANALYZER_BATCH_PRICE_TABLE_H_

// `batch --prices FILE`: the price table read from TOML (analysis/fleet.h
// applies it).

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analyzer/analysis/fleet.h"

namespace tracelint {

// Reads a TOML file of `"<key>" = <price per hour>` lines (top-level keys;
// integer or float values, > 0).
absl::StatusOr<PriceTable> LoadPriceTable(const std::string& path);
absl::StatusOr<PriceTable> ParsePriceTable(std::string_view toml, const std::string& source);

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BATCH_PRICE_TABLE_H_
