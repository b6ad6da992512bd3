#include "parsers/tensorboard/discovery.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "analyzer/base/strings.h"
#include "fmt/format.h"

namespace tracelint {
namespace {

namespace fs = std::filesystem;



bool IsAllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Stamps are decimal integers of different widths (ms in old PyTorch, ns
// now): compare them as numbers.
bool StampLess(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

absl::Status StatError(const std::string& path, const std::error_code& ec) {
  std::string msg = fmt::format("{}: cannot read: {}", path, ec.message());
  if (ec == std::errc::no_such_file_or_directory) return absl::NotFoundError(msg);
  if (ec == std::errc::permission_denied) return absl::PermissionDeniedError(msg);
  return absl::UnavailableError(msg);
}

std::string Stem(std::string_view name) { return StripTraceExtension(name); }

// A format that a file's name alone decides (XSpace: a protobuf has no magic
// bytes to sniff), or nullptr.
const FormatEntry* KnownByExtension(std::string_view name) {
  const FormatEntry* f = FormatByExtension(name);
  return f != nullptr && f->known_by_extension ? f : nullptr;
}

// The tree a scan may follow symlinks within (contract: links leading out
// of it are skipped with a warning unless --follow-links).
struct LinkScope {
  fs::path root;  // canonical; empty: no scope (follow every link)
  bool follow_links = false;
  std::vector<std::string>* notes = nullptr;
  std::set<std::string>* noted = nullptr;  // links already named in `notes`
};

bool InsideTree(const fs::path& canonical, const fs::path& root) {
  auto r = root.begin(), c = canonical.begin();
  for (; r != root.end(); ++r, ++c) {
    if (c == canonical.end() || *c != *r) return false;
  }
  return true;
}

// Whether a directory entry may be used: not a symlink, a symlink whose
// target stays inside the scope's tree, or any link with --follow-links.
bool LinkAllowed(const fs::directory_entry& e, const LinkScope* scope) {
  std::error_code ec;
  if (scope == nullptr || scope->follow_links || scope->root.empty() || !e.is_symlink(ec)) {
    return true;
  }
  fs::path target = fs::canonical(e.path(), ec);
  if (ec) return true;  // dangling or a loop: the type check below skips it
  if (InsideTree(target, scope->root)) return true;
  if (scope->notes != nullptr && scope->noted->insert(e.path().string()).second) {
    scope->notes->push_back(fmt::format(
        "{}: skipped a symlink leading out of the scanned tree (to {}); --follow-links to "
        "follow it",
        e.path().string(), target.string()));
  }
  return false;
}

// A FIFO, socket or device (or a link to one: /dev/zero, /dev/urandom)
// named like a trace is never read (it could block, or never end): it is
// skipped with a note naming it, so a rank does not vanish silently.
void NoteIfNotAFile(const fs::directory_entry& e, const LinkScope* scope) {
  if (scope == nullptr || scope->notes == nullptr) return;
  std::string name = e.path().filename().string();
  if (FormatByExtension(name) == nullptr) return;
  std::error_code ec;
  fs::file_status st = e.status(ec);  // the link's target
  if (ec || fs::is_regular_file(st) || fs::is_directory(st) || !fs::exists(st)) return;
  std::string_view what = fs::is_fifo(st)             ? "a FIFO (named pipe)"
                          : fs::is_socket(st)         ? "a socket"
                          : fs::is_character_file(st) ? "a character device"
                          : fs::is_block_file(st)     ? "a block device"
                                                      : "not a regular file";
  std::string link;
  if (e.is_symlink(ec)) {
    fs::path target = fs::read_symlink(e.path(), ec);
    if (!ec) link = fmt::format(" (a link to {})", target.string());
  }
  if (scope->noted->insert(e.path().string()).second) {
    scope->notes->push_back(fmt::format(
        "{}: skipped: named like a trace but {}{}, not a file; it is not read", e.path().string(),
        what, link));
  }
}

// Regular files (or directories) of a directory, sorted by name; symlinks
// as `scope` allows.
absl::StatusOr<std::vector<fs::path>> ListFiles(const fs::path& dir, bool want_dirs,
                                                const LinkScope* scope = nullptr) {
  std::error_code ec;
  std::vector<fs::path> out;
  fs::directory_iterator it(dir, ec);
  if (ec) return StatError(dir.string(), ec);
  for (const fs::directory_entry& e : it) {
    std::error_code type_ec;
    bool match = want_dirs ? e.is_directory(type_ec) : e.is_regular_file(type_ec);
    if (match && !type_ec && LinkAllowed(e, scope)) out.push_back(e.path());
    if (!want_dirs && !match && !type_ec) NoteIfNotAFile(e, scope);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsTraceCandidateName(std::string_view name) { return FormatByExtension(name) != nullptr; }

// The trace files directly in `dir` (no recursion).
// Paths that could not be read for lack of permission, so that a scan that
// finds nothing says why instead of "no trace files found".
bool NoteIfDenied(const absl::Status& status, const std::string& path,
                  std::vector<std::string>& denied) {
  if (!absl::IsPermissionDenied(status)) return false;
  denied.push_back(path);
  return true;
}

absl::Status DeniedError(const std::string& dir, const std::vector<std::string>& denied) {
  return absl::PermissionDeniedError(fmt::format(
      "{}: no readable trace files: permission denied for {} ({}{})", dir, denied.size(),
      denied.front(), denied.size() > 1 ? ", ..." : ""));
}

absl::StatusOr<std::vector<TraceFileRef>> TraceFilesIn(const fs::path& dir,
                                                       std::vector<std::string>& notes,
                                                       std::vector<std::string>& denied,
                                                       const LinkScope* scope) {
  absl::StatusOr<std::vector<fs::path>> files = ListFiles(dir, false, scope);
  if (!files.ok()) return files.status();
  std::vector<TraceFileRef> out;
  int skipped = 0;
  std::set<fs::path> seen;  // canonical: a file and a link to it are one rank
  for (const fs::path& p : *files) {
    std::string name = p.filename().string();
    if (!IsTraceCandidateName(name)) continue;
    std::error_code ec;
    fs::path canonical = fs::canonical(p, ec);
    if (!ec && !seen.insert(canonical).second) {
      notes.push_back(fmt::format("{}: the same file as another trace here (a link), read once",
                                  p.string()));
      continue;
    }
    TraceFileRef ref;
    ref.path = p.string();
    if (const FormatEntry* known = KnownByExtension(name)) {
      ref.format = known->format;
      ref.worker = Stem(name);
      out.push_back(ref);
      continue;
    }
    // TensorFlow/xprof's own Chrome JSON sits next to its xplane.pb and is
    // not a Kineto trace; the sniffer rejects it too. A file named as the
    // profiler names its traces is kept whatever it holds: when it cannot
    // be read (empty, corrupt gzip), the load says why and the run is
    // reported as damaged instead of silently losing a rank.
    bool profiler_name = SplitPtTraceName(name, &ref.worker, &ref.span);
    absl::StatusOr<InputFormat> format = SniffTraceFile(ref.path);
    bool kineto = format.ok() && *format == InputFormat::kKinetoJson;
    if (!kineto && !profiler_name) {
      if (!format.ok() && NoteIfDenied(format.status(), ref.path, denied)) continue;
      ++skipped;
      continue;
    }
    ref.format = kineto ? InputFormat::kKinetoJson : InputFormat::kUnknown;
    if (!profiler_name) ref.worker = Stem(name);
    out.push_back(ref);
  }
  if (skipped > 0) {
    notes.push_back(fmt::format("{}: skipped {} .json file(s) that are not Kineto traces",
                                dir.string(), skipped));
  }
  // jax.profiler.trace(create_perfetto_trace=True) writes perfetto_trace.json.gz
  // beside the xplane.pb it renders: the same run twice, and the XSpace is
  // the fuller one (launch links, step ids).
  const bool has_xspace = std::any_of(out.begin(), out.end(), [](const TraceFileRef& r) {
    return r.format == InputFormat::kXSpace;
  });
  if (has_xspace) {
    std::erase_if(out, [&](const TraceFileRef& r) {
      if (!fs::path(r.path).filename().string().starts_with("perfetto_trace.json")) return false;
      notes.push_back(fmt::format("{}: the Perfetto rendering of the xplane.pb beside it; the "
                                  "xplane.pb is read",
                                  r.path));
      return true;
    });
  }
  return out;
}

std::string SpanName(const std::string& stamp) {
  return stamp.empty() ? std::string(kUnstampedSpan) : stamp;
}

// Keeps one span of tensorboard_trace_handler output: options.span, else
// the newest (docs/design/contract.md, "Newest span").
absl::Status ChooseSpan(const std::string& dir, const DiscoveryOptions& options,
                        std::vector<TraceFileRef>& files, std::string& choice,
                        std::string& chosen_span,
                        std::vector<std::string>& notes, std::vector<std::string>& all_spans) {
  std::set<std::string, bool (*)(const std::string&, const std::string&)> spans(&StampLess);
  for (const TraceFileRef& f : files) spans.insert(f.span);
  std::vector<std::string> names;
  for (const std::string& span : spans) names.push_back(SpanName(span));
  // --list shows every span, the un-stamped one included, in the same
  // words as the --span error below.
  if (spans.size() > 1 || !spans.begin()->empty()) all_spans = names;
  std::string chosen = *spans.rbegin();
  if (!options.span.empty()) {
    chosen = options.span == kUnstampedSpan ? std::string() : options.span;
    if (!spans.contains(chosen)) {
      return absl::NotFoundError(fmt::format("{}: no profiling span '{}' (spans here, oldest "
                                             "first: {})",
                                             dir, options.span, fmt::join(names, ", ")));
    }
  } else if (spans.size() > 1) {
    choice = fmt::format(
        "{}: {} profiling spans; analysing the newest ({}); --span to choose another ({})", dir,
        spans.size(), SpanName(chosen), fmt::join(names, ", "));
  }
  if (spans.size() > 1) chosen_span = SpanName(chosen);
  std::vector<TraceFileRef> kept;
  std::set<std::string> workers;
  for (TraceFileRef& f : files) {
    if (f.span != chosen) continue;
    if (!workers.insert(f.worker).second) {
      notes.push_back(fmt::format("{}: another file of worker '{}' in this span, skipped",
                                  f.path, f.worker));
      continue;
    }
    kept.push_back(std::move(f));
  }
  files = std::move(kept);
  return absl::OkStatus();
}

// The run folder options.run names, or NotFound listing them.
absl::StatusOr<fs::path> ChooseRun(const fs::path& parent, const std::vector<fs::path>& runs,
                                   const DiscoveryOptions& options) {
  for (const fs::path& r : runs) {
    if (r.filename() == options.run) return r;
  }
  std::vector<std::string> names;
  for (const fs::path& r : runs) names.push_back(r.filename().string());
  return absl::NotFoundError(fmt::format("{}: no run '{}' (runs here: {})", parent.string(),
                                         options.run, fmt::join(names, ", ")));
}

// Summaries the TensorBoard profile plugin writes beside (or instead of) the
// trace: "<host>.overview_page.pb", "<host>.input_pipeline.pb", ...
std::vector<std::string> SummaryFilesIn(const fs::path& dir, const LinkScope* scope) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<fs::path>> files = ListFiles(dir, false, scope);
  if (!files.ok()) return out;
  for (const fs::path& f : *files) {
    std::string name = f.filename().string();
    if (name.ends_with(".pb") || name.ends_with(".pb.gz") || name.ends_with(".json.gz") ||
        name.ends_with(".json")) {
      out.push_back(name);
    }
  }
  return out;
}

std::string NoTraceText(const fs::path& run, const std::vector<std::string>& summaries) {
  return fmt::format(
      "run {} has no trace: it holds only TensorBoard profile summaries ({}{}), no "
      "*.xplane.pb or *.pt.trace.json; the trace was not kept or not copied",
      run.filename().string(), fmt::join(summaries.begin(),
                                         summaries.begin() + std::min<size_t>(3, summaries.size()),
                                         ", "),
      summaries.size() > 3 ? ", ..." : "");
}

// The scope of a scan of `dir` under `options` (notes go to `notes`).
LinkScope ScopeOf(const fs::path& dir, const DiscoveryOptions& options,
                  std::vector<std::string>& notes, std::set<std::string>& noted) {
  LinkScope scope;
  std::error_code ec;
  scope.root = fs::canonical(options.scan_root.empty() ? dir : fs::path(options.scan_root), ec);
  if (ec) scope.root.clear();
  scope.follow_links = options.follow_links;
  scope.notes = &notes;
  scope.noted = &noted;
  return scope;
}

absl::StatusOr<Discovery> DiscoverDirectory(const fs::path& dir, const DiscoveryOptions& options) {
  Discovery d;
  std::set<std::string> noted;
  LinkScope scope = ScopeOf(dir, options, d.notes, noted);
  fs::path search = dir;
  std::error_code ec;
  std::vector<std::string> denied;
  // A TensorBoard log directory: <logdir>/plugins/profile/<run>/.
  fs::path profile = dir / "plugins" / "profile";
  if (dir.filename() == "profile" && dir.parent_path().filename() == "plugins") profile = dir;
  bool tensorboard = fs::is_directory(profile, ec);
  std::vector<TraceFileRef> files;
  if (!tensorboard) {
    absl::StatusOr<std::vector<TraceFileRef>> direct =
        TraceFilesIn(dir, d.notes, denied, &scope);
    if (!direct.ok()) return direct.status();
    files = std::move(*direct);
  }
  std::vector<std::pair<fs::path, std::vector<TraceFileRef>>> run_files;
  if (files.empty()) {
    // Run folders: plugins/profile/<run>/ or the tb_plugin's <logdir>/<run>/.
    fs::path parent = tensorboard ? profile : dir;
    absl::StatusOr<std::vector<fs::path>> subdirs = ListFiles(parent, true, &scope);
    if (!subdirs.ok()) return subdirs.status();
    std::vector<fs::path> runs;
    std::vector<std::string> no_trace;  // run folders holding only summaries
    for (const fs::path& s : *subdirs) {
      absl::StatusOr<std::vector<fs::path>> inner = ListFiles(s, false, &scope);
      if (!inner.ok()) {
        NoteIfDenied(inner.status(), s.string(), denied);
        continue;
      }
      if (std::any_of(inner->begin(), inner->end(), [](const fs::path& f) {
            return IsTraceCandidateName(f.filename().string());
          })) {
        runs.push_back(s);
      } else if (tensorboard) {
        if (std::vector<std::string> summaries = SummaryFilesIn(s, &scope); !summaries.empty()) {
          no_trace.push_back(NoTraceText(s, summaries));
        }
      }
    }
    for (const fs::path& r : runs) d.runs.push_back(r.filename().string());
    if (runs.empty() && !no_trace.empty() && denied.empty()) {
      return absl::NotFoundError(fmt::format("{}: {}", dir.string(), fmt::join(no_trace, "; ")));
    }
    for (std::string& n : no_trace) d.notes.push_back(fmt::format("{}: {}", parent.string(), n));
    if (!options.run.empty() && !runs.empty()) {
      absl::StatusOr<fs::path> run = ChooseRun(parent, runs, options);
      if (!run.ok()) return run.status();
      runs = {*run};
    }
    // plugins/profile/<session>/ folders are captures of one TensorBoard
    // run, named YYYY_MM_DD_HH_MM_SS: the newest, said in the header and on
    // stderr as a span is (docs/design/contract.md, "Newest span").
    if (tensorboard && options.run.empty() && runs.size() > 1) {
      d.span_choice = fmt::format(
          "{}: {} profiling sessions; analysing the newest ({}); --run to choose another",
          parent.string(), runs.size(), runs.back().filename().string());
      d.chosen_span = runs.back().filename().string();
      runs = {runs.back()};
    }
    // Several run folders of the tb_plugin's layout (experiments) and no
    // --run: the files of each, for the caller to list and refuse (or, in
    // batch, to analyse one by one).
    d.runs_to_pick = runs.size() > 1;
    for (const fs::path& r : runs) {
      absl::StatusOr<std::vector<TraceFileRef>> in_run = TraceFilesIn(r, d.notes, denied, &scope);
      if (!in_run.ok()) return in_run.status();
      if (d.runs_to_pick) {
        for (TraceFileRef& f : *in_run) f.run_folder = r.filename().string();
      }
      run_files.emplace_back(r, std::move(*in_run));
    }
  } else {
    run_files.emplace_back(search, std::move(files));
  }
  size_t found = 0;
  for (const auto& [where, in_run] : run_files) found += in_run.size();
  if (found == 0 && !denied.empty()) return DeniedError(dir.string(), denied);
  if (found == 0) {
    return absl::NotFoundError(fmt::format("{}: no trace files found; {}", dir.string(), ExpectedInputText()));
  }
  if (!denied.empty()) {
    d.notes.push_back(fmt::format("skipped {} path(s) that cannot be read (permission denied): "
                                  "{}{}",
                                  denied.size(), denied.front(), denied.size() > 1 ? ", ..." : ""));
  }
  // XSpace files of a run are its hosts; Kineto files follow the span rule,
  // in each run folder. A run holding both loads both.
  for (auto& [where, in_run] : run_files) {
    std::vector<TraceFileRef> kineto, xspace;
    for (TraceFileRef& f : in_run) {
      (f.format == InputFormat::kXSpace ? xspace : kineto).push_back(std::move(f));
    }
    if (!kineto.empty()) {
      std::string choice, chosen;
      std::vector<std::string> spans;
      if (absl::Status s =
              ChooseSpan(where.string(), options, kineto, choice, chosen, d.notes, spans);
          !s.ok()) {
        return s;
      }
      if (!d.runs_to_pick && (d.span_choice.empty() || !choice.empty())) {
        d.spans = std::move(spans);
        d.span_choice = std::move(choice);
        d.chosen_span = std::move(chosen);
      }
    }
    for (TraceFileRef& f : kineto) d.files.push_back(std::move(f));
    for (TraceFileRef& f : xspace) d.files.push_back(std::move(f));
  }
  std::sort(d.files.begin(), d.files.end(),
            [](const TraceFileRef& a, const TraceFileRef& b) { return a.path < b.path; });
  return d;
}

// Whether `dir` is a run itself rather than a folder of runs: a TensorBoard
// log directory, or trace files in it as DiscoverDirectory would take them
// (profiler-named and XSpace files by name, other JSON only when it sniffs
// as Kineto, so a summary.json beside run folders does not hide them).
bool HoldsTracesItself(const fs::path& dir, const LinkScope* scope) {
  std::error_code ec;
  if (fs::is_directory(dir / "plugins" / "profile", ec)) return true;
  if (dir.filename() == "profile" && dir.parent_path().filename() == "plugins") return true;
  absl::StatusOr<std::vector<fs::path>> files = ListFiles(dir, false, scope);
  if (!files.ok()) return false;
  return std::any_of(files->begin(), files->end(), [](const fs::path& f) {
    std::string name = f.filename().string();
    if (!IsTraceCandidateName(name)) return false;
    std::string worker, span;
    if (KnownByExtension(name) != nullptr || SplitPtTraceName(name, &worker, &span)) return true;
    absl::StatusOr<InputFormat> format = SniffTraceFile(f.string());
    return format.ok() && *format == InputFormat::kKinetoJson;
  });
}

// Files here that look like traces by name (.json, .json.gz, .pb) but are
// none: why a folder holding files was not taken as a run.
std::vector<std::string> NonTraceCandidates(const fs::path& dir, const LinkScope* scope) {
  std::vector<std::string> out;
  absl::StatusOr<std::vector<fs::path>> files = ListFiles(dir, false, scope);
  if (!files.ok()) return out;
  for (const fs::path& f : *files) {
    std::string name = f.filename().string();
    if (name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".pb") ||
        name.ends_with(".pb.gz")) {
      out.push_back(name);
    }
  }
  return out;
}

// `visited` holds canonical paths: a directory reached twice (through a
// symlink, or a symlink loop) is searched and listed once. A folder that is
// a run is still searched below: runs in its subfolders are runs too (a
// TensorBoard log directory's plugins/ is part of its own run). What is
// passed over and why goes to `skipped`.
void CollectRuns(const fs::path& dir, int depth_left, std::set<fs::path>& visited,
                 std::vector<std::string>& runs, std::vector<std::string>& denied,
                 std::vector<std::string>& skipped, int max_depth, const LinkScope* scope) {
  std::error_code ec;
  fs::path canonical = fs::canonical(dir, ec);
  if (ec || !visited.insert(canonical).second) return;
  const bool is_run = HoldsTracesItself(dir, scope);
  if (is_run) {
    runs.push_back(dir.string());
  } else if (std::vector<std::string> others = NonTraceCandidates(dir, scope); !others.empty()) {
    skipped.push_back(fmt::format(
        "{}: skipped: no trace among its files ({}{}; {})", dir.string(),
        fmt::join(others.begin(), others.begin() + std::min<size_t>(3, others.size()), ", "),
        others.size() > 3 ? ", ..." : "", ExpectedInputText()));
  }
  const bool tensorboard_logdir = fs::is_directory(dir / "plugins" / "profile", ec);
  if (dir.filename() == "profile" && dir.parent_path().filename() == "plugins") return;
  absl::StatusOr<std::vector<fs::path>> subdirs = ListFiles(dir, true, scope);
  if (!subdirs.ok()) {
    NoteIfDenied(subdirs.status(), dir.string(), denied);
    return;
  }
  std::vector<fs::path> below;
  for (const fs::path& s : *subdirs) {
    if (tensorboard_logdir && s.filename() == "plugins") continue;
    below.push_back(s);
  }
  if (below.empty()) return;
  if (depth_left <= 0) {
    skipped.push_back(fmt::format("{}: {} subfolder(s) not searched: deeper than --max-depth {}",
                                  dir.string(), below.size(), max_depth));
    return;
  }
  for (const fs::path& s : below) {
    CollectRuns(s, depth_left - 1, visited, runs, denied, skipped, max_depth, scope);
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> FindRunPaths(const std::string& root, int max_depth,
                                                      const DiscoveryOptions& options,
                                                      std::vector<std::string>* notes) {
  std::error_code ec;
  fs::file_status st = fs::status(root, ec);
  if (ec) return StatError(root, ec);
  if (!fs::is_directory(st)) return std::vector<std::string>{root};
  fs::path dir(root);
  if (dir.filename().empty()) dir = dir.parent_path();
  std::vector<std::string> runs;
  std::set<fs::path> visited;
  std::vector<std::string> denied;
  std::vector<std::string> link_notes;
  std::set<std::string> noted;
  LinkScope scope = ScopeOf(dir, options, link_notes, noted);
  std::vector<std::string> skipped;
  CollectRuns(dir, max_depth, visited, runs, denied, skipped, max_depth, &scope);
  if (notes != nullptr) {
    notes->insert(notes->end(), link_notes.begin(), link_notes.end());
    notes->insert(notes->end(), skipped.begin(), skipped.end());
  }
  if (runs.empty() && !denied.empty()) return DeniedError(dir.string(), denied);
  if (runs.empty()) {
    return absl::NotFoundError(fmt::format("{}: no trace files found in it or in {} levels of "
                                           "subdirectories; {}",
                                           dir.string(), max_depth, ExpectedInputText()));
  }
  return runs;
}

bool SplitPtTraceName(std::string_view name, std::string* worker, std::string* span) {
  // Only the run files named "<worker>[.<span>]<suffix>" by a profiler
  // that stamps spans; a name its format alone decides has no span.
  if (KnownByExtension(name) != nullptr) return false;
  std::string_view base = StripRunFileSuffix(name).value_or("");
  if (base.empty()) return false;
  size_t dot = base.rfind('.');
  if (dot != std::string_view::npos && dot > 0 && IsAllDigits(base.substr(dot + 1))) {
    *worker = std::string(base.substr(0, dot));
    *span = std::string(base.substr(dot + 1));
  } else {
    *worker = std::string(base);
    span->clear();
  }
  return true;
}

absl::StatusOr<Discovery> DiscoverFiles(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return DiscoverTraces(paths[0], {});
  Discovery out;
  std::set<std::string> seen;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: a directory among several paths; name one directory, or trace files only",
          path));
    }
    absl::StatusOr<Discovery> one = DiscoverTraces(path, {});
    if (!one.ok()) return one.status();
    for (TraceFileRef& f : one->files) {
      if (seen.insert(f.path).second) out.files.push_back(std::move(f));
    }
  }
  return out;
}

absl::StatusOr<Discovery> DiscoverTraces(const std::string& path,
                                         const DiscoveryOptions& options) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec) return StatError(path, ec);
  if (fs::is_directory(st)) {
    fs::path dir(path);
    if (dir.filename().empty()) dir = dir.parent_path();  // "logs/" names "logs"
    return DiscoverDirectory(dir, options);
  }
  if (!fs::is_regular_file(st)) {
    return absl::InvalidArgumentError(fmt::format("{}: not a regular file; {}", path, ExpectedInputText()));
  }
  absl::StatusOr<InputFormat> format = SniffTraceFile(path);
  if (!format.ok()) return format.status();
  std::string name = fs::path(path).filename().string();
  if (const FormatEntry* known = KnownByExtension(name);
      *format == InputFormat::kUnknown && known != nullptr) {
    format = known->format;
  }
  if (*format == InputFormat::kUnknown) return UnknownFormatError(path);
  Discovery d;
  TraceFileRef ref;
  ref.path = path;
  ref.format = *format;
  if (!SplitPtTraceName(name, &ref.worker, &ref.span)) ref.worker = Stem(name);
  d.files.push_back(std::move(ref));
  return d;
}

}  // namespace tracelint
