"""The tile-scalar arithmetic instructions (TADDS, TSUBS, TMULS, TMAXS, TMINS, TLRELU): capabilities, layouts and
canonical cases per platform, modelled on the tile-tile family (:mod:`ptofuzz.instructions.elementwise`).

Facts from pto-isa 3186c381 (``docs/isa/T{ADDS,SUBS,MULS,MAXS,MINS,LRELU}.md``: the dtypes each implementation
checks; kirin9030 and kirinDev0000 run a5's headers except TSUBS, ``include/pto/npu/kirin9030/TSubS.hpp``; the
system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{adds,subs,muls,maxs,mins,lrelu}/``: folder names,
files and byte layouts, as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/tile-scalar-and-immediate/arithmetic/``; no TLRELU). Semantics live in ``oracles/tilescalar.py``.

Roles: ``dst``, ``src0`` (the tile) and ``scalar``, a 1x1 tile of the element type. Every case has one valid
region, shared by ``dst`` and ``src0``; each file holds its whole tile at its own row stride. The scalar's file
comes in two forms:

- a 4-byte float32 (``divider.bin``; ``scalar.bin`` on a2a3's TSUBS, TMAXS, TLRELU) whatever the element type:
  main.cpp reads a ``float`` and the kernel converts it (``Profile.carriers``; a5's 64-bit cases write the
  element itself). Scalars ptofuzz draws for such a test are ones float32 holds exactly (an int32 keeps its top
  24 significant bits), so the golden uses the value the kernel receives;
- one element of the tile's type (``scalar.bin``, ``input_scalar.bin``: the cpu TSUBS/TMAXS/TMINS/TLRELU tests,
  a5's and kirin's TMAXS/TMINS).

tmins/a2a3 is a TMIN test: its kernel calls ``TMIN(dst, src0, src1)`` on two tiles (``input1.bin``,
``input2.bin``). Its eight cases are kept as the files say, with the param ``kernel=TMIN`` and the second tile in
the scalar's place (``input2.bin``); their golden is TMIN's. Other a2a3 TMINS cases are tile-scalar ones whose
scalar ``input2.bin`` holds one element.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import redraws
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import carrier as scalar_carrier
from ptofuzz.oracles import descriptors, integer
from ptofuzz.oracles import tilescalar as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TADDS", "TSUBS", "TMULS", "TMAXS", "TMINS", "TLRELU")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src0", "scalar")
SCALAR = Tile(1, 1, 1, 1)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
REPEAT = "repeat"  # the param telling apart a test's second case of one geometry (its data differ)

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks") ----------------------------------------------
SPEC_DTYPES = oracles.SPEC_DTYPES
# the cpu simulator's TBinSOps.hpp is a template over the element type with no dtype check: every 8- to 32-bit type
CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
A2A3_DTYPES = ("float32", "float16", "int32", "int16")
A5_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
             "uint8")
A5_DTYPES_MULS = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "uint64", "uint32", "uint16")
KIRIN_DTYPES_SUBS = ("float32", "float16", "int32", "int16", "int8", "uint32", "uint16", "uint8")  # its TSubS.hpp
FLOATS = ("float32", "float16")


def supported(op: str, platform: str) -> tuple[str, ...]:
    """The element types ``op`` takes on ``platform`` (the pages' lists; kirin: the headers it runs)."""
    if platform == "spec":
        return SPEC_DTYPES
    if platform == "cpu":
        return CPU_DTYPES
    if op == "TLRELU":
        return FLOATS
    if platform == "a2a3":
        return A2A3_DTYPES
    if op == "TSUBS" and platform.startswith("kirin"):
        return KIRIN_DTYPES_SUBS
    return A5_DTYPES_MULS if op == "TMULS" else A5_DTYPES


PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)

