#!/usr/bin/env python
"""Native coverage: the atheris engine guided by the simulator's own branches, against the same engine without.

Needs a pto-isa tree (``--pto-isa DIR`` or ``PTO_ISA_DIR``), clang++ and atheris. Two measurements, each running
the two modes side by side (at the same time, one process each, so that they share the machine's load alike):

* coverage reached in ``--minutes`` (default 10) per OP (default TMRGSORT and TCVT), counted the same way in both
  modes: the simulator's coverage counters of the native-coverage build (``-fsanitize=fuzzer-no-link``) that were
  ever hit. With native coverage: ``ptofuzz fuzz OP --engine atheris --oracles cpu,cpusim --corpus DIR``, whose
  corpus holds an input for everything libFuzzer saw, replayed afterwards through the library in a process of its
  own (no fuzzer: the library counts its own counters). Without: the same engine (the same decoding, oracles,
  Python instrumentation, libFuzzer options) with the same library in process but libFuzzer never told of its
  counters, so only the oracles guide it, and the library counts what the run reached as it goes (the campaign's
  own corpus would keep only the inputs that were new to the oracles). libFuzzer's ``cov:`` of the native run is
  printed too (the simulator's PCs and the oracles').
* a planted bug: ``--sim-plant deep`` (a ``-DPTOFUZZ_PLANTS`` build: a 32-bit TMRGSORT case whose first list
  starts with one score, 0x7F4F5450, gets a wrong first output byte, behind a 32-bit compare with that constant in
  the harness's simulator path) fuzzed by ``ptofuzz fuzz`` with ``--native-coverage`` and with
  ``--no-native-coverage`` until the first finding or ``--plant-minutes``, one input one case (``--batch 1``: a
  batched input's thousand compares would overwrite libFuzzer's small table of recent compares, which is what
  hands the mutator the constant), once per ``--plant-seeds`` seed, both builds made before the clock starts; the
  time of the first finding is when its record folder appears in ``--out``.

Exit status 1 when native coverage does not reach more simulator code than the run without it on every OP, finds
the planted bug later than the run without it for some seed, or finds it for no seed. Not part of the pytest
suite:

    python benchmarks/bench_native_coverage.py [--minutes 10] [--ops tmrgsort,tcvt] [--plant-minutes 10]
                                               [--plant-seeds 1,2,3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODES = ("--native-coverage", "--no-native-coverage")

COMMON = """
import json, os, sys, time
from pathlib import Path
from ptofuzz.backends.cpusim import build
from ptofuzz.engine import atheris_engine, campaign

op, tree, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
plan = campaign.make_plan(op, ["cpu", "cpusim"], sim=build.Settings(pto_isa=tree, coverage=True, ops=(op.upper(),)))
plan.backends.prepare()
library = lambda: plan.backends.get("cpusim").simulator().worker()
"""

# the corpus of a native-coverage run through the library, with no fuzzer: its own count of what was reached
REPLAY = COMMON + """
one = atheris_engine.target(plan, None)
for path in sorted(Path(sys.argv[4]).iterdir()):
    one(path.read_bytes())
print(json.dumps({"covered": library().covered()}))
"""

# the engine without native coverage: the library in process, libFuzzer never told of its counters
UNGUIDED = COMMON + """
import atheris

atheris_engine.expose_libfuzzer = lambda: False  # the simulator's counters stay the library's own: counted only
atheris_engine.import_instrumented()
start = time.perf_counter()

def on_exec(execs, cases):
    if time.perf_counter() - start >= seconds:
        print(json.dumps({"covered": library().covered(), "execs": execs, "cases": cases}), flush=True)
        os._exit(0)

argv = [sys.argv[0], f"-max_len={atheris_engine.MAX_LEN}", "-seed=1"]  # as the engine passes them, seed 0
atheris.Setup(argv, atheris_engine.target(plan, None, on_exec))
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


def script(work: Path, name: str, text: str, *args: str) -> list[str]:
    path = work / f"{name}.py"
    path.write_text(text)
    return [sys.executable, str(path), *args]


