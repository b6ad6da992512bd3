"""Where the tracelint binary is, and running it.

The wheel installs the static binary as a script (`<venv>/bin/tracelint`);
TRACELINT_BINARY overrides it (a source build, say)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from functools import lru_cache
from typing import List, Optional, Sequence, Tuple

from .errors import TracelintError


def binary_path() -> str:
    """The tracelint executable this package runs."""
    override = os.environ.get("TRACELINT_BINARY")
    if override:
        return override
    candidates = []
    scripts = sysconfig.get_path("scripts")
    if scripts:
        candidates.append(os.path.join(scripts, "tracelint"))
    candidates.append(os.path.join(os.path.dirname(sys.executable), "tracelint"))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("tracelint")
    if found:
        return found
    raise TracelintError(
        3, "the tracelint binary was not found (install the wheel, or set TRACELINT_BINARY)")


def run(args: Sequence[str], timeout: Optional[float] = None) -> Tuple[int, str, str]:
    """Runs `tracelint ARGS`; returns (exit code, stdout, stderr)."""
    proc = subprocess.run([binary_path(), *args], capture_output=True, timeout=timeout)
    return (proc.returncode, proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"))


@lru_cache(maxsize=1)
def option_table() -> dict:
    """`tracelint help --json`: every command's options (name, type, ...)."""
    code, out, err = run(["help", "--json"])
    if code != 0:
        raise TracelintError(code, err.strip() or "tracelint help --json failed")
    return json.loads(out)


def command_options(command: str) -> List[dict]:
    for c in option_table()["commands"]:
        if c["name"] == command:
            return c["options"]
    raise TracelintError(2, f"the tracelint binary has no '{command}' command")
