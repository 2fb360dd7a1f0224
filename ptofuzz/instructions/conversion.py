"""TCVT: the conversion family's instruction (capabilities, layouts, cases); semantics in ``oracles/conversion.py``.

Facts from pto-isa 3186c381: ``docs/isa/TCVT.md``'s table of (source, destination) pairs for A2A3 and A5, as far as
ptofuzz has the types (float32, float16, bfloat16, the 8-bit floats FP8 E4M3, FP8 E5M2 and HiFloat8 (H8), 8- to
64-bit integers, and the 4-bit FP4 E1M2, FP4 E2M1 and int4). The page has no column for the kirin targets or the
cpu: kirinDev0000 runs A5's pairs (its ``TCvt.hpp`` is A5's without the FP4 pairs), kirin9030 those of A5's that its
own ``TCvt.hpp`` has, and the cpu (whose ``TCvt.hpp`` compiles any pair) the pairs of A2A3 and A5 together (not
yet A5's 8-bit float pairs: :data:`_A5_FP8`) and those its own system test converts (:data:`_CPU_ST`: float32 to
and from int4, FP4 E2M1 and E1M2, and a few more integers). The cpu's test (:data:`CPU_SYSTEM_TEST`) is exposed;
``check`` names the FP4 goldens its script gets wrong (:func:`explain`). pto-spec
converts between every two of its types. A case's dtype is the source's; params ``to``, ``rmode`` and ``sat``
(:mod:`ptofuzz.oracles.conversion`).

The system tests' own folders (:data:`SYSTEM_TESTS`, in the order each gen_data.py writes them) for kirin9030,
kirinDev0000, a5 and a2a3: ``x1_gm.bin`` (the source) and ``golden.bin`` (the destination), each its whole tile
(zeros outside the valid region), in the rounding mode the kernel passes (fp16 to h8: CAST_ROUND). A test that
passes a SaturationMode (a2a3's ``nonsattorch_`` cases: CAST_TRUNC, SaturationMode::OFF; the ``saturation_`` cases,
never compiled, whose main.cpp compares the OFF output) compares ``golden_truncated.bin``: a case with saturation
off has that file (on a2a3 beside ``golden.bin``, which its script writes too). kirin9030's
``saturation_int64_int32_1x32`` converts a pair kirin9030's TCvt.hpp lacks (its kernel does not instantiate it):
ptofuzz gives kirin9030 that pair of the page's A5 column. a2a3's fp16/s4 and a5's bf16/FP4 files hold their
4-bit elements two a byte (:data:`PACKED`; element 2i in the low nibble, each row of the tile on its own), as
their scripts write them; a5's FP4 goldens of an odd valid width leave out the last valid column (:func:`explain`).
a5's test names three float16 pairs bf16 (:data:`A5_BF16_AS_FP16`): ptofuzz writes what the test runs, float16.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import EXACT, Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import conversion as boundaries
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import valid_region
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import conversion as oracles
from ptofuzz.oracles import ieee
from ptofuzz.oracles.conversion import RMODE, SAT, TO

NAMES = ("TCVT",)
ROLES = ("dst", "src")
NAMED = "named"  # a system-test case's param: the word its folder name uses for a type (a5's float16 "bf16")
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
SPELLING = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16",  # the tcvt tests' tokens; others numpy's
            "float8_e4m3": "fp8_e4m3", "float8_e5m2": "fp8_e5m2", "hifloat8": "h8",
            "int4": "s4", "float4_e1m2": "fp4_e1m2x2", "float4_e2m1": "fp4_e2m1x2"}

_A2A3 = """float32: float16 float32 bfloat16 int16 int32 int64
float16: float32 int32 int16 int8 uint8
bfloat16: float32 int32
int16: float16 float32
int32: float32 int16 int64 float16
int64: float32 int32
uint8: float16
int8: float16"""
_A5 = """float32: float32 float16 bfloat16 int16 int32 int64
float16: float32 int32 int16 int8 uint8
bfloat16: float32 int32 float16
int16: uint8 float16 float32 uint32 int32
int32: float32 int16 uint16 int64 uint8
int64: float32 int32
uint8: float16 uint16
int8: float16 int16 int32
uint32: uint8 uint16 int16"""
#: the A5 column's 8-bit float pairs (FP8_E4M3, FP8_E5M2, H8): A5's and kirinDev0000's; not yet the cpu's (its
#: simulator harness compiles no 8-bit float type yet, and the cpu's pairs are the ones it runs)
_A5_FP8 = """float32: float8_e4m3 float8_e5m2 hifloat8
float16: hifloat8
float8_e4m3: float32
float8_e5m2: float32
hifloat8: float32"""
#: the 4-bit pairs: A2A3's FP16 to and from S4 (int4b_t), A5's BF16 to and from FP4_E1M2X2 and FP4_E2M1X2 (not
#: the cpu's: its test converts FP32, its pairs are those its simulator harness runs; not kirinDev0000's, whose
#: TCvt.hpp is A5's without them)
_A2A3_S4 = """float16: int4
int4: float16"""
_A5_FP4 = """bfloat16: float4_e1m2 float4_e2m1
float4_e1m2: bfloat16
float4_e2m1: bfloat16"""
#: the types each platform's test files hold two a byte (a2a3's int4b_t, a5's float4_*x2_t)
#: (the cpu's main.cpp halves the file of the FP4 types only; its int4b_t is a byte)
PACKED = {"a2a3": ("int4",), "a5": ("float4_e1m2", "float4_e2m1"), "cpu": ("float4_e2m1", "float4_e1m2")}
#: kirin9030's own TCvt.hpp: these of A5's pairs; and int64 to int32, which the header lacks but the system test
#: writes a folder for (saturation_int64_int32_1x32, never compiled): the page's A5 column's semantics
_KIRIN9030 = """float32: float32 float16 int16 int32
float16: float32 int16 int32 int8 uint8
int16: float32 float16 int32 uint32 uint8
int32: float32 int16 uint16 uint8
int8: float16 int16 int32
uint32: int16 uint16 uint8
uint8: float16 uint16
int64: int32"""


def _pairs(text: str) -> dict[str, tuple[str, ...]]:
    """``src: dst dst ...`` lines; a source may come again (its destinations are appended)."""
    out: dict[str, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        src, dsts = line.split(":")
        out[src.strip()] = out.get(src.strip(), ()) + tuple(dsts.split())
    return out


def _union(*tables: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    return {s: tuple(dict.fromkeys(d for t in tables for d in t.get(s, ()))) for t in tables for s in t}


#: the pairs the cpu's own system test converts (tests/cpu/st/testcase/tcvt) beyond the A2A3 and A5 columns: its
#: TCvt.hpp compiles any pair, and these are the ones its test runs (float32 to and from int4, FP4 E2M1 and E1M2)
_CPU_ST = """float32: uint8 uint16 int4 float4_e2m1 float4_e1m2
int8: float32
uint16: float32 int32
int4: float32
float4_e2m1: float32
float4_e1m2: float32"""

PAIRS: dict[str, dict[str, tuple[str, ...]]] = {
    "spec": {s: oracles.SPEC_DTYPES for s in oracles.SPEC_DTYPES},
    "cpu": _union(_pairs(_A2A3), _pairs(_A5), _pairs(_CPU_ST)),
    "a2a3": _pairs(_A2A3 + "\n" + _A2A3_S4), "a5": _pairs(_A5 + "\n" + _A5_FP8 + "\n" + _A5_FP4),
    "kirin9030": _pairs(_KIRIN9030),
    "kirinDev0000": _pairs(_A5 + "\n" + _A5_FP8),
}


def destinations(platform: str, src: str) -> tuple[str, ...]:
    return PAIRS[platforms.canonical(platform)].get(src, ())


def check_pair(platform: str, src: str, dst: str) -> None:
    """A one-line UsageError unless ``platform`` converts ``src`` to ``dst``."""
    if dst not in destinations(platform, src):
        have = ", ".join(destinations(platform, src)) or "nothing"
        raise UsageError(f"TCVT on {platform} does not convert {src} to {dst} (it converts {src} to: {have}); "
                         "pass another --to or --dtype")


# ---- geometry -----------------------------------------------------------------------------------------------------

def physical(valid: tuple[int, int], src: dtypes.DType, dst: dtypes.DType, spec: bool,
             packed: Collection[str] = ()) -> tuple[int, int]:
    """One physical shape for both tiles: whole 32-byte rows of both types (the narrower decides; a 4-bit type
    the platform packs, ``packed``, holds 64 elements a row), or on spec the smallest legal descriptor of the
    narrower type (then of the wider too)."""
    narrow = src if src.itemsize <= dst.itemsize else dst
    if not spec and narrow.name in packed:
        return max(valid[0], 1), max(-(-valid[1] // 64), 1) * 64
    if spec:  # by element bits: pto-spec packs a 4-bit type two a byte, so beside a byte type it is the narrower
        return spec_physical(*valid, src if src.bits <= dst.bits else dst)
    return whole_rows(*valid, narrow)


def _case(platform: str, src: str, dst: str, valid: tuple[int, int], shape: tuple[int, int] | None,
          rmode: int, sat: int | None, named: str | None = None) -> Case:
    spec = platforms.get(platforms.canonical(platform)).kind == platforms.SPEC
    packed = PACKED.get(platforms.canonical(platform), ())
    phys = shape or physical(valid, dtypes.get(src), dtypes.get(dst), spec, packed)
    tile = Tile(*phys, *valid)
    return Case("TCVT", platform, src, (("dst", tile), ("src", tile)),
                ((TO, dst), (RMODE, rmode), (SAT, sat), (NAMED, named)))


def random_case(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    """A pair the platform converts, a valid region as the elementwise family draws it (empty now and then off
    the spec), any rounding mode (on spec pto-spec's RHB too), saturation on, off or the default form."""
    canon = platforms.canonical(platform)
    given = {k: dtypes.get(constraints[k]).name for k in ("dtype", "to") if constraints.get(k)}  # half: float16
    src = given.get("dtype") or source.choice(tuple(PAIRS[canon]))
    # a constrained pair this platform does not convert is drawn anyway: its model says "unsupported"
    dst = given.get("to") or source.choice(PAIRS[canon].get(src) or oracles.SPEC_DTYPES)
    wide = max(dtypes.get(src).itemsize, dtypes.get(dst).itemsize)
    narrow = dtypes.get(src) if dtypes.get(src).itemsize <= dtypes.get(dst).itemsize else dtypes.get(dst)
    spec = platforms.get(canon).kind == platforms.SPEC
    valid = valid_region(source, narrow, allow_zero=not spec, shape=constraints.get("shape"))
    if spec:  # the wider type's tile must fit a Local tile as well
        while valid[0] * physical(valid, dtypes.get(src), dtypes.get(dst), True)[1] * wide > 64 * 1024:
            valid = (max(1, valid[0] // 2), valid[1])
    rmode = int(source.integers(0, oracles.RHB_MODE if spec else 6))  # pto-spec's RHB (7) too
    sat = source.choice((None, oracles.SAT_ON, oracles.SAT_OFF))
    return _case(platform, src, dst, valid, None, rmode, sat)


def explicit_case(platform: str, opts: Mapping[str, Any]) -> Case:
    """The case ``--dtype --to --shape --dst --rmode --sat`` describe (defaults: the platform's first pair,
    16x16, CAST_RINT, the default saturation)."""
    canon = platforms.canonical(platform)
    src = dtypes.get(opts["dtype"]).name if opts.get("dtype") else next(iter(PAIRS[canon]))
    if src not in PAIRS[canon]:
        raise UsageError(f"TCVT on {platform} converts no {src}; it converts {', '.join(PAIRS[canon])}")
    dst = dtypes.get(opts["to"]).name if opts.get("to") else PAIRS[canon][src][0]
    check_pair(canon, src, dst)
    sat = {None: None, "on": oracles.SAT_ON, "off": oracles.SAT_OFF}.get(opts.get("sat"), -1)
    if sat == -1:
        raise UsageError(f"--sat {opts.get('sat')}: give on or off (or leave it out: the target's default)")
    given = opts.get("rmode")
    rmode = 1 if given is None else int(given)
    spec = platforms.get(canon).kind == platforms.SPEC
    if rmode not in range(oracles.RHB_MODE + 1 if spec else oracles.RHB_MODE):
        raise UsageError(f"--rmode {rmode}: give a pto::RoundMode 0..6 (CAST_NONE, CAST_RINT, CAST_ROUND, "
                         "CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ODD)" + (", or 7: pto-spec's RHB" if spec else ""))
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    if shape is not None and (valid[0] > shape[0] or valid[1] > shape[1]):
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    return _case(platform, src, dst, valid, shape, rmode, sat)


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    flags = f" --to {case.param(TO)} --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols} " \
            f"--rmode {case.param(RMODE, 0)}"
    sat = case.param(SAT)
    return flags + ("" if sat is None else f" --sat {'on' if sat == oracles.SAT_ON else 'off'}")


# ---- pto-isa's own folders ----------------------------------------------------------------------------------

_RMODES = {"none": 0, "rint": 1, "round": 2, "trunc": 5}  # pto::RoundMode's ordinals
_SATS = {"default": None, "on": oracles.SAT_ON, "off": oracles.SAT_OFF}

#: Each system test's folders, in the order its gen_data.py writes them. An entry (ending in ``;``): the folder
#: kind (the name's first word), the kernel's rounding mode and saturation (``default``: the overload without a
#: SaturationMode), the pairs as the test spells them, then after ``:`` the shapes (``RxC``: tile and valid
#: region; ``RxC_vRxvC``: a tile and its valid region); it names ``<kind>_<pair>_<shape>``, pair by pair.
SYSTEM_TESTS = {
    "kirin9030": """
        case rint default fp32_fp16 fp32_int16 fp32_int32 fp32_fp32 fp16_fp32 fp16_int32 fp16_int16 fp16_int8
            fp16_uint8 uint8_fp16 int8_fp16 int8_int16 int8_int32 int16_uint8 int16_fp16 int16_fp32 int16_uint32
            int16_int32 int32_fp32 int32_int16 int32_uint8 uint32_uint8 uint32_int16
            : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        saturation rint off fp16_int8 fp32_int16 fp16_int16 fp16_uint8 int64_int32 int32_int16 : 1x32;
        """,
    "a2a3": """
        case rint default fp32_fp32 fp32_fp16 fp32_int32 fp32_int16 fp32_int64 fp16_fp32 fp16_int32 fp16_int16
            fp16_int8 fp16_uint8 int32_fp32 int32_fp16 int32_int16 int32_int64 int16_fp16 int16_fp32 int8_fp16
            uint8_fp16 int64_fp32 int64_int32
            : 1x32 2x64 4x32 8x64 1x256 8x128 4x128_4x65 4x256_4x200 1x256_1x129 2x32_2x16;
        saturation rint off fp16_int8 fp32_int16 fp16_int16 fp16_uint8 int64_int32 int32_int16 : 1x32;
        nonsattorch trunc off fp16_int8 : 1x32 2x64 8x128;
        nonsattorch trunc off fp16_int16 fp32_int16 : 1x32;
        nonsattorch trunc off fp16_int8 : 4x128_4x65 2x32_2x16;
        nonsattorch trunc off fp16_int16 fp32_int16 : 4x128_4x65;
        case rint default fp16_s4 : 1x64; case none default s4_fp16 : 1x64;
        case rint default fp16_s4 : 1x128; case none default s4_fp16 : 1x128;
        case rint default fp16_s4 : 1x256; case none default s4_fp16 : 1x256;
        case rint default fp16_s4 : 2x128; case none default s4_fp16 : 2x128;
        case rint default fp16_s4 : 4x128; case none default s4_fp16 : 4x128;
        case rint default fp16_s4 : 8x128; case none default s4_fp16 : 8x128;
        """,
    # kirinDev0000: A5's script with a real bfloat16 (its bits), without the int64 and FP4 pairs; the kernel
    # converts fp16 to h8 with CAST_ROUND (the only nearest mode the hardware has for that pair), the rest with
    # CAST_RINT
    "kirinDev0000": """
        case rint default fp32_fp16 fp32_bf16 fp32_int16 fp32_int32 fp32_fp32 fp16_fp32 fp16_int32 fp16_int16
            fp16_int8 fp16_uint8 bf16_fp32 bf16_int32 bf16_fp16 uint8_fp16 int8_fp16 int8_int16 int8_int32
            int16_uint8 int16_fp16 int16_fp32 int16_uint32 int16_int32 int32_fp32 int32_int16 int32_uint8
            uint32_uint8 uint32_int16 fp32_fp8_e4m3 fp32_fp8_e5m2 fp8_e4m3_fp32 fp8_e5m2_fp32 fp32_h8
            : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        case round default fp16_h8 : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        case rint default h8_fp32 : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        saturation rint off fp16_int8 fp32_int16 fp16_int16 fp16_uint8 int32_int16 : 1x32;
        """,
    # a5: its "bf16" pairs other than bf16_fp16 and the FP4 ones convert float16 (:data:`A5_BF16_AS_FP16`); the
    # FP4 pairs convert a real bfloat16 (its bits) to and from FP4 packed two a byte
    "a5": """
        case rint default fp32_fp16 fp32_bf16 fp32_int16 fp32_int32 fp32_int64 fp32_fp32 fp16_fp32 fp16_int32
            fp16_int16 fp16_int8 fp16_uint8 bf16_fp32 bf16_int32 bf16_fp16 bf16_fp4_e1m2x2 bf16_fp4_e2m1x2
            fp4_e1m2x2_bf16 fp4_e2m1x2_bf16 uint8_fp16 int8_fp16 int8_int16 int8_int32 int16_uint8 int16_fp16
            int16_fp32 int16_uint32 int16_int32 int32_fp32 int32_int16 int32_int64 int32_uint8 uint32_uint8
            uint32_int16 int64_fp32 int64_int32 fp32_fp8_e4m3 fp32_fp8_e5m2 fp8_e4m3_fp32 fp8_e5m2_fp32 fp32_h8
            : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        case round default fp16_h8 : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        case rint default h8_fp32 : 1x128 2x64 4x32 2x128 4x128_4x65 4x256_4x200 1x256_1x129;
        saturation rint off fp16_int8 fp32_int16 fp16_int16 fp16_uint8 int64_int32 int32_int16 : 1x32;
        """,
}

#: a5's pairs its test names bf16 but runs as float16: gen_data.py makes ``bfloat16`` numpy's float16 (so
#: x1_gm.bin and golden.bin hold float16 bits) and main.cpp instantiates the kernel with aclFloat16 (fp32_bf16
#: runs the very kernel fp32_fp16 does). Their cases carry the param ``named`` (``bf16``), the word the name
#: uses, so that each folder name stays one case. bf16_fp16 (never run: main.cpp and the kernel comment out its
#: aclFloat16-from-bfloat16_t line) stays the page's bfloat16 to float16, whose every element is open
A5_BF16_AS_FP16 = ("fp32_bf16", "bf16_fp32", "bf16_int32")

#: the cpu's test (tests/cpu/st/testcase/tcvt): ``TCVTTest.case<k>``, k the line's place here (the name says
#: nothing else); each line the pair (source_destination in ptofuzz's names), the tile (tile = valid region) and
#: the SaturationMode the kernel passes (always CAST_RINT). Its files: int4 one element a byte (the value & 0xF),
#: FP4 two a byte (:data:`PACKED`)
CPU_SYSTEM_TEST = """
    float32_int32 128x128 off; int32_float32 256x64 off; float32_int16 16x32 off; float32_int32 32x512 off;
    int16_int32 2x512 off; float32_int32 4x4096 off; int16_float32 64x64 off; float32_float16 64x64 off;
    float16_uint8 64x64 off; int32_float32 64x64 on; int8_float32 128x128 on; float32_uint8 64x64 on;
    int32_int16 64x64 on; float16_int8 32x32 on; float16_uint8 64x64 on; float32_uint16 64x64 off;
    uint16_float32 64x64 off; int32_uint16 64x64 on; uint16_int32 64x64 on;
    float32_int4 64x64 off; int4_float32 64x64 off; float32_int4 64x64 on; int4_float32 64x64 on;
    float32_float4_e2m1 64x64 off; float4_e2m1_float32 64x64 off; float32_float4_e2m1 64x64 on;
    float4_e2m1_float32 64x64 on; float32_float4_e1m2 64x64 off; float4_e1m2_float32 64x64 off;
    float32_float4_e1m2 64x64 on; float4_e1m2_float32 64x64 on"""


def _cpu_system_test() -> tuple[tuple[str, Case], ...]:
    out = []
    for k, entry in enumerate(filter(str.strip, CPU_SYSTEM_TEST.split(";")), 1):
        pair, shape, sat = entry.split()
        src, dst = next((a, b) for a in dtypes.DTYPES for b in dtypes.DTYPES if pair == f"{a}_{b}")
        rows, cols = (int(n) for n in shape.split("x"))
        out.append((f"case{k}", _case("cpu", src, dst, (rows, cols), (rows, cols), 1, _SATS[sat])))
    return tuple(out)


#: the platforms whose list is every folder of their test (so ``gen`` without flags writes the test's folders)
COMPLETE = ("kirin9030", "kirinDev0000", "a2a3", "a5", "cpu")


def _unspell(word: str) -> str | None:
    """The dtype a test's word names (None: no type ptofuzz has)."""
    name = next((name for name, spelled in SPELLING.items() if spelled == word), word)
    return name if name in dtypes.DTYPES else None


def split_pair(pair: str) -> tuple[str, str]:
    """(source, destination) of a pair as the tests spell it, ``fp32_fp16`` or ``fp32_fp8_e4m3``: the one cut
    between its words where both sides name a type."""
    words = pair.split("_")
    cuts = [(a, b) for k in range(1, len(words))
            for a, b in [(_unspell("_".join(words[:k])), _unspell("_".join(words[k:])))] if a and b]
    if len(cuts) != 1:
        raise ValueError(f"TCVT pair {pair!r} names {'no' if not cuts else 'more than one'} pair of known types")
    return cuts[0]


def system_test(platform: str) -> tuple[tuple[str, Case], ...]:
    """The folders of ``platform``'s TCVT system test: (name after the suite's dot, case), in the order its
    gen_data.py writes them."""
    if platform == "cpu":
        return _cpu_system_test()
    out = []
    for entry in filter(str.strip, SYSTEM_TESTS[platform].split(";")):
        head, shapes = entry.split(":")
        kind, rmode, sat, *pairs = head.split()
        for pair in pairs:
            names = [(f"{kind}_{pair}_{shape}", shape) for shape in shapes.split()]
            src, dst = split_pair(pair)
            named = None
            if platform == "a5" and pair in A5_BF16_AS_FP16:
                src, dst = ("float16" if t == "bfloat16" else t for t in (src, dst))
                named = "bf16"
            for name, shape in names:
                tile, _, valid = shape.partition("_")
                rows, cols = (int(n) for n in tile.split("x"))
                vr, vc = (int(n) for n in (valid or tile).split("x"))
                out.append((name, _case(platform, src, dst, (vr, vc), (rows, cols), _RMODES[rmode], _SATS[sat],
                                        named)))
    return tuple(out)


def canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    """The canonical list ``gen`` writes: the whole system test where ptofuzz covers it (:data:`COMPLETE`)."""
    return system_test(platform) if platform in COMPLETE else ()


def golden_files(platform: str) -> Any:
    """A case's golden files: ``golden.bin``; with saturation off (pto-isa's tests that pass SaturationMode::OFF
    compare ``golden_truncated.bin``) that file, on a2a3 beside ``golden.bin``."""
    def goldens(case: Case) -> tuple[tuple[str, str], ...]:
        if case.param(SAT) != oracles.SAT_OFF:
            return (("golden.bin", "dst"),)
        truncated = ("golden_truncated.bin", "dst")
        return (("golden.bin", "dst"), truncated) if platform == "a2a3" else (truncated,)
    return goldens


# ---- inputs ----------------------------------------------------------------------------------------------------

def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The source tile: :func:`values.draw`'s elements, a quarter of them the pair's boundary values
    (:mod:`ptofuzz.generators.conversion`: ties, neighbours, range edges)."""
    src = dtypes.get(case.dtype)
    bits = values.draw(source, src, case.tile("src").shape, mix)
    return {"src": boundaries.mix_in(source, bits, src, dtypes.get(case.param(TO) or case.dtype))}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    r, c = case.tile("src").shape
    src = dtypes.get(case.dtype)
    bits = values.draw(source, src, (n * r * c,), mix)
    return {"src": boundaries.mix_in(source, bits, src, dtypes.get(case.param(TO) or case.dtype)).reshape(n, r, c)}


# ---- fuzzing ----------------------------------------------------------------------------------------------------

def geometry_class(case: Case) -> str:
    """What a TCVT result depends on beyond its values: the pair (``float32>float16``), ``odd`` for CAST_ODD
    (the one mode with a rule of its own), and the saturation form (``sat`` on, ``dflt`` the form without one;
    off says nothing)."""
    sat = {oracles.SAT_ON: ",sat", oracles.SAT_OFF: ""}.get(case.param(SAT), ",dflt")
    odd = ",odd" if int(case.param(RMODE, 0) or 0) == 6 else ""
    return f"{case.dtype}>{case.param(TO)}{odd}{sat}"


def parse_geometry(geometry: str) -> tuple[str, str, bool, str]:
    """(source, destination, CAST_ODD, saturation form: ``sat``, ``dflt`` or ``off``) of a TCVT signature's
    geometry field (:func:`geometry_class`); empty names for another field."""
    pair, *flags = geometry.split(",")
    src, _, dst = pair.partition(">")
    sat = "sat" if "sat" in flags else "dflt" if "dflt" in flags else "off"
    return src, dst, "odd" in flags, sat


def fault_class(case: Case) -> str:
    if case.dtype not in oracles.SPEC_DTYPES or case.param(TO) not in oracles.SPEC_DTYPES:
        return "dtype"
    fault = oracles.legality(case)
    if fault is None:
        return "spec-legal"
    why = fault.fault.reason if fault.fault is not None else ""
    return "empty" if "empty" in why else "nodesc"


REGIONS = ("convert", "outside", "round-only")  # not "op": a TCVT signature names its pair


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Inside the valid region or outside it; a float32 to float32 case's valid region is ``round-only`` (the
    pages round to an integral value there, pto-spec converts to the same type: the identity)."""
    d = case.tile(role)
    inside = (np.arange(d.rows)[:, None] < d.valid_rows) & (np.arange(d.cols)[None, :] < d.valid_cols)
    code = 2 if case.dtype == "float32" and case.param(TO) == "float32" else 0
    return REGIONS, np.where(inside, code, 1).astype(np.uint8)


_WHY = {"empty": "pto-spec faults on an empty valid region (LB0 must be nonzero); docs/isa/TCVT.md converts "
                 "the valid region, which may be empty",
        "nodesc": "pto-spec faults on a tile that is no legal descriptor (power-of-two columns, capacity "
                  "128 B * 2**k); pto-isa's tiles are any whole 32-byte rows"}


ROUND_ONLY = ("docs/isa/TCVT.md lists FP32 to FP32 as round-only (each value rounded to an integral value in the "
              "mode); pto-spec converts to the same format, the identity")


def known_difference(sig: Any) -> str | None:
    """pto-spec's faults on geometries pto-isa takes, and FP32 to FP32 (round-only on pto-isa) against pto-spec."""
    a, b = sig.oracles()
    if "spec" not in (a, b):
        return None
    if sig.kind == "fault-vs-value":
        return _WHY.get(sig.geometry)
    return ROUND_ONLY if sig.region == "round-only" else None


# ---- check: why a golden is wrong ---------------------------------------------------------------------------

def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """Why a failing golden is wrong ('' when nothing is known): the cpu test's rounded FP4 goldens, a5's FP4
    goldens of an odd valid width."""
    if case.platform == "cpu":
        return _explain_cpu_rint(case, inputs, files)
    return _explain_odd_width(case, inputs, files)


def _explain_odd_width(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """Why a failing golden is wrong ('' when nothing is known): an FP4 golden of an odd valid width whose only
    wrong elements are the last valid column's, each 0 (a5's gen_data.py keeps ``vC // 2`` whole bytes of each
    packed row, so the byte holding that column in its low nibble is left 0)."""
    dst = dtypes.get(case.param(TO) or case.dtype)
    d = case.tile("dst")
    rows, cols = d.valid
    if not (dst.is_table and dst.bits == 4) or "dst" not in files or cols % 2 == 0 or rows == 0:
        return ""
    model = oracles.npu(case, inputs)
    want, cls, got = model.outputs["dst"], model.classes["dst"], np.asarray(files["dst"])
    wrong = (want != got) & (cls == EXACT)
    wrong[rows:, :] = False
    wrong[:, cols:] = False
    last = cols - 1
    if not wrong[:, last].any() or wrong[:, :last].any() or got[:rows, last].any():
        return ""
    return (f"golden.bin leaves out the last valid column ({last}): its script keeps {cols // 2} whole bytes of "
            f"each packed row and zeroes the byte that holds column {last} in its low nibble, but TCVT converts every "
            f"element of the valid region ({rows}x{cols}, docs/isa/TCVT.md), so the golden is wrong")


#: the ranges the cpu test's gen_data.py clamps FP4 to with SaturationMode::ON (its FP4_LIMITS, the simulator's
#: SafeLimits): E1M2's [-4, 3.5] is no range of the format, whose largest value is 1.75
CPU_ST_FP4_LIMITS = {"float4_e2m1": (-6.0, 6.0), "float4_e1m2": (-4.0, 3.5)}
FP4_BIAS = 1  # both FP4 formats' exponent bias


def _truncating_fp4(v: np.ndarray, dt: dtypes.DType) -> np.ndarray:
    """The cpu test's FP4 encoding of float64 values (gen_data.py's mx_from_double, the simulator's MXType(double)),
    stated on the float64's fields: zero and float64 subnormals give 0; else the exponent rebiased and cut to its
    bits (so it wraps past the format), the fraction truncated, a rebiased exponent below 0 shifting the fraction
    into the subnormals (one of exactly 0 keeps the normal fraction)."""
    e_bits, m_bits = dt.exp_bits, dt.man_bits
    raw = np.asarray(v, dtype=np.float64).view(np.uint64)
    field = ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    man = ((raw & np.uint64((1 << 52) - 1)) >> np.uint64(52 - m_bits)).astype(np.int64)
    exp = field + FP4_BIAS - 1023
    sub = exp < 0
    man = np.where(sub, (man | (1 << m_bits)) >> np.clip(1 - exp, 0, 62), man)
    exp = np.where(sub, 0, exp)
    sign = (raw >> np.uint64(63)).astype(np.int64)
    code = (sign << (e_bits + m_bits)) | ((exp & ((1 << e_bits) - 1)) << m_bits) | (man & ((1 << m_bits) - 1))
    out: np.ndarray = np.where(field == 0, 0, code).astype(np.uint8)
    return out


def _explain_cpu_rint(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """Why a cpu FP4 golden that fails is wrong ('' when nothing is known). The cpu test's gen_data.py rounds every
    value to an integer (np.rint) whatever the pair: an FP4 value widened to float32 comes out rounded (0.5 to 0),
    and a float32 value is rounded to an integer, clamped (E1M2 to [-4, 3.5]) and encoded by truncation (the
    exponent wrapping past the format), where TCVT rounds once to the FP4 value in the mode."""
    src, dst = oracles.pair(case)
    if case.platform != "cpu" or "dst" not in files or not ({src.name, dst.name} & set(oracles.FP4)):
        return ""
    ours = oracles.cpu(case, inputs)
    rows, cols = case.tile("dst").valid
    want, cls = ours.outputs["dst"][:rows, :cols], ours.classes["dst"][:rows, :cols]
    got, a = files["dst"][:rows, :cols], inputs["src"][:rows, :cols]
    wrong = (cls == 0) & (got != want)
    if not wrong.any():
        return ""
    x = convert_exactly(a, src)
    if dst.name in oracles.FP4:
        lo, hi = CPU_ST_FP4_LIMITS[dst.name]
        v = np.rint(np.clip(x, lo, hi) if case.param(SAT) == oracles.SAT_ON else x)
        theirs = _truncating_fp4(v, dst)
        why = ("golden.bin rounds each value to an integer (np.rint) and encodes that by truncation (the exponent "
               "cut to its bits" + (", E1M2 clamped to [-4, 3.5] past its largest 1.75" if dst.name == "float4_e1m2"
                                    and case.param(SAT) == oracles.SAT_ON else "")
               + "); TCVT rounds once to the FP4 value in the mode")
    else:
        theirs = np.rint(x).astype(np.float32).view(np.uint32)
        why = "golden.bin rounds each FP4 value to an integer (np.rint); FP4 to float32 widens exactly"
    if not (theirs[wrong] == got[wrong]).all():
        return ""
    i = tuple(int(k[0]) for k in np.nonzero(wrong))
    fmt = dtypes.format_bits
    return (f"{why}, e.g. element {i}: {fmt(int(a[i]), src)} -> golden {fmt(int(got[i]), dst)}, TCVT gives "
            f"{fmt(int(want[i]), dst)} ({int(wrong.sum())} such elements), so the golden is wrong")


def convert_exactly(bits: np.ndarray, dt: dtypes.DType) -> np.ndarray:
    """The float64 value of each element (exact for float32 and the 4-bit types)."""
    return np.asarray(ieee.to_float64(bits, dt), dtype=np.float64)


# ---- the instruction --------------------------------------------------------------------------------------------

def _profiles() -> dict[str, Profile]:
    golden, output = (("golden.bin", "dst"),), (("output.bin", "dst"),)
    tokens = ((RMODE, "r"), (SAT, "s"))

    def derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
        return (("dst", named["dst"]), ("src", named["dst"]))

    out = {"spec": Profile("TCVT", "spec", "TCVTSpec", (("x1_gm.bin", "src"),), golden, output, ("dst",),
                           compact=False, spelling={}, physical=spec_physical, param_tokens=tokens, dtype_param=TO,
                           derive=derive,
                           note="ptofuzz full-tile layout; both tiles one legal pto-spec descriptor")}
    for p in PLATFORMS:
        root = platforms.get(p).test_root
        listed = "its case list" if p in COMPLETE else "its case list not yet"
        packs = PACKED.get(p, ())
        out[p] = Profile("TCVT", p, "TCVTTest", (("x1_gm.bin", "src"),), golden,
                         (("output_z.bin", "dst"),) if p == "cpu" else output, ("dst",), compact=False,
                         spelling=SPELLING, param_tokens=tokens, dtype_param=TO, derive=derive,
                         canonical=Listed(canonical, p), golden_for=None if p in ("cpu", "spec") else golden_files(p),
                         packed=packs,
                         note=f"{root}/testcase/tcvt's files (x1_gm.bin, golden.bin; golden_truncated.bin with "
                              f"saturation off): whole tiles"
                              f"{'; ' + ' and '.join(packs) + ' two a byte' if packs else ''}; {listed}")
    return out


def _pairs_only(platform: str, model: Any) -> Any:
    """``model`` on the pairs ``platform`` converts; any other pair is unsupported there."""
    def oracle(case: Case, inputs: Mapping[str, np.ndarray]) -> Any:
        dst = case.param(TO) or case.dtype
        if dst not in destinations(platform, case.dtype):
            from ptofuzz.core.case import Outcome

            return Outcome.unsupported(f"TCVT on {platform} does not convert {case.dtype} to {dst}")
        return model(case, inputs)
    return oracle


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    if "TCVT" not in names:
        return []
    profiles = _profiles()
    notes = "docs/isa/TCVT.md: dst = cast_rmode(src) over the valid region; "
    support = {"spec": PlatformSupport(tuple(PAIRS["spec"]), oracles.spec, profiles["spec"],
                                       bad_dtype="fault",
                                       has_system_test=False,
                                       notes="ADR 0047 rounding, the hardware profile's ranges; else "
                                             "Fault_TileLegality (trap 5)"),
               "cpu": PlatformSupport(tuple(PAIRS["cpu"]), _pairs_only("cpu", oracles.cpu), profiles["cpu"],
                                      has_system_test="cpu" in COMPLETE,
                                      notes=notes + "IEEE subnormals; the A2A3 and A5 pairs"),
               **{p: PlatformSupport(tuple(PAIRS[p]), _pairs_only(p, oracles.npu), profiles[p],
                                     has_system_test=p in COMPLETE,
                                     notes=notes + "subnormal effects undefined" + (
                                         "; int64 to int32 as A5 (not in its TCvt.hpp; its test's saturation "
                                         "folder)" if p == "kirin9030" else ""))
                  for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")}}
    return [Instruction(
        name="TCVT", family="conversion", summary="conversion: dst = src converted to --to in a rounding mode",
        inputs=("src",), outputs=("dst",), platforms=support, random_case=random_case, explicit_case=explicit_case,
        draw_inputs=draw_inputs, role_dtype_params={"dst": (TO, "float32")},
        options=("dtype", "to", "shape", "dst", "rmode", "sat"), random_options=("dtype", "to", "shape"),
        replay_flags=replay_flags, draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class,
        regions=regions, known_difference=known_difference, bundle=True, shared=oracles.shared_work,
        explain=explain)]