# ---- the system tests: case name, dtype, dst tile, src tile, valid region (tmins/a2a3: and its second tile) ---
TADDS_CPU = """
    case1 float32 32x64 32x64 32x64
    case2 float16 63x64 63x64 63x64
    case3 int32 31x128 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x448 7x448 7x448
    case6 float32 256x16 256x16 256x16
    case7 float32 64x64 32x32 16x16"""
TADDS_TMAXS_TMULS_TSUBS_A2A3 = """
    case1 float32 32x64 32x64 32x64
    case2 float16 63x64 63x64 63x64
    case3 int32 31x128 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x448 7x448 7x448
    case6 float32 256x16 256x16 256x16
    case7 float32 32x128 32x64 32x64
    case8 float16 63x128 63x64 63x64
    case9 int32 31x256 31x128 31x128
    case10 int16 15x192 15x192 15x192
    case11 float32 7x512 7x448 7x448
    case12 float32 256x32 256x16 256x16"""
TADDS_TSUBS_A5 = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 int32 31x256 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x512 7x448 7x448
    case6 float32 256x32 256x16 256x16
    case7 uint32 256x32 256x16 256x16
    case8 uint16 256x32 256x16 256x16
    case9 int8 256x64 256x32 256x32
    case10 uint8 256x64 256x32 256x32
    case11 uint8 1x64 1x32 1x32
    case_int64_4x16 int64 4x16 4x16 4x16
    case_uint64_4x16 uint64 4x16 4x16 4x16"""
TADDS_KIRIN = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 int32 31x256 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x512 7x448 7x448
    case6 float32 256x32 256x16 256x16"""
TLRELU_TMAXS_TSUBS_CPU = """
    case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
    case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
    case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
    case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256
    case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256"""
TSUBS_KIRIN = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 int32 31x256 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x512 7x448 7x448
    case6 float32 256x32 256x16 256x16
    case7 uint32 256x32 256x16 256x16
    case8 uint16 256x32 256x16 256x16
    case9 int8 256x64 256x32 256x32
    case10 uint8 256x64 256x32 256x32
    case11 float32 7x448 7x448 7x448
    case12 float32 256x16 256x16 256x16"""
TMULS_CPU = """
    case1 float32 32x64 32x64 32x64
    case2 float16 63x64 63x64 63x64
    case3 int32 31x128 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x448 7x448 7x448
    case6 float32 256x16 256x16 256x16
    case7 uint8 32x64 32x64 32x64
    case8 uint16 32x64 32x64 32x64
    case9 uint32 32x64 32x64 32x64"""
TMULS_A5 = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 int32 31x256 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x512 7x448 7x448
    case6 float32 256x32 256x16 256x16
    case7 float32 1x32 1x16 1x16
    case_int64_4x16 int64 4x16 4x16 4x16
    case_uint64_4x16 uint64 4x16 4x16 4x16"""
