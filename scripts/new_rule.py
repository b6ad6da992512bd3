#!/usr/bin/env python3
"""Writes the skeleton of a new tracelint rule, so that adding one is "run
this, then write the logic" (after clang-tidy's add_new_check.py).

    scripts/new_rule.py family-name "one-line summary"

writes, under the repository (or --root):
  rules/<family_name>.h, rules/<family_name>.cc   the rule: one option, a gate, a check
  rules/<family_name>_test.cc                     fires / quiet / both sides of the threshold
  rules/docs/<family-name>.md                     its doc page (compiled into `tracelint rules ID`)
and registers it:
  rules/all_rules.cc                              the include and the Register line
  rules/docs/index.md, README.md                  a row in each rules table

CMake globs rules/*.cc, so nothing else is edited. The skeleton is a working
example (it fires when memsets take at least MinMemsetShare of the steady step)
that builds and passes its tests; replace its logic, its option and its test
scenarios with the rule's own. The new rule's id, summary and tables are
checked against `tracelint rules` by rules_table_test.
"""

import argparse
import os
import re
import sys

TEMPLATE_H = """#ifndef TRACELINT_RULES_{GUARD}_H_
#define TRACELINT_RULES_{GUARD}_H_

#include <string_view>
#include <vector>

#include "analyzer/engine/rule.h"

namespace tracelint {{

// {id} (rules/docs/{id}.md): {summary}.
// TODO: say which time this rule owns (docs/design/contract.md, "Causes and
// owners"): each instant is charged to one cause only.
class {cls} : public Rule {{
 public:
  static constexpr std::string_view kSummary = "{summary_cap}";

  std::string_view summary() const override {{ return kSummary; }}
  std::vector<RuleOptionSpec> options() const override;
  RuleOutcome Check(AnalysisContext& ctx, const RuleOptions& options) const override;
}};

}}  // namespace tracelint

#endif  // TRACELINT_RULES_{GUARD}_H_
"""

TEMPLATE_CC = """#include "rules/{stem}.h"

#include <string>

#include "analyzer/analysis/analysis_context.h"
#include "analyzer/analysis/step_metrics.h"
#include "fmt/format.h"

namespace tracelint {{
namespace {{

constexpr std::string_view kMinMemsetShare = "MinMemsetShare";

}}  // namespace

std::vector<RuleOptionSpec> {cls}::options() const {{
  return {{{{std::string(kMinMemsetShare), 0.05, "share",
           "fire when memsets take at least this share of the steady step", 0, 1}}}};
}}

// The skeleton's example logic: memset time as a share of the steady step.
// Replace it with the rule's own; keep the shape: a gate that says why the
// rule cannot judge, then findings with evidence (value vs threshold), a
// location and a fix. The engine stamps the id and sets the severity.
RuleOutcome {cls}::Check(AnalysisContext& ctx, const RuleOptions& options) const {{
  RuleOutcome outcome;
  const StepMetrics& m = ctx.step_metrics();
  if (m.step_count <= 0 || m.mean_step_ns <= 0) {{
    outcome.applicable = false;
    outcome.not_judged_reason = "no steady step with device activity";
    return outcome;
  }}
  TimeNs memset_ns = 0;
  for (const DeviceMetrics& d : m.summary) {{
    if (d.device >= 0) memset_ns += d.breakdown_ns[static_cast<int>(StepCategory::kMemset)];
  }}
  const TimeNs per_step_ns = memset_ns / m.step_count;
  const double share = static_cast<double>(per_step_ns) / static_cast<double>(m.mean_step_ns);
  const double threshold = options.Get(kMinMemsetShare);
  if (share < threshold) return outcome;
  Finding f;
  f.cause = "memset";
  f.recoverable_ns_per_step = per_step_ns;
  f.recoverable_share = share;
  f.title = fmt::format("Memsets take {{:.1f}}% of the step", 100 * share);
  f.message = "TODO: what the user sees, in the words of their framework.";
  f.evidence.push_back({{fmt::format("memset {{:.1f}}% of the step (threshold {{:.1f}}%)", 100 * share,
                                    100 * threshold),
                        share, threshold}});
  f.fix = "TODO: the concrete change to make.";
  outcome.findings.push_back(std::move(f));
  return outcome;
}}

}}  // namespace tracelint
"""

TEMPLATE_TEST = """#include "rules/{stem}.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/rule_test_util.h"
#include "tests/support/scenario.h"

namespace tracelint {{
namespace {{

using rule_test::FindCause;
using rule_test::RunRule;
using testing::Scenario;

constexpr TimeNs kMs = kNsPerMs;

// TODO: scenarios of the rule's own. Every rule has a case that fires, one
// that does not, and one on each side of each threshold.
Scenario Steps(TimeNs memset_ns) {{
  Scenario s;
  s.Device(testing::DeviceSpec::A100());
  for (int k = 1; k <= 4; ++k) {{
    s.BeginStep(k).Kernel("gemm_kernel", 10 * kMs - memset_ns);
    if (memset_ns > 0) s.Memset(1 << 20, memset_ns);
    s.Sync().EndStep();
  }}
  return s;
}}

TEST({cls}Test, Fires) {{
  RuleOutcome out = RunRule({cls}(), Steps(3 * kMs));
  ASSERT_NE(FindCause(out, "memset"), nullptr);
}}

TEST({cls}Test, QuietWithoutMemsets) {{
  RuleOutcome out = RunRule({cls}(), Steps(0));
  EXPECT_TRUE(out.applicable);
  EXPECT_TRUE(out.findings.empty());
}}

TEST({cls}Test, BothSidesOfMinMemsetShare) {{
  // About 10% of the step: fires at a 9% threshold, not at 11%.
  EXPECT_NE(FindCause(RunRule({cls}(), Steps(1 * kMs), {{{{"MinMemsetShare", 0.09}}}}), "memset"),
            nullptr);
  EXPECT_EQ(FindCause(RunRule({cls}(), Steps(1 * kMs), {{{{"MinMemsetShare", 0.11}}}}), "memset"),
            nullptr);
}}

}}  // namespace
}}  // namespace tracelint
"""

