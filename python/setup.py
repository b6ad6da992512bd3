"""Builds the tracelint wheel around a prebuilt static binary.

scripts/release.sh runs `python3 -m build --no-isolation --wheel python`
with TRACELINT_WHEEL_BINARY pointing at dist/tracelint (and
TRACELINT_WHEEL_INJECT at the capture injection library, when built). The
binary becomes the wheel's `tracelint` script, copied byte for byte (pip
puts it on the PATH); the injection library is data installed at
<prefix>/lib/tracelint/, where the binary looks for it (bin/../lib/tracelint,
as after `cmake --install`). The platform tags are set afterwards by
scripts/repack_wheel.py, since the tags describe the binary, not Python.
"""

import os
import re
import shutil

from setuptools import setup

try:
    from setuptools.command.build_scripts import build_scripts
except ImportError:  # setuptools < 69 (Debian 12's 66): its bundled distutils
    from distutils.command.build_scripts import build_scripts

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

data_files = []
inject = os.environ.get("TRACELINT_WHEEL_INJECT")
if inject and os.path.isfile(inject):
    shutil.copy2(inject, os.path.join(staged, os.path.basename(inject)))
    data_files.append(("lib/tracelint", ["build_bin/" + os.path.basename(inject)]))


class CopyBinary(build_scripts):
    """The script is an ELF executable: copied as it is (distutils would
    read it as Python source to fix a #! line)."""

    def copy_scripts(self):
        self.mkpath(self.build_dir)
        outfiles = []
        for script in self.scripts:
            out = os.path.join(self.build_dir, os.path.basename(script))
            self.copy_file(script, out)
            os.chmod(out, 0o755)
            outfiles.append(out)
        return outfiles, outfiles


setup(version=version, scripts=["build_bin/tracelint"], data_files=data_files,
      cmdclass={"build_scripts": CopyBinary})
