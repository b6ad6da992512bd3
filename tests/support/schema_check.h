#ifndef TRACELINT_TESTS_SUPPORT_SCHEMA_CHECK_H_
#define TRACELINT_TESTS_SUPPORT_SCHEMA_CHECK_H_

// Test support: validates a JSON file against a schema in analyzer/report/
// with python3 + jsonschema (validate_report.py), which tests skip visibly
// when either is missing.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tracelint::testing {

enum class SchemaCheck { kValid, kInvalid, kSkipped };

// Validates `json_path` against the schema at `schema_path` (formats
// checked). Errors go to stderr; `why` says why the check was skipped or
// failed.
inline SchemaCheck ValidateJsonAgainst(const std::filesystem::path& schema_path,
                                       const std::string& json_path, std::string& why) {
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  std::filesystem::path root = std::filesystem::path(src != nullptr ? src : ".") / "tests/support";
  if (!std::filesystem::exists(schema_path)) {
    why = schema_path.string() + " not found";
    return SchemaCheck::kInvalid;
  }
  if (std::system("python3 -c 'import sys' >/dev/null 2>&1") != 0) {
    why = "python3 not found: schema validation skipped";
    return SchemaCheck::kSkipped;
  }
  std::string cmd = "python3 '" + (root / "validate_report.py").string() + "' '" +
                    schema_path.string() + "' '" + json_path + "'";
  int rc = std::system(cmd.c_str());
  if (rc == -1) {
    why = "cannot run python3";
    return SchemaCheck::kInvalid;
  }
  int status = WEXITSTATUS(rc);
  if (status == 77) {
    why = "python3 jsonschema module missing: schema validation skipped";
    return SchemaCheck::kSkipped;
  }
  why = status == 0 ? "" : json_path + " does not match " + schema_path.string() + " (errors above)";
  return status == 0 ? SchemaCheck::kValid : SchemaCheck::kInvalid;
}

// `schema_file`: a schema's name; each product keeps its schema beside its
// writer (analyzer/report, analyzer/batch, analyzer/diff).
inline SchemaCheck ValidateJsonFile(const std::string& schema_file, const std::string& json_path,
                                    std::string& why) {
  const char* src = std::getenv("TRACELINT_SOURCE_DIR");
  std::filesystem::path analyzer = std::filesystem::path(src != nullptr ? src : ".") / "analyzer";
  std::filesystem::path path = analyzer / "report" / schema_file;
  for (const char* product : {"batch", "diff"}) {
    if (std::filesystem::exists(analyzer / product / schema_file)) path = analyzer / product / schema_file;
  }
  return ValidateJsonAgainst(path, json_path, why);
}

}  // namespace tracelint::testing

#endif  // TRACELINT_TESTS_SUPPORT_SCHEMA_CHECK_H_
