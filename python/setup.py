"""Builds the tracelint wheel around a prebuilt static binary.

scripts/release.sh runs `python3 -m build --no-isolation --wheel python`
with TRACELINT_WHEEL_BINARY pointing at dist/tracelint (and
TRACELINT_WHEEL_INJECT at the capture injection library, when built). The
binary becomes the wheel's `tracelint` script (pip puts it on the PATH), the
injection library package data beside the Python package; the platform tags
are set afterwards by scripts/repack_wheel.py, since the tags describe the
binary, not Python.
"""

import os
import re
import shutil

from setuptools import setup

here = os.path.dirname(os.path.abspath(__file__))
cmake = open(os.path.join(here, "..", "CMakeLists.txt"), encoding="utf-8").read()
version = re.search(r"project\(tracelint VERSION ([0-9.]+)", cmake).group(1)

binary = os.environ.get("TRACELINT_WHEEL_BINARY")
if not binary or not os.path.isfile(binary):
    raise SystemExit("setup.py: set TRACELINT_WHEEL_BINARY to the static tracelint binary "
                     "(scripts/release.sh does)")
staged = os.path.join(here, "build_bin")
os.makedirs(staged, exist_ok=True)
shutil.copy2(binary, os.path.join(staged, "tracelint"))

package_data = {}
inject = os.environ.get("TRACELINT_WHEEL_INJECT")
if inject and os.path.isfile(inject):
    libdir = os.path.join(here, "tracelint", "lib")
    os.makedirs(libdir, exist_ok=True)
    shutil.copy2(inject, os.path.join(libdir, os.path.basename(inject)))
    package_data["tracelint"] = ["lib/*.so"]

setup(version=version, scripts=["build_bin/tracelint"], package_data=package_data,
      include_package_data=bool(package_data))
