"""The bitwise instructions, tile-tile (TAND, TOR, TXOR, TSHL, TSHR) and tile-scalar (TANDS, TORS, TXORS, TSHLS,
TSHRS): capabilities, layouts and canonical cases per platform, as data over one builder.

Facts from pto-isa 3186c381 (``docs/isa/<OP>.md``: the dtypes each implementation checks; kirin9030 and
kirinDev0000 run a5's headers; the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/<op>/``: folder
names, files and byte layouts, as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/elementwise-tile-tile/logical/``, ``asl/tile/tile-scalar-and-immediate/logical/``). Semantics live in
``oracles/bitwise.py``; geometries come from the tile-tile generator (``generators/elementwise.py``), shift counts
from ``generators/bitwise.py``.

Roles: ``dst``, ``src0`` and ``src1`` (tile-tile; the shift count for TSHL/TSHR) or ``scalar`` (tile-scalar, a 1x1
tile of the element type: every test writes it as one element of the tile's type, no carrier). One valid region
for all tiles. Each test's cases are listed whole, in its gen_data.py order: ``name dtype tiles valid
[key=value]``, where ``tiles`` is one shape shared by every tile or one per role (dst, src0[, src1]). Files hold
the valid region only (``compact``: a2a3/a5/kirin TAND, TOR, TSHL, TSHR, a5/kirin TXOR and TANDS, TORS, TXORS) or
each tile whole at its own row stride (the cpu tests, a2a3 TXOR and TANDS/TORS/TXORS, every NPU TSHLS/TSHRS).

Quirks kept as the files say: a2a3 TAND ``case6`` and a5 TAND ``case10`` run TAND's half kernel on 16-bit integer
files, a5 ``case11`` its float kernel on int32 files (``kernel=<type>``): docs/isa/TAND.md lists only integral
types, so no document defines those tests as run; their golden is the AND of the files' bits, which is what
every kernel type computes if it ANDs bits. kirin's TAND, TOR, TXOR, TSHL and TSHR ``case4`` folders are written
but their main.cpp has no TEST_F for them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.layouts import Listed, Profile, spec_physical
from ptofuzz.generators import bitwise as counts
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions import redraws
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import bitwise as oracles

NAMES = ("TAND", "TOR", "TXOR", "TSHL", "TSHR", "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")  # registry.MODULES
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
SCALAR = Tile(1, 1, 1, 1)
KERNEL = "kernel"  # the case param naming the element type a test's kernel really runs (TAND's half and float)
REPEAT = "repeat"  # a case the test draws again with the same geometry


def scalar_op(op: str) -> bool:
    return op in oracles.TILE_SCALAR


def roles(op: str) -> tuple[str, ...]:
    return ("dst", "src0", "scalar") if scalar_op(op) else ("dst", "src0", "src1")


def _second(op: str) -> str:
    return roles(op)[2]


def shift(op: str) -> bool:
    return oracles.OPS[op] in oracles.SHIFTS


# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
_INTS = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
_A5_SHIFT = (*_INTS, "int64", "uint64")
_A2A3_SHIFTS = ("int32", "int16", "uint32", "uint16")
# cpu: ElementOp.h's &, |, ^, <<, >> are templates over the element type with no check: every integer type the
# tests and the harness run (floats do not compile)
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    **{op: {"cpu": _INTS, "a2a3": _INTS, "a5": _INTS} for op in ("TAND", "TOR", "TXOR", "TXORS")},
    **{op: {"cpu": _INTS, "a2a3": _INTS, "a5": _A5_SHIFT} for op in ("TSHL", "TSHR")},
    # TANDS/TORS: "intended for integral element types" (A5: those of TEXPANDS and TAND/TOR)
    **{op: {"cpu": _INTS, "a2a3": _INTS, "a5": _INTS} for op in ("TANDS", "TORS")},
    **{op: {"cpu": _INTS, "a2a3": _A2A3_SHIFTS, "a5": _A5_SHIFT} for op in ("TSHLS", "TSHRS")},
}

# ---- the system tests -------------------------------------------------------------------------------------------
NPU_NINE = """
    case1 uint16 64x64 64x64
    case2 uint16 64x64 63x63
    case3 uint16 1x16384 1x16384
    case4 uint16 2048x16 2048x16
    case5 uint8 32x32 32x32
    case6 uint32 8x8 8x8
    case7 int8 32x32 32x32
    case8 int16 16x16 16x16
    case9 int32 8x8 8x8"""
A2A3_TAND = """
    case1 uint16 64x64 64x64
    case2 uint16 64x64 63x63
    case3 uint16 1x16384 1x16384
    case4 uint16 2048x16 2048x16
    case5 int16 64x64 64x64
    case6 uint16 64x64 64x64 kernel=float16
    case7 uint8 64x64 63x63
    case8 int8 64x64 63x63
    case9 uint32 64x64 64x64
    case10 uint32 64x64 61x61
    case11 uint32 1x16384 1x16384
    case12 uint32 1024x16 1024x16"""
A2A3_TOR = """
    case1 uint16 64x64 64x64
    case2 uint16 64x64 63x63
    case3 uint16 1x16384 1x16384
    case4 uint16 2048x16 2048x16
    case5 int16 64x64 64x64
    case6 uint8 64x64 63x63
    case7 int8 64x64 63x63
    case8 uint32 64x64 64x64
    case9 uint32 64x64 61x61
    case10 uint32 1x16384 1x16384
    case11 uint32 1024x16 1024x16"""
CPU_SHIFTS = """
    case_int16_64x64_64x64_64x64 int16 64x64 64x64
    case_int32_16x256_16x256_16x256 int32 16x256 16x256"""
A2A3_TXOR = """
    case_int16_64x64_64x64_64x64_64x64 int16 64x64 64x64
    case_int16_32x128_32x128_32x256_32x128 int16 32x128 32x128 32x256 32x128
    case_int16_32x128_32x128_32x256_32x127 int16 32x128 32x128 32x256 32x127
    case_uint16_64x64_64x64_64x64_64x64 uint16 64x64 64x64
    case_uint16_32x128_32x128_32x256_32x128 uint16 32x128 32x128 32x256 32x128
    case_uint16_32x128_32x128_32x256_32x127 uint16 32x128 32x128 32x256 32x127
    case_int8_32x128_32x128_32x256_32x127 int8 32x128 32x128 32x256 32x127
    case_uint8_32x128_32x128_32x256_32x127 uint8 32x128 32x128 32x256 32x127
    case_int32_32x128_32x128_32x256_32x127 int32 32x128 32x128 32x256 32x127
    case_uint32_32x128_32x128_32x256_32x127 uint32 32x128 32x128 32x256 32x127"""
DST_SRC_16 = """
    case_int16_64x64_64x64_64x64 int16 64x64 64x64
    case_int16_32x128_32x128_32x128 int16 32x128 32x128
    case_int16_32x112_32x128_32x111 int16 32x112 32x128 32x111
    case_uint16_64x64_64x64_64x64 uint16 64x64 64x64
    case_uint16_32x128_32x128_32x128 uint16 32x128 32x128
    case_uint16_32x112_32x128_32x111 uint16 32x112 32x128 32x111"""
DST_SRC_32 = DST_SRC_16.replace("16_", "32_").replace("int16 ", "int32 ").replace("uint16 ", "uint32 ")
A5_SHIFTS_SCALAR = DST_SRC_16 + """
    case_uint16_1x112_1x128_1x111 uint16 1x112 1x128 1x111
    case_int64_4x16_4x16_4x16 int64 4x16 4x16
    case_uint64_4x16_4x16_4x16 uint64 4x16 4x16"""
CPU_TANDS = """
    case_int16_64x64_64x64_64x64 int16 64x64 64x64
    case_int32_64x64_64x64_64x64 int32 64x64 64x64
    case_int32_16x256_16x256_16x256 int32 16x256 16x256
    case_int32_77x96_77x96_77x96 int32 77x96 77x96
    case_int32_1x32_1x32_1x32 int32 1x32 1x32
    case_uint32_32x32_32x32_32x32 uint32 32x32 32x32
    case_uint32_8x64_8x64_8x64 uint32 8x64 8x64
    case_uint32_128x128_128x128_128x128 uint32 128x128 128x128
    case_uint32_16x32_16x32_16x32 uint32 16x32 16x32"""
CPU_TORS = """
    case_int16_64x64_64x64_64x64 int16 64x64 64x64
    case_int32_64x64_64x64_64x64 int32 64x64 64x64
    case_int32_16x256_16x256_16x256 int32 16x256 16x256
    case_int32_77x96_77x96_77x96 int32 77x96 77x96
    case_int32_8x32_8x32_8x32 int32 8x32 8x32
    case_uint32_32x32_32x32_32x32 uint32 32x32 32x32
    case_uint32_16x64_16x64_16x64 uint32 16x64 16x64
    case_uint32_12x128_12x128_12x128 uint32 12x128 12x128
    case_uint32_64x64_64x64_64x64 uint32 64x64 64x64"""

# (op, platform) -> (suite, compact, src0 file, second file, cases); kirinDev0000's scripts are kirin9030's
_LISTED: dict[tuple[str, str], tuple[str, bool, str, str, str]] = {
    ("TAND", "cpu"): ("TANDTest", False, "input1.bin", "input2.bin", """
        case_int16_64x64_64x64_64x64 int16 64x64 64x64
        case_int32_16x256_16x256_16x256 int32 16x256 16x256
        case_int32_32x32_32x32_32x32 int32 32x32 32x32
        case_int32_77x96_77x96_77x96 int32 77x96 77x96
        case_int32_8x64_8x64_8x64 int32 8x64 8x64
        case_uint32_64x64_64x64_64x64 uint32 64x64 64x64
        case_uint32_16x32_16x32_16x32 uint32 16x32 16x32
        case_uint32_12x128_12x128_12x128 uint32 12x128 12x128
        case_uint32_4x64_4x64_4x64 uint32 4x64 4x64"""),
    ("TAND", "a2a3"): ("TANDTest", True, "input1.bin", "input2.bin", A2A3_TAND),
    ("TAND", "a5"): ("TANDTest", True, "input1.bin", "input2.bin", NPU_NINE + """
        case10 int16 16x16 16x16 kernel=float16
        case11 int32 8x8 8x8 kernel=float32"""),
    ("TAND", "kirin9030"): ("TANDTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TOR", "cpu"): ("TORTest", False, "input1.bin", "input2.bin", """
        case_int16_64x64_64x64_64x64 int16 64x64 64x64
        case_int32_16x256_16x256_16x256 int32 16x256 16x256
        case_int32_64x64_64x64_64x64 int32 64x64 64x64
        case_int32_77x96_77x96_77x96 int32 77x96 77x96
        case_int32_32x32_32x32_32x32 int32 32x32 32x32
        case_uint32_64x64_64x64_64x64 uint32 64x64 64x64
        case_uint32_16x32_16x32_16x32 uint32 16x32 16x32
        case_uint32_77x96_77x96_77x96 uint32 77x96 77x96
        case_uint32_32x64_32x64_32x64 uint32 32x64 32x64"""),
    ("TOR", "a2a3"): ("TORTest", True, "input1.bin", "input2.bin", A2A3_TOR),
    ("TOR", "a5"): ("TORTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TOR", "kirin9030"): ("TORTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TXOR", "cpu"): ("TXORTest", False, "input1.bin", "input2.bin", CPU_SHIFTS),
    ("TXOR", "a2a3"): ("TXORTest", False, "input1.bin", "input2.bin", A2A3_TXOR),
    ("TXOR", "a5"): ("TXORTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TXOR", "kirin9030"): ("TXORTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TSHL", "cpu"): ("TSHLTest", False, "input1.bin", "input2.bin", CPU_SHIFTS),
    ("TSHL", "a2a3"): ("TSHLTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TSHL", "a5"): ("TSHLTest", True, "input1.bin", "input2.bin", NPU_NINE + """
        case_int64_4x16_4x15 int64 4x16 4x15
        case_uint64_4x16_4x15 uint64 4x16 4x15"""),
    ("TSHL", "kirin9030"): ("TSHLTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TSHR", "cpu"): ("TSHRTest", False, "input1.bin", "input2.bin", CPU_SHIFTS),
    ("TSHR", "a2a3"): ("TSHRTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TSHR", "a5"): ("TSHRTest", True, "input1.bin", "input2.bin", NPU_NINE + """
        case_int64_4x16 int64 4x16 4x16
        case_uint64_4x16 uint64 4x16 4x16"""),
    ("TSHR", "kirin9030"): ("TSHRTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TANDS", "cpu"): ("TANDSTest", False, "input1.bin", "scalar.bin", CPU_TANDS),
    ("TANDS", "a2a3"): ("TANDSTest", False, "input1.bin", "input2.bin", DST_SRC_16 + DST_SRC_32),
    ("TANDS", "a5"): ("TANDSTest", True, "input1.bin", "input2.bin", NPU_NINE + "\n    case10 int32 1x8 1x8"),
    ("TANDS", "kirin9030"): ("TANDSTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TORS", "cpu"): ("TORSTest", False, "input1.bin", "scalar.bin", CPU_TORS),
    ("TORS", "a2a3"): ("TORSTest", False, "input1.bin", "input2.bin", DST_SRC_16 + DST_SRC_32),
    ("TORS", "a5"): ("TORSTest", True, "input1.bin", "input2.bin", NPU_NINE + "\n    case10 int32 1x8 1x8"),
    ("TORS", "kirin9030"): ("TORSTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TXORS", "cpu"): ("TXORSTest", False, "input1.bin", "scalar.bin", """
        case_int32_64x64_64x64_64x64 int32 64x64 64x64
        case_int16_64x64_64x64_64x64 int16 64x64 64x64"""),
    ("TXORS", "a2a3"): ("TXORSTest", False, "input1.bin", "input2.bin", DST_SRC_16 + DST_SRC_32),
    ("TXORS", "a5"): ("TXORSTest", True, "input1.bin", "input2.bin", NPU_NINE + "\n    case10 int32 1x8 1x8"),
    ("TXORS", "kirin9030"): ("TXORSTest", True, "input1.bin", "input2.bin", NPU_NINE),
    ("TSHLS", "cpu"): ("TSHLSTest", False, "input.bin", "scalar.bin", CPU_SHIFTS),
    ("TSHLS", "a2a3"): ("TSHLSTest", False, "input1.bin", "input2.bin", DST_SRC_16),
    ("TSHLS", "a5"): ("TSHLSTest", False, "input1.bin", "input2.bin", A5_SHIFTS_SCALAR),
    ("TSHLS", "kirin9030"): ("TSHLSTest", False, "input1.bin", "input2.bin", DST_SRC_16),
    ("TSHRS", "cpu"): ("TSHRSTest", False, "input.bin", "scalar.bin", CPU_SHIFTS),
    ("TSHRS", "a2a3"): ("TSHRSTest", False, "input1.bin", "input2.bin", DST_SRC_16),
    ("TSHRS", "a5"): ("TSHRSTest", False, "input1.bin", "input2.bin", A5_SHIFTS_SCALAR),
    ("TSHRS", "kirin9030"): ("TSHRSTest", False, "input1.bin", "input2.bin", DST_SRC_16),
}
TESTS = {**_LISTED, **{(op, "kirinDev0000"): _LISTED[(op, "kirin9030")] for op in NAMES}}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case), in its order."""
    out: list[tuple[str, Case]] = []
    rs = tuple(r for r in roles(op) if r != "scalar")
    for line in TESTS[(op, platform)][4].strip().splitlines():
        words = line.split()
        name, dt, *rest = words
        shapes = [w for w in rest if "=" not in w]
        params = tuple((k, v) for k, v in (w.split("=") for w in rest if "=" in w))
        valid = _rxc(shapes[-1])
        phys = [shapes[0]] * len(rs) if len(shapes) == 2 else shapes[:-1]
        tiles = [(r, Tile(*_rxc(p), *valid)) for r, p in zip(rs, phys)]
        if scalar_op(op):
            tiles.append(("scalar", SCALAR))
        case = Case(op, platform, dt, tuple(tiles), params)
        repeats = sum(c.replace(params=tuple(kv for kv in c.params if kv[0] != REPEAT)) == case for _, c in out)
        if repeats:  # no test here draws one geometry twice yet; told apart if one does
            case = case.replace(params=(*params, (REPEAT, repeats + 1)))
        out.append((name, case))
    return tuple(out)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's valid region and dtype once (those pto-spec takes), the tiles the
    smallest legal descriptor holding it."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in oracles.SPEC_DTYPES or c.param(KERNEL):
                continue
            valid = c.tile("dst").valid
            phys = Tile(*spec_physical(*valid, dtypes.get(c.dtype)), *valid)
            tiles = tuple((r, SCALAR if r == "scalar" else phys) for r in roles(op))
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, tiles))
    named = ("dst", "src0") if scalar_op(op) else roles(op)
    return tuple((f"case_{c.dtype}_{'_'.join(c.tile(r).token() for r in named)}", c) for c in seen.values())


