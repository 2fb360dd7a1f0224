#!/usr/bin/env python3
"""Write the seed corpora under ``corpora/`` (run from the project root; the output is checked in).

Per instruction family (``corpora/<op>/``):

* ``pto-isa/``: every canonical case of every platform's pto-isa system test (and the spec's own list), with
  values drawn from a fixed seed (``{"draw": {...}}``: small JSON, no .bin files);
* ``edge/``: hand-picked cases with exact inline values: the worked examples of pto-spec's TPART* tests
  (``tests/asl/tile/irregular-and-complex/union/TPART*/``), signalling NaNs, NaN payloads, signed zeros,
  infinities, subnormals, integer wrap-around, ties, shift counts at and around the width.

Each record lists every oracle of its instruction, what each said (outcome and digest) and the disagreement
signatures the case shows, so ``ptofuzz replay corpora/`` reports any change in any model. A test rebuilds
the corpora into a temporary folder and compares, so they never go stale silently.

    python ci/build_corpora.py [--out corpora]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np

from ptofuzz.backends import choose
from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.layouts import spec_physical
from ptofuzz.engine import differential
from ptofuzz.generators import values
from ptofuzz.generators.source import DRAW_VERSION, seeded
from ptofuzz.instructions import registry
from ptofuzz.io import records

F32 = {"1": 0x3F800000, "2": 0x40000000, "3": 0x40400000, "-1": 0xBF800000, "+0": 0, "-0": 0x80000000,
       "inf": 0x7F800000, "-inf": 0xFF800000, "qnan": 0x7FC00000, "qnan-payload": 0xFFC12345,
       "snan": 0x7F800001, "snan-payload": 0xFFA00042, "min-sub": 0x00000001, "max-sub": 0x007FFFFF,
       "min-normal": 0x00800000, "max": 0x7F7FFFFF, "half": 0x3F000000}


def _tpart_case(op: str, dtype: str, dst: tuple[int, int], src0: tuple[int, int], src1: tuple[int, int],
                platform: str = "spec") -> Case:
    dt = dtypes.get(dtype)
    tiles = tuple((role, Tile(*spec_physical(*v, dt), *v)) for role, v in (("dst", dst), ("src0", src0),
                                                                           ("src1", src1)))
    return Case(op, platform, dt.name, tiles)


def _fill(case: Case, role: str, rows: list[list[int]]) -> np.ndarray:
    t = case.tile(role)
    dt = dtypes.get(case.dtype)
    out = np.zeros(t.shape, dtype=dt.bits_dtype)
    for r, row in enumerate(rows):
        out[r, :len(row)] = row
    return out


def edge_cases() -> list[tuple[str, Case, dict[str, np.ndarray], str]]:
    """(name, case, inputs, note) for the hand-picked TPART*, sort, tile-scalar and shift cases."""
    out = []

    def tpart(name: str, op: str, dtype: str, dst, src0, src1, a, b, note: str) -> None:
        case = _tpart_case(op, dtype, dst, src0, src1)
        out.append((name, case, {"src0": _fill(case, "src0", a), "src1": _fill(case, "src1", b)}, note))

    # worked examples: pto-spec's tests tests/asl/tile/irregular-and-complex/union/TPART*/tile-exec-*.asl
    tpart("spec-overlap-001", "TPARTADD", "int16", (1, 3), (1, 3), (1, 2), [[1, 2, 7]], [[3, 4]],
          "pto-spec tile-exec-tpartadd-overlap-001: [1,2,7] + [3,4] -> [4,6,7]")
    tpart("spec-wrap-001", "TPARTMUL", "uint8", (1, 2), (1, 2), (1, 1), [[16, 9]], [[16]],
          "pto-spec tile-exec-tpartmul-wrap-001: [16,9] * [16] -> [0 (256 wraps), 9]")
    tpart("spec-unsigned-001", "TPARTMAX", "uint8", (1, 1), (1, 1), (1, 1), [[250]], [[5]],
          "pto-spec tile-exec-tpartmax-unsigned-001: max(250, 5) = 250")
    tpart("spec-signed-001", "TPARTMIN", "int8", (1, 1), (1, 1), (1, 1), [[0xFF]], [[1]],
          "pto-spec tile-exec-tpartmin-signed-001: min(-1, 1) = -1")
    f = F32
    row_a = [f["snan"], f["qnan-payload"], f["-0"], f["inf"], f["min-sub"], f["max"], f["1"], f["-1"]]
    row_b = [f["1"], f["2"], f["+0"], f["-inf"], f["min-sub"], f["max"], f["snan-payload"], f["-0"]]
    for op in ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"):
        tpart(f"f32-specials-{op.lower()}", op, "float32", (2, 32), (2, 32), (1, 32), [row_a * 4, row_a[::-1] * 4],
              [row_b * 4], "sNaN and NaN-payload operands, signed zeros, inf - inf, subnormals, overflow; the second "
              "row is copied from src0 (bits must survive)")
    tpart("f32-copy-snan", "TPARTADD", "float32", (1, 32), (1, 32), (1, 16), [[f["snan-payload"]] * 32],
          [[f["1"]] * 16], "a copied sNaN keeps its payload and sign; added, it becomes the canonical NaN with NV")
    tpart("i8-wrap", "TPARTADD", "int8", (1, 128), (1, 128), (1, 128), [[0x7F, 0x80, 0xFF, 0x01] * 32],
          [[0x01, 0xFF, 0x80, 0x7F] * 32], "int8 wrap-around: 127+1, -128-1, -1-128, 1+127")
    tpart("u16-max-min", "TPARTMAX", "uint16", (2, 64), (2, 64), (2, 64), [[0xFFFF, 0, 0x8000, 1] * 16] * 2,
          [[0, 0xFFFF, 0x7FFF, 1] * 16] * 2, "unsigned order at the extremes and a tie")
    # sorts: ties, NaNs and signed zeros in one 32-wide block (TSORT32 cpu/a2a3/a5)
    tsort = registry.get("TSORT32").explicit_case("cpu", {"dtype": "float32", "shape": (1, 32)})
    vals = [f["1"], f["1"], f["-0"], f["+0"], f["3"], f["-1"], f["2"], f["half"]] * 4
    out.append(("tsort32-ties-zeros", tsort, {"src": np.array([vals], dtype=np.uint32),
                                              "idx": np.arange(32, dtype=np.uint32).reshape(1, 32)},
                "ties and +-0 in one block: index order decides"))
    # TPARTARG*: ties, signed zeros, NaN and subnormals against numbers, on an NPU-legal 1x8 geometry
    a = [f["1"], f["2"], f["qnan-payload"], f["-0"], f["3"], f["inf"], f["min-sub"], f["-1"]]
    b = [f["1"], f["-1"], f["2"], f["+0"], f["snan"], f["max"], f["+0"], f["-1"]]
    for op in ("TPARTARGMAX", "TPARTARGMIN"):
        arg = registry.get(op).explicit_case("a5", {"dtype": "float32", "shape": (1, 8), "index_dtype": "uint32"})
        idx0 = np.arange(8, dtype=np.uint32).reshape(1, 8)
        out.append((f"f32-ties-specials-{op.lower()}", arg,
                    {"src0": np.array([a], np.uint32), "src1": np.array([b], np.uint32), "src0_idx": idx0,
                     "src1_idx": idx0 + 100},
                    ("ties (cpu takes src1's index, a2a3/a5 src0's), -0 against +0, a NaN on either side (undefined "
                     "on the NPUs), a subnormal against +0 (undefined where a flushing compare would choose "
                     "otherwise)")))
    # tile-scalar: the special row against special scalars (a NaN scalar with a payload, -0, the largest float)
    for op in ("TADDS", "TSUBS", "TMULS", "TMAXS", "TMINS", "TLRELU"):
        platform = "cpu" if op == "TLRELU" else "spec"
        for tag, scalar in (("snan", f["snan-payload"]), ("negzero", f["-0"]), ("max", f["max"])):
            ts = registry.get(op).explicit_case(platform, {"dtype": "float32", "dst": (2, 32)})
            rows = _fill(ts, "src0", [row_a * 4, row_b * 4])
            out.append((f"f32-specials-scalar-{tag}-{op.lower()}", ts,
                        {"src0": rows, "scalar": np.array([[scalar]], np.uint32)},
                        f"sNaN and NaN-payload elements, signed zeros, infinities, subnormals; the scalar {tag}"))
    for op in ("TADDS", "TSUBS", "TMULS"):
        ts = registry.get(op).explicit_case("spec", {"dtype": "int8", "dst": (1, 128)})
        out.append((f"i8-wrap-scalar-{op.lower()}", ts, {"src0": _fill(ts, "src0", [[0x7F, 0x80, 0xFF, 0x01] * 32]),
                                                         "scalar": np.array([[0x7F]], np.uint8)},
                    "int8 wrap-around against the scalar 127 (spec wraps; the pages leave overflow open)"))
    # bitwise shifts: int8 extremes by counts at, above and below the width and negative ones (pto-spec masks the
    # count to 3 bits; the pages leave counts outside [0, 8) open)
    counts = [c & 0xFF for c in (0, 1, 7, 8, 9, 15, 16, -1, -8, 127, -128, 3)]
    for op in ("TSHL", "TSHR"):
        bw = registry.get(op).explicit_case("spec", {"dtype": "int8", "dst": (1, 128)})
        out.append((f"i8-counts-{op.lower()}", bw,
                    {"src0": _fill(bw, "src0", [[0x80, 0xFF, 0x7F, 0x01] * 32]),
                     "src1": _fill(bw, "src1", [[counts[k % len(counts)] for k in range(128)]])},
                    "int8 -128, -1, 127, 1 shifted by 0..W-1, W, W+1, 2W, -1, -W, 127, -128"))
    for op in ("TSHLS", "TSHRS"):
        for tag, scalar in (("width", 16), ("minus1", 0xFFFF)):
            bw = registry.get(op).explicit_case("spec", {"dtype": "int16", "dst": (1, 64)})
            out.append((f"i16-scalar-{tag}-{op.lower()}", bw,
                        {"src0": _fill(bw, "src0", [[0x8000, 0xFFFF, 0x7FFF, 0x0001] * 16]),
                         "scalar": np.array([[scalar]], np.uint16)},
                        f"int16 extremes shifted by the scalar {tag} (pto-spec: the low 4 bits; the pages: open)"))
    return out


def canonical_cases(inst: registry.Instruction) -> list[tuple[str, Case]]:
    seen = set()
    out = []
    for sup in inst.platforms.values():
        for alias, case in sup.profile.canonical:
            name = sup.profile.folder(alias)
            if name not in seen:
                seen.add(name)
                out.append((name, case))
    return out


def record(inst: registry.Instruction, case: Case, inputs: dict[str, np.ndarray], extra: dict) -> records.Record:
    oracles = platforms.distinct(p for p in registry.PLATFORMS if p in inst.platforms)
    outcomes, sigs = differential.signatures_of(inst, case, inputs, choose.choose(inst, oracles))
    return records.Record(case, inputs, oracles, {o: records.describe(v) for o, v in outcomes.items()},
                          tuple(s.key for s in sigs), extra)


def build(out: Path) -> int:
    n = 0
    for inst in registry.all_instructions().values():
        folder = out / inst.name.lower() / "pto-isa"
        for name, case in canonical_cases(inst):
            key = ["corpus", name]
            inputs = inst.draw_inputs(seeded(0, *key), case, values.ValueMix())
            rec = record(inst, case, inputs, {"note": f"pto-isa system test case {name}; values drawn by ptofuzz's "
                                                      "generator from the seed"})
            data, _ = records.to_json(rec, inst, None)
            data["inputs"] = {"draw": {"seed": 0, "key": key, "rate": values.DEFAULT_SPECIAL_RATE,
                                       "version": DRAW_VERSION}}
            path = folder / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(records.dumps(data))
            n += 1
    for name, case, inputs, note in edge_cases():
        inst = registry.get(case.op)
        rec = record(inst, case, inputs, {"note": note})
        data, _ = records.to_json(rec, inst, None)
        path = out / inst.name.lower() / "edge" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(records.dumps(data))
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("corpora"))
    args = ap.parse_args(argv)
    for op in registry.all_instructions():  # only what this script writes (bundle-atheris/ is not)
        for sub in ("pto-isa", "edge"):
            if (args.out / op.lower() / sub).is_dir():
                shutil.rmtree(args.out / op.lower() / sub)
    n = build(args.out)
    print(f"wrote {n} records under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
