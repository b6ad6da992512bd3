#ifndef TRACELINT_ANALYZER_BASE_DISPLAY_PATH_H_
#define TRACELINT_ANALYZER_BASE_DISPLAY_PATH_H_

// Paths as a shared report shows them (Markdown for a PR, SARIF, batch
// tables): never the absolute path of the machine that ran the analysis,
// but relative to the working directory, or to the input's own root when
// the input lies outside it (docs/output-formats.md, "Paths in shared
// reports").

#include <string>
#include <string_view>
#include <vector>

namespace tracelint {

class PathShortener {
 public:
  // `inputs`: the paths given on the command line (files or directories).
  // Their roots are the directories that hold them (a file's folder, a
  // directory's parent), so "runs/a" and "runs/b" keep their names.
  explicit PathShortener(const std::vector<std::string>& inputs);
  // `path` relative to the working directory when inside it, else to the
  // nearest input root; a relative path as given; otherwise its file name.
  std::string Path(std::string_view path) const;
  // Every absolute path in `text` (a warning, a note) written as Path()
  // would write it: known prefixes removed, any other path cut to its file
  // name.
  std::string Text(std::string_view text) const;

 private:
  std::vector<std::string> prefixes_;  // absolute, with a trailing '/': the cwd, then roots longest first
};

}  // namespace tracelint

#endif  // TRACELINT_ANALYZER_BASE_DISPLAY_PATH_H_