TMULS_KIRIN = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 int32 31x256 31x128 31x128
    case4 int16 15x192 15x192 15x192
    case5 float32 7x512 7x448 7x448
    case6 float32 256x32 256x16 256x16
    case7 uint32 31x256 31x128 31x128
    case8 uint16 15x192 15x192 15x192
    case9 float32 128x128 128x128 128x128
    case10 float16 128x256 128x128 128x128
    case11 int32 63x128 63x64 63x64
    case12 int16 128x256 128x128 128x128
    case14 uint16 128x256 128x128 128x128
    case15 float16 64x128 64x64 64x64"""
TMAXS_TMINS_A5 = """
    case_float_64x64_32x32_32x32 float32 64x64 32x32 32x32
    case_float_128x128_64x64_64x64 float32 128x128 64x64 64x64
    case_float_60x128_64x64_60x60 float32 60x128 64x64 60x60
    case_float_16x200_20x512_16x200 float32 16x200 20x512 16x200
    case_float_1x3600_2x4096_1x3600 float32 1x3600 2x4096 1x3600
    case_half_16x256_20x224_16x200 float16 16x256 20x224 16x200
    case_half_1x256_1x224_1x200 float16 1x256 1x224 1x200
    case_int32_32x32_32x32_32x32 int32 32x32 32x32 32x32
    case_uint32_32x32_32x32_32x32 uint32 32x32 32x32 32x32
    case_int16_32x128_32x128_32x128 int16 32x128 32x128 32x128
    case_uint16_32x128_32x128_32x128 uint16 32x128 32x128 32x128
    case_int8_32x128_32x128_32x128 int8 32x128 32x128 32x128
    case_uint8_32x128_32x128_32x128 uint8 32x128 32x128 32x128
    case_int64_4x16_4x16_4x16 int64 4x16 4x16 4x16
    case_uint64_4x16_4x16_4x16 uint64 4x16 4x16 4x16"""
TMAXS_TMINS_KIRIN = """
    case_float_64x64_32x32_32x32 float32 64x64 32x32 32x32
    case_float_128x128_64x64_64x64 float32 128x128 64x64 64x64
    case_float_60x128_64x64_60x60 float32 60x128 64x64 60x60
    case_float_16x200_20x512_16x200 float32 16x200 20x512 16x200
    case_float_1x3600_2x4096_1x3600 float32 1x3600 2x4096 1x3600
    case_half_16x256_20x224_16x200 float16 16x256 20x224 16x200
    case_int32_32x32_32x32_32x32 int32 32x32 32x32 32x32
    case_uint32_32x32_32x32_32x32 uint32 32x32 32x32 32x32
    case_int16_32x128_32x128_32x128 int16 32x128 32x128 32x128
    case_uint16_32x128_32x128_32x128 uint16 32x128 32x128 32x128
    case_int8_32x128_32x128_32x128 int8 32x128 32x128 32x128
    case_uint8_32x128_32x128_32x128 uint8 32x128 32x128 32x128"""
TMINS_CPU = """
    case_float_64x64_64x64_64x64 float32 64x64 64x64 64x64
    case_int32_64x64_64x64_64x64 int32 64x64 64x64 64x64
    case_int16_64x64_64x64_64x64 int16 64x64 64x64 64x64
    case_half_64x64_64x64_64x64 float16 64x64 64x64 64x64
    case_half_16x256_16x256_16x256 float16 16x256 16x256 16x256
    case_bf16_64x64_64x64_64x64 bfloat16 64x64 64x64 64x64
    case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256 16x256"""
TMINS_A2A3 = """
    case_float_64x64_PAD_VALUE_NULL float32 64x64 64x64 64x64 64x64
    case_int32_64x64_PAD_VALUE_NULL int32 64x64 64x64 64x64 64x64
    case_int16_64x64_PAD_VALUE_NULL int16 64x64 64x64 64x64 64x64
    case_half_64x64_PAD_VALUE_NULL float16 64x64 64x64 64x64 64x64
    case_float_60x60_PAD_VALUE_MIN float32 60x128 64x64 60x60 60x128
    case_int32_60x60_PAD_VALUE_MIN int32 60x128 64x64 60x60 60x128
    case_half_1x3600_PAD_VALUE_MIN float16 1x3600 2x4096 1x3600 1x3600
    case_int16_16x200_PAD_VALUE_MIN int16 16x256 20x512 16x200 16x256"""
TLRELU_A2A3 = """
    case1 float32 32x64 32x64 32x64
    case2 float16 63x64 63x64 63x64
    case3 float32 31x128 31x128 31x128
    case4 float16 15x192 15x192 15x192
    case5 float32 7x448 7x448 7x448
    case6 float32 256x16 256x16 256x16
    case7 float32 32x128 32x64 32x64
    case8 float16 63x128 63x64 63x64
    case9 float32 31x256 31x128 31x128
    case10 float16 15x192 15x192 15x192
    case11 float32 7x512 7x448 7x448
    case12 float32 256x32 256x16 256x16"""
TLRELU_A5 = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 float32 7x512 7x448 7x448
    case4 float32 256x32 256x16 256x16
    case5 float32 1x32 1x16 1x16"""
