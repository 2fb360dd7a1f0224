"""TQUANT: capabilities, layouts and the system tests' cases; semantics in ``oracles/quant.py``.

Facts from pto-isa 3186c381: ``docs/isa/TQUANT.md`` (INT8 symmetric to int8 and asymmetric to uint8 from FP32 on
every target, 118-129 and 161-163; the MX formats on A5 only) and the system tests
``tests/npu/<plat>/src/st/testcase/tquant``. The INT8 folders (a2a3, a5, kirin9030, kirinDev0000) hold
``input.bin`` (the FP32 source), ``inv_scale_fp32.bin`` and ``offset_fp32.bin`` (R x 1 FP32: the kernel's scale
and offset tiles; a symmetric case's offset file holds zeros and is not read) and ``golden_s8.bin`` or
``golden_u8.bin``, each its valid region. A case's dtype is the source's; param ``to`` the destination's (int8:
INT8_SYM, uint8: INT8_ASYM). There is no cpu system test. pto-spec's TQUANT takes one scalar multiplier and one
zero point (B.IOR) for the whole tile; pto-isa's tests give every row its own: no tile form to compare (no
``spec`` model).

The MX forms (A5 only, TQUANT.md:155-163; ``oracles/mx.py``): a case's ``to`` is float8_e4m3 (MXFP8) or
float4_e2m1 (MXFP4), params ``nv`` (the NV scale algorithm), ``nz`` (the cube's layouts) and ``v`` (numbering
the test's cases of one geometry: their inputs differ). a5's folders hold ``input.bin`` (the source's valid
region), ``golden_fp8.bin`` (E4M3 codes; NZ ``[C/32, R, 32]``) or ``golden_fp4.bin`` (E2M1 codes two a byte,
R x ceil(C/2)), ``golden_e8m0.bin`` (one E8M0 code per group of the zero-padded tile; NZ in ZZ order),
``scaling_e4m3.bin`` or ``scaling_e2m1.bin`` (float32 per group) and, NZ, ``index_vselr_b16.bin`` (uint16, one per
two groups); main.cpp reads neither of the last two. Every case carries every role (the INT8 ones' exponent
tiles and the MX ones' parameter tiles unused). a5's second test, tquant_dn (:data:`A5_DN`, suite TQUANTDNTest,
param ``dn``: groups of 32 rows, TQUANT_DN.md), writes the E4M3 codes or packed E2M1 codes ND and NZ, the
exponents hat_M x N plainly, interleaved in row-group pairs and (MXFP8) in ZZ order, and the group maxima; its
valid-shape cases only the ND codes and the interleaved exponents.

a6's test (TQUANT_HIF4_A6_TEST, :data:`A6_TEST`, TQUANT_HIF4.md, ``oracles/hif4.py``): BF16 to HiFloat4 (``to``
float4_e1m2, the codes' format), whole blocks of 64 a row; ``input1.bin`` and eight goldens, each a role of its own
(:func:`derive_hif4`, :data:`A6_GOLDEN`): the per-4 and per-8 maxima of |x| pinned, the rest open (:data:`A6_OPEN`).
Those roles are only in a6's cases, so they are not among the instruction's ``outputs`` (which every case has):
no other platform or oracle writes them.

Every INT8 golden of pto-isa multiplies the source by the scale operand (the test passes the reciprocal of its
scale, ``inv_scale_fp32.bin``); TQUANT.md:35 divides by it. ``check`` names those goldens (:func:`explain`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile
from ptofuzz.generators import values
from ptofuzz.generators.elementwise import valid_region
from ptofuzz.generators.source import Source
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import hif4, mx
from ptofuzz.oracles import quant as oracles
from ptofuzz.oracles.quant import TO

NAMES = ("TQUANT",)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000", "a6")
SPELLING = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}
QUANT_WORD = {"int8": "int8_sym", "uint8": "int8_asym"}  # the tests' words for the INT8 destinations

# the INT8 system tests' folders in the order each gen_data.py writes them: <quant word> <RxC>...; (valid = tile)
_KIRIN = "int8_sym 64x128 128x128 192x128; int8_asym 64x128 128x128 192x128 32x72"
INT8_TESTS = {
    "a2a3": "int8_sym 64x128 128x128 256x128; int8_asym 64x128 128x128 256x128 32x72; "
            "int8_sym 2x129; int8_asym 2x129; int8_sym 2x122; int8_asym 2x122; int8_sym 16x127; int8_asym 16x127; "
            "int8_sym 8x130; int8_asym 8x130; int8_sym 64x65; int8_asym 64x65",
    "kirin9030": _KIRIN, "kirinDev0000": _KIRIN,
}
#: the platforms whose whole test ptofuzz writes (``gen`` without flags)
COMPLETE = ("a2a3", "kirin9030", "kirinDev0000", "a5", "a6")
MXFP8, MXFP4 = "float8_e4m3", "float4_e2m1"
ROLES = ("dst", "src", "scale", "offset", "exp", "scaling", "index", "packed", "exp_dn", "exp_il", "exp_zz",
         "max_dn", "nz", "nz4")


def derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """Every role's tile from the destination's: the source the same; parameter tiles (rows x 1, valid rows x 1);
    per-group tiles (rows x G, G = ceil(cols / 32) groups of the valid columns) for the exponents and scalings,
    rows x G/2 for the NZ gather indices, rows x ceil(cols / 2) for the packed FP4 codes; for DN grouping
    (TQUANT_DN.md) hat_M x cols exponents (plain, ZZ) and group maxima (hat_M = ceil(rows / 32)), ceil(rows / 64)
    x 2 cols interleaved exponents, and the NZ bytes of the E4M3 codes and of the packed FP4 codes
    (roundup(rows, 16) x 32 * ceil(bytes a row / 32))."""
    d = named["dst"]
    g = mx.groups(d.valid_cols)
    ptile = Tile(d.rows, 1, d.valid_rows, 1)
    gtile = Tile(d.rows, max(g, 1), d.valid_rows, g)
    itile = Tile(d.rows, max(g // 2, 1), d.valid_rows, g // 2)
    ktile = Tile(d.rows, max(-(-d.cols // 2), 1), d.valid_rows, -(-d.valid_cols // 2))
    hat, vhat = -(-d.rows // 32), -(-d.valid_rows // 32)
    dtile = Tile(max(hat, 1), max(d.cols, 1), vhat, d.valid_cols)
    ltile = Tile(max(-(-d.rows // 64), 1), max(2 * d.cols, 1), -(-d.valid_rows // 64), 2 * d.valid_cols)
    pm = -(-d.valid_rows // 16) * 16

    def nz(width: int) -> Tile:
        w = -(-width // 32) * 32
        return Tile(max(pm, 1), max(w, 1), pm, w)

    return (("dst", d), ("src", d), ("scale", ptile), ("offset", ptile), ("exp", gtile), ("scaling", gtile),
            ("index", itile), ("packed", ktile), ("exp_dn", dtile), ("exp_il", ltile), ("exp_zz", dtile),
            ("max_dn", dtile), ("nz", nz(d.valid_cols)), ("nz4", nz(-(-d.valid_cols // 2))))


def make_case(platform: str, dtype: str, to: str, valid: tuple[int, int], shape: tuple[int, int] | None = None,
              nv: bool = False, nz: bool = False, variant: int = 0, dn: bool = False) -> Case:
    """A case: source and destination one tile, every other role derived from it (:func:`derive`)."""
    rows, cols = shape or valid
    params = ((TO, to), *((("nv", 1),) if nv else ()), *((("nz", 1),) if nz else ()),
              *((("v", variant),) if variant else ()), *((("dn", 1),) if dn else ()))
    return Case("TQUANT", platform, dtype, derive({"dst": Tile(rows, cols, *valid)}), tuple(sorted(params)))


def int8_case(platform: str, to: str, valid: tuple[int, int], shape: tuple[int, int] | None = None) -> Case:
    """An INT8 case (to int8: INT8_SYM, to uint8: INT8_ASYM) of a float32 source."""
    return make_case(platform, "float32", to, valid, shape)


def _int8_list(text: str, platform: str) -> list[tuple[str, Case]]:
    out = []
    for entry in text.split(";"):
        word, *shapes = entry.split()
        to = next(t for t, w in QUANT_WORD.items() if w == word)
        for shape in shapes:
            r, c = (int(n) for n in shape.split("x"))
            out.append((f"case_{word}_fp32_{r}x{c}_nd", int8_case(platform, to, (r, c))))
    return out


_WORDS = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}
#: a5's test in its gen_data.py's order: ``mxfp8[_nv]|mxfp4_e2m1[_nv] <src word> <layout> <RxC>[:<suffix>]...``
#: or ``int8`` (the seven INT8 cases there)
A5_TEST = """
    mxfp8 fp32 nd 32x32 32x64 64x128 128x128 15x32 7x64 33x64 13x192
    mxfp8_nv fp32 nd 32x128 2x256:boundary
    mxfp8 fp32 nz 32x64 64x128 64x256 64x512 128x128
    int8
    mxfp8 bf16 nd 32x128 64x128 128x128 14x16 7x48 18x136 1x32 2x16 4x16 8x16 16x16 3x32 5x96 1x16 4x256 4x512
        3x256 5x256 18x138 1x192 1x198
    mxfp8 bf16 nz 32x128 64x128 128x128
    mxfp8_nv bf16 nd 32x128 64x128 128x128 7x48 2x256:boundary
    mxfp8 fp16 nd 32x128 64x128 128x128 4x256 11x640
    mxfp8_nv fp16 nd 32x128 64x128 128x128 2x256:boundary
    mxfp8 bf16 nd 1x64:static3x128_exp2d_fuzz01
    mxfp4_e2m1 fp16 nd 2x128:special 2x128:inf_only 2x128:subnormal 2x128:rounding 2x128:exp_random_a
        2x128:exp_random_b 2x128:mixed 32x1024:mixed 32x1024:normal
    mxfp4_e2m1_nv fp16 nd 2x256:boundary 2x256:rounding 2x256:mixed
    mxfp4_e2m1 bf16 nd 2x128:special 2x128:inf_only 2x128:subnormal 2x128:rounding 2x128:exp_random_a
        2x128:exp_random_b 2x128:mixed 32x1024:mixed 32x1024:normal
    mxfp4_e2m1_nv bf16 nd 2x256:boundary 2x256:rounding 2x256:mixed 2x128:static4x128_exp2d
    mxfp8 fp16 nz 32x128 64x128 128x128"""
A5_INT8 = "int8_sym 64x128 128x128 256x128; int8_asym 64x128 128x128 256x128 32x72"
#: a5's tquant_dn test (TQUANTDNTest, TQUANT_DN.md: groups of 32 rows): name, src word, to, nv, tile[:valid]
A5_DN = """
    case_bf16_64x128 bf16 mxfp8 ocp 64x128
    case_nv_fp32_128x128_interleaved fp32 mxfp8 nv 128x128
    case_mxfp4_fp16_64x128 fp16 mxfp4 ocp 64x128
    case_nv_mxfp4_bf16_128x128_interleaved bf16 mxfp4 nv 128x128
    case_validshape_bf16_s512x48_v64x24 bf16 mxfp8 ocp 512x48:64x24
    case_nv_validshape_fp16_s896x48_v896x34 fp16 mxfp8 nv 896x48:896x34"""


#: a6's test (TQUANT_HIF4_A6_TEST, TQUANT_HIF4.md), in its gen_data.py's order: rows x cols of bf16 to HiFloat4
A6_TEST = "128x128 64x128 256x128 128x256 256x256 128x512 64x64 16x64 48x128 64x192"
A6_SUITE = "TQUANT_HIF4_A6_TEST"
#: a6's files, each one role (:data:`ptofuzz.oracles.hif4.ROLES`); main.cpp compares every golden byte for byte
A6_INPUTS = (("input1.bin", "src"),)
A6_GOLDEN = (("golden_max4.bin", "max4"), ("golden_max8.bin", "max8"), ("golden_ea.bin", "ea"),
             ("golden_eb.bin", "eb"), ("golden_ec.bin", "ec"), ("golden_exp_dst.bin", "exp_cube"),
             ("golden_fp4.bin", "packed"), ("golden_scale.bin", "scale4"))
#: what a6's folders leave open (oracles/hif4.py)
A6_OPEN = ("golden_max4.bin and golden_max8.bin exact (TQUANT_HIF4.md 1.3 and 2.1: max |x| per 4 and per 8; a "
           "group with a NaN or a subnormal maximum open); golden_ea.bin, golden_eb.bin, golden_ec.bin, "
           "golden_exp_dst.bin, golden_fp4.bin and golden_scale.bin open: the page defines the shared exponent Ea "
           "twice (1.3: clamp(floor(log2(Ma)) + 38, 0, 63); 2.2 and 2.5: a round-to-nearest e6m2 value of Ma) "
           "and never the e6m2 format, Eb, Ec, the scale and the codes derive from Ea, and its golden layouts "
           "(section 3; 2.3: no cube layout) are not the test's files")


def derive_hif4(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    """A HiFloat4 case's tiles: :func:`derive`'s (the roles every TQUANT case has) and its own, each rows x
    cols / k for the k source elements one element of its file stands for (:data:`ptofuzz.oracles.hif4.ROLES`;
    ``packed`` is :func:`derive`'s already)."""
    d = named["dst"]
    own = tuple((role, Tile(d.rows, max(d.cols // k, 1), d.valid_rows, d.valid_cols // k))
                for role, (k, _) in hif4.ROLES.items() if role != "packed")
    return (*derive(named), *own)


def hif4_case(valid: tuple[int, int], shape: tuple[int, int] | None = None) -> Case:
    """An a6 case: bf16 to HiFloat4 (``to`` float4_e1m2, the codes' format)."""
    rows, cols = shape or valid
    return Case("TQUANT", "a6", "bfloat16", derive_hif4({"dst": Tile(rows, cols, *valid)}), ((TO, hif4.HIF4),))


def _a6_list() -> list[tuple[str, Case]]:
    out = []
    for shape in A6_TEST.split():
        r, c = (int(n) for n in shape.split("x"))
        out.append((f"case_bf16_{r}x{c}_hif4_nd", hif4_case((r, c))))
    return out


def _a5_dn() -> list[tuple[str, Case]]:
    out = []
    for line in A5_DN.strip().splitlines():
        name, word, kind, alg, shape = line.split()
        tile, _, valid = shape.partition(":")
        rxc = tuple(int(n) for n in tile.split("x"))
        vrc = tuple(int(n) for n in (valid or tile).split("x"))
        out.append((f"TQUANTDNTest.{name}", make_case("a5", _WORDS[word], MXFP4 if kind == "mxfp4" else MXFP8,
                                                      (vrc[0], vrc[1]), (rxc[0], rxc[1]), nv=alg == "nv", dn=True)))
    return out


def _a5_list() -> list[tuple[str, Case]]:
    entries: list[list[str]] = []
    for words in (line.split() for line in A5_TEST.strip().splitlines()):
        if words[0].startswith(("mx", "int8")):
            entries.append(words)
        else:  # a continuation line: more shapes
            entries[-1] += words
    out: list[tuple[str, Case]] = []
    for kind, *rest in entries:
        if kind == "int8":
            out += _int8_list(A5_INT8, "a5")
            continue
        word, layout, *shapes = rest
        for shape in shapes:
            rxc, _, suffix = shape.partition(":")
            r, c = (int(n) for n in rxc.split("x"))
            name = f"case_{kind}_{word}_{r}x{c}{'_' + suffix if suffix else ''}_{layout}"
            out.append((name, make_case("a5", _WORDS[word], MXFP4 if kind.startswith("mxfp4") else MXFP8, (r, c),
                                        nv=kind.endswith("_nv"), nz=layout == "nz")))
    seen: dict[Case, int] = {}
    for _, case in out:
        seen[case] = seen.get(case, 0) + 1
    variants: dict[Case, int] = {}
    numbered = []
    for name, case in out:  # the cases of one geometry (their inputs differ): v1, v2, ...
        if seen[case] > 1:
            variants[case] = variants.get(case, 0) + 1
            numbered.append((name, case.replace(params=tuple(sorted((*case.params, ("v", variants[case])))))))
        else:
            numbered.append((name, case))
    return numbered


def system_test(platform: str) -> tuple[tuple[str, Case], ...]:
    """The folders of ``platform``'s TQUANT system test that ptofuzz covers, in its gen_data.py's order."""
    if platform == "a5":
        return (*_a5_list(), *_a5_dn())
    if platform == "a6":
        return tuple(_a6_list())
    return tuple(_int8_list(INT8_TESTS[platform], platform)) if platform in INT8_TESTS else ()


def canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    return system_test(platform) if platform in COMPLETE else ()


def is_mx(case: Case) -> bool:
    return case.param(TO) not in oracles.INT8


def is_hif4(case: Case) -> bool:
    return case.platform == "a6"


def golden_files(case: Case) -> tuple[tuple[str, str], ...]:
    if is_hif4(case):
        return A6_GOLDEN
    if case.param("dn"):  # the tquant_dn test's files: a valid-shape case (valid < tile) writes three
        d = case.tile("dst")
        if d.valid != d.shape:
            return (("golden_fp8_nd.bin", "dst"), ("golden_e8_dn_interleaved.bin", "exp_il"))
        data = (("golden_fp4_nd.bin", "packed"), ("golden_fp4_nz.bin", "nz4")) if case.param(TO) == MXFP4 else \
            (("golden_fp8_nd.bin", "dst"), ("golden_fp8_nz.bin", "nz"))
        zz = () if case.param(TO) == MXFP4 else (("golden_e8_zz.bin", "exp_zz"),)
        return (*data, ("golden_e8_dn.bin", "exp_dn"), ("golden_e8_dn_interleaved.bin", "exp_il"), *zz,
                ("golden_group_max.bin", "max_dn"))
    if case.param(TO) == MXFP4:
        return (("golden_fp4.bin", "packed"), ("golden_e8m0.bin", "exp"), ("scaling_e2m1.bin", "scaling"))
    if is_mx(case):
        index = (("index_vselr_b16.bin", "index"),) if case.param("nz") else ()
        return (("golden_fp8.bin", "dst"), ("golden_e8m0.bin", "exp"), ("scaling_e4m3.bin", "scaling"), *index)
    return ((f"golden_{'s8' if case.param(TO) == 'int8' else 'u8'}.bin", "dst"),)


INT8_FILES = (("input.bin", "src"), ("inv_scale_fp32.bin", "scale"), ("offset_fp32.bin", "offset"))


def input_files(case: Case) -> tuple[tuple[str, str], ...]:
    if is_hif4(case):
        return A6_INPUTS
    return INT8_FILES[:1] if is_mx(case) else INT8_FILES


def _profiles() -> dict[str, Profile]:
    out = {}
    for p in PLATFORMS:
        if p == "a6":
            continue
        root = platforms.get(p).test_root
        out[p] = Profile("TQUANT", p, "TQUANTTEST", INT8_FILES, (("golden_s8.bin", "dst"),),
                         (("output_s8.bin", "dst"), ("output_u8.bin", "dst"), ("output_e4m3.bin", "dst"),
                          ("output_e2m1.bin", "packed"), ("output_e8m0.bin", "exp"), ("output_fp8_nd.bin", "dst"),
                          ("output_fp8_nz.bin", "nz"), ("output_fp4_nd.bin", "packed"), ("output_fp4_nz.bin", "nz4"),
                          ("output_e8_zz.bin", "exp_zz"), ("output_group_max.bin", "max_dn")), ("dst",),
                         compact=True, spelling=SPELLING, dtype_param=TO, derive=derive, canonical=Listed(canonical, p),
                         golden_for=golden_files, inputs_for=input_files,
                         param_tokens=(("nv", "nv"), ("nz", "nz"), ("v", "v"), ("dn", "dn")),
                         note=f"{root}/testcase/tquant's INT8 files (input.bin, inv_scale_fp32.bin, "
                              "offset_fp32.bin, golden_s8.bin or golden_u8.bin): valid regions")
    # main.cpp writes each output as <name>.bin beside its golden_<name>.bin
    out["a6"] = Profile("TQUANT", "a6", A6_SUITE, A6_INPUTS, A6_GOLDEN,
                        tuple((f.removeprefix("golden_"), role) for f, role in A6_GOLDEN), ("dst",), compact=True,
                        spelling={"bfloat16": "bf16", "float4_e1m2": "hif4"}, dtype_param=TO, derive=derive_hif4,
                        canonical=Listed(canonical, "a6"), golden_for=golden_files, inputs_for=input_files,
                        note=f"{platforms.get('a6').test_root}/testcase/tquant's files (input1.bin; golden_max4.bin, "
                             "golden_max8.bin, golden_ea.bin, golden_eb.bin, golden_ec.bin, golden_exp_dst.bin, "
                             "golden_fp4.bin, golden_scale.bin: one element per 4, 8, 32, 64, 32, 16, 2 and 2 source "
                             "elements, in source order)")
    return out


# ---- cases -------------------------------------------------------------------------------------------------------

MX_PLATFORMS = ("a5",)  # TQUANT.md:163: microscaling on A5 only


def random_case(source: Source, platform: str, constraints: Mapping[str, Any]) -> Case:
    """INT8 everywhere but a6; on A5 also MXFP8 (a source type, OCP or NV, ND or, for whole 16-row and 64-column
    blocks, NZ) and MXFP4 (16-bit sources, ND); on a6 HiFloat4 (bf16, whole blocks of 64 a row). An MX ``to``
    draws MX cases on any platform (the cpu's space is the simulator's, which runs them against A5's page)."""
    if platforms.canonical(platform) == "a6":
        vr, vc = valid_region(source, dtypes.get("bfloat16"), allow_zero=False, shape=constraints.get("shape"))
        if vc % hif4.BLOCK:
            if constraints.get("shape") is not None:
                raise UsageError(f"--shape {vr}x{vc}: HiFloat4 quantizes whole blocks of {hif4.BLOCK} elements a row "
                                 "(TQUANT_HIF4.md 1.1)")
            vc = -(-vc // hif4.BLOCK) * hif4.BLOCK
        return hif4_case((vr, vc))
    dtype = constraints.get("dtype")
    if constraints.get("to") in (MXFP8, MXFP4) or (platforms.canonical(platform) in MX_PLATFORMS and (
            not constraints.get("to") and dtype in (None, *mx.SOURCES) and
            (dtype not in (None, "float32") or float(source.random(1)[0]) < 0.5))):
        given = constraints.get("to")
        dt = dtype or source.choice(mx.FORMATS[given][2] if given else mx.SOURCES)
        to = given or (MXFP4 if dt != "float32" and float(source.random(1)[0]) < 0.4 else MXFP8)
        vr, vc = valid_region(source, dtypes.get(dt), allow_zero=False, shape=constraints.get("shape"))
        if dt == "float32":  # FP32 quantizes whole groups (TQUANT.md:138)
            vc = -(-vc // mx.GROUP) * mx.GROUP
        layout = float(source.random(1)[0]) if constraints.get("shape") is None else 1.0
        nz, dn = to == MXFP8 and layout < 0.2, layout > 0.8  # NZ: whole 16-row and 64-column blocks
        if nz:
            vr, vc = -(-vr // 16) * 16, -(-vc // 64) * 64
        if dn:  # DN: whole pairs of 32-row groups (TQUANT.md:136-137)
            vr, vc = -(-vr // 64) * 64, -(-vc // 16) * 16
        return make_case(platform, dt, to, (vr, vc), nv=float(source.random(1)[0]) < 0.3, nz=nz, dn=dn)
    to = constraints.get("to") or source.choice(oracles.INT8)
    vr, vc = valid_region(source, dtypes.get("int8"), allow_zero=False, shape=constraints.get("shape"))
    return int8_case(platform, to, (vr, vc))


def explicit_case(platform: str, opts: Mapping[str, Any]) -> Case:
    a6 = platforms.canonical(platform) == "a6"
    to = dtypes.get(opts["to"]).name if opts.get("to") else hif4.HIF4 if a6 else "int8"
    dt = dtypes.get(opts["dtype"]).name if opts.get("dtype") else "bfloat16" if a6 else "float32"
    if a6 or to == hif4.HIF4:
        valid6: tuple[int, int] = opts.get("dst") or opts.get("shape") or (16, 64)
        shape6: tuple[int, int] = opts.get("shape") or valid6
        if not a6 or to != hif4.HIF4 or dt != "bfloat16":
            raise UsageError(f"TQUANT on {platform} to {to} from {dt}: a6 quantizes bfloat16 to HiFloat4 (--to "
                             "float4_e1m2, TQUANT_HIF4.md) and no other platform does")
        if valid6[1] % hif4.BLOCK or valid6[0] > shape6[0] or valid6[1] > shape6[1]:
            raise UsageError(f"--dst {valid6[0]}x{valid6[1]} in --shape {shape6[0]}x{shape6[1]}: HiFloat4 quantizes "
                             f"whole blocks of {hif4.BLOCK} elements a row (TQUANT_HIF4.md 1.1), inside the tile")
        return hif4_case(valid6, shape6)
    if to not in (*oracles.INT8, MXFP8, MXFP4):
        raise UsageError(f"--to {opts['to']}: TQUANT writes int8 (INT8_SYM), uint8 (INT8_ASYM), float8_e4m3 "
                         "(MXFP8) or float4_e2m1 (MXFP4)")
    if to in oracles.INT8 and dt != "float32":
        raise UsageError(f"--dtype {opts['dtype']}: TQUANT's INT8 forms quantize float32 (TQUANT.md:37)")
    if dt not in mx.SOURCES:
        raise UsageError(f"--dtype {opts['dtype']}: TQUANT quantizes float32, bfloat16 or float16")
    valid: tuple[int, int] = opts.get("dst") or opts.get("shape") or (16, 32)
    shape: tuple[int, int] = opts.get("shape") or valid
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    return make_case(platform, dt, to, valid, shape)


def replay_flags(case: Case) -> str:
    d = case.tile("dst")
    return f" --to {case.param(TO)} --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


def _parameters(source: Source, case: Case, src: np.ndarray, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """Scales and offsets that put most quotients in range, as a quantizer would choose them (the row's largest
    magnitude over 127, or its span over 255 with the zero point that maps its minimum to 0), times a factor in
    [1/2, 2); now and then any float32 (a tenth of the rows) or a non-integral offset."""
    f32 = dtypes.get("float32")
    lead, rows = src.shape[:-2], case.tile("scale").rows
    if is_mx(case):  # no parameter tiles read
        zeros = np.zeros((*lead, rows, 1), dtype=np.uint32)
        return {"scale": zeros, "offset": zeros}
    with np.errstate(invalid="ignore"):  # a signaling NaN widened
        x = src.view(np.float32).astype(np.float64)
    x = np.where(np.isfinite(x) & (np.abs(x) < 1e30), x, 0.0)
    hi, lo = x.max(axis=-1, keepdims=True), x.min(axis=-1, keepdims=True)
    n = int(np.prod(lead, dtype=np.int64)) * rows
    factor = (0.5 * 4.0 ** source.random(n)).reshape(*lead, rows, 1)
    if case.param(TO) == "int8":
        scale = np.maximum(np.abs(hi), np.abs(lo)) / 127.0 * factor
        offset = np.zeros_like(scale)
    else:
        scale = (hi - lo) / 255.0 * factor
        with np.errstate(all="ignore"):
            offset = np.clip(np.rint(np.where(scale > 0, -lo / np.where(scale > 0, scale, 1.0), 0.0)), 0, 255)
        if source.version != 1:  # a zero point of +0.0: numpy 2's clip keeps a -0.0 that numpy 1's made +0.0
            offset += 0.0  # (-0.0 + 0.0 is +0.0); version 1 keeps what its numpy did
        odd = (source.random(n) < 0.05).reshape(*lead, rows, 1)
        offset = np.where(odd, offset + 0.5, offset)
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32).view(np.uint32)
    wild = (source.random(n) < 0.1).reshape(*lead, rows, 1)
    scale = np.where(wild, values.draw(source, f32, (*lead, rows, 1), mix), scale)
    return {"scale": scale, "offset": offset.astype(np.float32).view(np.uint32)}


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    src = values.draw(source, dtypes.get(case.dtype), case.tile("src").shape, mix)
    return {"src": src, **_parameters(source, case, src, mix)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    r, c = case.tile("src").shape
    src = values.draw(source, dtypes.get(case.dtype), (n * r * c,), mix).reshape(n, r, c)
    return {"src": src, **_parameters(source, case, src, mix)}


# ---- fuzzing and check -------------------------------------------------------------------------------------------

#: the MX forms' E8M0 exponent roles (their disagreements: region ``mx-exp``)
EXPONENT_ROLES = ("exp", "exp_dn", "exp_il", "exp_zz")


def geometry_class(case: Case) -> str:
    if is_hif4(case):
        return "hif4"
    if is_mx(case):
        word = "mxfp4" if case.param(TO) == MXFP4 else "mxfp8"
        return (f"{word}{'_nv' if case.param('nv') else ''}{'_nz' if case.param('nz') else ''}"
                f"{'_dn' if case.param('dn') else ''}")
    return f"{QUANT_WORD.get(case.param(TO), case.param(TO))}"


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    d = case.tile(role)
    inside = (np.arange(d.rows)[:, None] < d.valid_rows) & (np.arange(d.cols)[None, :] < d.valid_cols)
    # the MX forms' disagreements a region of their own (the signature then names the form: geometry_class), the
    # shared exponents apart from the element codes
    inner = ("mx-exp" if role in EXPONENT_ROLES else "mx") if is_mx(case) else "op"
    return (inner, "outside"), np.where(inside, 0, 1).astype(np.uint8)


MULTIPLIED = ("{file} is round(x * scale{plus}) for the scale operand the kernel receives ({why}); "
              "docs/isa/TQUANT.md:35 and 90-91 divide by the scale: q = round(x / scale){plus}, so the golden is "
              "wrong (the kernels multiply too: see ptofuzz.instructions.defects)")


def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """An INT8 golden that multiplies by the scale operand (what pto-isa's gen_data.py scripts compute) where
    the page divides: named when every valid element of the golden is the product's."""
    if case.param(TO) not in oracles.INT8 or "dst" not in files:
        return ""
    rows, cols = case.tile("dst").valid
    if not np.array_equal(np.asarray(files["dst"])[:rows, :cols].astype(np.uint8), oracles.multiplied(case, inputs)):
        return ""
    asym = case.param(TO) == "uint8"
    return MULTIPLIED.format(file=golden_files(case)[0][0], plus=" + offset" if asym else "",
                             why="inv_scale_fp32.bin: the reciprocal of the scale its script chose")


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    if "TQUANT" not in names:
        return []
    profiles = _profiles()
    notes = "docs/isa/TQUANT.md: INT8 q = round(x / scale) (+ offset), ties to even; beyond the range undefined"
    support = {"cpu": PlatformSupport(("float32",), oracles.cpu, profiles["cpu"], has_system_test=False,
                                      notes=notes),
               **{p: PlatformSupport(mx.SOURCES if p in MX_PLATFORMS else ("float32",), oracles.npu, profiles[p],
                                     has_system_test=p in COMPLETE,
                                     notes=notes + "; subnormal effects undefined" + (
                                         "; MXFP8/MXFP4: exponents exact, stochastic casts defined only where "
                                         "exact; ND and DN (TQUANT_DN.md) grouping" if p in MX_PLATFORMS else ""))
                  for p in ("a2a3", "a5", "kirin9030", "kirinDev0000")},
               "a6": PlatformSupport(("bfloat16",), oracles.npu, profiles["a6"], notes="TQUANT_HIF4.md: HiFloat4; "
                                     + A6_OPEN)}
    return [Instruction(
        name="TQUANT", family="conversion", summary="quantization: INT8 dst = round(src / scale) (+ offset), per row",
        inputs=("src", "scale", "offset"), outputs=tuple(r for r in ROLES if r not in ("src", "scale", "offset")),
        platforms=support,
        random_case=random_case, explicit_case=explicit_case, draw_inputs=draw_inputs,
        role_dtypes={"scale": "float32", "offset": "float32", "exp": "uint8", "scaling": "float32",
                     "index": "uint16", "packed": "uint8", "exp_dn": "uint8", "exp_il": "uint8", "exp_zz": "uint8",
                     "nz": "uint8", "nz4": "uint8", "ea": "uint8", "eb": "uint8", "ec": "uint8", "exp_cube": "uint8"},
        role_dtype_params={"dst": (TO, "int8")},
        options=("dtype", "to", "shape", "dst"), random_options=("to", "shape"), replay_flags=replay_flags,
        draw_batch=draw_batch, geometry_class=geometry_class, regions=regions, explain=explain,
        shared=oracles.shared_work,
        unmodelled={"spec": "pto-spec's TQUANT takes one scalar multiplier and zero point for the whole tile; "
                            "pto-isa's tests give each row its own (no tile form to compare)"})]
