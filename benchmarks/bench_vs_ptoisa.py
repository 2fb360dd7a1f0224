#!/usr/bin/env python
"""``ptofuzz gen OP --platform P`` against pto-isa's own ``gen_data.py`` for the same system test.

For every (op, platform) system test of ``tests/data/pto-isa-st-cases.json`` whose ``gen_data.py`` is in the
pto-isa tree at ``$PTO_ISA_DIR`` (or ``--pto-isa DIR``: a checkout with its ``tests/``; the headers alone are not
enough), both commands run as fresh processes, alternately (which one goes first swaps every round), each into a
fresh empty folder: ``gen_data.py`` with that folder as its working directory, as pto-isa's runners run it
(``tests/cpu/st`` and the tree's root on ``PYTHONPATH``, ``PTO_CPU_SIM_ENABLE_BF16=1``), and ``ptofuzz gen`` with
``--out`` that folder. Where an instruction has two system tests on a platform (a2a3's TADD and TADDPLUS, ...) both
scripts run, timed together; where one cpu test covers several instructions (``t{row,col}expandop``,
``targreduceop``) that test is one entry: its script against ``gen`` of each of its instructions in a row, into one
folder, as a build runs them. Wall time from start to exit,
after an untimed warm-up round (with bytecode written, as an installed package has it). After the warm-up the two
folders are compared: the same case folders and the same file names and sizes, or the run fails (the scripts that
write HiFloat8 folders need ``en_dtypes``, which the test extras bring).

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
# the same tables as tests/instructions/test_pto_isa_folders.py: a platform's other test folder of the same
# instruction, and the cpu tests of several instructions with the prefixes of their folders that are the key's
SECOND_TEST = {"tadd/a2a3": ("taddplus",), "tquant/a5": ("tquant_dn",),
               **{f"texpands/{p}": ("texpands_mat",) for p in ("a2a3", "a5", "kirin9030")},
               **{f"trowexpand/{p}": ("trowexpandbrcb",) for p in ("a5", "kirin9030")}}
SHARED_TEST = {**{f"t{axis}expand{w}/cpu": (f"t{axis}expandop", (f"T{axis.upper()}EXPANDOPTest.case_{w}_",))
                  for axis in ("row", "col") for w in ("add", "sub", "mul", "max", "min")},
               **{f"t{a}arg{w}/cpu": ("targreduceop", (f"TARGREDUCEOPTest.case_{a}_{w}_",
                                                       f"TARGREDUCEOPTest.case_{a}_val_{w}_"))
                  for a in ("row", "col") for w in ("max", "min")}}


def gen_data(tree: Path, key: str) -> list[Path]:
    """The gen_data.py files a build runs for the system test(s) of ``key`` (op/platform)."""
    op, platform = key.split("/")
    root = tree / "tests" / ("cpu/st" if platform == "cpu" else f"npu/{platform}/src/st") / "testcase"
    if key in SHARED_TEST:
        return [root / SHARED_TEST[key][0] / "gen_data.py"]
    return [root / name / "gen_data.py" for name in (op, *SECOND_TEST.get(key, ()))]


def runner_env(tree: Path) -> dict[str, str]:
    """gen_data.py's environment as pto-isa's runners set it: ``tests/cpu/st`` for ``utils``, the tree's root for
    ``tests.cpu.st.utils``, bfloat16 cases on."""
    return {**ENV, "PYTHONPATH": os.pathsep.join((str(tree / "tests" / "cpu" / "st"), str(tree))),
            "PTO_CPU_SIM_ENABLE_BF16": "1"}


def ptofuzz_cmd() -> list[str]:
    script = Path(sys.executable).with_name("ptofuzz")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ptofuzz"]


# bytecode as an installed package has it (pip compiles it at install time); a shell that sets
# PYTHONDONTWRITEBYTECODE would otherwise make every run compile ptofuzz from source
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: Path, env: dict[str, str] = ENV) -> float:
    start = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                         env=env)
    took = time.perf_counter() - start
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {res.returncode}): {res.stderr.strip()[-300:]}")
    return took


def layout(folder: Path, prefixes: tuple[str, ...] = ("",)) -> dict[str, dict[str, int]]:
    return {d.name: {f.name: f.stat().st_size for f in d.iterdir() if f.suffix == ".bin"}
            for d in folder.iterdir() if d.is_dir() and not d.name.startswith(".") and d.name.startswith(prefixes)}


def units(keys: list[str]) -> list[tuple[str, list[str]]]:
    """The system tests to time: (name, the op/platform keys whose folders it writes). A cpu test of several
    instructions (:data:`SHARED_TEST`) is one, named after its folder (``trowexpandop/cpu``)."""
    out: dict[str, list[str]] = {}
    for key in keys:
        out.setdefault(f"{SHARED_TEST[key][0]}/cpu" if key in SHARED_TEST else key, []).append(key)
    return list(out.items())


def run(tree: Path, tests: list[tuple[str, list[str]]], repeat: int,
        scratch: Path) -> list[tuple[str, float, float, float]]:
    rows = []
    env = runner_env(tree)
    for name, keys in tests:
        scripts = gen_data(tree, keys[0])
        prefixes = tuple(p for k in keys for p in SHARED_TEST[k][1]) if keys[0] in SHARED_TEST else ("",)
        t_pto: list[float] = []
        t_ref: list[float] = []
        for i in range(-1, repeat):  # round -1: untimed warm-up (bytecode, file cache)
            ref_dirs = [Path(tempfile.mkdtemp(dir=scratch)) for _ in scripts]
            pto_dir = Path(tempfile.mkdtemp(dir=scratch))
            gens = [[*ptofuzz_cmd(), "gen", op, "--platform", platform, "--out", str(pto_dir)]
                    for op, platform in (k.split("/") for k in keys)]

            def ref(dirs: list[Path] = ref_dirs) -> float:  # each script into a folder of its own, as a build does
                return sum(timed([sys.executable, str(s)], d, env) for s, d in zip(scripts, dirs))

            def pto(cmds: list[list[str]] = gens) -> float:  # each instruction of the test, into its one folder
                return sum(timed(cmd, scratch) for cmd in cmds)

            if i % 2 == 0:
                took_pto, took_ref = pto(), ref()
            else:
                took_ref, took_pto = ref(), pto()
            if i >= 0:
                t_pto.append(took_pto)
                t_ref.append(took_ref)
            if i == -1:
                mine = layout(pto_dir)
                theirs = {k: v for d in ref_dirs for k, v in layout(d, prefixes).items()}
                if mine != theirs:
                    bad = sorted(set(mine) ^ set(theirs))[:3] or [n for n in mine if mine[n] != theirs[n]][:3]
                    raise SystemExit(f"{name}: ptofuzz and gen_data.py wrote different folders or files: {bad}")
            for d in (*ref_dirs, pto_dir):
                shutil.rmtree(d, ignore_errors=True)
        p, r = statistics.median(t_pto), statistics.median(t_ref)
        rows.append((name, p, r, p / r))
        print(f"{name:24s} ptofuzz {p * 1000:7.0f} ms   gen_data.py {r * 1000:7.0f} ms   ratio {p / r:5.2f}",
              flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pto-isa", default=os.environ.get("PTO_ISA_DIR"), help="pto-isa checkout (with tests/)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--target", type=float, default=1.0)
    ap.add_argument("--only", action="append", help="op/platform (repeatable; an instruction of a shared cpu test "
                    "times that whole test)")
    ap.add_argument("--tmpdir", default=None, help="where the case folders go (default: /dev/shm if writable)")
    args = ap.parse_args()
    if not args.pto_isa:
        print("no pto-isa tree: set PTO_ISA_DIR (or --pto-isa) to a checkout with tests/; nothing to compare")
        return 0
    tree = Path(args.pto_isa)
    tests = json.loads(CASES.read_text())["tests"]
    groups = {k: [j for j in SHARED_TEST if SHARED_TEST[j][0] == SHARED_TEST[k][0]] for k in SHARED_TEST}
    wanted = {j for k in args.only or () for j in groups.get(k, [k])}
    keys = [k for k in sorted(tests) if k.split("/")[1] not in SKIP and (not args.only or k in wanted)]
    present = [k for k in keys if all(s.is_file() for s in gen_data(tree, k))]
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
        rows = run(tree, units(present), args.repeat, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    missed = [k for k, _, _, ratio in rows if ratio > args.target]
    ratios = [ratio for *_, ratio in rows]
    print(f"{len(rows)} system tests, ratio median {statistics.median(ratios):.2f}, worst {max(ratios):.2f} "
          f"(target <= {args.target})")
    if missed:
        print(f"missed: {', '.join(missed)}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
