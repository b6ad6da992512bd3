"""tracelint from Python: analyse GPU profiler traces and get the findings.

    import tracelint
    report = tracelint.analyze("./log/resnet18", batch_size=32)
    report.verdict              # "input"
    for f in report.findings:   # ranked by the step time they would win back
        print(f.rule_id, f.cause, f.recoverable_share, f.fix)
    report.findings_frame()     # a pandas DataFrame (when pandas is installed)
    report                      # in Jupyter: the HTML report

A thin layer over the `tracelint` binary's JSON output (no analysis happens
in Python): keyword options are the CLI's own (`tracelint help --json`),
objects give attribute access to the report's JSON (schema version 1).
Errors: `TracelintError` for a usage error (exit 2), nothing readable (3) or
an unwritable report (6); a result, with its `exit_code`, otherwise (0, 1 a
gate tripped, 4 damaged input, 5 nothing could be judged).
"""

from __future__ import annotations

from ._api import Batch, Diff, Report, analyze, batch, diff, version
from .errors import TracelintError

__all__ = ["analyze", "diff", "batch", "version", "Report", "Diff", "Batch", "TracelintError"]
