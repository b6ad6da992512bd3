#include "analyzer/base/display_path.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace tracelint {
namespace {

namespace fs = std::filesystem;

std::string WithSlash(const fs::path& p) {
  std::string s = p.lexically_normal().generic_string();
  if (s.empty() || s.back() != '/') s += '/';
  return s;
}

}  // namespace

PathShortener::PathShortener(const std::vector<std::string>& inputs) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  const size_t first_root = !ec && cwd != cwd.root_path() ? 1 : 0;
  if (first_root == 1) prefixes_.push_back(WithSlash(cwd));
  for (const std::string& input : inputs) {
    if (input.empty() || input == "-") continue;
    fs::path absolute = fs::absolute(fs::path(input), ec).lexically_normal();
    if (ec) continue;
    if (absolute.filename().empty()) absolute = absolute.parent_path();  // "dir/"
    fs::path root = absolute.parent_path();
    if (!root.empty() && root != root.root_path()) prefixes_.push_back(WithSlash(root));
  }
  // The working directory wins (a path under it is written relative to it,
  // even when an input's folder below it would match longer); then the
  // input roots, longest first.
  std::sort(prefixes_.begin() + first_root, prefixes_.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  prefixes_.erase(std::unique(prefixes_.begin() + first_root, prefixes_.end()), prefixes_.end());
  if (first_root == 1) {
    prefixes_.erase(std::remove(prefixes_.begin() + 1, prefixes_.end(), prefixes_[0]),
                    prefixes_.end());
  }
}

std::string PathShortener::Path(std::string_view path) const {
  if (path.empty() || path.front() != '/') return std::string(path);
  std::string normal = fs::path(path).lexically_normal().generic_string();
  for (const std::string& prefix : prefixes_) {
    if (normal.size() > prefix.size() && normal.compare(0, prefix.size(), prefix) == 0) {
      return normal.substr(prefix.size());
    }
  }
  std::string name = fs::path(normal).filename().generic_string();
  return name.empty() ? normal : name;
}

std::string PathShortener::Text(std::string_view text) const {
  std::string out(text);
  // A prefix counts only where a path starts, not inside a longer one.
  auto starts_path = [&out](size_t at) {
    return at == 0 || std::string_view(" (\"'`=,[<").find(out[at - 1]) != std::string_view::npos;
  };
  for (const std::string& prefix : prefixes_) {
    for (size_t at = out.find(prefix); at != std::string::npos; at = out.find(prefix, at)) {
      if (!starts_path(at)) {
        at += prefix.size();
        continue;
      }
      out.erase(at, prefix.size());
    }
    // The root itself, named without its slash ("/abs/run: 3 spans").
    std::string bare = prefix.substr(0, prefix.size() - 1);
    for (size_t at = out.find(bare); at != std::string::npos; at = out.find(bare, at)) {
      size_t end = at + bare.size();
      bool whole = end == out.size() || out[end] == ':' || out[end] == ' ' || out[end] == ')' ||
                   out[end] == ',';
      if (!whole || !starts_path(at)) {
        at = end;
        continue;
      }
      out = out.substr(0, at) + "." + out.substr(end);
      at += 1;
    }
  }
  // Any other absolute path (a file outside every root): its file name.
  std::string shortened;
  for (size_t i = 0; i < out.size();) {
    if (out[i] == '/' && starts_path(i)) {
      size_t end = i;
      int slashes = 0;
      while (end < out.size() && (std::isalnum(static_cast<unsigned char>(out[end])) ||
                                  std::string_view("/._-+@~").find(out[end]) != std::string_view::npos)) {
        slashes += out[end] == '/';
        ++end;
      }
      // Trailing dots are the sentence's, not the path's.
      while (end > i && out[end - 1] == '.') --end;
      if (slashes >= 2) {
        std::string_view path(out.data() + i, end - i);
        std::string_view name = path.substr(path.rfind('/') + 1);
        shortened += name.empty() ? std::string(path) : std::string(name);
        i = end;
        continue;
      }
    }
    shortened += out[i++];
  }
  return shortened;
}

}  // namespace tracelint
