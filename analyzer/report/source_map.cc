#include "analyzer/report/source_map.h"

#include <filesystem>
#include <system_error>
#include <vector>

#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/' || path[i] == '\\') {
      if (i > start) out.push_back(path.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

std::string MapToSourceRoot(std::string_view host_path, const std::string& source_root) {
  if (host_path.empty() || source_root.empty()) return {};
  std::vector<std::string_view> parts = Components(host_path);
  // A ".." or "." can only be skipped by removing it with the prefix.
  size_t first_allowed = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == ".." || parts[i] == ".") first_allowed = i + 1;
  }
  for (size_t k = first_allowed; k < parts.size(); ++k) {
    std::string relative;
    for (size_t i = k; i < parts.size(); ++i) {
      if (!relative.empty()) relative += '/';
      relative += parts[i];
    }
    std::error_code ec;
    if (fs::is_regular_file(fs::path(source_root) / relative, ec)) return relative;
  }
  return {};
}

std::string PercentEncodePath(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string FileUri(const std::string& absolute_path, bool directory) {
  std::string path = absolute_path;
  if (directory && (path.empty() || path.back() != '/')) path += '/';
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  return "file://" + PercentEncodePath(path);
}

}  // namespace tracelint
