#!/usr/bin/env python
"""Time ``ptofuzz`` case generation against a plain-numpy floor doing the same file work.

Workloads (both a5 TPARTADD, in-process through :func:`ptofuzz.api.generate`):

* ``canonical``: the a5 canonical case list (``generate("tpartadd", "a5", out)``, 12 folders);
* ``random``: ``--cases`` random float32 64x64 cases
  (``generate(..., random=N, explicit={"dtype": "float32", "shape": (64, 64)})``).

The floor is what a hand-written numpy script would do for the same folders: for each case draw the inputs
with one ``np.random.default_rng`` (uniform floats / integers), compute the golden (a copy of the big source
with ``src0 + src1`` on the overlap), ``os.makedirs`` the same folder names and ``tofile`` the same
``input*.bin`` / ``golden.bin`` files with the same byte counts, plus a small ``json.dump`` manifest in place
of ``ptofuzz.json`` (``--no-manifest`` leaves it out). The geometry (folder names, file shapes) is taken from
an untimed reference run of ptofuzz, so both sides write the same folders and the same ``.bin`` byte counts
(checked after the first repetition).

ptofuzz runs as ``ptofuzz gen`` runs it: no list of the written folders kept (``keep=False``; only the untimed
reference run keeps one, for the geometry). The harness's own objects (that reference result, the folder specs) are
moved out of the garbage collector's way (``gc.freeze``) before timing, so that neither side's collections walk
them; a ``gen`` process has no such objects.

Each repetition writes into a fresh temporary directory (removed afterwards, untimed; under /dev/shm by
default, see ``--tmpdir``: on a slow disk both sides only measure the disk); ptofuzz and the floor
alternate, and the reported figure is the median (or ``--stat best``) over ``--repeat`` repetitions. The
target is ptofuzz within 2x of the floor; the exit status is 1 if any workload misses it.

Not part of the pytest suite; run it by hand or in a CI job:

    python benchmarks/bench_gen.py [--repeat 5] [--cases 1000] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ptofuzz import api
from ptofuzz.engine import allocator

TARGET = 2.0
SORT_TARGET = 1.5  # issue 15: gen --random 10000 of TSORT32 / TMRGSORT
OP, PLATFORM = "tpartadd", "a5"
MANIFEST = "ptofuzz.json"

# numpy carriers for the floor's values; bfloat16 is drawn as float32 and truncated to its top 16 bits.
NUMPY_DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": np.float32,
                "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
                "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64}


# ---- the floor ---------------------------------------------------------------------------------------------

def folder_specs(result: api.GenerateResult) -> list[dict[str, Any]]:
    """What each folder of a ptofuzz run holds, from its ``ptofuzz.json``: name, dtype, files (name, role,
    kind, shape, bytes)."""
    specs = []
    for case in result.cases:
        manifest = json.loads((case.path / MANIFEST).read_text())
        files = [{k: f[k] for k in ("name", "role", "kind", "shape", "bytes")} for f in manifest["files"]]
        specs.append({"name": case.name, "dtype": manifest["dtype"], "files": files})
    return specs


def _draw(rng: np.random.Generator, dtype: str, shape: tuple[int, int]) -> np.ndarray:
    t = NUMPY_DTYPES[dtype]
    if np.issubdtype(t, np.floating):
        return (rng.random(shape, dtype=np.float32) * 16.0 - 8.0).astype(t, copy=False)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, size=shape, dtype=t, endpoint=True)


def floor_generate(specs: list[dict[str, Any]], out_dir: Path, *, seed: int = 0, manifest: bool = True) -> None:
    """Plain numpy: draw, compute the golden, makedirs, tofile. The same folders and .bin byte counts."""
    rng = np.random.default_rng(seed)
    for spec in specs:
        dtype = spec["dtype"]
        inputs = [f for f in spec["files"] if f["kind"] == "input"]
        golden = next(f for f in spec["files"] if f["kind"] == "golden")
        dst_shape = tuple(golden["shape"])
        srcs = {f["role"]: _draw(rng, dtype, tuple(f["shape"])) for f in inputs}
        big_role = "src0" if srcs["src0"].shape == dst_shape else "src1"
        big, small = srcs[big_role], srcs["src1" if big_role == "src0" else "src0"]
        out = big.copy()
        r, c = small.shape
        with np.errstate(over="ignore"):
            out[:r, :c] = srcs["src0"][:r, :c] + srcs["src1"][:r, :c]
        if dtype == "bfloat16":
            srcs = {k: (v.view(np.uint32) >> 16).astype(np.uint16) for k, v in srcs.items()}
            out = (out.view(np.uint32) >> 16).astype(np.uint16)
        folder = out_dir / spec["name"]
        os.makedirs(folder)
        for f in inputs:
            srcs[f["role"]].tofile(folder / f["name"])
        out.tofile(folder / golden["name"])
        if manifest:
            with open(folder / MANIFEST, "w") as fh:
                json.dump({"name": spec["name"], "dtype": dtype, "seed": seed,
                           "files": [{k: f[k] for k in ("name", "role", "shape", "bytes")} for f in spec["files"]]},
                          fh)


def _write(folder: Path, spec: dict[str, Any], arrays: dict[str, np.ndarray], seed: int, manifest: bool) -> None:
    """Each file of ``spec`` from ``arrays[role]`` (its bytes cut or zero-padded to the file's size), plus the
    small manifest."""
    os.makedirs(folder)
    for f in spec["files"]:
        raw = arrays[f["role"]].tobytes()
        with open(folder / f["name"], "wb") as fh:
            fh.write(raw[:f["bytes"]].ljust(f["bytes"], b"\0"))
    if manifest:
        with open(folder / MANIFEST, "w") as fh:
            json.dump({"name": spec["name"], "dtype": spec["dtype"], "seed": seed,
                       "files": [{k: f[k] for k in ("name", "role", "shape", "bytes")} for f in spec["files"]]}, fh)


def _records(vals: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """8-byte records as uint32 words: value bits (16-bit values zero-extended), index."""
    bits = vals.view(np.uint32 if vals.itemsize == 4 else np.uint16).astype(np.uint32)
    out = np.empty((*vals.shape[:-1], 2 * vals.shape[-1]), np.uint32)
    out[..., 0::2], out[..., 1::2] = bits, idx
    return out


def floor_tsort32(specs: list[dict[str, Any]], out_dir: Path, *, seed: int = 0, manifest: bool = True) -> None:
    """Plain numpy TSORT32: uniform values, arange indices, zero tmp; the golden sorts each row's 32-wide blocks
    descending (a stable argsort of the negated values padded with -inf) into value/index records."""
    rng = np.random.default_rng(seed)
    for spec in specs:
        t = NUMPY_DTYPES[spec["dtype"]]
        r, c = next(f["shape"] for f in spec["files"] if f["role"] == "src")
        src = (rng.random((r, c), dtype=np.float32) * 20 - 10).astype(t)
        idx = np.arange(r * c, dtype=np.uint32).reshape(r, c)
        blocks = -(-c // 32) * 32
        padded = np.full((r, blocks), -np.inf, np.float32)
        padded[:, :c] = src
        order = np.argsort(-padded.reshape(-1, 32), axis=1, kind="stable").reshape(r, blocks)
        order = (order + np.arange(0, blocks, 32).repeat(32)[None, :])[:, :c]
        golden = _records(np.take_along_axis(src, order, axis=1), np.take_along_axis(idx, order, axis=1))
        _write(out_dir / spec["name"], spec, {"src": src, "idx": idx, "tmp": np.zeros(c, t), "dst": golden}, seed,
               manifest)


def floor_tmrgsort(specs: list[dict[str, Any]], out_dir: Path, *, seed: int = 0, manifest: bool = True) -> None:
    """Plain numpy TMRGSORT: each list uniform values sorted descending, indices 0.. over all lists; the golden
    is one stable argsort of all records (a single list: of each group of 4 blocks of 32)."""
    rng = np.random.default_rng(seed)
    for spec in specs:
        t = NUMPY_DTYPES[spec["dtype"]]
        srcs = [f for f in spec["files"] if f["kind"] == "input"]
        arrays, vals, base = {}, [], 0
        for f in srcs:
            n = f["shape"][1] // 2
            v = -np.sort(-rng.random(n, dtype=np.float32)).astype(t)
            arrays[f["role"]] = _records(v, np.arange(base, base + n, dtype=np.uint32))
            vals.append(v)
            base += n
        allv = np.concatenate(vals)
        idx = np.arange(allv.size, dtype=np.uint32)
        if len(srcs) == 1:
            g = allv.size // 128 * 128
            order = np.argsort(-allv[:g].reshape(-1, 128), axis=1, kind="stable") + np.arange(0, g, 128)[:, None]
            arrays["dst"] = _records(allv[order.ravel()], idx[order.ravel()])
        else:
            order = np.argsort(-allv, kind="stable")
            arrays["dst"] = _records(allv[order], idx[order])
        _write(out_dir / spec["name"], spec, arrays, seed, manifest)


FLOORS = {"tpartadd": floor_generate, "tsort32": floor_tsort32, "tmrgsort": floor_tmrgsort}


def ptofuzz_generate(kwargs: dict[str, Any], out_dir: Path, *, keep: bool = False) -> api.GenerateResult:
    """``api.generate`` as ``ptofuzz gen`` calls it (no list of the folders kept, unless ``keep``)."""
    kwargs = dict(kwargs)
    return api.generate(kwargs.pop("op", OP), kwargs.pop("platform", PLATFORM), out_dir, keep=keep, **kwargs)


# ---- measuring ---------------------------------------------------------------------------------------------

def bin_sizes(root: Path) -> dict[str, dict[str, int]]:
    return {d.name: {f.name: f.stat().st_size for f in d.iterdir() if f.suffix == ".bin"}
            for d in root.iterdir() if d.is_dir()}


def total_bytes(root: Path) -> tuple[int, int]:
    """(bytes in .bin files, bytes in all files) under ``root``."""
    binb = allb = 0
    for d in root.iterdir():
        for f in d.iterdir():
            n = f.stat().st_size
            allb += n
            binb += n if f.suffix == ".bin" else 0
    return binb, allb


def timed(fn: Callable[[Path], Any], tmp_root: Path, keep: Callable[[Path], None] | None = None) -> float:
    out = Path(tempfile.mkdtemp(prefix="bench-", dir=tmp_root))
    try:
        t0 = time.perf_counter()
        fn(out)
        dt = time.perf_counter() - t0
        if keep is not None:
            keep(out)
        return dt
    finally:
        shutil.rmtree(out, ignore_errors=True)


def default_tmpdir() -> str | None:
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def profile_ptofuzz(kwargs: dict[str, Any], tmp_root: Path, top: int) -> str:
    out = Path(tempfile.mkdtemp(prefix="bench-prof-", dir=tmp_root))
    try:
        prof = cProfile.Profile()
        prof.enable()
        ptofuzz_generate(kwargs, out)
        prof.disable()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    buf = io.StringIO()
    for key in ("cumulative", "tottime"):
        buf.write(f"--- sorted by {key} ---\n")
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(key).print_stats(top)
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="timed repetitions per workload and side (default 5)")
    ap.add_argument("--cases", type=int, default=1000, help="random 64x64 cases (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stat", choices=("median", "best"), default="median",
                    help="which repetition statistic the ratio uses (default median)")
    ap.add_argument("--target", type=float, default=TARGET, help=f"max ptofuzz/floor ratio (default {TARGET})")
    ap.add_argument("--only", choices=("canonical", "random", "tsort32", "tmrgsort", "sorts"),
                    help="run one workload (sorts: tsort32 and tmrgsort)")
    ap.add_argument("--sort-cases", type=int, default=10_000, help="random TSORT32 / TMRGSORT cases (default 10000)")
    ap.add_argument("--sort-platform", default="a5", help="platform of the sort workloads (default a5)")
    ap.add_argument("--sort-target", type=float, default=SORT_TARGET,
                    help=f"max ptofuzz/floor ratio of the sort workloads (default {SORT_TARGET})")
    ap.add_argument("--no-manifest", action="store_true", help="the floor writes no manifest file")
    ap.add_argument("--tmpdir", type=Path, default=None,
                    help="where the temporary output folders go (default: /dev/shm when it is a writable "
                         "directory, so the figures measure CPU work rather than the disk; else the system "
                         "temporary directory)")
    ap.add_argument("--default-malloc", action="store_true",
                    help="leave glibc malloc's thresholds as they are; by default they are raised before the first "
                         "random workload (the canonical one runs before it) as `ptofuzz gen --random` raises them "
                         "(ptofuzz.engine.allocator), for both sides, since both run in this process")
    ap.add_argument("--profile", action="store_true",
                    help="after timing, cProfile one ptofuzz run per workload (cumulative and tottime)")
    ap.add_argument("--profile-top", type=int, default=25)
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.cases < 1:
        ap.error("--repeat and --cases must be at least 1")

    workloads = [
        ("canonical", "a5 TPARTADD canonical", {"seed": args.seed}),
        ("random", f"a5 TPARTADD {args.cases} random f32 64x64",
         {"seed": args.seed, "random": args.cases, "explicit": {"dtype": "float32", "shape": (64, 64)}}),
        ("tsort32", f"{args.sort_platform} TSORT32 {args.sort_cases} random",
         {"op": "tsort32", "platform": args.sort_platform, "seed": args.seed, "random": args.sort_cases}),
        ("tmrgsort", f"{args.sort_platform} TMRGSORT {args.sort_cases} random",
         {"op": "tmrgsort", "platform": args.sort_platform, "seed": args.seed, "random": args.sort_cases}),
    ]
    if args.only:
        workloads = [w for w in workloads if w[0] == args.only or (args.only == "sorts" and "op" in w[2])]
    else:  # the sort workloads (10,000 cases each by default) run when asked for
        workloads = [w for w in workloads if "op" not in w[2]]

    kept = False  # set before the first random workload (the canonical one runs first, as a canonical gen does)
    tmp_root = Path(tempfile.mkdtemp(prefix="ptofuzz-bench-", dir=args.tmpdir or default_tmpdir()))
    pick = statistics.median if args.stat == "median" else min
    rows = []
    profiles = []
    try:
        for key, label, kwargs in workloads:
            if "random" in kwargs and not kept and not args.default_malloc:
                kept = allocator.keep_freed_memory()
            # Untimed reference run: warms imports and the registry, and gives the floor its folder geometry.
            ref = Path(tempfile.mkdtemp(prefix="bench-ref-", dir=tmp_root))
            result = ptofuzz_generate(kwargs, ref, keep=True)
            specs = folder_specs(result)
            ref_sizes = bin_sizes(ref)
            ref_bin, ref_all = total_bytes(ref)
            shutil.rmtree(ref, ignore_errors=True)
            # the harness's own objects (the reference run's result, the folder specs: ~100,000 of them at 10,000
            # cases) out of the garbage collector's way, so that neither side's collections walk them
            del result
            gc.collect()
            gc.freeze()
            floor = FLOORS[kwargs.get("op", OP)]
            timed(lambda o: floor(specs, o, seed=args.seed, manifest=not args.no_manifest), tmp_root)

            floor_info: dict[str, Any] = {}

            def check_floor(out: Path) -> None:
                sizes = bin_sizes(out)
                if sizes != ref_sizes:
                    bad = next(n for n in ref_sizes if sizes.get(n) != ref_sizes[n])
                    raise SystemExit(f"floor wrote different files than ptofuzz in {bad}: "
                                     f"{sizes.get(bad)} vs {ref_sizes[bad]}")
                floor_info["bytes"] = total_bytes(out)

            t_pto, t_floor = [], []
            for i in range(args.repeat):
                floor_fn = (lambda o: floor(specs, o, seed=args.seed, manifest=not args.no_manifest))
                pto_fn = (lambda o: ptofuzz_generate(kwargs, o))
                if i % 2 == 0:
                    t_pto.append(timed(pto_fn, tmp_root))
                    t_floor.append(timed(floor_fn, tmp_root, check_floor if i == 0 else None))
                else:
                    t_floor.append(timed(floor_fn, tmp_root))
                    t_pto.append(timed(pto_fn, tmp_root))
            p, f = pick(t_pto), pick(t_floor)
            rows.append((label, len(specs), p, f, p / f, min(t_pto), min(t_floor), ref_bin, ref_all,
                         floor_info["bytes"][1], args.sort_target if "op" in kwargs else args.target))
            if args.profile:
                profiles.append((label, profile_ptofuzz(kwargs, tmp_root, args.profile_top)))
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)

    print(f"ptofuzz generation vs plain-numpy floor  "
          f"(python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
          f"repeat {args.repeat}, {args.stat}, output under {tmp_root.parent}, "
          f"{'random workloads with malloc thresholds raised as gen --random has them' if kept else 'default malloc'})")
    head = f"{'workload':<36} {'cases':>5} {'ptofuzz s':>10} {'floor s':>9} {'ratio':>6} {'target':>7}  result"
    print(head)
    print("-" * len(head))
    failed = False
    for label, n, p, f, ratio, pbest, fbest, _, _, _, target in rows:
        ok = ratio <= target
        failed |= not ok
        print(f"{label:<36} {n:>5} {p:>10.4f} {f:>9.4f} {ratio:>5.2f}x {target:>6.1f}x  "
              f"{'PASS' if ok else 'FAIL'}")
    print()
    for label, n, p, f, ratio, pbest, fbest, ref_bin, ref_all, floor_all, _ in rows:
        print(f"{label}: best ptofuzz {pbest:.4f} s, best floor {fbest:.4f} s (ratio {pbest / fbest:.2f}x); "
              f"per case {p / n * 1e3:.2f} ms vs {f / n * 1e3:.2f} ms; .bin bytes {ref_bin} on both sides; "
              f"all files {ref_all} (ptofuzz) vs {floor_all} (floor)")
    for label, text in profiles:
        print(f"\n==== cProfile: ptofuzz, {label} ====")
        print(text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
