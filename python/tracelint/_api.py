"""analyze, diff and batch: the binary's commands with JSON output."""

from __future__ import annotations

import html
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

from ._binary import run
from ._json import Node, NodeList, wrap
from ._options import to_flags
from .errors import TracelintError

PathLike = Union[str, "os.PathLike[str]"]

# Exit codes that give no result (docs/ci.md): usage error, nothing readable,
# the report could not be written.
_RAISING = (2, 3, 6)


def _paths(path_or_paths: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(path_or_paths, (str, os.PathLike)):
        return [os.fspath(path_or_paths)]
    paths = [os.fspath(p) for p in path_or_paths]
    if not paths:
        raise TracelintError(2, "no trace path given")
    return paths


def _warnings(stderr: str) -> List[str]:
    prefix = "tracelint: warning: "
    return [line[len(prefix):] for line in stderr.splitlines() if line.startswith(prefix)]


def _message(stderr: str) -> str:
    lines = [l[len("tracelint: "):] if l.startswith("tracelint: ") else l
             for l in stderr.splitlines() if l.strip()]
    return "\n".join(lines) or "no message"


def _pandas():
    try:
        import pandas  # noqa: F401  (optional dependency)
    except ImportError as e:
        raise ImportError("the *_frame() methods need pandas (pip install pandas)") from e
    return pandas


class _Result(Node):
    """Common to every result: the JSON, the exit code and the warnings."""

    __slots__ = ("_exit_code", "_warnings", "_html_args", "_html")

    def __init__(self, data: dict, exit_code: int, warnings: List[str], html_args: List[str]):
        super().__init__(data)
        object.__setattr__(self, "_exit_code", exit_code)
        object.__setattr__(self, "_warnings", warnings)
        object.__setattr__(self, "_html_args", html_args)
        object.__setattr__(self, "_html", None)

    @property
    def exit_code(self) -> int:
        """The exit code the CLI gave: 0, 1 (a gate tripped), 4 (damaged
        input, partial analysis) or 5 (nothing could be judged)."""
        return self._exit_code

    @property
    def warnings(self) -> List[str]:
        """Warnings the CLI printed (damaged input, skipped files, ...)."""
        return list(self._warnings)

    def to_dict(self) -> dict:
        """The whole JSON document."""
        return self._data

    def html(self) -> str:
        """The same result as tracelint's self-contained HTML page."""
        if self._html is None:
            code, out, err = run(self._html_args)
            if code in _RAISING:
                raise TracelintError(code, _message(err))
            object.__setattr__(self, "_html", out)
        return self._html

    def _repr_html_(self) -> str:
        # An iframe keeps the page's styles out of the notebook's.
        return ('<iframe style="width:100%;height:720px;border:0" srcdoc="'
                + html.escape(self.html(), quote=True) + '"></iframe>')


class Report(_Result):
    """`tracelint analyze --format json` (report.schema.json, schema version 1).

    `verdict` ("input", "host", "communication", "copies", "gpu compute" or
    "not judgeable"), `verdict_text`, `findings` (ranked; each with rule_id,
    cause, severity, recoverable_ns_per_step, recoverable_share, fix,
    location, fingerprint, ...), `ranks`, `integrity`, and every other field
    of the JSON report by name."""

    __slots__ = ()

    def steps_frame(self):
        """One row per rank, analysed step and device: step time, utilization
        and the breakdown in ns."""
        pd = _pandas()
        rows = []
        for r in self._data.get("ranks", []):
            for s in r.get("per_step", []):
                for d in s.get("devices", []):
                    row = {"rank": r.get("rank"), "step": s.get("step"),
                           "start_ns": s.get("start_ns"), "end_ns": s.get("end_ns")}
                    for k, v in d.items():
                        if k == "breakdown_ns":
                            row.update({f"{c}_ns": ns for c, ns in v.items()})
                        elif not isinstance(v, (dict, list)):
                            row[k] = v
                    rows.append(row)
        return pd.DataFrame(rows)

    def kernels_frame(self):
        """Every kernel of the analysed steps, per rank: count and device time."""
        return self._named_frame("kernels")

    def ops_frame(self):
        """Every op that launched device work, per rank: calls and device time."""
        return self._named_frame("ops")

    def findings_frame(self):
        """One row per finding, in rank order."""
        pd = _pandas()
        rows = []
        for f in self._data.get("findings", []):
            row = {k: v for k, v in f.items() if not isinstance(v, (dict, list))}
            loc = f.get("location") or {}
            row["rank"] = loc.get("rank")
            row["first_step"] = loc.get("first_step")
            row["last_step"] = loc.get("last_step")
            rows.append(row)
        return pd.DataFrame(rows)

    def _named_frame(self, key: str):
        pd = _pandas()
        rows = []
        for r in self._data.get("ranks", []):
            for item in r.get(key, []):
                rows.append({"rank": r.get("rank"), **item})
        return pd.DataFrame(rows)


class Diff(_Result):
    """`tracelint diff --format json` (diff.schema.json): metrics with their
    significance, findings added/removed/changed, kernels and ops."""

    __slots__ = ()


class Batch(_Result):
    """`tracelint batch --format json` (batch.schema.json): one row per run;
    a run that could not be read is a row with its `status` and `error`."""

    __slots__ = ()

    def html(self) -> str:
        """The runs as an HTML table (batch has no HTML page of its own)."""
        cols = ["run", "status", "ranks", "steps", "mean_step_ns", "gpu_utilization",
                "findings", "recoverable_share", "top_finding"]
        head = "".join(f"<th>{c}</th>" for c in cols)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in cols) + "</tr>"
            for r in self._data.get("runs", []))
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def _repr_html_(self) -> str:
        return self.html()

    def runs_frame(self):
        """One row per run."""
        pd = _pandas()
        return pd.DataFrame([{k: v for k, v in r.items() if not isinstance(v, (dict, list))}
                             for r in self._data.get("runs", [])])


