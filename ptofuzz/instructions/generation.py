"""The generation instructions (TEXPANDS, TCI, TTRI): capabilities, layouts and canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/{TEXPANDS,TCI,TTRI}.md``: the dtypes each implementation checks; kirin9030
and kirinDev0000 run a5's headers; the system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/{texpands,
texpands_mat,tci,ttri}/``: folder names, files and byte layouts, as ``../shared/reference/pto-isa-st-catalog.json``
lists them) and pto-spec 0.58 (``asl/tile/tile-scalar-and-immediate/initialization/TEXPANDS.asl``,
``asl/tile/irregular-and-complex/initialization/T{CI,TRI}.asl``). Semantics live in ``oracles/generation.py``,
random cases in ``generators/generation.py``.

No instruction reads a tile; every test's files hold the valid region (``compact``). Roles and parameters:

- TEXPANDS: ``dst`` and ``scalar`` (a 1x1 tile of the element type). Its ``scalar.bin`` is a 4-byte float32 on cpu,
  a2a3 and kirin (main.cpp reads a ``float``, the kernel converts it: ``Profile.carriers``; drawn integer scalars are
  moved where a float32 holds them), the element itself on a5. The case names carry the tile's pad value
  (``pad``: it fills no element the test stores). The texpands_mat tests (a2a3, a5, kirin9030: suite TEXPANDSTest
  too, beside the texpands test) fill a Mat tile or ConvTile with a kernel immediate: their cases have no scalar
  tile but the params ``mat`` (``tile``/``conv``) and ``value`` (the immediate's bits), their one file the whole
  tile (a ConvTile as the kernel stores it: N rows of C1*H*W*C0, N*D rows for NDC1HWC0), so TEXPANDS lists no
  input role every case has.
- TCI: ``dst`` (one row) and the params ``start`` (raw bits) and ``descending``; a2a3's cases 9..15 and a5's
  11..16 pass a tmp tile (``tmp``: the same result). a5's and kirin's tests also write ``begin_index.bin`` and
  ``reverse.bin`` (roles ``begin_index``, ``reverse``: one element each) that their main.cpp never reads: the
  kernel takes the start and direction as constants, so the models take them from the case.
- TTRI: ``dst`` and the params ``upper`` and ``diagonal``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import Case, Outcome, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, spec_physical, whole_rows
from ptofuzz.generators import generation as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import carrier as scalar_carrier
from ptofuzz.oracles import generation as oracles
from ptofuzz.oracles.generation import DESCENDING, DIAGONAL, MAT, START, UPPER, VALUE

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TEXPANDS", "TCI", "TTRI")  # registry.MODULES lists the same, in this order
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
SCALAR = Tile(1, 1, 1, 1)
PAD, TMP = "pad", "tmp"

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
_ALL = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    # cpu: TExpands.hpp is a template over the element type (ptofuzz's cpu types: 8 to 32 bits)
    "TEXPANDS": {"spec": oracles.SPEC_DTYPES["TEXPANDS"], "cpu": _ALL, "a2a3": _ALL,
                 "a5": (*_ALL, "int64", "uint64")},
    # cpu: TCI.hpp takes any type (start + j); ptofuzz runs it on the integer types both NPU pages list
    "TCI": {"spec": oracles.SPEC_DTYPES["TCI"], "cpu": ("int32", "int16", "uint32", "uint16"),
            "a2a3": ("int32", "int16", "uint32", "uint16", "float32", "float16", "bfloat16"),
            "a5": ("int32", "int16", "uint32", "uint16")},
    # cpu: TTRI.hpp's static_assert
    "TTRI": {"spec": oracles.SPEC_DTYPES["TTRI"],
             "cpu": ("float32", "float16", "bfloat16", "int32", "int16", "uint32", "uint16"),
             "a2a3": ("float32", "float16", "int32", "int16", "uint32", "uint16"),
             "a5": ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32",
                    "uint16", "uint8")},
}


def supported(op: str, platform: str) -> tuple[str, ...]:
    impl = platform if platform in ("spec", "cpu") else platforms.get(platform).implementation
    return DTYPES[op][impl]


PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # cpu's NumExt names; others numpy's
NPU = {"float32": "float", "float16": "half"}
A5_TEXPANDS = {"float32": "float", "float16": "half", "bfloat16": "bfloat16"}
A5_TTRI = {"float32": "float", "float16": "fp16"}
#: the platforms whose TEXPANDS test carries the scalar as a float32 (main.cpp reads a ``float``)
FLOAT32_SCALAR = ("cpu", "a2a3", "kirin9030", "kirinDev0000")

# ---- the system tests, as data -------------------------------------------------------------------------------
# TEXPANDS (Vec): <global = valid>_<tile>_<valid>_PAD_VALUE_<pad> after case_<dtype>_
_TEXPANDS_KIRIN = """
    float_64x64_64x64_64x64_PAD_VALUE_NULL int32_64x64_64x64_64x64_PAD_VALUE_NULL
    int16_64x64_64x64_64x64_PAD_VALUE_NULL half_64x64_64x64_64x64_PAD_VALUE_NULL
    float_60x60_64x64_60x60_PAD_VALUE_MAX int32_60x60_64x64_60x60_PAD_VALUE_MAX
    half_1x3600_2x4096_1x3600_PAD_VALUE_MAX int16_16x200_20x512_16x200_PAD_VALUE_MAX"""
TEXPANDS_VEC = {
    "cpu": _TEXPANDS_KIRIN + """
    bf16_64x64_64x64_64x64_PAD_VALUE_NULL bf16_1x3600_2x4096_1x3600_PAD_VALUE_MAX""",
    "a2a3": _TEXPANDS_KIRIN + """
    int8_16x200_20x512_16x200_PAD_VALUE_MAX""",
    "a5": """
    float_64x64_64x64_64x64_PAD_VALUE_NULL int32_64x64_64x64_64x64_PAD_VALUE_NULL
    int16_64x64_64x64_64x64_PAD_VALUE_NULL half_64x64_64x64_64x64_PAD_VALUE_NULL
    bfloat16_64x64_64x64_64x64_PAD_VALUE_NULL float_60x60_64x64_60x60_PAD_VALUE_MAX
    int32_60x60_64x64_60x60_PAD_VALUE_MAX bfloat16_1x3600_2x4096_1x3600_PAD_VALUE_MAX
    half_1x3600_2x4096_1x3600_PAD_VALUE_MAX int16_16x200_20x512_16x200_PAD_VALUE_MAX
    int16_1x200_1x512_1x200_PAD_VALUE_MAX int64_5x16_5x16_5x16_PAD_VALUE_NULL uint64_5x16_5x16_5x16_PAD_VALUE_NULL""",
    "kirin9030": _TEXPANDS_KIRIN,
    "kirinDev0000": _TEXPANDS_KIRIN,
}
# TEXPANDS (Mat, texpands_mat): name dtype kind rows cols value (the kernel's immediate, as a number)
_MAT_HEAD = """
    case1 float16 tile 128 128 2
    case2 int16 tile 32 64 5"""
_MAT_A2A3_A5 = _MAT_HEAD + """
    case3 float32 tile 32 32 3
    case4 int8 tile 32 32 1"""
TEXPANDS_MAT = {
    "a2a3": _MAT_A2A3_A5 + """
    case5 bfloat16 tile 256 256 7
    case6 float16 conv 1 12544 3
    case7 int16 conv 2 240 8
    case8 int32 conv 2 200 5
    case9 int32 conv 3 160 11""",
    "a5": _MAT_A2A3_A5 + """
    case5 bfloat16 tile 256 256 0
    case6 float16 conv 1 12544 3
    case7 int16 conv 2 240 8
    case8 int32 conv 4 48 5
    case9 uint32 conv 6 64 11""",
    "kirin9030": _MAT_HEAD + """
    case3 float16 conv 1 12544 3
    case4 int16 conv 2 240 8""",
}
# TCI: name dtype columns start descending [tmp]
_TCI_KIRIN = """
    case1 int32 128 100 1
    case2 int16 128 -1 0
    case3 int16 128 -1 1
    case4 int16 192 -1 1
    case5 int32 192 -1 1
    case6 int32 600 0 1
    case7 int16 800 0 0
    case8 int32 2560 0 1
    case9 int32 3200 0 0
    case10 int32 8 0 0"""
TCI_CASES = {
    "cpu": """
    case_i32_asc_S0 int32 16 0 0
    case_i32_desc_S100 int32 16 100 1""",
    "a2a3": """
    case1_int32 int32 128 0 0
    case2_int32 int32 600 0 0
    case3_int32 int32 32 0 1
    case4_int32 int32 2000 0 1
    case5_int16 int16 256 0 0
    case6_int16 int16 800 0 1
    case7_int16 int16 64 0 0
    case8_int16 int16 5120 0 1
    case9_int32 int32 128 0 0 tmp
    case10_int32 int32 32 0 1 tmp
    case11_int16 int16 256 0 0 tmp
    case12_int16 int16 800 0 1 tmp
    case13_int16 int16 3328 0 1 tmp
    case14_int16 int16 64 0 0 tmp
    case15_int16 int16 32 0 1 tmp""",
    "a5": _TCI_KIRIN + """
    case11 int32 128 100 1 tmp
    case12 int32 3200 0 0 tmp
    case13 int16 128 -1 1 tmp
    case14 int16 800 0 0 tmp
    case15 int16 3840 20 1 tmp
    case16 int16 1408 50 0 tmp""",
    "kirin9030": _TCI_KIRIN,
    "kirinDev0000": _TCI_KIRIN,
}
# TTRI cpu/a2a3: dtype tile valid upper diagonal; a5/kirin: dtype [tile] valid upper diagonal (tile: 's' names)
_TTRI_A2A3 = """
    float32 4x8 4x4 1 0
    float32 64x64 64x64 1 0
    int32 64x64 64x64 1 0
    int16 64x64 64x64 1 0
    float16 16x256 16x256 1 0
    float32 128x128 128x128 1 0
    float32 64x64 64x64 0 0
    int32 64x64 64x64 0 0
    int16 64x64 64x64 0 0
    float16 16x256 16x256 0 0
    float32 128x128 128x128 0 0
    float32 128x128 128x125 0 0
    uint32 64x64 64x64 1 0
    uint32 64x64 64x64 0 0
    float32 128x128 128x111 0 2
    float32 128x128 128x111 0 -2
    float32 128x128 128x111 1 2
    float32 128x128 128x111 1 -2
    float32 128x128 128x31 1 444
    float32 128x128 128x31 0 444
    float32 128x128 128x31 1 -444
    float32 128x128 128x31 0 -444"""
_TTRI_KIRIN = """
    float32 - 32x91 0 0
    float32 - 128x128 0 0
    float32 - 32x91 0 3
    float32 - 128x128 0 3
    float32 - 32x91 0 -3
    float32 - 128x128 0 -3
    float32 - 32x91 1 0
    float32 - 128x128 1 0
    float32 - 32x91 1 3
    float32 - 128x128 1 3
    float32 - 32x91 1 -3
    float32 - 128x128 1 -3"""
TTRI_CASES = {
    "cpu": _TTRI_A2A3 + """
    bfloat16 16x256 16x256 1 0
    bfloat16 16x256 16x256 0 0""",
    "a2a3": _TTRI_A2A3,
    "a5": """
    float16 - 20x32 0 0
    uint8 - 20x32 0 0""" + _TTRI_KIRIN + """
    float32 - 763x32 0 -41
    float32 - 763x32 1 -41
    int64 - 4x15 1 0
    uint64 - 4x15 0 -1
    float16 30x208 30x208 1 0
    float16 30x208 30x176 1 0
    float16 293x16 269x16 0 -41
    float16 293x16 293x16 0 -41
    float16 293x16 287x16 0 -41
    int8 32x128 32x128 0 0
    int8 32x128 24x112 0 0
    float16 293x16 1x16 0 0
    float16 293x16 2x16 0 0""",
    "kirin9030": _TTRI_KIRIN,
    "kirinDev0000": _TTRI_KIRIN,
}


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _unspell(word: str, spelling: Mapping[str, str]) -> str:
    for name, spelled in spelling.items():
        if spelled == word:
            return name
    return dtypes.get(word).name


def _number_bits(value: float, dt: dtypes.DType) -> int:
    """The bits of a kernel immediate (an exact small number) in the element type."""
    from ptofuzz.oracles import ieee

    if dt.is_float:
        return int(ieee.from_float64(np.array([value], dtype=np.float64), dt)[0])
    return int(value) & ((1 << dt.bits) - 1)


def _texpands_canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    spelling = A5_TEXPANDS if platform == "a5" else PLAIN if platform == "cpu" else NPU
    out: list[tuple[str, Case]] = []
    for suffix in TEXPANDS_VEC[platform].split():
        words = suffix.split("_")
        dt = _unspell(words[0], spelling)
        _, tile, valid = (_rxc(w) for w in words[1:4])
        tiles = (("dst", Tile(*tile, *valid)), ("scalar", SCALAR))
        out.append((f"case_{suffix}", Case("TEXPANDS", platform, dt, tiles, ((PAD, words[-1]),))))
    for line in TEXPANDS_MAT.get(platform, "").strip().splitlines():
        name, dt, kind, rows, cols, value = line.split()
        params = ((MAT, kind), (VALUE, _number_bits(float(value), dtypes.get(dt))))
        out.append((name, Case("TEXPANDS", platform, dt, (("dst", Tile(int(rows), int(cols), int(rows),
                                                                         int(cols))),), params)))
    return tuple(out)


def _tci_canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for line in TCI_CASES[platform].strip().splitlines():
        name, dt, cols, start, desc, *tmp = line.split()
        n = int(cols)
        bits = int(start) & ((1 << dtypes.get(dt).bits) - 1)
        tiles: tuple[tuple[str, Tile], ...] = (("dst", Tile(1, n, 1, n)),)
        if platform not in ("cpu", "a2a3"):
            tiles += (("begin_index", SCALAR), ("reverse", SCALAR))
        params = ((START, bits), (DESCENDING, int(desc)), (TMP, 1 if tmp else None))
        out.append((name, Case("TCI", platform, dt, tiles, params)))
    return tuple(out)


def _block_cols(cols: int) -> int:
    """a5's TTRI kernels: Cols rounded up to a multiple of 32 elements."""
    return -(-cols // 32) * 32


def _ttri_canonical(platform: str) -> tuple[tuple[str, Case], ...]:
    out = []
    for line in TTRI_CASES[platform].strip().splitlines():
        dt, tile_word, valid_word, upper, diag = line.split()
        valid, d, u = _rxc(valid_word), int(diag), int(upper)
        if platform in ("cpu", "a2a3"):
            tile = _rxc(tile_word)
            word = (PLAIN if platform == "cpu" else NPU).get(dt, dt)
            name = f"case_{word}_{tile[0]}x{tile[1]}_{valid[0]}x{valid[1]}_{u}_{d if d >= 0 else f'_{-d}'}"
        else:
            word = A5_TTRI.get(dt, dt) if platform == "a5" else NPU.get(dt, dt)
            diag_word = f"{'n' if d < 0 else ''}{abs(d)}"
            orient = "upper" if u else "lower"
            if tile_word == "-":
                tile = (valid[0], _block_cols(valid[1]))
                name = f"case_{word}_{valid[0]}x{valid[1]}_{orient}_diag_{diag_word}"
            else:
                static = _rxc(tile_word)
                tile = (static[0], _block_cols(static[1]))
                name = (f"case_{word}_s{static[0]}x{static[1]}_v{valid[0]}x{valid[1]}_{orient}_diag_"
                        f"{diag_word}")
        out.append((name, Case("TTRI", platform, dt, (("dst", Tile(*tile, *valid)),),
                               ((UPPER, u), (DIAGONAL, d)))))
    return tuple(out)


CANONICAL = {"TEXPANDS": _texpands_canonical, "TCI": _tci_canonical, "TTRI": _ttri_canonical}


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system tests on ``platform``: (name after the suite's dot, case), in the order its
    gen_data.py writes them."""
    return CANONICAL[op](platform)


# ---- profiles ----------------------------------------------------------------------------------------------------

SUITES = {"TEXPANDS": "TEXPANDSTest", "TCI": "TCITest", "TTRI": "TTRITest"}
PARAM_TOKENS = {"TEXPANDS": (), "TCI": ((START, "s"), (DESCENDING, "d")), "TTRI": ((UPPER, "u"), (DIAGONAL, "d"))}


def _derive(op: str, platform: str) -> Any:
    def derive(named: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
        extra: tuple[tuple[str, Tile], ...] = ()
        if op == "TEXPANDS":
            extra = (("scalar", SCALAR),)
        elif op == "TCI" and platform not in ("cpu", "a2a3", "spec"):
            extra = (("begin_index", SCALAR), ("reverse", SCALAR))
        return (("dst", named["dst"]), *extra)
    return derive


def _inputs(op: str, platform: str) -> tuple[tuple[str, str], ...]:
    if op == "TEXPANDS":
        return (("scalar.bin", "scalar"),)
    if op == "TCI" and platform not in ("cpu", "a2a3", "spec"):
        return (("begin_index.bin", "begin_index"), ("reverse.bin", "reverse"))
    return ()


def _spelling(op: str, platform: str) -> Mapping[str, str]:
    if platform == "cpu":
        return PLAIN
    if platform == "a5":
        return A5_TEXPANDS if op == "TEXPANDS" else A5_TTRI if op == "TTRI" else NPU
    return NPU


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform's valid region, dtype and parameters once (those pto-spec takes),
    the destination the smallest legal descriptor holding the region."""
    seen: dict[Any, Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype not in DTYPES[op]["spec"] or c.param(MAT):
                continue
            valid = c.tile("dst").valid
            phys = spec_physical(*valid, dtypes.get(c.dtype))
            tiles = (("dst", Tile(*phys, *valid)), *((("scalar", SCALAR),) if op == "TEXPANDS" else ()))
            params = tuple((k, v) for k, v in c.params if k in (START, DESCENDING, UPPER, DIAGONAL))
            seen.setdefault((c.dtype, valid, params), Case(op, "spec", c.dtype, tiles, params))
    out = []
    for c in seen.values():
        tokens = "".join(f"_{prefix}{c.param(p)}" for p, prefix in PARAM_TOKENS[op] if c.param(p) is not None)
        out.append((f"case_{c.dtype}_{c.tile('dst').token()}{tokens}", c))
    return tuple(out)


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        root = platforms.get(platform).test_root
        carriers = (("scalar", "float32", ("int64", "uint64")),) \
            if op == "TEXPANDS" and platform in FLOAT32_SCALAR else ()
        suite = "TCI_Test" if (op, platform) == ("TCI", "cpu") else SUITES[op]
        tests = f"{root}/testcase/{op.lower()}" + (f", {op.lower()}_mat" if op == "TEXPANDS" and platform in
                                                     TEXPANDS_MAT else "")
        note = f"{tests}: valid-region files" + ("; scalar.bin a 4-byte float32 the kernel converts" if carriers
                                                   else "")
        out[platform] = Profile(op, platform, suite, _inputs(op, platform), golden, output, ("dst",), compact=True,
                                spelling=_spelling(op, platform), canonical=Listed(canonical, op, platform),
                                param_tokens=PARAM_TOKENS[op], derive=_derive(op, platform), carriers=carriers,
                                note=note)
    out["spec"] = Profile(op, "spec", f"{op}Spec", _inputs(op, "spec"), golden, output, ("dst",), compact=False,
                          spelling={}, canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
                          physical=spec_physical, param_tokens=PARAM_TOKENS[op], derive=_derive(op, "spec"),
                          note="ptofuzz full-tile layout; dst one legal pto-spec descriptor"
                               + ("; scalar.bin one element (the GPR's raw bits)" if op == "TEXPANDS" else ""))
    return {"spec": out.pop("spec"), **out}


# ---- cases from the generators and the CLI -------------------------------------------------------------------

def random_case(source: Source, op: str, platform: str, constraints: Mapping[str, Any]) -> Case:
    """A case legal on ``platform`` (see :mod:`ptofuzz.generators.generation`)."""
    sup = supported(op, platforms.canonical(platform))
    if op == "TCI":
        case = gen.tci_case(source, platform, sup, constraints)
    elif op == "TTRI":
        case = gen.ttri_case(source, platform, sup, constraints)
    else:
        case = gen.dst_case(source, op, platform, sup, constraints)
    return case.replace(tiles=_derive(op, platforms.canonical(platform))({"dst": case.tile("dst")}))


def explicit_case(op: str, platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` (TCI: ``--descending``) describe: ``--dst`` the valid region
    (default ``--shape``, or 16x16; TCI 1x16), ``--shape`` the tile (default: the smallest legal descriptor on
    spec, whole 32-byte rows elsewhere); TCI starts at 0, TTRI is lower with diagonal 0."""
    canon = platforms.canonical(platform)
    sup = {canon: supported(op, canon)}
    if op != "TCI":
        c = ew.explicit_case(op, sup, canon, opts, ("dst",))
        params: tuple[tuple[str, Any], ...] = ((UPPER, 0), (DIAGONAL, 0)) if op == "TTRI" else ()
        return Case(op, platform, c.dtype, _derive(op, canon)({"dst": c.tile("dst")}), params)
    dt = dtypes.get(opts.get("dtype") or sup[canon][0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (1, 16)
    if shape is None:
        spec = platforms.get(canon).kind == platforms.SPEC
        shape = spec_physical(*valid, dt) if spec else whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    params = ((START, 0), (DESCENDING, 1 if opts.get("descending") else 0))
    return Case(op, platform, dt.name, _derive(op, canon)({"dst": Tile(*shape, *valid)}), params)


def replay_flags(case: Case) -> str:
    flags = ew.replay_flags(case)
    if case.op == "TCI":
        flags += " --descending" if case.param(DESCENDING) else " --ascending"
    return flags


# ---- inputs --------------------------------------------------------------------------------------------------

def _carried(case: Case, scalar: np.ndarray) -> np.ndarray:
    """Drawn scalars moved where the case's test carries them in a float32 (integers: their top 24 bits)."""
    dt = dtypes.get(case.dtype)
    if platforms.canonical(case.platform) not in FLOAT32_SCALAR or dt.is_float or dt.bits == 64:
        return scalar
    return scalar_carrier.nearest(scalar, dt, dtypes.get("float32"))


def _param_inputs(case: Case) -> dict[str, np.ndarray]:
    """TCI's begin_index.bin and reverse.bin: the start and the direction as elements (a5, kirin)."""
    roles = dict(case.tiles)
    if case.op != "TCI" or "begin_index" not in roles:
        return {}
    dt = dtypes.get(case.dtype)
    start = np.array([[case.param(START, 0)]], dtype=np.uint64).astype(dt.bits_dtype)
    reverse = oracles.one_bits(dt) if case.param(DESCENDING) else 0
    return {"begin_index": start, "reverse": np.array([[reverse]], dtype=dt.bits_dtype)}


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """TEXPANDS: the scalar (mix's rate); TCI on a5/kirin: its parameter files; nothing else has inputs."""
    if case.op == "TEXPANDS" and "scalar" in dict(case.tiles):
        dt = dtypes.get(case.dtype)
        return {"scalar": _carried(case, values.draw(source, dt, (1, 1), mix))}
    return _param_inputs(case)


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases at once, stacked on a leading axis: TEXPANDS's scalars (special values often); TCI's starts
    (with a5's and kirin's parameter files) and TTRI's diagonals, per item, of the case's class
    (:data:`BATCH_PARAMS`)."""
    dt = dtypes.get(case.dtype)
    if case.op == "TEXPANDS":
        return {"scalar": _carried(case, gen.scalars(source, dt, n, mix))}
    if case.op == "TTRI":
        return {DIAGONAL: gen.ttri_diagonals(source, case, n)}
    starts = gen.tci_starts(source, case, n)
    out = {START: starts}
    if "begin_index" in dict(case.tiles):
        out["begin_index"] = starts.astype(np.uint64).astype(dt.bits_dtype)
        out["reverse"] = np.repeat(_param_inputs(case)["reverse"][None], n, axis=0)
    return out


#: the parameters a batch varies per item (``Instruction.batch_params``) and how many items differ in what they test
BATCH_PARAMS = {"TEXPANDS": (), "TCI": (START,), "TTRI": (DIAGONAL,)}
BATCH_LIMITS = {"TEXPANDS": None, "TCI": gen.tci_batch_limit, "TTRI": gen.ttri_batch_limit}


# ---- oracles per platform ---------------------------------------------------------------------------------------

def _texpands_documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    dt = dtypes.get(case.dtype)
    carried = platforms.canonical(case.platform) in FLOAT32_SCALAR and dt.name in ("float16", "bfloat16") \
        and "scalar" in dict(case.tiles)
    return oracles.texpands_documented(case, inputs, carried=carried)


SPEC = {"TEXPANDS": oracles.texpands_spec, "TCI": oracles.tci_spec, "TTRI": oracles.ttri_spec}
DOCUMENTED = {"TEXPANDS": _texpands_documented, "TCI": oracles.tci_documented, "TTRI": oracles.ttri_documented}


# ---- check: why a golden is wrong ---------------------------------------------------------------------------

def explain(case: Case, inputs: Mapping[str, np.ndarray], files: Mapping[str, np.ndarray]) -> str:
    """A TEXPANDS golden of an integer the test's float32 scalar file cannot hold: the golden's own scalar
    (every valid element of it) beside the one the kernel receives."""
    dt = dtypes.get(case.dtype)
    if case.op != "TEXPANDS" or dt.is_float or "scalar" not in inputs or "dst" not in files \
            or platforms.canonical(case.platform) not in FLOAT32_SCALAR:
        return ""
    rows, cols = case.tile("dst").valid
    g = files["dst"][:rows, :cols]
    used = np.unique(g.view(f"<i{dt.itemsize}") if dt.kind == "int" else g)
    s = int(inputs["scalar"].view(f"<i{dt.itemsize}")[0, 0] if dt.kind == "int" else inputs["scalar"][0, 0])
    if len(used) != 1 or int(used[0]) == s or int(np.float32(int(used[0]))) != s:
        return ""
    return (f"golden.bin was computed with the scalar {int(used[0])}, but the kernel receives {s}: the scalar "
            f"file is a float32, which holds no {dt.name} {int(used[0])} (integers of 2**24 and more lose their "
            "low bits), so the golden is wrong")


# ---- fuzzing: geometry classes, regions, documented differences ---------------------------------------------

def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the case breaks (``dtype``: a type pto-spec does not
    take), or ``spec-legal``."""
    if case.dtype not in DTYPES[case.op]["spec"]:
        return "dtype"
    fault = oracles.legality(case)
    if fault is None:
        return "spec-legal"
    why = fault.fault.reason if fault.fault is not None else ""
    return "empty" if "empty" in why else "rows" if "valid rows" in why else "diagonal" if "diagonal" in why \
        else "nodesc"


def geometry_class(case: Case) -> str:
    """``empty``, ``nodesc`` (no legal pto-spec descriptor), else whether the valid region fills the tile;
    TCI adds whether its sequence leaves the type's range (``wraps``), TTRI whether the diagonal is past pto-spec's
    bound (``far``)."""
    d = case.tile("dst")
    if 0 in d.valid:
        return "empty"
    if oracles.legality(case) is not None and fault_class(case) == "nodesc":
        return "nodesc"
    out = "full" if d.valid == d.shape else "part"
    if case.op == "TCI" and not dtypes.get(case.dtype).is_float and bool(oracles.tci_integers(case)[1].any()):
        out += ",wraps"
    if case.op == "TTRI" and abs(int(case.param(DIAGONAL, 0))) > oracles.SPEC_DIAGONAL:
        out += ",far"
    return out


REGIONS = ("op", "outside")
TTRI_REGIONS = ("op", "outside", "int-edge")
INT_MAX = (1 << 31) - 1


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Inside what the operation writes or outside it; for TTRI, the rows whose boundary ``i + d`` reaches the
    end of C++'s ``int`` (``int-edge``: the page's diagonal is an ``int``, and one past its end is no ``int``)."""
    d = case.tile(role)
    if case.op == "TCI":
        codes = np.ones(d.shape, dtype=np.uint8)
        codes[:1, :d.valid_cols] = 0
        return REGIONS, codes
    rows, cols = oracles.fill_region(case) if case.op == "TEXPANDS" else d.valid
    r = np.arange(d.rows)[:, None] < rows
    c = np.arange(d.cols)[None, :] < cols
    codes = np.where(r & c, 0, 1).astype(np.uint8)
    if case.op != "TTRI":
        return REGIONS, codes
    edge = (np.arange(d.rows, dtype=np.int64)[:, None] + int(case.param(DIAGONAL, 0)) >= INT_MAX) & r & c
    return TTRI_REGIONS, np.where(edge, np.uint8(2), codes).astype(np.uint8)


_WHY = {
    "empty": "pto-spec faults on an empty valid region (LB0 must be nonzero); pto-isa's pages iterate over dst's "
             "valid region, which may be empty",
    "nodesc": "pto-spec faults on a tile that is no legal descriptor (power-of-two columns, capacity 128 B * 2**k); "
              "pto-isa's tiles are any whole 32-byte rows",
    "rows": "pto-spec's TCI requires exactly one valid row; docs/isa/TCI.md uses GetValidCol() as the length and "
            "does not consult GetValidRow()",
    "diagonal": "pto-spec bounds TTRI's diagonal to -65535..65535 (Fault_TileLegality); docs/isa/TTRI.md takes any "
                "int",
    "dtype": "pto-spec does not take this element type (TCI: S32/S16/U32/U16; TTRI: FP32/FP16/S32/S16/U32/U16); "
             "docs/isa/<OP>.md lists it for the platform",
}


def known_difference(sig: Signature) -> str | None:
    """The documented differences between pto-spec's model and pto-isa's pages: pto-spec faults on geometries,
    parameters and types pto-isa accepts."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        return _WHY.get(sig.geometry)
    return None


def illegal_case(source: Source, op: str, constraints: Mapping[str, Any]) -> Case:
    """A spec case pto-spec rejects (:func:`ptofuzz.generators.generation.spec_breaks` of a legal one)."""
    return gen.spec_breaks(source, random_case(source, op, "spec", constraints))


# ---- the instructions --------------------------------------------------------------------------------------

SUMMARY = {"TEXPANDS": "generation: dst = scalar over the valid region",
           "TCI": "generation: dst[0, k] = start + k (or start - k) over the valid columns",
           "TTRI": "generation: a lower or upper triangular 0/1 mask over the valid region"}
NOTES = {"TEXPANDS": "the scalar's bits over the valid region (a Mat tile: the whole tile)",
         "TCI": "start +- k over GetValidCol() columns of the one row; a value past the type's range undefined",
         "TTRI": "1 where j <= i + d (lower) or j >= i + d (upper), else 0, over the valid region; any int d"}


#: the operations with a bundle form the executor runs (:data:`ptofuzz.bundle.executor.CLOSED`)
BUNDLED = ("TEXPANDS", "TCI", "TTRI")


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        notes = f"docs/isa/{op}.md: {NOTES[op]}"
        support = {
            "spec": PlatformSupport(supported(op, "spec"), SPEC[op], profiles["spec"], bad_dtype="fault",
                                    has_system_test=False, notes="pto-spec's legality, else Fault_TileLegality "
                                                                 "(trap 5)"),
            **{p: PlatformSupport(supported(op, p), DOCUMENTED[op], profiles[p],
                                  notes=notes + ("" if p in ("cpu", "a2a3", "a5") else "; a5's headers"))
               for p in PLATFORMS},
        }

        def random(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return random_case(source, _op, platform, constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op) -> Case:
            return explicit_case(_op, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op) -> Case:
            return illegal_case(source, _op, constraints)

        out.append(Instruction(
            name=op, family="generation", summary=SUMMARY[op], inputs=(), outputs=("dst",), platforms=support,
            random_case=random, explicit_case=explicit, draw_inputs=draw_inputs,
            options=("dtype", "shape", "dst", "descending") if op == "TCI" else ("dtype", "shape", "dst"),
            random_options=("dtype", "shape"), replay_flags=replay_flags,
            draw_batch=draw_batch, batch_params=BATCH_PARAMS[op],
            batch_limit=BATCH_LIMITS[op], geometry_class=geometry_class,
            fault_class=fault_class, regions=regions, known_difference=known_difference, illegal_case=illegal,
            explain=explain if op == "TEXPANDS" else None, bundle=op in BUNDLED))
    return out
