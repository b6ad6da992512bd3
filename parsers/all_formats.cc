// The one place input formats are registered. Sniffers run in this order;
// the first that accepts a file's head parses it.

#include "parsers/format_registry.h"
#include "parsers/kineto/kineto_parser.h"
#include "parsers/xplane/xplane_parser.h"

namespace tracelint {

const std::vector<FormatEntry>& AllFormats() {
  static const std::vector<FormatEntry> kFormats = {
      {"kineto-json", InputFormat::kKinetoJson, &SniffKinetoJson, &ParseKinetoJsonFile,
       "Kineto/Chrome trace JSON", {".json.gz", ".json"}, {".pt.trace.json.gz", ".pt.trace.json"},
       /*known_by_extension=*/false},
      {"xspace", InputFormat::kXSpace, &SniffXSpace, &ParseXSpaceFile, "XSpace", {".xplane.pb"},
       {".xplane.pb"}, /*known_by_extension=*/true},
  };
  return kFormats;
}

}  // namespace tracelint