TEMPLATE_DOC = """# {id}

**Summary:** {summary_cap}

## Why it matters
TODO: what this waste costs and how an expert spots it.

## How it is detected
TODO: the signals it reads (analysis passes, not raw events), the numbers it uses, which time
it owns (each instant is charged to one cause only), and when it cannot judge and why.

## Options
| option | default | unit | meaning |
|---|---|---|---|
| `MinMemsetShare` | 0.05 | share | fire when memsets take at least this share of the steady step |

## Example
TODO: a finding as `tracelint analyze` prints it (TRACELINT_PRINT_FINDINGS=1 on the rule's
test shows what the rule writes).

## Fix
TODO: what to change, per framework.

## Known false positives
TODO: where it can be wrong, and how the rule guards against it.
"""


def fail(message):
    print(f"new_rule.py: {message}", file=sys.stderr)
    sys.exit(2)


def insert_table_row(path, id_, summary):
    """Adds `| [id](...) | summary |` to the first rules table, in id order."""
    text = open(path, encoding="utf-8").read()
    lines = text.split("\n")
    link = f"rules/docs/{id_}.md" if os.path.basename(path) == "README.md" else f"{id_}.md"
    row = f"| [{id_}]({link}) | {summary} |"
    rows = [i for i, l in enumerate(lines) if re.match(r"^\| \[[a-z0-9-]+\]\(", l)]
    if not rows:
        fail(f"{path}: no rules table (rows '| [id](...) | summary |')")
    for i in rows:
        existing = re.match(r"^\| \[([a-z0-9-]+)\]", lines[i]).group(1)
        if existing == id_:
            fail(f"{path}: {id_} is already listed")
        if existing > id_:
            lines.insert(i, row)
            break
    else:
        lines.insert(rows[-1] + 1, row)
    open(path, "w", encoding="utf-8").write("\n".join(lines))


def register(path, id_, stem, cls):
    text = open(path, encoding="utf-8").read()
    include = f'#include "rules/{stem}.h"'
    includes = re.findall(r'^#include "rules/[a-z0-9_]+\.h"$', text, re.M)
    body = [i for i in includes if i != '#include "rules/all_rules.h"']
    anchor = next((i for i in body if i > include), None)
    if anchor:
        text = text.replace(anchor, include + "\n" + anchor, 1)
    else:
        text = text.replace(body[-1], body[-1] + "\n" + include, 1)
    line = f'  registry.Register("{id_}", std::make_unique<{cls}>());\n'
    last = text.rindex("  registry.Register(")
    end = text.index("\n", last) + 1
    text = text[:end] + line + text[end:]
    open(path, "w", encoding="utf-8").write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("id", help="the rule id, family-name (e.g. memory-fragmentation)")
    parser.add_argument("summary", help="one line, lower case, no final period")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the repository to write into (default: this checkout)")
    args = parser.parse_args()
    id_ = args.id
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)+", id_):
        fail(f"'{id_}' is not a rule id: family-name, lower case, e.g. gpu-idle-gaps")
    summary = args.summary.strip().rstrip(".")
    if not summary or '"' in summary or "|" in summary:
        fail("the summary is one line without quotes or '|'")
    stem = id_.replace("-", "_")
    cls = "".join(p.capitalize() for p in id_.split("-")) + "Rule"
    root = os.path.abspath(args.root)
    values = dict(id=id_, stem=stem, cls=cls, GUARD=stem.upper(), summary=summary,
                  summary_cap=summary[0].upper() + summary[1:])
    files = {
        f"rules/{stem}.h": TEMPLATE_H,
        f"rules/{stem}.cc": TEMPLATE_CC,
        f"rules/{stem}_test.cc": TEMPLATE_TEST,
        f"rules/docs/{id_}.md": TEMPLATE_DOC,
    }
    for rel in files:
        if os.path.exists(os.path.join(root, rel)):
            fail(f"{rel} exists already")
    for rel, template in files.items():
        with open(os.path.join(root, rel), "w", encoding="utf-8") as out:
            out.write(template.format(**values))
    register(os.path.join(root, "rules/all_rules.cc"), id_, stem, cls)
    insert_table_row(os.path.join(root, "rules/docs/index.md"), id_, values["summary_cap"])
    insert_table_row(os.path.join(root, "README.md"), id_, values["summary_cap"])
    print(f"new_rule.py: wrote {', '.join(files)}; registered {id_} in rules/all_rules.cc, "
          "rules/docs/index.md and README.md.\nNext: write the logic in "
          f"rules/{stem}.cc, its scenarios in rules/{stem}_test.cc and its page "
          f"rules/docs/{id_}.md, then build (CMake globs rules/*.cc).")


if __name__ == "__main__":
    main()