TLRELU_KIRIN = """
    case1 float32 32x128 32x64 32x64
    case2 float16 63x128 63x64 63x64
    case3 float32 7x512 7x448 7x448
    case4 float32 256x32 256x16 256x16"""

# (op, platform) -> (suite, src0 file, scalar file, scalar carrier, cases)
TESTS: dict[tuple[str, str], tuple[str, str, str, str, str]] = {
    ("TADDS", "cpu"): ("TADDSTest", "input.bin", "divider.bin", "float32", TADDS_CPU),
    ("TADDS", "a2a3"): ("TADDSTest", "input.bin", "divider.bin", "float32", TADDS_TMAXS_TMULS_TSUBS_A2A3),
    ("TADDS", "a5"): ("TADDSTest", "input.bin", "divider.bin", "float32", TADDS_TSUBS_A5),
    ("TADDS", "kirin9030"): ("TADDSTest", "input.bin", "divider.bin", "float32", TADDS_KIRIN),
    ("TADDS", "kirinDev0000"): ("TADDSTest", "input.bin", "divider.bin", "float32", TADDS_KIRIN),
    ("TSUBS", "cpu"): ("TSUBSTest", "input1.bin", "scalar.bin", "element", TLRELU_TMAXS_TSUBS_CPU),
    ("TSUBS", "a2a3"): ("TSUBSTest", "input.bin", "scalar.bin", "float32", TADDS_TMAXS_TMULS_TSUBS_A2A3),
    ("TSUBS", "a5"): ("TSUBSTest", "input.bin", "divider.bin", "float32", TADDS_TSUBS_A5),
    ("TSUBS", "kirin9030"): ("TSUBSTest", "input.bin", "divider.bin", "float32", TSUBS_KIRIN),
    ("TSUBS", "kirinDev0000"): ("TSUBSTest", "input.bin", "divider.bin", "float32", TSUBS_KIRIN),
    ("TMULS", "cpu"): ("TMULSTest", "input.bin", "divider.bin", "float32", TMULS_CPU),
    ("TMULS", "a2a3"): ("TMULSTest", "input.bin", "divider.bin", "float32", TADDS_TMAXS_TMULS_TSUBS_A2A3),
    ("TMULS", "a5"): ("TMULSTest", "input.bin", "divider.bin", "float32", TMULS_A5),
    ("TMULS", "kirin9030"): ("TMULSTest", "input.bin", "divider.bin", "float32", TMULS_KIRIN),
    ("TMULS", "kirinDev0000"): ("TMULSTest", "input.bin", "divider.bin", "float32", TMULS_KIRIN),
    ("TMAXS", "cpu"): ("TMAXSTest", "input1.bin", "scalar.bin", "element", TLRELU_TMAXS_TSUBS_CPU),
    ("TMAXS", "a2a3"): ("TMAXSTest", "input.bin", "scalar.bin", "float32", TADDS_TMAXS_TMULS_TSUBS_A2A3),
    ("TMAXS", "a5"): ("TMAXSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_A5),
    ("TMAXS", "kirin9030"): ("TMAXSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_KIRIN),
    ("TMAXS", "kirinDev0000"): ("TMAXSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_KIRIN),
    ("TMINS", "cpu"): ("TMINSTest", "input1.bin", "input_scalar.bin", "element", TMINS_CPU),
    ("TMINS", "a2a3"): ("TMINSTest", "input1.bin", "input2.bin", "element", TMINS_A2A3),
    ("TMINS", "a5"): ("TMINSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_A5),
    ("TMINS", "kirin9030"): ("TMINSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_KIRIN),
    ("TMINS", "kirinDev0000"): ("TMINSTest", "input1.bin", "input_scalar.bin", "element", TMAXS_TMINS_KIRIN),
    ("TLRELU", "cpu"): ("TLRELUTest", "input1.bin", "scalar.bin", "element", TLRELU_TMAXS_TSUBS_CPU),
    ("TLRELU", "a2a3"): ("TLRELUTest", "input.bin", "scalar.bin", "float32", TLRELU_A2A3),
    ("TLRELU", "a5"): ("TLRELUTest", "input.bin", "divider.bin", "float32", TLRELU_A5),
    ("TLRELU", "kirin9030"): ("TLRELUTest", "input.bin", "divider.bin", "float32", TLRELU_KIRIN),
    ("TLRELU", "kirinDev0000"): ("TLRELUTest", "input.bin", "divider.bin", "float32", TLRELU_KIRIN),
}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case), in the order its
    gen_data.py writes them."""
    out: list[tuple[str, Case]] = []
    for line in TESTS[(op, platform)][4].strip().splitlines():
        name, dt, dst, src, valid, *second = line.split()
        vr, vc = _rxc(valid)
        params: tuple[tuple[str, Any], ...]
        if second:  # tmins/a2a3: TMIN on two tiles
            scalar, params = Tile(*_rxc(second[0]), vr, vc), ((oracles.KERNEL, "TMIN"),)
        else:
            scalar, params = SCALAR, ()
        tiles = (("dst", Tile(*_rxc(dst), vr, vc)), ("src0", Tile(*_rxc(src), vr, vc)), ("scalar", scalar))
        case = Case(op, platform, dt, tiles, params)
        repeats = sum(c.replace(params=tuple(kv for kv in c.params if kv[0] != REPEAT)) == case for _, c in out)
        if repeats:  # a geometry the test draws again (a2a3's case10 is case4's): told apart, no other effect
            case = case.replace(params=(*params, (REPEAT, repeats + 1)))
        out.append((name, case))
    return tuple(out)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's valid region and dtype once (those pto-spec takes), dst and src0
    the smallest legal descriptor holding it."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in SPEC_DTYPES or c.param(oracles.KERNEL):
                continue
            valid = c.tile("dst").valid
            phys = Tile(*spec_physical(*valid, dtypes.get(c.dtype)), *valid)
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, (("dst", phys), ("src0", phys),
                                                                            ("scalar", SCALAR))))
    return tuple((f"case_{c.dtype}_{c.tile('dst').token()}_{c.tile('src0').token()}", c) for c in seen.values())


def _derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    return (("dst", named["dst"]), ("src0", named["src0"]), ("scalar", SCALAR))


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        suite, src, scalar, carrier, _ = TESTS[(op, platform)]
        carriers = (("scalar", "float32", ("int64", "uint64")),) if carrier == "float32" else ()
        root = platforms.get(platform).test_root
        note = (f"{root}/testcase/{op.lower()}: each file its whole tile; {scalar} "
                + ("a 4-byte float32 the kernel converts (64-bit: the element)" if carriers else "one element"))
        if op == "TMINS" and platform == "a2a3":
            note += "; its kernel runs TMIN on two tiles (input2.bin the second; kernel=TMIN)"
        out[platform] = Profile(op, platform, suite, ((src, "src0"), (scalar, "scalar")), golden, output,
                                ("dst", "src0"), compact=False, spelling=PLAIN,
                                canonical=Listed(canonical, op, platform),
                                derive=_derive, carriers=carriers, note=note)
    if op != "TLRELU":
        out["spec"] = Profile(op, "spec", f"{op}Spec", (("input1.bin", "src0"), ("scalar.bin", "scalar")), golden,
                              output, ("dst", "src0"), compact=False, spelling={},
                              canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                              physical=spec_physical,
                              derive=_derive, note="ptofuzz full-tile layout; dst and src0 one legal pto-spec "
                                                   "descriptor; scalar.bin one element (the GPR's raw bits)")
        return {"spec": out.pop("spec"), **out}
    return out


# ---- cases from the CLI ------------------------------------------------------------------------------------

def explicit_case(op: str, platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` describe: ``--dst`` the valid region (default: ``--shape``, or
    16x16), ``--shape`` the physical tile of dst and src0 (default: the smallest legal descriptor on spec, whole
    32-byte rows elsewhere)."""
    dt = dtypes.get(opts.get("dtype") or supported(op, platforms.canonical(platform))[0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    if shape is None:
        spec = platforms.get(platform).kind == platforms.SPEC
        shape = spec_physical(*valid, dt) if spec else whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    t = Tile(*shape, *valid)
    return Case(op, platform, dt.name, (("dst", t), ("src0", t), ("scalar", SCALAR)))


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


def random_case(source: Source, op: str, platform: str, constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform``: the tile-tile family's geometry (:func:`ptofuzz.generators.elementwise.
    random_case`) for dst and src0, and the 1x1 scalar."""
    c = gen.random_case(source, op, platform, supported(op, platforms.canonical(platform)), constraints)
    return Case(op, platform, c.dtype, (("dst", c.tile("dst")), ("src0", c.tile("src0")), ("scalar", SCALAR)))


# ---- inputs: the tile and the scalar, special values on both ----------------------------------------------------

#: the share of special values in a drawn scalar (one element: at the tile's rate it would rarely be special)
SCALAR_SPECIAL_RATE = 0.3


def _scalar_mix(mix: values.ValueMix) -> values.ValueMix:
    kinds = tuple(k for k in mix.kinds if k in values.ELEMENT_KINDS)
    return values.ValueMix(max(mix.rate, SCALAR_SPECIAL_RATE) if mix.rate and kinds else 0.0, kinds)


def _carried(case: Case, scalar: np.ndarray) -> np.ndarray:
    """The drawn scalars, moved where the case's platform carries them in a float32 (so that they survive its
    file)."""
    platform = platforms.canonical(case.platform)
    if (case.op, platform) not in TESTS or case.param(oracles.KERNEL):
        return scalar
    carrier = TESTS[(case.op, platform)][3]
    dt = dtypes.get(case.dtype)
    if carrier != "float32" or dt.bits == 64:
        return scalar
    return scalar_carrier.nearest(scalar, dt, dtypes.get("float32"))


def draw_many(items: Sequence[tuple[Source, Case]], mix: values.ValueMix) -> list[dict[str, np.ndarray]]:
    """Each case's source bits over the whole src0 tile (outside the valid region too: implementations must not
    read there) and its scalar (or tmins/a2a3's second tile), at the mix's rate of special values (a case folder's
    special scalar would make its whole golden special: fuzzing batches, :func:`draw_batch`, draw more)."""
    out = []
    for source, case in items:
        dt = dtypes.get(case.dtype)
        a = values.draw(source, dt, case.tile("src0").shape, mix)
        scalar = values.draw(source, dt, case.tile("scalar").shape, mix)
        out.append({"src0": a, "scalar": _carried(case, scalar)})
    return out


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    return draw_many([(source, case)], mix)[0]


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' bits at once, stacked on a leading axis (element-level special values only; the scalars with
    at least :data:`SCALAR_SPECIAL_RATE` special values, so that every kind meets every operation often)."""
    dt = dtypes.get(case.dtype)
    r, c = case.tile("src0").shape
    a = values.draw(source, dt, (n, r, c), mix)
    scalar = values.draw(source, dt, (n, 1, 1), _scalar_mix(mix))
    return {"src0": a, "scalar": _carried(case, scalar)}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Plain values in the source wherever the data left a valid element undefined (integer overflow, a NaN in
    max/min, an NPU's subnormals or overflow), and a plain scalar, then the case again: a golden then pins every
    valid element (pto-isa's own comparison cannot honour a placeholder)."""
    def fill(source: Source, case: Case, inputs: Mapping[str, np.ndarray], r: np.ndarray, c: np.ndarray
             ) -> dict[str, np.ndarray]:
        dt = dtypes.get(case.dtype)
        new = {role: bits.copy() for role, bits in inputs.items()}
        new["src0"][r, c] = values.plain(source, dt, len(r))
        if case.param(oracles.KERNEL):
            new["scalar"][r, c] = values.plain(source, dt, len(r))
        else:
            new["scalar"][...] = values.plain(source, dt, 1)
        return new

    return redraws.where_open(items, fill, undefined_only=True)


# ---- check: why a golden is wrong ---------------------------------------------------------------------------

def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """Why a golden that fails could be wrong ('' when nothing is known): a float32-carried integer scalar that
    float32 cannot hold exactly. For TADDS and TSUBS the golden's own scalar is recovered (``golden - src`` or
    ``src - golden``, wrapped, the same on every valid element) and named beside the one the kernel receives."""
    dt = dtypes.get(case.dtype)
    if dt.is_float or case.param(oracles.KERNEL) or "dst" not in files:
        return ""
    s = int(integer.values(inputs["scalar"][:1, :1], dt)[0, 0])
    if abs(s) < 1 << scalar_carrier.FLOAT32_DIGITS:
        return ""
    rows, cols = case.tile("dst").valid
    a, g = inputs["src0"][:rows, :cols], files["dst"][:rows, :cols]
    if case.op not in ("TADDS", "TSUBS") or a.size == 0:
        return (f"the scalar file is a float32 and the {dt.name} scalar {s} is at least 2**24: a golden computed "
                "from an integer float32 does not hold exactly is wrong")
    diff = integer.add_mul("sub", g, a, dt) if case.op == "TADDS" else integer.add_mul("sub", a, g, dt)
    used = np.unique(integer.values(diff, dt))
    if len(used) != 1 or int(used[0]) == s:
        return ""
    return (f"golden.bin was computed with the scalar {int(used[0])}, but the kernel receives {s}: the scalar file "
            f"is a float32, which holds no {dt.name} {int(used[0])} (integers of 2**24 and more lose their low "
            "bits), so the golden is wrong")


# ---- fuzzing: geometry classes, regions, documented differences -------------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element), ``nodesc`` (a tile pto-spec cannot describe), else whether dst and src0
    share one shape (``same``) or the source is read at another stride (``strides``), and whether the valid
    region fills the destination (``full``) or not (``part``)."""
    d, s = case.tile("dst"), case.tile("src0")
    if 0 in d.valid:
        return "empty"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX) for t in (d, s)):
        return "nodesc"
    return f"{'same' if d.shape == s.shape else 'strides'},{'full' if d.valid == d.shape else 'part'}"


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    fault = oracles.spec_legality(case)
    if fault is None:
        return "spec-legal"
    why = fault.fault.reason if fault.fault is not None else ""
    return "shape" if "physical shapes" in why else "valid" if "valid shapes" in why else \
        "empty" if "empty" in why else "nodesc"


REGIONS = ("op", "outside")


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Inside the valid region (the operation) or outside it (nothing is written there)."""
    d = case.tile(role)
    rows = np.arange(d.rows)[:, None] < d.valid_rows
    cols = np.arange(d.cols)[None, :] < d.valid_cols
    return REGIONS, np.where(rows & cols, 0, 1).astype(np.uint8)


def known_difference(sig: Signature) -> str | None:
    """The documented differences between pto-spec's model and pto-isa's pages: pto-spec faults on geometries
    and types pto-isa accepts."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        if sig.dtype_class == "int64":
            return "pto-spec has no 64-bit integer tile-scalar arithmetic; a5 implements it (docs/isa/<OP>.md)"
        if sig.geometry in ("shape", "nodesc"):
            return ("pto-spec requires the source to match the destination's physical shape and be a legal "
                    "descriptor (TileShapeAndTypeMatch); pto-isa's pages require only src0's valid rows and cols to "
                    "equal dst's and use dst.GetValidRow()/GetValidCol() as the iteration domain")
        other = b if a == "spec" else a
        if sig.geometry == "valid" and sig.op in oracles.A5_COLUMNS_ONLY and other in platforms.names() \
                and platforms.get(other).implementation == "a5":
            return (f"pto-spec requires the source's valid shape to equal the destination's; docs/isa/{sig.op}.md "
                    "(A5) asks only src0.GetValidCol() == dst.GetValidCol() and iterates over dst's valid region")
        if sig.geometry == "empty":
            return ("pto-spec faults on an empty valid region (LB0 must be nonzero); pto-isa iterates over dst's "
                    "valid region, which may be empty")
    return None


# ---- the instructions --------------------------------------------------------------------------------------

FORMULA = {"add": "src0 + scalar", "sub": "src0 - scalar", "mul": "src0 * scalar", "max": "max(src0, scalar)",
           "min": "min(src0, scalar)", "lrelu": "(src0 > 0) ? src0 : src0 * scalar"}


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        notes = "docs/isa/" + op + ".md: the formula over dst's valid region, the scalar broadcast; "
        support: dict[str, PlatformSupport] = {}
        if op != "TLRELU":
            support["spec"] = PlatformSupport(supported(op, "spec"), oracles.spec, profiles["spec"],
                                              bad_dtype="fault", has_system_test=False,
                                              notes="dst and src0 one physical and valid shape, else "
                                                    "Fault_TileLegality (trap 5); the scalar's raw bits")
        support["cpu"] = PlatformSupport(supported(op, "cpu"), oracles.cpu, profiles["cpu"],
                                         notes=notes + "integer overflow undefined; IEEE on the host"
                                         + ("; the pages list floats only, the simulator and its test take "
                                            "integers" if op == "TLRELU" else ""))
        for p in PLATFORMS[1:]:
            support[p] = PlatformSupport(
                supported(op, p), oracles.npu, profiles[p],
                notes=notes + "integer overflow, float overflow and subnormal effects undefined"
                + ("" if p in ("a2a3", "a5") else "; its own TSubS.hpp" if op == "TSUBS" else "; a5's headers")
                + ("; the test runs TMIN (kernel=TMIN)" if (op, p) == ("TMINS", "a2a3") else ""))

        def random(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return random_case(source, _op, platform, constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op) -> Case:
            return explicit_case(_op, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            c = gen.illegal_spec_case(source, _op, SPEC_DTYPES, constraints)
            if c.tile("src0").shape == c.tile("dst").shape and c.tile("src0").valid == c.tile("dst").valid \
                    and 0 not in c.tile("dst").valid:
                c = c.replace(tiles=(("dst", c.tile("dst")), ("src0", c.tile("src1")), ("scalar", SCALAR)))
            else:
                c = c.replace(tiles=(("dst", c.tile("dst")), ("src0", c.tile("src0")), ("scalar", SCALAR)))
            return c

        word = oracles.OPS[op]
        out.append(Instruction(
            name=op, family="tile-scalar",
            summary=f"tile-scalar {'leaky relu' if word == 'lrelu' else word}: dst = {FORMULA[word]} over the "
                    "valid region",
            inputs=("src0", "scalar"), outputs=("dst",), platforms=support,
            random_case=random, explicit_case=explicit, draw_inputs=draw_inputs, draw_many=draw_many,
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
            regions=regions, known_difference=known_difference,
            illegal_case=illegal if op != "TLRELU" else None, explain=explain, bundle=op != "TLRELU",
            unmodelled={"spec": "pto-spec deleted TLRELU (spec/catalog/tile-operations.json deleted_names)"}
            if op == "TLRELU" else {}))
    return out
