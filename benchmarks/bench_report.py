#!/usr/bin/env python
"""Time a 1024x1024 float32 diff report: read both files, compare (all classes, ResultCmp), render the summary,
first differences and heat map (to a 120-column console without colour, as in a CI log, and once recorded for
an HTML export). Target: under 2 s. Not part of the pytest suite:

    python benchmarks/bench_report.py [--repeat 5] [--mismatches 20000]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console

from ptofuzz import api
from ptofuzz.core import dtypes
from ptofuzz.engine.compare import Mode
from ptofuzz.report import comparisons as report

TARGET = 2.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mismatches", type=int, default=20_000)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    exp = rng.standard_normal((1024, 1024)).astype(np.float32)
    act = exp.copy()
    idx = rng.integers(0, 1024 * 1024, args.mismatches)
    act.view(np.uint32).reshape(-1)[idx] += rng.integers(1, 40, idx.size).astype(np.uint32)  # ULP errors
    act[700] = 0  # a missing row
    act.view(np.uint32)[100, 5] = 0x7FC00001
    with tempfile.TemporaryDirectory() as d:
        g, o = Path(d) / "golden.bin", Path(d) / "output.bin"
        exp.tofile(g)
        act.tofile(o)
        times = []
        for k in range(args.repeat + 1):
            t0 = time.perf_counter()
            (res,) = [api.diff_files(g, o, "float32", (1024, 1024), valid=(1000, 1000), mode=Mode(), eps=1e-3)]
            con = Console(file=io.StringIO(), width=120, color_system=None, record=k % 2 == 1)
            report.comparison_lines(con, res.comparison, dtypes.get("float32"),
                                    res.shape, res.valid, res.label, res.reproduce)
            if con.record:
                con.export_html()
            if k:  # the first run warms imports and caches
                times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    ok = med < TARGET
    print(f"1024x1024 float32 diff report ({res.comparison.mismatches:,} differences): median {med:.3f} s, "
          f"best {min(times):.3f} s over {len(times)} runs; target < {TARGET} s: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
