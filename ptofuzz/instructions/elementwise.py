"""The elementwise tile-tile arithmetic instructions (TADD, TSUB, TMUL, TMAX, TMIN): capabilities, layouts and
canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/T{ADD,SUB,MUL,MAX,MIN}.md``: the dtypes each implementation checks;
the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{add,addplus,sub,mul,max,min}/``: folder names,
files and byte layouts, as ``../shared/reference/pto-isa-st-catalog.json`` lists them) and pto-spec 0.58
(``asl/tile/elementwise-tile-tile/arithmetic/``). Semantics live in ``oracles/elementwise.py``; random geometries
in ``generators/elementwise.py``.

Every case has one valid region, shared by the three tiles. The system tests name their cases in four forms:

- ``gtv``: ``<global>_<tile>_<valid>`` (cpu; a2a3 TSUB, TMUL): one tile shape for all three; a2a3 TMUL's files
  hold only the valid region;
- ``gtv_pad``: the same with ``_PAD_VALUE_<NULL|MAX|MIN>`` (a2a3 TMAX/TMIN): the files hold the global shape,
  which is the valid region; the pad value only fills the tile outside it, which no result reads;
- ``tv``: ``<tile>_<valid>`` (a2a3 TADD);
- ``dsv``: ``<dst>_<src0>_<src1>_<valid>`` (a5, kirin*, a2a3 TADDPLUSTest): each file is its tile, whole, at its
  own row stride.
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
from ptofuzz.generators.tpart import draw_batch, draw_inputs, draw_many
from ptofuzz.instructions import redraws
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import descriptors
from ptofuzz.oracles import elementwise as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TADD", "TSUB", "TMUL", "TMAX", "TMIN")  # registry.MODULES lists the same, in this order
ROLES = ("dst", "src0", "src1")

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
SPEC_DTYPES = oracles.SPEC_DTYPES
# the cpu simulator's T{ADD,SUB,MUL,MAX,MIN} are templates over the element type: every 8- to 32-bit type
CPU_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
A2A3_DTYPES = ("float32", "float16", "int32", "int16")
A5_DTYPES = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
             "uint8")
A5_DTYPES_MUL = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "uint64", "uint32", "uint16")

PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)
PADS = ("NULL", "MAX", "MIN")

# kirin9030's and kirinDev0000's scripts: TSUB and TMAX write the same 32 cases; TMUL, TMIN their own
KIRIN_TSUB_TMAX = """
            float_16x16_16x48_16x16_16x15 float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32
            float_64x64_64x64_64x64_64x64 half_16x256_16x256_16x256_16x256 half_16x32_16x96_16x32_16x31
            half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64 int16_16x32_16x96_16x32_16x31
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x16_16x48_16x16_16x15 int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32
            int32_64x64_64x64_64x64_64x64 int8_32x128_32x160_32x128_32x127 int8_32x256_32x256_32x512_32x255
            int8_32x256_32x256_32x512_32x256 int8_64x64_64x64_64x64_64x64 uint16_16x32_16x96_16x32_16x31
            uint16_32x128_32x128_32x256_32x127 uint16_32x128_32x128_32x256_32x128 uint16_64x64_64x64_64x64_64x64
            uint32_16x16_16x48_16x16_16x15 uint32_16x32_16x64_16x32_16x31 uint32_16x32_16x64_16x32_16x32
            uint32_64x64_64x64_64x64_64x64 uint8_32x128_32x160_32x128_32x127 uint8_32x256_32x256_32x512_32x255
            uint8_32x256_32x256_32x512_32x256 uint8_64x64_64x64_64x64_64x64"""
KIRIN_TMUL = """
            float_16x16_16x48_16x16_16x15 float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32
            float_64x64_64x64_64x64_64x64 half_16x256_16x256_16x256_16x256 half_16x32_16x96_16x32_16x31
            half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64 int16_16x32_16x96_16x32_16x31
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x16_16x48_16x16_16x15 int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32
            int32_64x64_64x64_64x64_64x64 uint16_16x32_16x96_16x32_16x31 uint16_32x128_32x128_32x256_32x127
            uint16_32x128_32x128_32x256_32x128 uint16_64x64_64x64_64x64_64x64 uint32_16x16_16x48_16x16_16x15
            uint32_16x32_16x64_16x32_16x31 uint32_16x32_16x64_16x32_16x32 uint32_64x64_64x64_64x64_64x64"""
KIRIN_TMIN = """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64"""
# (op, platform) -> ((suite, name form, the names after 'case_'), ...): every system test of the op there
CANONICAL: dict[tuple[str, str], tuple[tuple[str, str, str], ...]] = {
    ("TADD", "cpu"): (
        ("TADDTest", "gtv", """
            bf16_16x256_16x256_16x256 float_64x64_64x64_64x64 half_16x256_16x256_16x256 int16_64x64_64x64_64x64
            int32_64x64_64x64_64x64"""),
    ),
    ("TADD", "a2a3"): (
        ("TADDTest", "tv", """
            float_64x64_64x64 half_16x256_16x256 int16_64x64_64x64 int32_64x64_64x64"""),
        ("TADDPLUSTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 half_16x64_16x128_16x128_16x63
            half_16x64_16x128_16x128_16x64 int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32"""),
    ),
    ("TADD", "a5"): (
        ("TADDTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x128_64x128_64x128_64x128
            float_64x64_64x64_64x64_64x64 half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63
            half_16x64_16x128_16x128_16x64 half_2x128_2x128_2x128_1x106 int16_32x128_32x128_32x256_32x127
            int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64 int32_16x32_16x64_16x32_16x31
            int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64 int64_1x1024_1x1024_1x1024_1x1024
            int64_32x32_32x32_32x32_32x32 int64_4x16_4x16_4x16_4x15 uint64_4x16_4x16_4x16_4x15"""),
    ),
    ("TADD", "kirin9030"): (
        ("TADDTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            half_2x128_2x128_2x128_1x106 int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128
            int16_64x64_64x64_64x64_64x64 int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32
            int32_64x64_64x64_64x64_64x64"""),
    ),
    ("TADD", "kirinDev0000"): (
        ("TADDTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x128_64x128_64x128_64x128
            float_64x64_64x64_64x64_64x64 half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63
            half_16x64_16x128_16x128_16x64 half_2x128_2x128_2x128_1x106 int16_32x128_32x128_32x256_32x127
            int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64 int32_16x32_16x64_16x32_16x31
            int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64"""),
    ),
    ("TADD", "a6"): (  # a5's script without its 64-bit cases
        ("TADDTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x128_64x128_64x128_64x128
            float_64x64_64x64_64x64_64x64 half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63
            half_16x64_16x128_16x128_16x64 half_2x128_2x128_2x128_1x106 int16_32x128_32x128_32x256_32x127
            int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64 int32_16x32_16x64_16x32_16x31
            int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64"""),
    ),
    ("TSUB", "cpu"): (
        ("TSUBTest", "gtv", """
            bf16_16x256_16x256_16x256 float_64x64_64x64_64x64 half_16x256_16x256_16x256 int16_64x64_64x64_64x64
            int32_64x64_64x64_64x64"""),
    ),
    ("TSUB", "a2a3"): (
        ("TSUBTest", "gtv", """
            float_64x64_64x64_64x64 half_64x64_64x64_64x64 int16_64x64_64x64_64x64 int32_64x64_64x64_64x64"""),
    ),
    ("TSUB", "a5"): (
        ("TSUBTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64
            int64_4x16_4x16_4x16_4x16 uint64_4x16_4x16_4x16_4x16"""),
    ),
    ("TSUB", "kirin9030"): (
        ("TSUBTest", "dsv", KIRIN_TSUB_TMAX),
    ),
    ("TSUB", "kirinDev0000"): (("TSUBTest", "dsv", KIRIN_TSUB_TMAX),),  # kirin9030's script
    ("TMUL", "cpu"): (
        ("TMULTest", "gtv", """
            bf16_16x256_16x256_16x256 float_64x64_64x64_64x64 half_16x256_16x256_16x256 int16_64x64_64x64_64x64
            int32_64x64_64x64_64x64 uint16_64x64_64x64_64x64 uint32_64x64_64x64_64x64 uint8_64x64_64x64_64x64"""),
    ),
    ("TMUL", "a2a3"): (
        ("TMULTest", "gtv", """
            float_64x64_64x64_64x64 half_16x16_16x16_16x16 half_61x61_64x64_61x61 int16_64x64_64x64_64x64
            int32_32x32_32x32_32x32 int32_60x30_64x32_60x30 int32_64x64_64x64_64x64"""),
    ),
    ("TMUL", "a5"): (
        ("TMULTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64
            int64_4x16_4x16_4x16_4x16 uint64_4x16_4x16_4x16_4x16"""),
    ),
    ("TMUL", "kirin9030"): (
        ("TMULTest", "dsv", KIRIN_TMUL),
    ),
    ("TMUL", "kirinDev0000"): (("TMULTest", "dsv", KIRIN_TMUL),),  # kirin9030's script
    ("TMAX", "cpu"): (
        ("TMAXTest", "gtv", """
            bf16_16x256_16x256_16x256 float_64x64_64x64_64x64 half_16x256_16x256_16x256 int16_64x64_64x64_64x64
            int32_64x64_64x64_64x64"""),
    ),
    ("TMAX", "a2a3"): (
        ("TMAXTest", "gtv_pad", """
            float_60x60_64x64_60x60_PAD_VALUE_MAX float_64x64_64x64_64x64_PAD_VALUE_NULL
            half_1x3600_2x4096_1x3600_PAD_VALUE_MAX half_64x64_64x64_64x64_PAD_VALUE_NULL
            int16_16x200_20x512_16x200_PAD_VALUE_MAX int16_64x64_64x64_64x64_PAD_VALUE_NULL
            int32_60x60_64x64_60x60_PAD_VALUE_MAX int32_64x64_64x64_64x64_PAD_VALUE_NULL"""),
    ),
    ("TMAX", "a5"): (
        ("TMAXTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64
            int64_4x16_4x16_4x16_4x16 uint64_4x16_4x16_4x16_4x16"""),
    ),
    ("TMAX", "kirin9030"): (
        ("TMAXTest", "dsv", KIRIN_TSUB_TMAX),
    ),
    ("TMAX", "kirinDev0000"): (("TMAXTest", "dsv", KIRIN_TSUB_TMAX),),  # kirin9030's script
    ("TMIN", "cpu"): (
        ("TMINTest", "gtv", """
            bf16_16x256_16x256_16x256 float_64x64_64x64_64x64 half_16x256_16x256_16x256 int16_64x64_64x64_64x64
            int32_64x64_64x64_64x64"""),
    ),
    ("TMIN", "a2a3"): (
        ("TMINTest", "gtv_pad", """
            float_60x60_64x64_60x60_PAD_VALUE_MIN float_64x64_64x64_64x64_PAD_VALUE_NULL
            half_1x3600_2x4096_1x3600_PAD_VALUE_MIN half_64x64_64x64_64x64_PAD_VALUE_NULL
            int16_16x200_20x512_16x200_PAD_VALUE_MIN int16_64x64_64x64_64x64_PAD_VALUE_NULL
            int32_60x60_64x64_60x60_PAD_VALUE_MIN int32_64x64_64x64_64x64_PAD_VALUE_NULL"""),
    ),
    ("TMIN", "a5"): (
        ("TMINTest", "dsv", """
            float_16x32_16x64_16x32_16x31 float_16x32_16x64_16x32_16x32 float_64x64_64x64_64x64_64x64
            half_16x256_16x256_16x256_16x256 half_16x64_16x128_16x128_16x63 half_16x64_16x128_16x128_16x64
            int16_32x128_32x128_32x256_32x127 int16_32x128_32x128_32x256_32x128 int16_64x64_64x64_64x64_64x64
            int32_16x32_16x64_16x32_16x31 int32_16x32_16x64_16x32_16x32 int32_64x64_64x64_64x64_64x64
            int64_4x16_4x16_4x16_4x16 uint64_4x16_4x16_4x16_4x16"""),
    ),
    ("TMIN", "kirin9030"): (
        ("TMINTest", "dsv", KIRIN_TMIN),
    ),
    ("TMIN", "kirinDev0000"): (("TMINTest", "dsv", KIRIN_TMIN),),  # kirin9030's script
}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _dtype(word: str) -> str:
    for name, spelled in PLAIN.items():
        if spelled == word:
            return name
    return dtypes.get(word).name


def parse_suffix(op: str, platform: str, form: str, suffix: str) -> Case:
    """The case a system test's name (after ``case_``) stands for, in one of the four forms."""
    words = suffix.split("_")
    dt = _dtype(words[0])
    params: tuple[tuple[str, Any], ...] = ()
    if form == "gtv_pad":
        pad = words[-1]
        words = words[:-3]  # ..._PAD_VALUE_<pad>
        params = (("pad", pad),)
    shapes = [_rxc(w) for w in words[1:]]
    if form in ("gtv", "gtv_pad"):
        (gr, gc), tile, valid = shapes
        if form == "gtv_pad":
            valid = (gr, gc)  # the global shape is the valid region
        tiles = [Tile(*tile, *valid)] * 3
    elif form == "tv":
        tile, valid = shapes
        tiles = [Tile(*tile, *valid)] * 3
    else:
        *phys, valid = shapes
        tiles = [Tile(*p, *valid) for p in phys]
    return Case(op, platform, dt, tuple(zip(ROLES, tiles)), params)


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system tests on ``platform``: (name after the suite's dot, or a whole name for a
    second suite, case)."""
    out = []
    for k, (suite, form, text) in enumerate(CANONICAL[(op, platform)]):
        for suffix in text.split():
            alias = f"case_{suffix}" if k == 0 else f"{suite}.case_{suffix}"
            out.append((alias, parse_suffix(op, platform, form, suffix)))
    return tuple(out)


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's valid region and dtype once (those pto-spec takes), the three
    tiles the smallest legal descriptor holding it."""
    seen: dict[tuple[str, tuple[int, int]], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in SPEC_DTYPES:
                continue
            valid = c.tile("dst").valid
            phys = spec_physical(*valid, dtypes.get(c.dtype))
            seen.setdefault((c.dtype, valid), Case(op, "spec", c.dtype, tuple((r, Tile(*phys, *valid))
                                                                               for r in ROLES)))
    return tuple((f"case_{c.dtype}_{'_'.join(t.token() for _, t in c.tiles)}", c) for c in seen.values())


def _profiles(op: str) -> dict[str, Profile]:
    io = (("input1.bin", "src0"), ("input2.bin", "src1"))
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in (p for p in ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000", "a6") if (op, p) in CANONICAL):
        cases = canonical(op, platform)
        forms = {form for _, form, _ in CANONICAL[(op, platform)]}
        compact = platform == "a2a3" and op in ("TMUL", "TMAX", "TMIN")  # files of the valid region only
        root = platforms.get(platform).test_root
        tests = ", ".join(f"{root}/testcase/{suite[:-4].lower()}" for suite, _, _ in CANONICAL[(op, platform)])
        out[platform] = Profile(
            op, platform, CANONICAL[(op, platform)][0][0], io, golden, output, ROLES, compact=compact,
            spelling=PLAIN, canonical=cases, param_tokens=(),
            note=f"{tests}: {'/'.join(sorted(forms))} names; "
                 + ("valid-region files" if compact else "each file its whole tile"))
    out["spec"] = Profile(op, "spec", f"{op}Spec", io, golden, output, ROLES, compact=False, spelling={},
                          canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical,
                          note="ptofuzz full-tile layout; the three tiles one legal pto-spec descriptor")
    return {"spec": out.pop("spec"), **out}


# ---- cases from the CLI ------------------------------------------------------------------------------------

def explicit_case(op: str, sup_dtypes: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any],
                  roles: tuple[str, ...] = ROLES) -> Case:
    """The one case ``--dtype --shape --dst`` describe: ``--dst`` the valid region (default: ``--shape``, or
    16x16), ``--shape`` the physical tile of every role (default: the smallest legal descriptor on spec, whole
    32-byte rows elsewhere)."""
    dt = dtypes.get(opts.get("dtype") or sup_dtypes[platforms.canonical(platform)][0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    if shape is None:
        spec = platforms.get(platform).kind == platforms.SPEC
        shape = spec_physical(*valid, dt) if spec else whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    return Case(op, platform, dt.name, tuple((r, Tile(*shape, *valid)) for r in roles))


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


# ---- inputs: the two sources over their whole tiles, drawn as TPART*'s (ptofuzz.generators.tpart) ------------

def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]], sources: tuple[str, ...] = ("src0", "src1")
           ) -> list[Any]:
    """Plain values in both sources wherever the data left a valid element undefined (integer overflow, a NaN
    in max/min, an NPU's subnormals or overflow), then the case again: a golden then pins every valid element
    (pto-isa's own comparison cannot honour a placeholder)."""
    def fill(source: Source, case: Case, inputs: Mapping[str, np.ndarray], r: np.ndarray, c: np.ndarray
             ) -> dict[str, np.ndarray]:
        dt = dtypes.get(case.dtype)
        new = {role: bits.copy() for role, bits in inputs.items()}
        for role in sources:
            new[role][r, c] = values.plain(source, dt, len(r))
        return new

    return redraws.where_open(items, fill, undefined_only=True)


# ---- fuzzing: geometry classes, regions, documented differences -------------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element), ``nodesc`` (a tile pto-spec cannot describe), else whether the tiles all
    share one shape (``same``) or a source is read at another stride (``strides``), and whether the valid region
    fills the destination (``full``) or not (``part``)."""
    d = case.tile("dst")
    if 0 in d.valid:
        return "empty"
    dt = dtypes.get(case.dtype)
    if any(descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX) for _, t in case.tiles):
        return "nodesc"
    same = "same" if len({t.shape for _, t in case.tiles}) == 1 else "strides"
    return f"{same},{'full' if d.valid == d.shape else 'part'}"


def fault_class(case: Case, sources: tuple[str, ...] = ("src0", "src1")) -> str:
    """For a fault against a value: which pto-spec rule the geometry breaks, or ``spec-legal``."""
    fault = oracles.spec_legality(case, sources)
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
            return "pto-spec has no 64-bit integer elementwise arithmetic; a5 implements it (docs/isa/<OP>.md)"
    return spec_geometry_difference(sig)


def spec_geometry_difference(sig: Signature) -> str | None:
    """The documented difference every elementwise family shares: pto-spec faults on a geometry pto-isa's pages
    accept (a fault against a value whose geometry is not spec-legal)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b) and sig.geometry != "spec-legal":
        return ("pto-spec faults on a source whose physical or valid shape differs from the destination's, on an "
                "empty valid region and on tiles that are no legal descriptor; pto-isa reads each source at its own "
                "stride and iterates over the destination's valid region")
    return None


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        a5 = A5_DTYPES_MUL if op == "TMUL" else A5_DTYPES
        sup = {"spec": SPEC_DTYPES, "cpu": CPU_DTYPES, "a2a3": A2A3_DTYPES, "a5": a5, "kirin9030": a5,
               "kirinDev0000": a5, "a6": a5}
        notes = "docs/isa/" + op + ".md: the formula over dst's valid region; "
        support: dict[str, PlatformSupport] = {
            "spec": PlatformSupport(sup["spec"], oracles.spec, profiles["spec"], bad_dtype="fault",
                                    has_system_test=False,
                                    notes="one physical and valid shape for the three tiles, else "
                                          "Fault_TileLegality (trap 5)"),
            "cpu": PlatformSupport(sup["cpu"], oracles.cpu, profiles["cpu"],
                                   notes=notes + "integer overflow undefined; IEEE on the host"),
            **{p: PlatformSupport(sup[p], oracles.npu, profiles[p],
                                  notes=notes + "integer overflow, float overflow and subnormal effects undefined"
                                  + ("" if p in ("a2a3", "a5") else "; a5's headers"))
               for p in ("a2a3", "a5", "kirin9030", "kirinDev0000", "a6") if p in profiles},
        }

        def random_case(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                        _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return gen.random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return explicit_case(_op, _sup, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return gen.illegal_spec_case(source, _op, SPEC_DTYPES, constraints)

        word = oracles.OPS[op]
        formula = f"{word}(src0, src1)" if word in ("max", "min") else f"src0 {oracles.SYMBOL[word]} src1"
        out.append(Instruction(
            name=op, family="elementwise-tile-tile",
            summary=f"elementwise {word}: dst = {formula} over the valid region",
            inputs=("src0", "src1"), outputs=("dst",), platforms=support,
            random_case=random_case, explicit_case=explicit, draw_inputs=draw_inputs, draw_many=draw_many,
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            redraw=redraw,
            draw_batch=draw_batch, geometry_class=geometry_class, fault_class=fault_class, regions=regions,
            known_difference=known_difference, illegal_case=illegal, bundle=True))
    return out