def _derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    return (("dst", named["dst"]), ("src0", named["src0"]), ("scalar", SCALAR))


PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    second = _second(op)
    named = ("dst", "src0") if scalar_op(op) else roles(op)
    derive = _derive if scalar_op(op) else None
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        suite, compact, src, other, _ = TESTS[(op, platform)]
        root = platforms.get(platform).test_root
        out[platform] = Profile(
            op, platform, suite, ((src, "src0"), (other, second)), golden, output, named, compact=compact,
            spelling=PLAIN, canonical=Listed(canonical, op, platform), derive=derive,
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}"
                 + ("; the scalar one element of the tile's type" if scalar_op(op) else ""))
    io = (("input1.bin", "src0"), ("scalar.bin" if scalar_op(op) else "input2.bin", second))
    out["spec"] = Profile(op, "spec", f"{op}Spec", io, golden, output, named, compact=False, spelling={},
                          canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical,
                          derive=derive, note="ptofuzz full-tile layout; the tiles one legal pto-spec descriptor"
                          + ("; scalar.bin one element (the GPR's raw bits)" if scalar_op(op) else ""))
    return {"spec": out.pop("spec"), **out}


# ---- cases ----------------------------------------------------------------------------------------------------

def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A case legal on ``platform``: the tile-tile family's geometry, and for a tile-scalar op the 1x1 scalar."""
    if not scalar_op(op):
        return gen.random_case(source, op, platform, sup, constraints)
    c = gen.random_case(source, op, platform, sup, constraints, ("dst", "src0"))
    return c.replace(tiles=(*c.tiles, ("scalar", SCALAR)))


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    if not scalar_op(op):
        return ew.explicit_case(op, sup, platform, opts)
    c = ew.explicit_case(op, sup, platform, opts, ("dst", "src0"))
    return c.replace(tiles=(*c.tiles, ("scalar", SCALAR)))


