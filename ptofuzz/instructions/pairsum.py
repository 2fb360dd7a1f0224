"""TPAIRREDUCESUM, the pair-reduction sum: capabilities, layouts, canonical cases and inputs per platform.

Facts from pto-isa 3186c381 (``docs/isa/TPairReduceSum.md``: the semantics and the A2A3 & A5 implementation
checks, float and half; the cpu simulator's ``include/pto/cpu/TPairReduceSum.hpp``, a template over the element
type, and its system test's dtypes: float32, int32, float16, int16; the system tests
``tests/{cpu/st,npu/<plat>/src/st}/testcase/tpairreducesum/``: case lists from each ``gen_data.py`` and
``main.cpp``/kernel, files as ``../shared/reference/pto-isa-st-catalog.json`` lists them). pto-spec has no file
for it, and pto-isa no kirin system test; the page's implementation checks name A2A3 and A5 only. Semantics live
in ``oracles/pairsum.py``; random geometries and the edge pairs in ``generators/pairsum.py``.

Roles: ``dst`` and ``src``, one valid shape. Every test's files hold whole tiles: the cpu test's ``input.bin`` and
``golden.bin`` one ``row x col`` tile each (both tiles alike, wholly valid); the NPU tests'
``input1.bin`` the source tile and ``golden.bin`` the destination tile (zeros outside the valid region: the host
zeroes the destination before the kernel loads it), named ``case_<type>_<dst>_<src>_<valid>``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Profile, whole_rows
from ptofuzz.generators import pairsum as gen
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import block
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import pairsum as oracles

NAMES = ("TPAIRREDUCESUM",)  # registry.MODULES lists the same
OP = "TPAIRREDUCESUM"
ROLES = ("dst", "src")
PLAIN = {"float32": "float", "float16": "half"}
PLATFORMS = ("cpu", "a2a3", "a5")
# cpu: TPairReduceSum.hpp:22-41 is a template over the element type; ptofuzz models the types of its system test
# (tests/cpu/st/testcase/tpairreducesum/gen_data.py case_list). a2a3/a5: the page's implementation checks
DTYPES = {"cpu": ("float32", "float16", "int32", "int16"), "a2a3": ("float32", "float16"),
          "a5": ("float32", "float16")}

_CPU = (("case_1", "float32", 16, 64), ("case_2", "int32", 64, 8), ("case_3", "float16", 64, 64),
        ("case_4", "int16", 20, 16))
_A2A3 = """
    float32 32 128 32 128 32 128
    float32 32 64 32 64 32 64
    float16 8 256 8 256 8 256
    float16 8 64 8 128 8 64
    float32 8 32 8 64 8 32
    float16 8 64 8 128 8 63
    float32 8 32 8 64 8 31
    float16 4 128 4 128 2 106
    float32 8 128 8 128 8 127
    float16 8 256 8 256 8 255
"""  # dtype dst-rows dst-cols src-rows src-cols valid-rows valid-cols (gen_data.py's case_params_list)
_A5 = """
    float32 64 128 64 128 64 128
    float32 64 64 64 64 64 64
    float16 16 256 16 256 16 256
    float16 16 64 16 128 16 64
    float32 16 32 16 64 16 32
    float16 16 64 16 128 16 63
    float32 16 32 16 64 16 31
    float16 2 128 2 128 1 106
