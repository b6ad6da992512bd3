// Damaged Kineto input is found where it is (issue 12, point 3): a flipped
// byte costs its event only and the warning says where it is, a syntax
// error names its own byte, and a gzip stream cut inside its trailer is a
// truncation.
#include <algorithm>
#include <string>

#include "analyzer/model/timeline_invariants.h"
#include "gtest/gtest.h"
#include "tests/support/test_files.h"
#include "parsers/kineto/kineto_parser.h"

namespace tracelint {
namespace {

using ::tracelint::testing::Gzip;
using ::tracelint::testing::TempDir;

// As Kineto writes them: one event per line group, args indented deeper.
std::string LinedTrace(int events) {
  std::string t = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  for (int i = 0; i < events; ++i) {
    if (i > 0) t += ",\n";
    t += "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i) +
         "\", \"pid\": 1, \"tid\": 1,\n    \"ts\": " + std::to_string(i * 10) +
         ", \"dur\": 5,\n    \"args\": {\n      \"External id\": " + std::to_string(i) +
         "\n    }\n  }";
  }
  t += "\n  ],\n  \"traceName\": \"t\"\n}\n";
  return t;
}

Diagnostic Find(const Timeline& tl, std::string_view name) {
  for (const Diagnostic& d : tl.diagnostics().List()) {
    if (d.name == name) return d;
  }
  return Diagnostic();
}

absl::StatusOr<Timeline> Parse(const TempDir& dir, const std::string& bytes,
                               const std::string& name) {
  ParseOptions options;
  options.threads = 2;
  options.split_bytes = 1000;
  return ParseKinetoJsonFile(dir.Write(name, bytes), options);
}

TEST(KinetoDamage, FlippedQuoteCostsOneEventAndIsLocated) {
  TempDir dir;
  std::string trace = LinedTrace(300);
  size_t event = trace.rfind('{', trace.find("\"op120\""));
  size_t quote = trace.find("\"cpu_op\"", event);
  for (bool gz : {false, true}) {
    std::string bad = trace;
    bad[quote] = 'x';  // the string's opening quote: strings turn inside out
    absl::StatusOr<Timeline> tl = Parse(dir, gz ? Gzip(bad) : bad, gz ? "f.json.gz" : "f.json");
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_TRUE(CheckTimelineInvariants(*tl).ok());
    EXPECT_EQ(tl->metadata().events_read, 299);
    EXPECT_FALSE(tl->metadata().truncated);
    Diagnostic d = Find(*tl, "damaged_json");
    EXPECT_EQ(d.count, 1);
    EXPECT_EQ(d.first_byte_offset, static_cast<int64_t>(event));
    EXPECT_NE(d.description.find("at byte " + std::to_string(event)), std::string::npos)
        << d.description;
    EXPECT_NE(d.description.find("malformed event at byte " + std::to_string(event) +
                                 " of the decompressed stream; 1 event skipped"),
              std::string::npos)
        << d.description;
    EXPECT_EQ(tl->diagnostics().Count("truncated_input"), 0);
  }
}

TEST(KinetoDamage, LostClosingBraceCostsOneEvent) {
  TempDir dir;
  std::string trace = LinedTrace(300);
  size_t event = trace.rfind('{', trace.find("\"op200\""));
  size_t close = trace.find("\n  }", event) + 3;
  std::string bad = trace;
  bad[close] = ' ';
  absl::StatusOr<Timeline> tl = Parse(dir, bad, "brace.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().events_read, 299);
  EXPECT_EQ(Find(*tl, "damaged_json").first_byte_offset, static_cast<int64_t>(event));
}

TEST(KinetoDamage, SyntaxErrorNamesItsOwnByte) {
  TempDir dir;
  std::string trace = LinedTrace(2000);  // several read chunks and parts
  size_t bad = trace.rfind("\"traceName\"") - 2;  // the ',' after the array
  trace[bad] = '#';
  absl::StatusOr<Timeline> tl = Parse(dir, trace, "syntax.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().events_read, 2000);
  EXPECT_TRUE(tl->metadata().truncated);
  EXPECT_EQ(tl->metadata().truncated_at_byte, static_cast<int64_t>(bad));
  // Damage, not a cut file: named as what it is.
  EXPECT_EQ(tl->diagnostics().Count("truncated_input"), 0);
  Diagnostic d = Find(*tl, "malformed_json");
  EXPECT_EQ(d.severity, Severity::kError);
  EXPECT_EQ(d.first_byte_offset, static_cast<int64_t>(bad));
  EXPECT_NE(d.description.find("malformed JSON at byte " + std::to_string(bad)),
            std::string::npos)
      << d.description;
}

TEST(KinetoDamage, GzipCutInItsTrailerIsATruncation) {
  TempDir dir;
  std::string gz = Gzip(LinedTrace(50));
  for (size_t cut = 1; cut <= 8; ++cut) {
    absl::StatusOr<Timeline> tl = Parse(dir, gz.substr(0, gz.size() - cut), "trailer.json.gz");
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_EQ(tl->metadata().events_read, 50);
    Diagnostic d = Find(*tl, "truncated_input");
    EXPECT_EQ(d.count, 1) << "cut " << cut;
    EXPECT_EQ(d.severity, Severity::kWarning);
    EXPECT_NE(d.description.find("trailer"), std::string::npos) << d.description;
  }
  absl::StatusOr<Timeline> whole = Parse(dir, gz, "whole.json.gz");
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->diagnostics().Count("truncated_input"), 0);
}

// A trace on one line has no line to resume at: a flipped quote costs its
// event (and the next, whose first quote it pairs with), never the rest of
// the file as if it ended early (issue 31, point 4).
TEST(KinetoDamage, OneLineTraceFlippedQuoteCostsItsEventNotTheRest) {
  TempDir dir;
  std::string trace = LinedTrace(300);
  std::replace(trace.begin(), trace.end(), '\n', ' ');
  size_t event = trace.rfind('{', trace.find("\"op120\""));
  for (size_t quote : {trace.find("\"cpu_op\"", event), trace.find("\"ts\"", event) + 3}) {
    for (bool gz : {false, true}) {
      std::string bad = trace;
      bad[quote] = static_cast<char>(bad[quote] ^ 0x01);  // '"' -> '#'
      absl::StatusOr<Timeline> tl =
          Parse(dir, gz ? Gzip(bad) : bad, gz ? "one.json.gz" : "one.json");
      ASSERT_TRUE(tl.ok()) << tl.status();
      EXPECT_TRUE(CheckTimelineInvariants(*tl).ok());
      EXPECT_GE(tl->metadata().events_read, 298) << quote;
      EXPECT_FALSE(tl->metadata().truncated) << quote;
      EXPECT_EQ(tl->diagnostics().Count("truncated_input"), 0) << quote;
      Diagnostic d = Find(*tl, "damaged_json");
      EXPECT_EQ(d.first_byte_offset, static_cast<int64_t>(event)) << quote;
      EXPECT_NE(d.description.find("quote out of place"), std::string::npos) << d.description;
      EXPECT_NE(d.description.find("reading resumed at byte"), std::string::npos)
          << d.description;
    }
  }
}

// Bytes between events that are no JSON are skipped and named as malformed
// JSON at their byte; every event is still read.
TEST(KinetoDamage, JunkBetweenEventsIsMalformedJsonAndReadingGoesOn) {
  TempDir dir;
  for (bool one_line : {false, true}) {
    std::string trace = LinedTrace(300);
    if (one_line) std::replace(trace.begin(), trace.end(), '\n', ' ');
    size_t event = trace.rfind('{', trace.find("\"op150\""));
    size_t comma = trace.rfind(',', event);
    for (char junk : {':', '}', 'x', ']', '#'}) {
      std::string bad = trace;
      bad[comma] = junk;
      absl::StatusOr<Timeline> tl = Parse(dir, bad, "junk.json");
      ASSERT_TRUE(tl.ok()) << tl.status();
      const std::string what = std::string("junk '") + junk + "' one_line " +
                               std::to_string(one_line);
      EXPECT_EQ(tl->metadata().events_read, 300) << what;
      EXPECT_FALSE(tl->metadata().truncated) << what;
      Diagnostic d = Find(*tl, "malformed_json");
      EXPECT_EQ(d.severity, Severity::kError) << what;
      EXPECT_EQ(d.first_byte_offset, static_cast<int64_t>(comma)) << what;
      EXPECT_NE(d.description.find("malformed JSON at byte " + std::to_string(comma)),
                std::string::npos)
          << d.description;
      EXPECT_EQ(tl->diagnostics().Count("non_object_event"), 0) << what;
    }
  }
}

// A phase letter the Trace Event Format does not define is counted in a
// warning; a defined one tracelint does not model stays an info.
TEST(KinetoDamage, UnknownPhaseIsAWarning) {
  TempDir dir;
  std::string trace = LinedTrace(20);
  size_t x = trace.find("\"ph\": \"X\"", trace.find("\"op5\"") - 60);
  std::string bad = trace;
  bad[x + 7] = 'Z';
  absl::StatusOr<Timeline> tl = Parse(dir, bad, "phase.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  Diagnostic d = Find(*tl, "unknown_phase");
  EXPECT_EQ(d.count, 1);
  EXPECT_EQ(d.severity, Severity::kWarning);
  bad[x + 7] = 'b';  // async begin: defined, not modelled
  tl = Parse(dir, bad, "async.json");
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->diagnostics().Count("unknown_phase"), 0);
  EXPECT_EQ(Find(*tl, "unsupported_phase").severity, Severity::kInfo);
}

// An event larger than the document limit stops reading at a limit, not as
// malformed JSON.
TEST(KinetoDamage, EventOverTheDocumentLimitIsALimitNotDamage) {
  TempDir dir;
  std::string trace = LinedTrace(50);
  size_t at = trace.find("\"op30\"");
  trace.insert(at + 6, ", \"big\": \"" + std::string(20000, 'b') + "\"");
  ParseOptions options;
  options.threads = 2;
  options.split_bytes = 1000;
  options.max_document_bytes = 8192;
  absl::StatusOr<Timeline> tl = ParseKinetoJsonFile(dir.Write("big.json", trace), options);
  ASSERT_TRUE(tl.ok()) << tl.status();
  EXPECT_EQ(tl->metadata().events_read, 30);
  EXPECT_TRUE(tl->metadata().truncated);
  EXPECT_EQ(tl->diagnostics().Count("malformed_json"), 0);
  Diagnostic d = Find(*tl, "limit_reached");
  EXPECT_EQ(d.severity, Severity::kWarning);
  EXPECT_NE(d.description.find("larger than the 8192 byte document limit"), std::string::npos)
      << d.description;
}

// Damage in the last event of a one-line trace leaves no event to resume
// at: the event is skipped and the input, which ends as a whole trace does,
// is not reported as cut short.
TEST(KinetoDamage, OneLineTraceDamagedInItsLastEventIsNotCut) {
  TempDir dir;
  std::string trace = LinedTrace(50);
  std::replace(trace.begin(), trace.end(), '\n', ' ');
  size_t last = trace.rfind('{', trace.find("\"op49\""));
  std::string bad = trace;
  bad[trace.find("\"cat\"", last)] = '#';
  for (bool gz : {false, true}) {
    absl::StatusOr<Timeline> tl =
        Parse(dir, gz ? Gzip(bad) : bad, gz ? "last.json.gz" : "last.json");
    ASSERT_TRUE(tl.ok()) << tl.status();
    EXPECT_EQ(tl->metadata().events_read, 49);
    EXPECT_FALSE(tl->metadata().truncated);
    EXPECT_EQ(tl->diagnostics().Count("truncated_input"), 0);
    Diagnostic d = Find(*tl, "damaged_json");
    EXPECT_EQ(d.first_byte_offset, static_cast<int64_t>(last));
    EXPECT_NE(d.description.find("no event after it could be found"), std::string::npos)
        << d.description;
  }
  // Cut inside that damaged event, it is cut short.
  absl::StatusOr<Timeline> cut = Parse(dir, bad.substr(0, bad.size() - 20), "cut.json");
  ASSERT_TRUE(cut.ok()) << cut.status();
  EXPECT_TRUE(cut->metadata().truncated);
}

}  // namespace
}  // namespace tracelint
