#include "analyzer/batch/price_table.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "fmt/format.h"
#include "toml++/toml.h"

namespace tracelint {

absl::StatusOr<PriceTable> ParsePriceTable(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return absl::InvalidArgumentError(
        fmt::format("{}:{}: not valid TOML ({})", source, e.source().begin.line, e.description()));
  }
  PriceTable table;
  for (const auto& [key, node] : root) {
    std::optional<double> value = node.value<double>();
    if (!node.is_number() || !value || !(*value > 0) || !std::isfinite(*value)) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: \"{}\" must be a price per hour > 0 (quote keys holding dots: \"{}\" = 2.5)", source,
          key.str(), key.str()));
    }
    std::string k(key.str());
    bool glob = k.find_first_of("*?") != std::string::npos;
    table.entries.push_back({k, *value, glob});
  }
  if (table.entries.empty()) {
    return absl::InvalidArgumentError(fmt::format("{}: no prices", source));
  }
  return table;
}

absl::StatusOr<PriceTable> LoadPriceTable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("--prices: cannot read {}", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParsePriceTable(ss.str(), path);
}

}  // namespace tracelint
