#!/usr/bin/env python
"""Native coverage: the atheris engine guided by the simulator's own branches, against the same engine without.

Needs a pto-isa tree (``--pto-isa DIR`` or ``PTO_ISA_DIR``), clang++ and atheris. Two measurements, each running
the two modes side by side (at the same time, one process each, so that they share the machine's load alike):

* coverage: ``ptofuzz fuzz OP --engine atheris --oracles cpu,cpusim --time T --corpus DIR`` with
  ``--native-coverage`` and with ``--no-native-coverage``, for each OP (default TMRGSORT and TCVT, 10 minutes).
  libFuzzer's ``cov:`` during a run counts different things in the two modes (the simulator's PCs and the oracles'
  in one, the oracles' alone in the other), so each final corpus is then run once (libFuzzer ``-runs=0``) through
  the same native-coverage build with the Python oracles left uninstrumented: the ``cov:`` it reports is the
  simulator code that corpus reaches, measured the same way for both;
* a planted bug: ``--sim-plant deep`` (a ``-DPTOFUZZ_PLANTS`` build: a TMRGSORT case whose first three lists hold
  23, 41 and 7 records gets a wrong first output byte, behind three nested compares in the harness's simulator
  path) fuzzed with and without native coverage until the first finding or ``--plant-minutes``, one input one
  case (``--batch 1``: a batched input's thousand compares would overwrite libFuzzer's small table of recent
  compares, which is what hands the mutator the constant), once per ``--plant-seeds`` seed; the time of the first
  finding is when its record folder appears in ``--out``.

Exit status 1 when native coverage does not reach more simulator code than the run without it on every OP, or
does not find the planted bug first. Not part of the pytest suite:

    python benchmarks/bench_native_coverage.py [--minutes 10] [--ops tmrgsort,tcvt] [--plant-minutes 10]
                                               [--plant-seeds 1,2,3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("--native-coverage", "--no-native-coverage")

MEASURE = """
import sys
import atheris
from ptofuzz.backends.cpusim import build
from ptofuzz.engine import atheris_engine, campaign

op, tree = sys.argv[1], sys.argv[2]
sim = build.Settings(pto_isa=tree, coverage=True, ops=(op.upper(),))
plan = campaign.make_plan(op, ["cpu", "cpusim"], sim=sim)
plan.backends.prepare()
atheris.Setup([sys.argv[0], *sys.argv[3:]], atheris_engine.target(plan, None))
atheris.Fuzz()
"""


def ptofuzz() -> list[str]:
    script = Path(sys.executable).with_name("ptofuzz")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ptofuzz"]


def fuzz(op: str, mode: str, seconds: float, folder: Path, extra: list[str]) -> subprocess.Popen[str]:
    cmd = [*ptofuzz(), "fuzz", op, "--engine", "atheris", "--oracles", "cpu,cpusim", "--time", f"{seconds:g}",
           "--json", mode, *extra]
    return subprocess.Popen(cmd, stdout=open(folder / "campaign.out", "w"), stderr=subprocess.DEVNULL, text=True,
                            cwd=folder, start_new_session=True)


def measured_cov(op: str, tree: str, corpus: Path, work: Path) -> int:
    """The simulator PCs ``corpus`` reaches: run once through the native-coverage build, oracles uninstrumented."""
    script = work / "measure.py"
    script.write_text(MEASURE)
    out = subprocess.run([sys.executable, str(script), op, tree, "-runs=0", str(corpus)], capture_output=True,
                         text=True, cwd=work, check=False)
    found = re.findall(r"INITED cov: (\d+)", out.stderr)
    if not found:
        raise SystemExit(f"measuring {corpus} failed: {out.stderr.strip()[-400:]}")
    return int(found[-1])


def coverage(op: str, tree: str, seconds: float, work: Path) -> dict[str, dict[str, int]]:
    procs = {}
    for mode in MODES:
        folder = work / f"{op}{mode}"
        (folder / "corpus").mkdir(parents=True)
        procs[mode] = fuzz(op, mode, seconds, folder, ["--corpus", str(folder / "corpus")])
    result = {}
    for mode, proc in procs.items():
        proc.wait()
        folder = work / f"{op}{mode}"
        data = json.loads((folder / "campaign.out").read_text())
        result[mode] = {"execs": int(data["execs"]), "cases": int(data["cases"]),
                        "run_cov": int(data["libfuzzer"]["cov"]),
                        "corpus": sum(1 for _ in (folder / "corpus").iterdir()),
                        "sim_cov": measured_cov(op, tree, folder / "corpus", folder)}
    return result


def plant(seconds: float, work: Path, seed: int) -> dict[str, float | None]:
    """Seconds to the first finding of the planted bug per mode (None: not within ``seconds``)."""
    procs, found = {}, {}
    start = time.perf_counter()
    for mode in MODES:
        folder = work / f"plant{seed}{mode}"
        folder.mkdir(parents=True)
        procs[mode] = fuzz("tmrgsort", mode, seconds, folder, ["--sim-plant", "deep", "--batch", "1", "--seed",
                                                               str(seed), "--out", str(folder / "out")])
    while len(found) < len(procs) and time.perf_counter() - start < seconds + 120:
        time.sleep(0.5)
        for mode, proc in procs.items():
            if mode in found:
                continue
            records = list((work / f"plant{seed}{mode}" / "out").glob("*/record.json"))
            if records:
                found[mode] = time.perf_counter() - start
                os.killpg(proc.pid, signal.SIGINT)
            elif proc.poll() is not None:
                found[mode] = None
    for proc in procs.values():
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
    return {mode: found.get(mode) for mode in MODES}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pto-isa", default=os.environ.get("PTO_ISA_DIR"))
    ap.add_argument("--ops", default="tmrgsort,tcvt")
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--plant-minutes", type=float, default=10.0)
    ap.add_argument("--plant-seeds", default="1", help="comma list: one planted-bug race per seed")
    args = ap.parse_args(argv)
    if not args.pto_isa:
        print("needs a pto-isa tree: --pto-isa DIR or PTO_ISA_DIR")
        return 2
    os.environ["PTO_ISA_DIR"] = args.pto_isa
    work = Path(tempfile.mkdtemp(prefix="bench-native-"))
    ok = True
    try:
        for op in [o.strip() for o in args.ops.split(",") if o.strip()]:
            res = coverage(op, args.pto_isa, args.minutes * 60, work)
            nat, plain = res["--native-coverage"], res["--no-native-coverage"]
            print(f"{op}: {args.minutes:g} min each, side by side")
            for mode, r in res.items():
                print(f"  {mode:22} simulator cov {r['sim_cov']:6d}   run cov {r['run_cov']:6d}   corpus "
                      f"{r['corpus']:5d}   execs {r['execs']:8d}   cases {r['cases']:10d}")
            ratio = nat["sim_cov"] / max(1, plain["sim_cov"])
            print(f"  simulator coverage, native / without: {ratio:.2f}x")
            ok &= nat["sim_cov"] > plain["sim_cov"]
        for seed in [int(s) for s in args.plant_seeds.split(",") if s.strip()] if args.plant_minutes > 0 else []:
            first = plant(args.plant_minutes * 60, work, seed)
            print(f"planted bug (TMRGSORT, --sim-plant deep --batch 1 --seed {seed}), up to {args.plant_minutes:g} "
                  "min each, side by side")
            for mode, t in first.items():
                print(f"  {mode:22} first finding " + (f"after {t:.1f} s" if t is not None else "none"))
            nat_t, plain_t = first["--native-coverage"], first["--no-native-coverage"]
            ok &= nat_t is not None and (plain_t is None or nat_t < plain_t)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