"""
UNMODELLED = {
    "spec": "pto-spec has no TPAIRREDUCESUM file",
    "kirin9030": "docs/isa/TPairReduceSum.md's implementation checks name A2A3 and A5 only; pto-isa has no kirin "
                 "system test of it",
    "kirinDev0000": "docs/isa/TPairReduceSum.md's implementation checks name A2A3 and A5 only; pto-isa has no kirin "
                    "system test of it",
}


def _npu(text: str, platform: str) -> list[tuple[str, Case]]:
    out = []
    for line in (t for t in text.splitlines() if t.strip()):
        dt, dr, dc, sr, sc, vr, vc = line.split()
        d, s = Tile(int(dr), int(dc), int(vr), int(vc)), Tile(int(sr), int(sc), int(vr), int(vc))
        name = f"case_{PLAIN[dt]}_{dr}x{dc}_{sr}x{sc}_{vr}x{vc}"
        out.append((name, Case(OP, platform, dt, (("dst", d), ("src", s)))))
    return out


def canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of TPAIRREDUCESUM's system test on ``platform``: (name after the suite's dot, case)."""
    if platform == "cpu":
        return tuple((name, Case(OP, "cpu", dt, (("dst", Tile(r, c, r, c)), ("src", Tile(r, c, r, c)))))
                     for name, dt, r, c in _CPU)
    return tuple(_npu(_A2A3 if platform == "a2a3" else _A5, platform))


def _profiles() -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        root = platforms.get(platform).test_root
        infile = "input.bin" if platform == "cpu" else "input1.bin"
        out[platform] = Profile(
            OP, platform, f"{OP}Test", ((infile, "src"),), golden, output, ROLES, compact=False, spelling=PLAIN,
            canonical=canonical(platform), note=f"{root}/testcase/tpairreducesum: each file its whole tile")
    return out


# ---- cases and inputs -------------------------------------------------------------------------------------

def _tiles(valid: tuple[int, int], dt: dtypes.DType, wide: int = 0, tall: int = 0) -> tuple[tuple[str, Tile], ...]:
    vr, vc = valid
    r, c = whole_rows(vr, vc, dt)
    return (("dst", Tile(r + tall, c, vr, vc)), ("src", Tile(r, c + wide * block(dt), vr, vc)))


