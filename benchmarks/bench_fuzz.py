#!/usr/bin/env python
"""Fuzzing throughput: the random engine's cases/s and the atheris engine's execs/s.

Workload (the issue's): TPARTADD, float32, 16x16 tiles, all four oracles (spec, cpu, a2a3, a5) compared on every
case, findings kept in memory (no --out). ``--op tpartargmax``: the same for TPARTARGMAX (value and uint32 index
tiles) with its default oracles cpu, a2a3, a5. ``--op tsort32`` / ``tmrgsort`` / ``tsort``: the sorts' campaigns as
``ptofuzz fuzz OP`` runs them (default oracles cpu, a2a3, a5; TSORT: spec,bundle; the random engine's own small
geometries), target >= 20,000 cases/s (issue 15).

``--op elementwise``: the elementwise family and the generation family (float32 16x16; TNOT and the bitwise ops
int32; TCI int32 in one row of 256; oracles spec, cpu, a5, TLRELU cpu and a5), each measured beside
TPARTADD on the same workload in the same run (its anchor), target >= 20,000 cases/s each (issue 36).

``--op conversion``: TCVT from float32, float16 and int32 sources (any destination the platforms convert to,
every rounding mode and saturation form drawn; a quarter of each tile the pair's boundary values) with oracles
spec, cpu, a5, TDEQUANT (cpu, a5) and TQUANT (cpu, a2a3, a5: INT8 and MX), 16x16 (TQUANT 16x32, one MX group
a row), each beside TPARTADD in the same run, target >= 10,000 cases/s
each (issue 37: three exact conversions of every element per case).

``--jobs 1,2`` (the default for the sorts) times the random engine with each number of processes (``--jobs N``), so
that the speed-up of a second process shows; ``--jobs 1`` times one process only.

* random engine: ``campaign.run_random`` in this process (one core), ``--cases`` cases (default 300,000), best
  of ``--repeat`` runs (default 3); target >= 60,000 cases/s;
* atheris engine: ``atheris_engine.run`` for ``--seconds`` (default 20) in its child process (one core); each
  fuzzer input decodes a batch of cases; cases/s and execs/s (inputs/s) are over the child's fuzzing time
  (imports and instrumentation excluded); target >= 10,000 cases/s.

Both engines are measured in the same run, one after the other.

Exit status 1 when a target is missed. Not part of the pytest suite:

    python benchmarks/bench_fuzz.py [--op tpartadd|tpartargmax|tsort32|tmrgsort|tsort|elementwise] [--cases 300000]
        [--repeat 3] [--seconds 20] [--only random|atheris] [--jobs 1,2]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time

from ptofuzz.engine import campaign

RANDOM_TARGET = 60_000
SORT_TARGET = 20_000  # cases/s of the sorts' campaigns (issue 15)
SORTS = {"tsort32": None, "tmrgsort": None, "tsort": ["spec", "bundle"]}  # the oracles `fuzz OP` is run with
ELEMENTWISE = ("tpartadd", "tadd", "tsub", "tmul", "tmax", "tmin", "tadds", "tsubs", "tmuls", "tmaxs", "tmins",
               "tlrelu", "tabs", "tneg", "trelu", "tnot",
               "tand", "tor", "txor", "tshl", "tshr", "tands", "tors", "txors", "tshls", "tshrs",
               "tcmp", "tcmps", "tsel", "tsels")  # the anchor first
INTEGER_ONLY = ("tnot", "tand", "tor", "txor", "tshl", "tshr", "tands", "tors", "txors", "tshls", "tshrs")
ELEMENTWISE += ("texpands", "tci", "ttri")  # the generation family (TCI, TTRI: batches of per-item parameters)
SHAPES = {"tci": (1, 256)}  # TCI writes one row: 16x16's 256 elements in it
DTYPES = {"tci": "int32"}  # TCI's cpu and a5 types are integers
NO_SPEC = ("tlrelu",)  # pto-spec has no TLRELU
ELEMENTWISE_TARGET = 20_000  # cases/s, 16x16, spec,cpu,a5 (issue 36)
ATHERIS_TARGET = 10_000  # cases/s
# the conversion family: (op, source dtype, oracles); TPARTADD the anchor
CONVERSION = (("tpartadd", "float32", ("spec", "cpu", "a5")), ("tcvt", "float32", ("spec", "cpu", "a5")),
              ("tcvt", "float16", ("spec", "cpu", "a5")), ("tcvt", "int32", ("spec", "cpu", "a5")),
              ("tdequant", None, ("cpu", "a5")), ("tquant", None, ("cpu", "a2a3", "a5")))
CONVERSION_TARGET = 10_000  # cases/s, 16x16 (issue 37)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=300_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", choices=("random", "atheris"))
    ap.add_argument("--op", choices=("tpartadd", "tpartargmax", *SORTS, "elementwise", "conversion"),
                    default="tpartadd")
    ap.add_argument("--jobs", default=None, help="comma list of process counts for the random engine "
                                                 "(default 1; the sorts: 1,2)")
    args = ap.parse_args(argv)
    if args.op == "elementwise":
        return elementwise(args)
    if args.op == "conversion":
        return conversion(args)
    sort = args.op in SORTS
    if sort:
        plan = campaign.make_plan(args.op, SORTS[args.op], seed=args.seed)
        print(f"{plan.op}, the random engine's geometries, oracles {','.join(plan.oracles)} "
              f"(python {platform.python_version()})")
    else:
        plan = campaign.make_plan(args.op, None, seed=args.seed, dtype="float32", shape=(16, 16),
                                  index_dtype="uint32" if args.op == "tpartargmax" else None)
        print(f"{plan.op} float32 16x16, oracles {','.join(plan.oracles)} (python {platform.python_version()})")
    target = SORT_TARGET if sort else RANDOM_TARGET
    jobs = [int(j) for j in (args.jobs or ("1,2" if sort else "1")).split(",")]
    rows = []
    if args.only in (None, "random"):
        campaign.run_random(plan, runs=20_000)  # warm-up: imports, registry, first allocations
        for n_jobs in jobs:
            best = 0.0
            sigs = 0
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                store, stats = campaign.run_random(plan, runs=args.cases, jobs=n_jobs)
                rate = stats.cases / (time.perf_counter() - t0)
                best, sigs = max(best, rate), len(store.findings)
            rows.append((f"random engine, --jobs {n_jobs}", f"{best:,.0f} cases/s", target, best,
                         f"{args.cases:,} cases, best of {args.repeat}, {sigs} signatures"))
    if args.only in (None, "atheris"):
        from ptofuzz.engine import atheris_engine

        data, _ = atheris_engine.run(plan, seconds=args.seconds)
        rate = data["cases"] / data["elapsed_s"] if data["elapsed_s"] else 0.0
        rows.append(("atheris engine, 1 process", f"{rate:,.0f} cases/s", ATHERIS_TARGET, rate,
                     (f"{data['cases']:,} cases from {data['execs']:,} fuzzer inputs ({data['execs_per_s']:,.0f} "
                      f"execs/s) in {data['elapsed_s']:.1f} s, {len(data['signatures'])} signatures")))
    failed = False
    for name, shown, target, value, note in rows:
        ok = value >= target
        failed |= not ok
        print(f"{name:28} {shown:>18}  target >= {target:,}  {'PASS' if ok else 'FAIL'}  ({note})")
    return 1 if failed else 0


def _best_rate(plan: campaign.Plan, args: argparse.Namespace) -> tuple[float, int]:
    """The random engine's best cases/s over ``--repeat`` runs of ``--cases`` (after a warm-up), and the
    number of signatures found."""
    campaign.run_random(plan, runs=20_000)  # warm-up: imports, registry, first allocations
    best, sigs = 0.0, 0
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        store, stats = campaign.run_random(plan, runs=args.cases)
        best, sigs = max(best, stats.cases / (time.perf_counter() - t0)), len(store.findings)
    return best, sigs


def elementwise(args: argparse.Namespace) -> int:
    """The elementwise family beside TPARTADD: float32 16x16 (TNOT and the bitwise ops int32), spec,cpu,a5, the
    random engine in this process."""
    print(f"float32 (TNOT, bitwise, TCI int32) 16x16 (TCI 1x256), oracles spec,cpu,a5, random engine, "
          f"{args.cases:,} cases, best of {args.repeat} (python {platform.python_version()})")
    failed = False
    for op in ELEMENTWISE:
        dtype = DTYPES.get(op, "int32" if op in INTEGER_ONLY else "float32")  # TNOT, bitwise: integers only
        oracles = ["cpu", "a5"] if op in NO_SPEC else ["spec", "cpu", "a5"]
        plan = campaign.make_plan(op, oracles, seed=args.seed, dtype=dtype, shape=SHAPES.get(op, (16, 16)))
        best, sigs = _best_rate(plan, args)
        if op == ELEMENTWISE[0]:
            print(f"{op.upper():9} {best:>12,.0f} cases/s  (anchor)  ({sigs} signatures)")
            continue
        ok = best >= ELEMENTWISE_TARGET
        failed |= not ok
        print(f"{op.upper():9} {best:>12,.0f} cases/s  target >= {ELEMENTWISE_TARGET:,}  {'PASS' if ok else 'FAIL'}  "
              f"({sigs} signatures)")
    return 1 if failed else 0


def conversion(args: argparse.Namespace) -> int:
    """TCVT from three source types and TDEQUANT beside TPARTADD, 16x16, the random engine in this process."""
    print(f"16x16, random engine, {args.cases:,} cases, best of {args.repeat} (python {platform.python_version()})")
    failed = False
    for k, (op, dtype, oracles) in enumerate(CONVERSION):
        extra = {"dtype": dtype} if dtype else {}
        plan = campaign.make_plan(op, list(oracles), seed=args.seed, shape=(16, 32) if op == "tquant" else (16, 16),
                                  **extra)
        best, sigs = _best_rate(plan, args)
        name = f"{op.upper()} {dtype or ''}".strip()
        if k == 0:
            print(f"{name:18} {best:>12,.0f} cases/s  (anchor, {','.join(oracles)})")
            continue
        ok = best >= CONVERSION_TARGET
        failed |= not ok
        print(f"{name:18} {best:>12,.0f} cases/s  target >= {CONVERSION_TARGET:,}  {'PASS' if ok else 'FAIL'}  "
              f"({','.join(oracles)}; {sigs} signatures)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
