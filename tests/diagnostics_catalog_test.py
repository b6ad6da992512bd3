#!/usr/bin/env python3
"""The import-diagnostic catalog is the one table: every diagnostic a
parser, the builder or the integrity pass adds is listed there with the same
severity, nothing listed is unused, and docs/diagnostics.md shows the same
rows (analyzer/model/diagnostic_catalog.h)."""
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
catalog_src = open(os.path.join(root, "analyzer/model/diagnostic_catalog.cc"), encoding="utf-8").read()
row = re.compile(r'\{"([a-z0-9_]+)", Severity::k(\w+),\s*"((?:[^"\\]|\\.)*)"\}', re.S)
catalog = {n: (s.lower(), d.replace('\\"', '"')) for n, s, d in row.findall(catalog_src)}
errors = []
if not catalog:
    errors.append("no rows read from diagnostic_catalog.cc")
names = list(row.findall(catalog_src))
if [n for n, _, _ in names] != sorted(n for n, _, _ in names):
    errors.append("the catalog is not in name order")

files = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h"], capture_output=True,
                       text=True, check=True).stdout.split()
call = re.compile(r'"([a-z0-9_]+)"\s*,\s*Severity::k(\w+)')
used = set()
for f in files:
    if f.endswith("_test.cc") or f.startswith(("tests/", "tools/", "bench/")) \
            or f == "analyzer/model/diagnostic_catalog.cc":
        continue
    text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
    for name, severity in call.findall(text):
        used.add(name)
        if name not in catalog:
            errors.append(f"{f}: diagnostic '{name}' is not in the catalog")
        elif catalog[name][0] != severity.lower():
            errors.append(f"{f}: '{name}' is {severity.lower()} here, {catalog[name][0]} in the catalog")
for name in sorted(set(catalog) - used):
    errors.append(f"catalog row '{name}' is added nowhere")

doc = open(os.path.join(root, "docs/diagnostics.md"), encoding="utf-8").read()
doc_rows = re.findall(r"^\| `([a-z0-9_]+)` \| (\w+) \| (.*) \|$", doc, re.M)
expected = [(n, s, d) for n, (s, d) in sorted(catalog.items())]
if doc_rows != expected:
    missing = sorted(set(expected) - set(doc_rows))
    extra = sorted(set(doc_rows) - set(expected))
    errors.append(f"docs/diagnostics.md differs from the catalog: missing {missing[:3]}, "
                  f"extra {extra[:3]}")
if errors:
    print("diagnostics_catalog_test:\n" + "\n".join(errors))
    sys.exit(1)
print(f"diagnostics_catalog_test: {len(catalog)} diagnostics, every call and the docs agree")