def _json_command(command: str, positionals: List[str], options: Dict[str, Any],
                  timeout: Optional[float]):
    flags = to_flags(command, options)
    args = [command, *positionals, "--format", "json", "-o", "-", *flags]
    code, out, err = run(args, timeout=timeout)
    data = None
    if code not in _RAISING or command == "batch":
        try:
            data = json.loads(out) if out.strip() else None
        except json.JSONDecodeError:
            data = None
    html_args = [command, *positionals, "--format", "html", "-o", "-", *flags]
    return code, data, err, html_args


def analyze(path_or_paths: Union[PathLike, Sequence[PathLike]], *,
            timeout: Optional[float] = None, **options: Any) -> Report:
    """Analyses one run: a trace file, a run directory, or the rank files of
    one run. Keyword options are `tracelint analyze`'s (`rules`, `set`,
    `batch_size`, `price_per_hour`, `span`, `run`, `threads`, limits, gates,
    `baseline`, ...; `tracelint help --json` lists them)."""
    code, data, err, html_args = _json_command("analyze", _paths(path_or_paths), options, timeout)
    if code in _RAISING or data is None:
        raise TracelintError(code, _message(err))
    return Report(data, code, _warnings(err), html_args)


def diff(base: PathLike, new: PathLike, *, timeout: Optional[float] = None,
         **options: Any) -> Diff:
    """Compares two runs (traces, run directories or saved JSON reports) step
    by step: what changed beyond run-to-run noise."""
    code, data, err, html_args = _json_command(
        "diff", [os.fspath(base), os.fspath(new)], options, timeout)
    if code in _RAISING or data is None:
        raise TracelintError(code, _message(err))
    return Diff(data, code, _warnings(err), html_args)


def batch(paths: Union[PathLike, Sequence[PathLike]], *, timeout: Optional[float] = None,
          **options: Any) -> Batch:
    """Analyses every run under the paths into one table. Raises only when no
    run could be read (or on a usage error); otherwise every run is a row,
    those that failed with their error."""
    code, data, err, html_args = _json_command("batch", _paths(paths), options, timeout)
    runs = (data or {}).get("runs", [])
    readable = [r for r in runs if r.get("status") not in ("error", "missing")]
    if code in (2, 6) or data is None or not readable:
        raise TracelintError(code, _message(err))
    return Batch(data, code, _warnings(err), html_args)


def version() -> str:
    """The binary's version: "tracelint 0.1.0"."""
    code, out, err = run(["version"])
    if code != 0:
        raise TracelintError(code, _message(err))
    return out.strip()
