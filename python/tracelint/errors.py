"""The one exception the API raises."""

from __future__ import annotations


class TracelintError(Exception):
    """tracelint could not give a result: a usage error (exit 2), nothing
    readable (3), or the report could not be written (6).

    `exit_code` is tracelint's own (docs/ci.md); `message` its stderr."""

    def __init__(self, exit_code: int, message: str):
        super().__init__(f"tracelint exited {exit_code}: {message}")
        self.exit_code = exit_code
        self.message = message
