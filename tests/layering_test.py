#!/usr/bin/env python3
"""The include arrows point one way (docs/design/architecture.md).

Inside analyzer/: base <- model <- analysis <- engine <- report <- {batch,
diff}; nothing in analyzer/ includes parsers/, rules/, capture/, cli/ or
tests/. parsers/ and rules/ never include cli/; no production file (not a
_test.cc, not under tests/) includes GoogleTest. Prints every arrow that
runs the other way.
"""
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
files = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h"], capture_output=True,
                       text=True, check=True).stdout.split()
layer = {"base": 0, "model": 1, "analysis": 2, "engine": 3, "report": 4, "batch": 5, "diff": 5}
include = re.compile(r'^#include "([^"]+)"', re.M)
wrong = []
for f in files:
    text = open(os.path.join(root, f), encoding="utf-8", errors="replace").read()
    test_code = f.endswith("_test.cc") or f.startswith(("tests/", "tools/", "bench/", "testdata/"))
    parts = f.split("/")
    for inc in include.findall(text):
        top = inc.split("/")[0]
        if not test_code and inc.startswith(("gtest/", "gmock/")):
            wrong.append(f"{f} -> {inc} (production code includes GoogleTest)")
        if test_code:
            continue
        if parts[0] == "analyzer":
            if top in ("parsers", "rules", "capture", "cli", "tests"):
                wrong.append(f"{f} -> {inc}")
            elif top == "analyzer":
                src, dst = layer.get(parts[1]), layer.get(inc.split("/")[1])
                if src is not None and dst is not None and dst > src:
                    wrong.append(f"{f} -> {inc}")
                if parts[1] in ("batch", "diff") and inc.split("/")[1] in ("batch", "diff") \
                        and inc.split("/")[1] != parts[1]:
                    wrong.append(f"{f} -> {inc}")
        elif parts[0] in ("parsers", "rules", "capture") and top in ("cli", "tests"):
            wrong.append(f"{f} -> {inc}")
        elif parts[0] == "parsers" and top == "rules":
            wrong.append(f"{f} -> {inc}")
if wrong:
    print("layering_test: include arrows that run upward:")
    print("\n".join(wrong))
    sys.exit(1)
print(f"layering_test: {len(files)} files, every include arrow points down")
