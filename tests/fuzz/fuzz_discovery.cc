// Discovery fuzz target: the input describes a directory tree, one entry a
// line, "<kind><path>[\t<link target>]":
//   f  a small Kineto trace       g  the same, gzip-compressed
//   e  an empty file              j  JSON that is not a trace
//   d  a directory                l  a symlink to the target (may be "..")
//   s  (first line only) the span/run to ask for, after 's'
// Paths are cut to a few short components under a fresh temporary root, so
// nothing outside it is touched. The tree is scanned as `analyze DIR` and
// `batch DIR` would: it must end (symlink loops included) with files or a
// message, and every file found must lie under the temporary root. (Links
// out of the scanned tree are issue 12 point 1, `--follow-links`; links
// here reach the tree's parent at most.)
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "fmt/format.h"
#include "parsers/common/gzip_bytes.h"
#include "parsers/tensorboard/discovery.h"
#include "tests/fuzz/fuzz_targets.h"

namespace tracelint::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr char kTinyTrace[] =
    R"({"schemaVersion":1,"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,)"
    R"("tid":7,"ts":1,"dur":2,"args":{"stream":7,"device":0}}]})";

// One temporary root per process (fuzzers and tests may run in parallel),
// removed at exit.
class TempRoot {
 public:
  TempRoot() {
    // In memory where there is a tmpfs: the tree is rebuilt for every input,
    // and on ext4 creating and deleting its inodes took about half the time.
    std::error_code ec;
    fs::path base = fs::is_directory("/dev/shm", ec) && access("/dev/shm", W_OK) == 0
                        ? fs::path("/dev/shm")
                        : fs::temp_directory_path();
    std::string tmpl = (base / "tracelint_fuzz_XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempRoot() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

const fs::path& ProcessRoot() {
  static const TempRoot root;
  return root.path();
}

std::string Gzipped(std::string_view raw) { return ::tracelint::testing::GzipBytes(raw); }

// A relative path of at most 4 components of at most 40 bytes, without "."
// or ".." components, NUL or '/' inside a name; empty when nothing is left.
fs::path SafeRelative(std::string_view text) {
  fs::path out;
  int components = 0;
  size_t pos = 0;
  while (pos <= text.size() && components < 4) {
    size_t slash = text.find('/', pos);
    if (slash == std::string_view::npos) slash = text.size();
    std::string name(text.substr(pos, std::min<size_t>(slash - pos, 40)));
    for (char& c : name) {
      if (c == '\0') c = '_';
    }
    if (!name.empty() && name != "." && name != "..") {
      out /= name;
      ++components;
    }
    pos = slash + 1;
  }
  return out;
}

void WriteFile(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string CheckUnder(const fs::path& root, const Discovery& d) {
  std::string prefix = root.parent_path().string() + "/";
  for (const TraceFileRef& f : d.files) {
    // Paths may name a link inside the tree; what they resolve to must be
    // inside it too (or the root's own file).
    std::error_code ec;
    fs::path real = fs::weakly_canonical(f.path, ec);
    if (ec) continue;  // removed meanwhile, or a dangling link
    if (real.string().rfind(prefix, 0) != 0) {
      return fmt::format("discovered {} (resolves to {}) outside the scanned tree", f.path,
                         real.string());
    }
  }
  return "";
}

}  // namespace

std::string FuzzDiscovery(const uint8_t* data, size_t size) {
  if (ProcessRoot().empty()) return "mkdtemp failed";
  const fs::path root = ProcessRoot() / "tree";
  std::error_code ec;
  // Links to ".." may have put files beside the tree: clear the whole root.
  for (const fs::directory_entry& e : fs::directory_iterator(ProcessRoot(), ec)) {
    std::error_code ignored;
    fs::remove_all(e.path(), ignored);
  }
  fs::create_directories(root, ec);
  if (ec) return "cannot create the tree root";
  static const std::string gz_trace = Gzipped(kTinyTrace);

  std::string_view input(reinterpret_cast<const char*>(data), size);
  DiscoveryOptions options;
  int entries = 0;
  size_t pos = 0;
  bool first = true;
  while (pos < input.size() && entries < 32) {
    size_t nl = input.find('\n', pos);
    if (nl == std::string_view::npos) nl = input.size();
    std::string_view line = input.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    char kind = line[0];
    line.remove_prefix(1);
    if (kind == 's' && first) {
      options.span = std::string(line.substr(0, 40));
      options.run = options.span;
      first = false;
      continue;
    }
    first = false;
    std::string_view target;
    if (size_t tab = line.find('\t'); tab != std::string_view::npos) {
      target = line.substr(tab + 1, 80);
      line = line.substr(0, tab);
    }
    fs::path rel = SafeRelative(line);
    if (rel.empty()) continue;
    fs::path p = root / rel;
    fs::create_directories(p.parent_path(), ec);
    ++entries;
    switch (kind) {
      case 'f': WriteFile(p, kTinyTrace); break;
      case 'g': WriteFile(p, gz_trace); break;
      case 'e': WriteFile(p, ""); break;
      case 'j': WriteFile(p, R"({"a":[1,2,3]})"); break;
      case 'd': fs::create_directories(p, ec); break;
      case 'l': {
        // Link targets stay inside the temporary root: relative, and a
        // target with ".." is exactly "..", so a link reaches the tree's
        // parent (the process's root) at most, never the real file system.
        std::string t(target);
        for (char& c : t) {
          if (c == '\0') c = '_';
        }
        bool climbs = t.find("..") != std::string::npos;
        if (!t.empty() && t[0] != '/' && (!climbs || t == "..")) fs::create_symlink(t, p, ec);
        break;
      }
      default: break;
    }
  }

  for (const std::string& path : {root.string(), root.string() + "/"}) {
    absl::StatusOr<Discovery> d = DiscoverTraces(path, options);
    if (!d.ok()) {
      if (d.status().message().empty()) return "DiscoverTraces: error without a message";
    } else if (std::string problem = CheckUnder(root, *d); !problem.empty()) {
      return problem;
    }
  }
  absl::StatusOr<std::vector<std::string>> runs = FindRunPaths(root.string(), 4);
  if (!runs.ok()) {
    if (runs.status().message().empty()) return "FindRunPaths: error without a message";
    return "";
  }
  if (runs->size() > 64) return fmt::format("{} runs from at most 32 entries", runs->size());
  for (const std::string& run : *runs) {
    absl::StatusOr<Discovery> d = DiscoverTraces(run, DiscoveryOptions());
    if (!d.ok() && d.status().message().empty()) return "run: error without a message";
  }
  return "";
}

}  // namespace tracelint::fuzz