def illegal_case(source: Source, op: str, constraints: Mapping[str, Any]) -> Case:
    """A spec case pto-spec rejects: the tile-tile family's (its second source the scalar's place for a
    tile-scalar op, the broken source moved into src0)."""
    c = gen.illegal_spec_case(source, op, oracles.SPEC_DTYPES, constraints)
    if not scalar_op(op):
        return c
    d, s0, s1 = c.tile("dst"), c.tile("src0"), c.tile("src1")
    broken = s1 if s0.shape == d.shape and s0.valid == d.valid and 0 not in d.valid else s0
    return c.replace(tiles=(("dst", d), ("src0", broken), ("scalar", SCALAR)))


# ---- inputs: src0 over its whole tile; the second operand values or shift counts ---------------------------

def _scalar_rate(mix: values.ValueMix) -> float:
    """A scalar is one element: at the tile's rate it would rarely be special (as the tile-scalar family)."""
    kinds = [k for k in mix.kinds if k in values.ELEMENT_KINDS]
    return max(mix.rate, 0.3) if mix.rate and kinds else 0.0


def _element_mix(mix: values.ValueMix) -> values.ValueMix:
    kinds = tuple(k for k in mix.kinds if k in values.ELEMENT_KINDS)
    return values.ValueMix(mix.rate if kinds else 0.0, kinds)


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """src0 over its whole tile (implementations must not read outside the valid region), then the second
    operand: values of the mix, or shift counts (:func:`ptofuzz.generators.bitwise.counts`)."""
    dt = dtypes.get(case.dtype)
    second = _second(case.op)
    a = values.draw(source, dt, case.tile("src0").shape, mix)
    rate = _scalar_rate(mix) if second == "scalar" else None
    b = counts.operand(source, dt, case.tile(second).shape, _element_mix(mix), shift=shift(case.op), rate=rate)
    return {"src0": a, second: b}


def draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    return [draw_inputs(source, case, mix) for source, case in items]


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' bits at once, stacked on a leading axis (element-level special values only)."""
    dt = dtypes.get(case.dtype)
    second = _second(case.op)
    a = values.draw(source, dt, (n, *case.tile("src0").shape), mix)
    rate = _scalar_rate(mix) if second == "scalar" else None
    b = counts.operand(source, dt, (n, *case.tile(second).shape), _element_mix(mix), shift=shift(case.op),
                       rate=rate)
    return {"src0": a, second: b}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Where a shift count left a valid element undefined (outside [0, W)), an ordinary count instead (the
    scalar: one for all), then the case again: a golden then pins every valid element."""
    def fill(source: Source, case: Case, inputs: Mapping[str, np.ndarray], r: np.ndarray, c: np.ndarray
             ) -> dict[str, np.ndarray] | None:
        if not shift(case.op):
            return None
        dt = dtypes.get(case.dtype)
        new = {role: bits.copy() for role, bits in inputs.items()}
        if scalar_op(case.op):
            new["scalar"][...] = counts.ordinary(source, dt, 1)
        else:
            new["src1"][r, c] = counts.ordinary(source, dt, len(r))
        return new

    return redraws.where_open(items, fill, undefined_only=True)


# ---- fuzzing: geometry classes, regions, documented differences -------------------------------------------

def fault_class(case: Case) -> str:
    return ew.fault_class(case, ("src0",) if scalar_op(case.op) else ("src0", "src1"))


def geometry_class(case: Case) -> str:
    return ew.geometry_class(case.replace(tiles=tuple((r, t) for r, t in case.tiles if r != "scalar")))


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        sup = {"spec": oracles.SPEC_DTYPES, **DTYPES[op], "kirin9030": DTYPES[op]["a5"],
               "kirinDev0000": DTYPES[op]["a5"]}
        word = oracles.OPS[op]
        other = "scalar" if scalar_op(op) else "src1"
        formula = f"src0 {oracles.SYMBOL[word]} {other}"
        notes = (f"docs/isa/{op}.md: dst = {formula} over dst's valid region"
                 + ("; a count outside [0, W) undefined" if shift(op) else "; exact on the bits"))
        support = {
            "spec": PlatformSupport(sup["spec"], oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes="one physical and valid shape, else Fault_TileLegality (trap 5)"
                                    + ("; the count's low log2(W) bits" if shift(op) else "")),
            **{p: PlatformSupport(sup[p], oracles.documented, profiles[p],
                                  notes=notes + ("" if p in ("cpu", "a2a3", "a5") else "; a5's headers")
                                  + ("; the test's half/float kernel cases are outside the page's types"
                                     if (op, p) in (("TAND", "a2a3"), ("TAND", "a5")) else ""))
               for p in PLATFORMS},
        }

        def random(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                   _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return explicit_case(_op, _sup, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return illegal_case(source, _op, constraints)

        out.append(Instruction(
            name=op, family="tile-scalar" if scalar_op(op) else "elementwise-tile-tile",
            summary=f"{'tile-scalar' if scalar_op(op) else 'elementwise'} {word}: dst = {formula} over the valid "
                    "region",
            inputs=("src0", other), outputs=("dst",), platforms=support,
            random_case=random, explicit_case=explicit, draw_inputs=draw_inputs, draw_many=draw_many,
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=ew.replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
            regions=ew.regions, known_difference=ew.spec_geometry_difference, illegal_case=illegal, bundle=True))
    return out