def random_case(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform``: one valid region for both tiles (odd and even widths, past a repeat, empty
    now and then), the source now and then wider than its valid region, the destination taller."""
    sup = DTYPES[platforms.canonical(platform)]
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    valid = constraints.get("shape") or gen.valid_region(source, dt)
    wide = int(source.integers(0, 2)) if float(source.random(1)[0]) < 0.3 else 0
    tall = int(source.integers(1, 3)) if float(source.random(1)[0]) < 0.15 else 0
    return Case(OP, platform, dt.name, _tiles(valid, dt, wide, tall))


def explicit_case(platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --shape`` describe: ``--shape`` the valid region of both tiles (default 16x16), each
    tile of whole 32-byte rows."""
    platform = platforms.canonical(platform)
    if platform not in DTYPES:
        raise UsageError(f"{OP} has no {platform} model; it has: {', '.join(DTYPES)}")
    dt = dtypes.get(opts.get("dtype") or DTYPES[platform][0])
    valid: tuple[int, int] = opts.get("shape") or (16, 16)
    return Case(OP, platform, dt.name, _tiles(valid, dt))


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source bits over the whole tile, with edge pairs (:func:`ptofuzz.generators.pairsum.draw`)."""
    return {"src": gen.draw(source, case, dtypes.get(case.dtype), mix)}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values in both elements of each pair whose sum the data left undefined (integer overflow, an NPU's
    subnormals or overflow), then the case again: a golden then pins every valid element (pto-isa's own
    comparison cannot honour a placeholder)."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        rows, cols = case.tile("dst").valid
        half = (cols + 1) // 2
        cls = outcome.classes.get("dst") if outcome is not None and outcome.classes else None
        if cls is None:
            out.append(None)
            continue
        r, k = np.nonzero(cls[:rows, :half] == UNDEFINED)
        if len(r) == 0:
            out.append(None)
            continue
        dt = dtypes.get(case.dtype)
        bits = inputs["src"].copy()
        bits[r, 2 * k] = values.plain(source, dt, len(r))
        right = 2 * k + 1 < cols
        bits[r[right], 2 * k[right] + 1] = values.plain(source, dt, int(right.sum()))
        out.append(({"src": bits}, None))
    return out


# ---- fuzzing: geometry classes, regions -------------------------------------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid row), ``no-cols`` (valid rows of no valid column), else the width's parity (``odd``: a
    last element paired with an inactive 0), whether it passes one 256-byte repeat (``>repeat``), and whether a
    tile is wider than the valid width (``strided``: the NPUs' per-row path) or not (``packed``)."""
    d, s = case.tile("dst"), case.tile("src")
    if d.valid_rows == 0:
        return "empty"
    if d.valid_cols == 0:
        return "no-cols"
    dt = dtypes.get(case.dtype)
    vc = d.valid_cols
    parity = "odd" if vc % 2 else "even"
    reach = ">repeat" if vc > 256 // dt.itemsize else "<=repeat"
    packed = "packed" if d.cols == vc and s.cols == vc else "strided"
    return f"{parity},{reach},{packed}"


REGIONS = ("pairs", "zeros", "outside")


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """The pair sums (``pairs``: the first ``ceil(C / 2)`` valid columns), the filled zeros (the rest of the valid
    columns) and outside the valid region (nothing defined is written there)."""
    d = case.tile(role)
    rows = np.arange(d.rows)[:, None] < d.valid_rows
    col = np.arange(d.cols)[None, :]
    half = (d.valid_cols + 1) // 2
    inside = rows & (col < d.valid_cols)
    return REGIONS, np.where(inside & (col < half), 0, np.where(inside, 1, 2)).astype(np.uint8)


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --shape {d.valid_rows}x{d.valid_cols}"


def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """For ``check``: an odd-width golden that sums only the whole pairs (the NPU scripts' ``w_valid // 2``),
    leaving the last pair's column 0 where the page pairs the last element with an inactive 0, said so."""
    d = case.tile("dst")
    rows, cols = d.valid
    if cols % 2 == 0 or rows == 0 or "dst" not in files:
        return ""
    flat = files["dst"].reshape(-1)
    if flat.size != d.rows * d.cols:
        return ""
    got = flat.reshape(d.shape)
    last = (cols - 1) // 2
    expected = inputs["src"][:rows, cols - 1]
    if not (got[:rows, last] == 0).all() or (expected == 0).all():
        return ""
    return (f"golden.bin leaves column {last} of each valid row 0: its script sums only the {cols // 2} whole "
            f"pairs of the {cols} valid columns (w_valid // 2), but {oracles.PAGE} forms ceil({cols} / 2) = "
            f"{last + 1} results, the last pairing src[i, {cols - 1}] with an inactive element treated as 0 (so "
            f"dst[i, {last}] = src[i, {cols - 1}]), so the golden is wrong")


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instruction (when named)."""
    if OP not in names:
        return []
    profiles = _profiles()
    notes = (f"{oracles.PAGE}: dst[i, k] = src[i, 2k] + src[i, 2k+1] for k < ceil(C/2) (an odd width's last "
             "partner an inactive 0), the rest of each valid row 0; the elementwise add's open cases")
    support = {
        "cpu": PlatformSupport(DTYPES["cpu"], oracles.cpu, profiles["cpu"], notes=notes + "; integer overflow open"),
        **{p: PlatformSupport(DTYPES[p], oracles.npu, profiles[p],
                              notes=notes + "; float overflow and subnormals open (the vector unit)")
           for p in ("a2a3", "a5")},
    }
    return [Instruction(
        name=OP, family="reduce-and-expand",
        summary="pair-reduction sum: dst[i, k] = src[i, 2k] + src[i, 2k+1], the rest of the valid row 0",
        inputs=("src",), outputs=("dst",), platforms=support,
        random_case=random_case, explicit_case=explicit_case, draw_inputs=draw_inputs,
        unmodelled=UNMODELLED, options=("dtype", "shape"), random_options=("dtype", "shape"),
        replay_flags=replay_flags, geometry_class=geometry_class, regions=regions,
        redraw=redraw, explain=explain)]

