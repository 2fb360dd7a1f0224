"""The aslref oracle's throughput: spec against pto-spec's ASL, pooled runs beside one run a batch (the anchor).

    PTO_ASLREF=... PTO_SPEC_ASL=... python benchmarks/bench_aslref.py [--runs 32] [--ops trowsum,tadd,tcmp]

For each instruction, one seeded ``spec,aslref`` campaign of ``--runs`` cases, tiles of at most 128 elements, batches
of 8 (TROWSUM draws one case a batch): once with the cases handed to the interpreter 64 at a time however many
batches that takes (ptofuzz's default) and once with one interpreter run a batch (what a non-pooled oracle does).
Prints cases per second of each and their ratio; exits 1 when pooling is slower than the anchor anywhere (target:
not slower; the load, about 3.5 s a run, is paid once per 64 cases instead of once per batch).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time


def measure(op: str, runs: int, pool: int) -> tuple[float, int]:
    from ptofuzz.backends.aslref import AslrefSettings
    from ptofuzz.engine import campaign

    plan = campaign.make_plan(op, ["spec", "aslref"], seed=1, batch=8, max_elements=128,
                              aslref=dataclasses.replace(AslrefSettings(), pool=pool))
    start = time.perf_counter()
    _, stats = campaign.run_random(plan, runs=runs)
    return time.perf_counter() - start, stats.cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=32)
    ap.add_argument("--ops", default="trowsum,tadd,tcmp")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON too")
    args = ap.parse_args()
    rows = []
    print(f"{'instruction':12s} {'pooled (64)':>14s} {'a run a batch':>14s} {'ratio':>7s}")
    for op in args.ops.split(","):
        pooled, n = measure(op, args.runs, 64)
        anchor, m = measure(op, args.runs, 1)
        row = {"op": op, "cases": n, "pooled_cases_per_s": round(n / pooled, 2),
               "anchor_cases_per_s": round(m / anchor, 2), "speedup": round(anchor / pooled, 2)}
        rows.append(row)
        print(f"{op:12s} {row['pooled_cases_per_s']:>10.2f} c/s {row['anchor_cases_per_s']:>10.2f} c/s "
              f"{row['speedup']:>6.2f}x", flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0 if all(r["speedup"] >= 1.0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