def coverage(op: str, tree: str, seconds: float, work: Path) -> dict[str, dict[str, int]]:
    """Both modes side by side for ``seconds``: the simulator counters each reached, and what else they did."""
    native, unguided = work / f"{op}-native", work / f"{op}-unguided"
    (native / "corpus").mkdir(parents=True)
    unguided.mkdir(parents=True)
    prepare = subprocess.run(script(unguided, "prepare", COMMON, op, tree, "0"), capture_output=True, text=True,
                             check=False)  # the build, once, before either clock starts
    if prepare.returncode != 0:
        raise SystemExit(f"building {op}'s native-coverage library failed: {prepare.stderr.strip()[-400:]}")
    proc = fuzz(op, "--native-coverage", seconds, native, ["--corpus", str(native / "corpus")])
    other = subprocess.run(script(unguided, "unguided", UNGUIDED, op, tree, f"{seconds:g}"), capture_output=True,
                           text=True, check=False, cwd=unguided)
    proc.wait()
    if other.returncode != 0 or not other.stdout.strip():
        raise SystemExit(f"the unguided run failed: {other.stderr.strip()[-400:]}")
    plain = json.loads(other.stdout.strip().splitlines()[-1])
    data = json.loads((native / "campaign.out").read_text())
    replay = subprocess.run(script(native, "replay", REPLAY, op, tree, "0", str(native / "corpus")),
                            capture_output=True, text=True, check=False, cwd=native)
    if replay.returncode != 0:
        raise SystemExit(f"replaying the native corpus failed: {replay.stderr.strip()[-400:]}")
    return {"--native-coverage": {"covered": json.loads(replay.stdout.strip().splitlines()[-1])["covered"],
                                  "execs": int(data["execs"]), "cases": int(data["cases"]),
                                  "libfuzzer_cov": int(data["libfuzzer"]["cov"]),
                                  "corpus": sum(1 for _ in (native / "corpus").iterdir())},
            "without": {"covered": int(plain["covered"]), "execs": int(plain["execs"]),
                        "cases": int(plain["cases"])}}


def plant(seconds: float, work: Path, seed: int) -> dict[str, float | None]:
    """Seconds to the first finding of the planted bug per mode (None: not within ``seconds``)."""
    procs, found = {}, {}
    for mode in MODES:  # both builds first: the race starts when both fuzz
        built = subprocess.run([*ptofuzz(), "sim", "build", "--op", "tmrgsort", "--sim-plant", "deep",
                                *(["--native-coverage"] if mode == MODES[0] else [])], capture_output=True, text=True,
                               check=False)
        if built.returncode != 0:
            raise SystemExit(f"building the planted harness failed: {built.stderr.strip()[-400:]}")
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
    ok, found = True, False
    try:
        for op in [o.strip() for o in args.ops.split(",") if o.strip()]:
            res = coverage(op, args.pto_isa, args.minutes * 60, work)
            nat, plain = res["--native-coverage"], res["without"]
            print(f"{op}: {args.minutes:g} min each, side by side; simulator counters reached (of the "
                  "native-coverage build)")
            print(f"  with native coverage      {nat['covered']:6d}   execs {nat['execs']:8d}   cases "
                  f"{nat['cases']:10d}   corpus {nat['corpus']:5d}   libFuzzer cov {nat['libfuzzer_cov']}")
            print(f"  without (oracles only)    {plain['covered']:6d}   execs {plain['execs']:8d}   cases "
                  f"{plain['cases']:10d}")
            print(f"  native / without: {nat['covered'] / max(1, plain['covered']):.2f}x")
            ok &= nat["covered"] > plain["covered"]
        for seed in [int(s) for s in args.plant_seeds.split(",") if s.strip()] if args.plant_minutes > 0 else []:
            first = plant(args.plant_minutes * 60, work, seed)
            print(f"planted bug (TMRGSORT, --sim-plant deep --batch 1 --seed {seed}), up to {args.plant_minutes:g} "
                  "min each, side by side")
            for mode, t in first.items():
                print(f"  {mode:22} first finding " + (f"after {t:.1f} s" if t is not None else "none"))
            nat_t, plain_t = first["--native-coverage"], first["--no-native-coverage"]
            ok &= plain_t is None or (nat_t is not None and nat_t <= plain_t)  # never later than without
            found |= nat_t is not None
        ok &= found or args.plant_minutes <= 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("PASS" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
