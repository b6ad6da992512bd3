"""`python -m tracelint ...` runs the same CLI as `tracelint ...`."""

import os
import sys

from ._binary import binary_path
from .errors import TracelintError


def main() -> int:
    try:
        binary = binary_path()
    except TracelintError as e:  # a user's setup problem: one line, no traceback
        print(f"tracelint: {e.message}", file=sys.stderr)
        return e.exit_code
    try:
        os.execv(binary, [binary, *sys.argv[1:]])
    except OSError as e:
        print(f"tracelint: cannot run {binary}: {e.strerror}", file=sys.stderr)
        return 3
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
