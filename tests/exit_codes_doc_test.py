#!/usr/bin/env python3
"""The exit-code tables users read agree with each other and with the code.

README.md and docs/ci.md both print the exit-code table (a CI author reads
docs/ci.md alone): they must be the same table, row for row, and each code
they list must be one cli/exit_codes.h defines.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), ".."))


def table(path):
    rows = []
    for line in open(os.path.join(root, path), encoding="utf-8"):
        m = re.match(r"^\|\s*(\d)\s*\|(.*)\|\s*$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2).strip()))
    return rows


readme = table("README.md")
ci = table("docs/ci.md")
codes = {int(v) for v in re.findall(r"kExit\w+\s*=\s*(\d+)",
                                    open(os.path.join(root, "cli/exit_codes.h")).read())}
problems = []
if readme != ci:
    for a, b in zip(readme, ci):
        if a != b:
            problems.append(f"README.md says {a}, docs/ci.md says {b}")
    if len(readme) != len(ci):
        problems.append(f"README.md has {len(readme)} rows, docs/ci.md {len(ci)}")
listed = {code for code, _ in readme}
if listed != codes:
    problems.append(f"the tables list codes {sorted(listed)}, cli/exit_codes.h defines {sorted(codes)}")
if problems:
    print("exit_codes_doc_test:\n" + "\n".join(problems))
    sys.exit(1)
print(f"exit_codes_doc_test: README.md and docs/ci.md list the same {len(readme)} exit codes")
