#!/usr/bin/env python
"""Time pto-spec TSORT of a 64x4096 float32 tile against ``np.argsort(kind="stable")`` on the same data.

A 64x4096 float32 tile is 1 MiB, more than any pto-spec tile may hold (a Shared tile is at most 256 KiB), so
the spec oracle itself reports Fault_TileLegality for it; the benchmark therefore times the oracle's sorting
kernel (``ptofuzz.oracles.sort.group_sort``: groups of ``--width``, default 32, NaNs last, +0 == -0, values
and U32 in-group indices, plus the NV check), which is what the oracle runs on every legal tile. The floor is
one stable argsort per row of the raw float32 values plus the gather of the values.
Target: the oracle within 3x of the floor (median of ``--repeat`` runs). Not part of the pytest suite.

    python benchmarks/bench_tsort.py [--repeat 7] [--width 32]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Tile
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee
from ptofuzz.oracles.sort import group_sort

TARGET = 3.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--cols", type=int, default=4096)
    args = ap.parse_args()
    dt = dtypes.get("float32")
    bits = values.draw(seeded(1, "bench"), dt, (args.rows, args.cols), values.ValueMix.parse("sort", 0.05))
    tile = Tile(args.rows, args.cols, args.rows, args.cols)
    case = Case("TSORT", "spec", "float32", (("src", tile), ("dst", tile), ("idx", tile)),
                (("sort_width", args.width), ("descending", 1)))
    outcome = registry.get("TSORT").evaluate(case, {"src": bits})
    print(f"spec TSORT oracle on the whole {args.rows}x{args.cols} tile: {outcome.kind}"
          + (f" ({outcome.fault.name}: {outcome.reason})" if outcome.fault else ""))

    def kernel() -> None:
        group_sort(bits, args.cols, args.width, dt, descending=True)
        ieee.is_snan(bits, dt).any()

    kernel()  # warm-up, and a check that the values really are sorted
    values_sorted, index = group_sort(bits, args.cols, args.width, dt, descending=True)
    assert index.max() < args.width and values_sorted.shape == bits.shape
    floats = bits.view(np.float32)

    def floor() -> None:
        order = np.argsort(floats, axis=-1, kind="stable")
        np.take_along_axis(floats, order, axis=-1)

    ours, base = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        kernel()
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        floor()
        base.append(time.perf_counter() - t)
    o, b = statistics.median(ours), statistics.median(base)
    ratio = o / b
    print(f"TSORT {args.rows}x{args.cols} float32 width {args.width}: ptofuzz {o * 1e3:.1f} ms, "
          f"np.argsort(kind='stable') {b * 1e3:.1f} ms, ratio {ratio:.2f}x (target {TARGET}x) "
          f"{'PASS' if ratio <= TARGET else 'FAIL'}")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
