#!/usr/bin/env python3
"""HTA's get_temporal_breakdown, restated without pandas, for parity checks.

Follows facebookresearch/HolisticTraceAnalysis (hta/common/trace.py
_filter_irrelevant_gpu_kernels, hta/common/trace_filter.py GPUKernelFilter,
hta/utils/utils.py get_kernel_type, hta/analyzers/breakdown_analysis.py
get_temporal_breakdown), on exact nanosecond times. Prints, per trace:
idle_ns compute_ns non_compute_ns span_ns. Usage: hta_temporal.py TRACE...
"""
import gzip
import json
import sys
from decimal import Decimal


def ns(v):
    return int(Decimal(str(v)) * 1000)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    doc = json.loads(data)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def kernel_type(name):
    if name.startswith("nccl") or "gloo:" in name:
        return "comm"
    if "Memcpy" in name or "Memset" in name:
        return "memory"
    return "compute"


def union(intervals):
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def breakdown(events):
    rows = []
    for e in events:
        if e.get("ph") != "X":
            continue
        args = e.get("args") or {}
        stream = args.get("stream", -1)
        corr = args.get("correlation", -1)
        try:
            stream, corr = int(stream), int(corr)
        except (TypeError, ValueError):
            stream, corr = -1, -1
        ts = ns(e.get("ts", 0))
        rows.append((e.get("name", ""), stream, corr, ts, ts + ns(e.get("dur", 0))))
    sync_names = {"Event Sync", "Context Sync"}
    is_gpu = lambda r: (r[1] >= 0 and r[2] >= 0) or r[0] in sync_names
    step_names = {r[0] for r in rows if r[0].startswith("ProfilerStep")}
    if len(step_names) >= 2:
        cpu = [r for r in rows if not is_gpu(r)]
        last_start = max(r[3] for r in cpu if r[0] in step_names)
        kept_corr = {r[2] for r in cpu if r[3] < last_start}
        rows = [r for r in rows if is_gpu(r) and r[2] in kept_corr]
    gpu = [r for r in rows if r[1] != -1]
    merged = union([(r[3], r[4]) for r in gpu])
    span = merged[-1][1] - merged[0][0]
    busy = sum(e - s for s, e in merged)
    compute = sum(e - s for s, e in union([(r[3], r[4]) for r in gpu
                                          if kernel_type(r[0]) == "compute"]))
    return span - busy, compute, busy - compute, span


if __name__ == "__main__":
    for path in sys.argv[1:]:
        idle, compute, non_compute, span = breakdown(load(path))
        print(f"{path}\t{idle}\t{compute}\t{non_compute}\t{span}")
