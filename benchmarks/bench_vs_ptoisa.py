#!/usr/bin/env python
"""``ptofuzz gen OP --platform P`` against pto-isa's own ``gen_data.py`` for the same system test.

For every (op, platform) system test of ``tests/data/pto-isa-st-cases.json`` whose ``gen_data.py`` is in the
pto-isa tree at ``$PTO_ISA_DIR`` (or ``--pto-isa DIR``: a checkout with its ``tests/``; the headers alone are not
enough), both commands run as fresh processes, alternately (which one goes first swaps every round), each into a
fresh empty folder: ``gen_data.py`` with that folder as its working directory, as pto-isa's build runs it, and
``ptofuzz gen`` with ``--out`` that folder. Wall time from start to exit, after an untimed warm-up round (with
bytecode written, as an installed package has it). After the warm-up the two folders are compared: the same case
folders and the same file names and sizes, or the run fails.

Target: median(ptofuzz) / median(gen_data.py) <= 1.0 for each test (``--target``). Exit 1 when one misses.
Without a pto-isa tree that has ``gen_data.py`` files the script says so and exits 0 (nothing to compare).

    PTO_ISA_DIR=/path/to/pto-isa python benchmarks/bench_vs_ptoisa.py [--repeat 7] [--only tpartadd/a5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "pto-isa-st-cases.json"
# kirinX90's test folders are links to kirin9030's: the same gen_data.py, timed once
SKIP = {"kirinX90"}


def gen_data(tree: Path, op: str, platform: str) -> Path:
    if platform == "cpu":
        return tree / "tests" / "cpu" / "st" / "testcase" / op / "gen_data.py"
    return tree / "tests" / "npu" / platform / "src" / "st" / "testcase" / op / "gen_data.py"


def ptofuzz_cmd() -> list[str]:
    script = Path(sys.executable).with_name("ptofuzz")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ptofuzz"]


# bytecode as an installed package has it (pip compiles it at install time); a shell that sets
# PYTHONDONTWRITEBYTECODE would otherwise make every run compile ptofuzz from source
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                         env=ENV)
    took = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {res.returncode}): {res.stderr.strip()[-300:]}")
    return took


def layout(folder: Path) -> dict[str, dict[str, int]]:
    return {d.name: {f.name: f.stat().st_size for f in d.iterdir() if f.suffix == ".bin"}
            for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".")}


def run(tree: Path, keys: list[str], repeat: int, scratch: Path) -> list[tuple[str, float, float, float]]:
    rows = []
    for key in keys:
        op, platform = key.split("/")
        script = gen_data(tree, op, platform)
        t_pto: list[float] = []
        t_ref: list[float] = []
        for i in range(-1, repeat):  # round -1: untimed warm-up (bytecode, file cache)
            ref_dir = Path(tempfile.mkdtemp(dir=scratch))
            pto_dir = Path(tempfile.mkdtemp(dir=scratch))
            ref = [sys.executable, str(script)]
            pto = [*ptofuzz_cmd(), "gen", op, "--platform", platform, "--out", str(pto_dir)]
            if i % 2 == 0:
                took_pto, took_ref = timed(pto, scratch), timed(ref, ref_dir)
            else:
                took_ref, took_pto = timed(ref, ref_dir), timed(pto, scratch)
            if i >= 0:
                t_pto.append(took_pto)
                t_ref.append(took_ref)
            if i == -1:
                mine, theirs = layout(pto_dir), layout(ref_dir)
                if mine != theirs:
                    bad = sorted(set(mine) ^ set(theirs))[:3] or [n for n in mine if mine[n] != theirs[n]][:3]
                    raise SystemExit(f"{key}: ptofuzz and gen_data.py wrote different folders or files: {bad}")
            shutil.rmtree(ref_dir, ignore_errors=True)
            shutil.rmtree(pto_dir, ignore_errors=True)
        p, r = statistics.median(t_pto), statistics.median(t_ref)
        rows.append((key, p, r, p / r))
        print(f"{key:24s} ptofuzz {p * 1000:7.0f} ms   gen_data.py {r * 1000:7.0f} ms   ratio {p / r:5.2f}",
              flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pto-isa", default=os.environ.get("PTO_ISA_DIR"), help="pto-isa checkout (with tests/)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--target", type=float, default=1.0)
    ap.add_argument("--only", action="append", help="op/platform (repeatable)")
    ap.add_argument("--tmpdir", default=None, help="where the case folders go (default: /dev/shm if writable)")
    args = ap.parse_args()
    if not args.pto_isa:
        print("no pto-isa tree: set PTO_ISA_DIR (or --pto-isa) to a checkout with tests/; nothing to compare")
        return 0
    tree = Path(args.pto_isa)
    tests = json.loads(CASES.read_text())["tests"]
    keys = [k for k in sorted(tests) if k.split("/")[1] not in SKIP and (not args.only or k in args.only)]
    present = [k for k in keys if gen_data(tree, *k.split("/")).is_file()]
    missing = sorted(set(keys) - set(present))
    if missing:
        print(f"skipped (no gen_data.py under {tree}): {', '.join(missing)}")
    if not present:
        print("nothing to compare")
        return 0
    shm = Path("/dev/shm")
    base = args.tmpdir or (str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None)
    scratch = Path(tempfile.mkdtemp(prefix="ptofuzz-vs-ptoisa-", dir=base))
    try:
        rows = run(tree, present, args.repeat, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    missed = [k for k, _, _, ratio in rows if ratio > args.target]
    ratios = [ratio for *_, ratio in rows]
    print(f"{len(rows)} tests, ratio median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} "
          f"(target <= {args.target})")
    if missed:
        print(f"missed: {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
