"""Keyword options -> command-line flags, from the binary's own option table.

`analyze(path, batch_size=32, rules="-*,gpu-*", set={"gpu-idle-gaps.MinIdleShare": 0.2})`
becomes `--batch-size 32 --rules -*,gpu-* --set gpu-idle-gaps.MinIdleShare=0.2`.
The names come from `tracelint help --json`, so a new CLI option is a new
keyword with no change here. Output-only options (-o, --format, --annotate,
--color, --width, ...) are not keywords: the API always reads JSON."""

from __future__ import annotations

from typing import Any, Dict, List

from ._binary import command_options
from .errors import TracelintError


def keyword_name(option_name: str) -> str:
    """"--batch-size" -> "batch_size"."""
    return option_name.lstrip("-").replace("-", "_")


# Options that change what the command prints rather than what it analyses.
_NOT_KEYWORDS = {"analyze": {"list"}}


def allowed_keywords(command: str) -> Dict[str, dict]:
    out = {}
    for o in command_options(command):
        if o["positional"] or o["output_only"]:
            continue
        if keyword_name(o["name"]) in _NOT_KEYWORDS.get(command, ()):
            continue
        out[keyword_name(o["name"])] = o
    return out


def to_flags(command: str, options: Dict[str, Any]) -> List[str]:
    allowed = allowed_keywords(command)
    flags: List[str] = []
    for key in sorted(options):
        value = options[key]
        if value is None:
            continue
        spec = allowed.get(key)
        if spec is None:
            near = sorted(allowed)
            raise TracelintError(
                2, f"{command}() got an unknown option '{key}'; the options are: {', '.join(near)}")
        name = spec["name"]
        kind = spec["type"]
        if kind == "flag":
            if not isinstance(value, bool):
                raise TracelintError(2, f"{key} takes True or False, not {value!r}")
            if value:
                flags.append(name)
        elif key == "set" and isinstance(value, dict):
            for rule_option in sorted(value):
                flags += [name, f"{rule_option}={value[rule_option]}"]
        elif kind == "strings" and isinstance(value, (list, tuple)):
            for item in value:
                flags += [name, str(item)]
        else:
            if isinstance(value, bool) or isinstance(value, (list, tuple, dict)):
                raise TracelintError(2, f"{key} takes one {kind} value, not {value!r}")
            if kind == "choice" and str(value) not in spec.get("choices", []):
                raise TracelintError(
                    2, f"{key} must be one of {', '.join(spec['choices'])}, not {value!r}")
            flags += [name, str(value)]
    return flags
