#!/usr/bin/env python3
"""Every design document a comment or a doc cites exists in the repository.

A public clone has nothing beside it, so a comment that says "see
contract.md" must find contract.md in the repo (docs/design/ holds the
design decisions the code relies on). Scans the tracked sources and docs for
`something.md` and checks each resolves: relative to the repository root,
to the citing file's folder, or (a bare name) to some file of that name in
the repo. Links into ../shared are reported too: that folder is not part of
a clone.
"""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
root = os.path.abspath(root)
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                       check=True).stdout.split()
by_name = {}
for f in files:
    by_name.setdefault(os.path.basename(f), []).append(f)
# A cited document: `x.md` or `dir/x.md`. Files the tool writes in examples
# (`-o report.md`, `report.md` in backquotes) are outputs, not citations.
ref = re.compile(r"(?<![\w./:`-])((?:\.\./|[\w-]+/)*[\w.-]+\.md)\b(?!`)")
output = re.compile(r"(-o|--output|>)\s*$")
dangling = []
for f in files:
    if not f.endswith((".cc", ".h", ".md", ".py", ".sh", ".txt", ".in", ".proto")):
        continue
    if f.startswith("testdata/"):
        continue
    path = os.path.join(root, f)
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, FileNotFoundError):
        continue
    for n, line in enumerate(text.splitlines(), 1):
        if "://" in line:
            line = re.sub(r"\w+://\S+", "", line)
        if "shared/" + "docs/" in line:  # split: this line is not a citation
            dangling.append(f"{f}:{n}: a page of shared/docs (outside the repository)")
        if f.endswith(".sh") and not line.lstrip().startswith("#"):
            continue
        for m in ref.finditer(line):
            name = m.group(1)
            if output.search(line[:m.start()]):
                continue
            if "../shared" in name:
                dangling.append(f"{f}:{n}: {name} (outside the repository)")
                continue
            candidates = [os.path.normpath(os.path.join(root, name)),
                          os.path.normpath(os.path.join(root, os.path.dirname(f), name))]
            if any(os.path.exists(c) for c in candidates):
                continue
            if "/" not in name and name in by_name:
                continue
            # Files a test or a tool writes, and users' own files, named in prose.
            if name in ("CHANGELOG.md",) or name.startswith(("<", "*")):
                continue
            dangling.append(f"{f}:{n}: {name}")
if dangling:
    print("doc_refs_test: documents cited but not in the repository:")
    print("\n".join(dangling))
    sys.exit(1)
print(f"doc_refs_test: every cited .md of {len(files)} tracked files resolves")
