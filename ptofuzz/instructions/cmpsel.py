"""The compare and select instructions (TCMP, TSEL): capabilities, layouts and canonical cases per platform.

Facts from pto-isa 3186c381 (``docs/isa/T{CMP,SEL}.md``: the dtypes each implementation checks; the system tests
``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{cmp,sel}/``: folder names, files and byte layouts, as
``../shared/reference/pto-isa-st-catalog.json`` lists them). Semantics and the mask layout live in
``oracles/cmpsel.py``.

TCMP: ``input1.bin`` and ``input2.bin`` hold the two sources, whole tiles; ``golden.bin`` the mask tile, whole:
on cpu a tile of the sources' shape whose words are uint8 or uint32 (the test's ``dst_dtype``, named after the
element type: ``case_float_uint8_..``), on the NPUs ``rows x ceil(cols / 8)`` bytes. The comparison is the case
parameter ``cmp`` (``EQ`` .. ``GE`` in the names, or the kernel's ``CmpMode`` in main.cpp where the name does not
say). a2a3 names ``case_<mode>_<dt>_<global>_<tile>_<valid>``: its files hold the tile, whole, whatever the
global shape (which only its kernel's load reads; the parameter ``global`` keeps such cases apart), and a valid
shape larger than the tile is the tile. Two cases of a2a3 and one of a5 draw every source element as NaN
(``_nan``, the parameter ``values``).

TSEL: ``input0.bin`` (selected by one bits), ``input1.bin`` (by zero bits), ``mask.bin`` and ``golden.bin``. cpu,
a2a3 and a5 write valid regions only (the mask ``valid rows x ceil(valid cols / 8)`` bytes); kirin9030 and
kirinDev0000 whole tiles, the mask ``rows x ceil32(cols)`` bytes, its bits in each row's first ``ceil(cols / 8)``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Profile, whole_rows
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import cmpsel as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TCMP", "TSEL")  # registry.MODULES lists the same, in this order
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
NPUS = ("a2a3", "a5", "kirin9030", "kirinDev0000")
ROLES = {"TCMP": ("dst", "src0", "src1"), "TSEL": ("dst", "mask", "src0", "src1")}
NAME_ROLES = {"TCMP": ("dst", "src0"), "TSEL": ("dst", "mask")}

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
_NINE = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
_A5 = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
#: TCMP on cpu: a uint32 mask takes the nine types, a uint8 mask int32, half and float (TCmp.h's TCmpCheck)
CPU_U8_MASK = ("float32", "float16", "int32")
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    "TCMP": {"cpu": _NINE, "a2a3": ("float32", "float16", "int32"), "a5": _A5},
    # TSEL on cpu: TSel.hpp is a template over the element type
    "TSEL": {"cpu": _NINE, "a2a3": ("float32", "float16", "bfloat16", "int32", "int16", "uint32", "uint16"),
             "a5": _A5},
}
MASKS = ("uint8", "uint32")  # cpu TCMP's mask words

# ---- canonical cases: name dtype tile valid mode [mask=..] [global=..] [values=nan] -------------------------
_TCMP_LISTED: dict[str, str] = {
    "cpu": """
        case_float_uint8_64x64_64x64_64x64_EQ float32 64x64 64x64 EQ mask=uint8
        case_int32_uint8_64x64_64x64_64x64_NE int32 64x64 64x64 NE mask=uint8
        case_half_uint8_16x256_16x256_16x256_GT float16 16x256 16x256 GT mask=uint8
        case_uint32_uint32_64x64_64x64_64x64_GE uint32 64x64 64x64 GE mask=uint32
        case_int32_uint32_64x64_64x64_64x64_LT int32 64x64 64x64 LT mask=uint32
        case_uint16_uint32_64x64_64x64_64x64_LE uint16 64x64 64x64 LE mask=uint32
        case_int16_uint32_64x64_64x64_64x64_EQ int16 64x64 64x64 EQ mask=uint32
        case_uint8_uint32_64x64_64x64_64x64_LT uint8 64x64 64x64 LT mask=uint32
        case_int8_uint32_64x64_64x64_64x64_GT int8 64x64 64x64 GT mask=uint32
        case_float_uint32_64x64_64x64_64x64_NE float32 64x64 64x64 NE mask=uint32
        case_half_uint32_16x256_16x256_16x256_LE float16 16x256 16x256 LE mask=uint32
        case_bf16_uint32_16x256_16x256_16x256_GE bfloat16 16x256 16x256 GE mask=uint32
        """,
    "a2a3": """
        case_eq_float_1x64_1x64_1x64 float32 1x64 1x64 EQ
        case_gt_float_8x64_8x64_8x64 float32 8x64 8x64 GT
        case_eq_int32_64x64_32x32_64x64 int32 32x32 32x32 EQ global=64x64
        case_eq_int32_16x32_16x32_16x32 int32 16x32 16x32 EQ
        case_le_float_128x128_64x64_128x128 float32 64x64 64x64 LE global=128x128
        case_eq_int32_77x81_32x32_77x81 int32 32x32 32x32 EQ global=77x81
        case_eq_int32_32x32_32x32_32x32 int32 32x32 32x32 EQ
        case_ne_float_32x32_32x32_32x32 float32 32x32 32x32 NE
        case_ne_float_32x32_32x32_32x32_nan float32 32x32 32x32 NE values=nan
        case_lt_float_2x4096_2x4096_2x4096 float32 2x4096 2x4096 LT
        case_ne_float_2x4096_2x4096_2x4096 float32 2x4096 2x4096 NE
        case_ne_float_2x4096_2x4096_2x4096_nan float32 2x4096 2x4096 NE values=nan
        case_ne_float_1x64_1x64_1x64 float32 1x64 1x64 NE
        case_ne_float_64x64_32x32_64x64 float32 32x32 32x32 NE global=64x64
        case_eq_half_1x64_1x64_1x64 float16 1x64 1x64 EQ
        case_ne_half_8x64_8x64_8x64 float16 8x64 8x64 NE
        case_lt_half_32x32_32x32_32x32 float16 32x32 32x32 LT
        case_gt_half_32x32_32x32_32x32 float16 32x32 32x32 GT
        case_ge_half_16x32_16x32_16x32 float16 16x32 16x32 GE
        case_le_half_128x128_64x64_128x128 float16 64x64 64x64 LE global=128x128
        case_ne_half_32x32_32x32_32x32_nan float16 32x32 32x32 NE values=nan
        case_ne_half_2x4096_2x4096_2x4096 float16 2x4096 2x4096 NE
        case_ne_half_128x128_64x64_128x128 float16 64x64 64x64 NE global=128x128
        """,
    "a5": """
        case_half_32x32_32x32 float16 32x32 32x32 EQ
        case_float_8x64_8x64 float32 8x64 8x64 GT
        case_int32_4x64_4x64 int32 4x64 4x64 NE
        case_int32_128x128_64x64 int32 128x128 64x64 LT
        case_int32_64x64_32x32 int32 64x64 32x32 EQ
        case_int32_16x32_16x32 int32 16x32 16x32 EQ
        case_float_128x128_64x64 float32 128x128 64x64 LE
        case_int32_77x80_32x32 int32 77x80 32x32 EQ
        case_int32_32x32_32x32 int32 32x32 32x32 EQ
        case_int16_32x32_16x32 int16 32x32 16x32 EQ
        case_int16_77x80_32x32 int16 77x80 32x32 LE
        case_bfloat16_32x32_16x32 bfloat16 32x32 16x32 EQ
        case_bfloat16_77x80_32x32 bfloat16 77x80 32x32 LE
        case_float_32x32_32x32_nan float32 32x32 32x32 NE values=nan
        """ + "".join(f"case_{dt}_4x16_4x15_{m} {dt} 4x16 4x15 {m}\n" for dt in ("int64", "uint64")
                      for m in ("EQ", "NE", "LT", "GT", "GE", "LE")),
    "kirin9030": """
        case_half_32x32_32x32 float16 32x32 32x32 EQ
        case_float_8x64_8x64 float32 8x64 8x64 GT
        case_int32_4x64_4x64 int32 4x64 4x64 NE
        case_int32_96x96_64x64 int32 96x96 64x64 LT
        case_int32_64x64_32x32 int32 64x64 32x32 EQ
        case_int32_16x32_16x32 int32 16x32 16x32 EQ
        case_float_96x96_64x64 float32 96x96 64x64 LE
        case_int32_77x80_32x32 int32 77x80 32x32 EQ
        case_int32_32x32_32x32 int32 32x32 32x32 EQ
        case_int16_32x32_16x32 int16 32x32 16x32 EQ
        case_int16_77x80_32x32 int16 77x80 32x32 LE
        """,
}
_TCMP = {**_TCMP_LISTED, "kirinDev0000": _TCMP_LISTED["kirin9030"]}  # kirinDev0000's script is kirin9030's

# TSEL: name dtype tile valid
_TSEL_CPU = """
    case1 float32 2x128 2x128
    case2 float32 2x32 2x32
    case3 float32 2x160 2x160
    case4 float16 2x128 2x128
    case5 float16 2x32 2x32
    case6 float16 2x160 2x160
    case7 int8 2x128 2x128
    case8 int8 2x32 2x32
    case9 int8 2x160 2x160
    """
_TSEL_LISTED: dict[str, str] = {
    "cpu": _TSEL_CPU + """
        case10 uint16 2x128 2x128
        case11 uint16 2x32 2x32
        case12 uint16 2x160 2x160
        case13 uint32 2x128 2x128
        case14 uint32 2x32 2x32
        case15 uint32 2x160 2x160
        """,
    "a2a3": """
        case1 float32 2x128 2x128
        case2 float32 2x32 2x32
        case3 float32 2x160 2x160
        case4 float16 2x128 2x128
        case5 float16 2x32 2x32
        case6 float16 2x160 2x160
        case7 float32 10x64 10x54
        case8 float32 2x4096 2x4096
        case9 float32 1024x8 1024x8
        case10 int32 2x128 2x128
        case11 int16 2x128 2x128
        case12 float32 2x8 2x8
        case13 float16 2x16 2x8
        """,
    "a5": _TSEL_CPU + """
        case10 float32 2x512 2x512
        case_int64_4x16 int64 4x16 4x16
        case_uint64_4x16 uint64 4x16 4x16
        """,
    "kirin9030": _TSEL_CPU + """
        case10 float32 2x512 2x512
        case11 int32 2x128 2x128
        case12 int32 2x32 2x32
        case13 int32 2x160 2x160
        case14 uint32 2x128 2x128
        case15 uint32 2x32 2x32
        case16 uint32 2x160 2x160
        case17 int16 2x128 2x128
        case18 int16 2x32 2x32
        case19 int16 2x160 2x160
        case20 uint8 2x128 2x128
        case21 uint8 2x32 2x32
        case22 uint8 2x160 2x160
        case23 float32 10x64 10x54
        case24 float32 2x2048 2x2048
        case25 float32 2x8 2x8
        case26 float16 2x16 2x8
        """,
}
_TSEL = {**_TSEL_LISTED, "kirinDev0000": _TSEL_LISTED["kirin9030"]}
#: TSEL's system tests whose files hold the valid region only
TSEL_COMPACT = ("cpu", "a2a3", "a5")


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _ceil(n: int, m: int) -> int:
    return -(-n // m) * m


# ---- derived tiles: the mask's from the data's, per platform --------------------------------------------------

def tcmp_dst(platform: str, src: Tile, width: int) -> Tile:
    """TCMP's mask tile for a source tile: cpu's has the source's shape (its words uint8 or uint32), the NPUs'
    ``rows x ceil(cols / 8)`` bytes; its valid region is the packed source valid region."""
    cols = src.cols if platform == "cpu" else oracles.packed_cols(src.cols, 8)
    return Tile(src.rows, cols, src.valid_rows, oracles.packed_cols(src.valid_cols, width))


def tsel_mask(platform: str, data: Tile) -> Tile:
    """TSEL's mask tile in a system test: ``rows x ceil(cols / 8)`` bytes (a5, a2a3; cpu's kernel rounds the row
    up to 32 bytes), ``rows x ceil32(cols)`` on kirin."""
    if platform in ("kirin9030", "kirinDev0000"):
        cols = _ceil(data.cols, 32)
    elif platform == "cpu":
        cols = _ceil(oracles.packed_cols(data.cols, 8), 32)
    else:
        cols = oracles.packed_cols(data.cols, 8)
    return Tile(data.rows, cols, data.valid_rows, oracles.packed_cols(data.valid_cols, 8))


def _tcmp_derive(tiles: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    return (("dst", tiles["dst"]), ("src0", tiles["src0"]), ("src1", tiles["src0"]))


def _tsel_derive(tiles: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
    return (("dst", tiles["dst"]), ("mask", tiles["mask"]), ("src0", tiles["dst"]), ("src1", tiles["dst"]))


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    out = []
    table = _TCMP if op == "TCMP" else _TSEL
    for line in filter(None, (s.strip() for s in table[platform].splitlines())):
        name, dt, tile, valid, *rest = line.split()
        t = Tile(*_rxc(tile), *_rxc(valid))
        tiles: tuple[tuple[str, Tile], ...]
        if op == "TCMP":
            params: dict[str, Any] = {"cmp": oracles.MODES.index(rest[0])}
            for kv in rest[1:]:
                key, _, value = kv.partition("=")
                params[key] = value
            width = dtypes.get(params.get("mask", "uint8")).bits
            tiles = (("dst", tcmp_dst(platform, t, width)), ("src0", t), ("src1", t))
        else:
            params = {}
            tiles = (("dst", t), ("mask", tsel_mask(platform, t)), ("src0", t), ("src1", t))
        out.append((name, Case(op, platform, dt, tiles, tuple(params.items()))))
    return tuple(out)


def _profiles(op: str) -> dict[str, Profile]:
    if op == "TCMP":
        inputs: tuple[tuple[str, str], ...] = (("input1.bin", "src0"), ("input2.bin", "src1"))
    else:
        inputs = (("input0.bin", "src0"), ("input1.bin", "src1"), ("mask.bin", "mask"))
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        root = platforms.get(platform).test_root
        compact = op == "TSEL" and platform in TSEL_COMPACT
        out[platform] = Profile(
            op, platform, f"{op}Test", inputs, golden, output, NAME_ROLES[op], compact=compact, spelling=PLAIN,
            canonical=canonical(op, platform), param_tokens=(("cmp", "cmp"),) if op == "TCMP" else (),
            derive=_tcmp_derive if op == "TCMP" else _tsel_derive,
            dtype_param="mask" if op == "TCMP" and platform == "cpu" else None,
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}")
    return out


# ---- cases ----------------------------------------------------------------------------------------------------

def _tcmp_case(platform: str, dt: str, src: Tile, mode: int, mask: str | None) -> Case:
    width = dtypes.get(mask or "uint8").bits
    params: tuple[tuple[str, Any], ...] = (("cmp", mode), ("mask", mask))
    return Case("TCMP", platform, dt, (("dst", tcmp_dst(platform, src, width)), ("src0", src), ("src1", src)),
                params)


def _tsel_case(platform: str, dt: str, data: Tile, mask_cols: int) -> Case:
    m = Tile(data.rows, mask_cols, data.valid_rows, oracles.packed_cols(data.valid_cols, 8))
    return Case("TSEL", platform, dt, (("dst", data), ("mask", m), ("src0", data), ("src1", data)))


def _cpu_mask(source: Source, dt: str) -> str:
    return source.choice(MASKS) if dt in CPU_U8_MASK else "uint32"


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A case legal on ``platform``: one valid region for every data tile, whole 32-byte rows (0-2 blocks to
    spare), a random comparison; the mask tile of the platform's layout (cpu's TSEL mask rows a few bytes
    wider, as its kernel's are)."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    valid = gen.valid_region(source, dt, allow_zero=True, shape=constraints.get("shape"))
    r, c = whole_rows(*valid, dt)
    c += int(source.integers(0, 3)) * gen.block(dt)
    data = Tile(r, c, *valid)
    if op == "TCMP":
        mask = _cpu_mask(source, dt.name) if platform == "cpu" else None
        return _tcmp_case(platform, dt.name, data, int(source.integers(0, len(oracles.MODES) - 1)), mask)
    base = tsel_mask(platform, data).cols
    return _tsel_case(platform, dt.name, data, base + int(source.integers(0, 2)) * 32)


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` describe (``--dst`` the valid region, ``--shape`` the data tiles;
    EQ, and on cpu a uint8 mask where the type takes one)."""
    dt = dtypes.get(opts.get("dtype") or sup[platforms.canonical(platform)][0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    shape = shape or whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    data = Tile(*shape, *valid)
    if op == "TCMP":
        mask = ("uint8" if dt.name in CPU_U8_MASK else "uint32") if platform == "cpu" else None
        return _tcmp_case(platform, dt.name, data, 0, mask)
    return _tsel_case(platform, dt.name, data, tsel_mask(platform, data).cols)


def replay_flags(case: Case) -> str:
    d = case.tile("src0")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


# ---- inputs ---------------------------------------------------------------------------------------------------

EQUAL_SHARE = 0.3  # TCMP: the share of src1's elements that copy src0's (equal operands, every mode's edge)


def _nan_fill(case: Case) -> np.ndarray | None:
    if case.param("values") != "nan":
        return None
    dt = dtypes.get(case.dtype)
    return np.full(case.tile("src0").shape, dt.canonical_nan, dtype=dt.bits_dtype)


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """TCMP: both sources over their whole tiles, src1 a copy of src0 at :data:`EQUAL_SHARE` of the elements
    (a ``values=nan`` case: every element the canonical NaN, as its system test writes); TSEL: both sources and
    random mask bytes over the whole mask tile."""
    dt = dtypes.get(case.dtype)
    shape = case.tile("src0").shape
    a = values.draw(source, dt, shape, mix)
    b = values.draw(source, dt, shape, mix)
    if case.op == "TSEL":
        m = case.tile("mask").shape
        return {"src0": a, "src1": b, "mask": source.bits(8, m[0] * m[1]).reshape(m)}
    nan = _nan_fill(case)
    if nan is not None:
        return {"src0": nan, "src1": nan.copy()}
    same = source.random(a.size).reshape(shape) < EQUAL_SHARE
    return {"src0": a, "src1": np.where(same, a, b)}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' inputs at once, stacked on a leading axis (element-level special values only)."""
    dt = dtypes.get(case.dtype)
    r, c = case.tile("src0").shape
    both = values.draw(source, dt, (n, 2, r, c), mix)
    a, b = both[:, 0], both[:, 1]
    if case.op == "TSEL":
        mr, mc = case.tile("mask").shape
        return {"src0": a, "src1": b, "mask": source.bits(8, n * mr * mc).reshape(n, mr, mc)}
    same = source.random(n * r * c).reshape(n, r, c) < EQUAL_SHARE
    return {"src0": a, "src1": np.where(same, a, b)}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """TCMP: plain values for the NaNs of both sources' valid regions (a NaN leaves its bit, so its word, open),
    then the case again; a ``values=nan`` case keeps its NaNs (they are what it tests). TSEL leaves nothing open."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        dt = dtypes.get(case.dtype)
        if case.op != "TCMP" or not dt.is_float or case.param("values") == "nan" or not outcome.classes or \
                not bool(np.any(outcome.classes["dst"] == UNDEFINED)):
            out.append(None)
            continue
        rows, cols = case.tile("src0").valid
        new = {role: bits.copy() for role, bits in inputs.items()}
        changed = False
        for role in ("src0", "src1"):
            region = new[role][:rows, :cols]
            nan = (region & dt.abs_mask) > dt.exp_mask
            if nan.any():
                region[nan] = values.plain(source, dt, int(nan.sum()))
                changed = True
        out.append((new, None) if changed else None)
    return out


# ---- fuzzing: geometry classes, regions ------------------------------------------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element), else whether the valid region fills the data tile (``full``) or not
    (``part``), and on TCMP whether its last mask word of a row is partly padding (``,pad``)."""
    s = case.tile("src0")
    if 0 in s.valid:
        return "empty"
    base = "full" if s.valid == s.shape else "part"
    if case.op == "TCMP" and s.valid_cols % oracles.word_bits(case):
        base += ",pad"
    return base


def known_difference(sig: Signature) -> str | None:
    a, b = sig.oracles()
    if sig.kind == "value-vs-value" and {a, b} == {"a2a3", "a5"} and sig.dtype_class == "int32":
        return "a2a3's TCMP of int32 compares for equality whatever the mode (docs/isa/TCMP.md, A2A3)"
    return None


# ---- the instructions --------------------------------------------------------------------------------------

def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        sup = {**DTYPES[op], "kirin9030": DTYPES[op]["a5"], "kirinDev0000": DTYPES[op]["a5"]}
        if op == "TCMP":
            notes = ("docs/isa/TCMP.md: bit j%W of word (i, j/W) = src0 cmp src1, low bit first; a NaN operand, "
                     "padding bits and words outside the packed region undefined")
            oracle = {p: oracles.tcmp for p in PLATFORMS} | {"a2a3": oracles.tcmp_a2a3}
        else:
            notes = "docs/isa/TSEL.md: dst = bit (j%8 of mask byte (i, j/8)) ? src0 : src1, bits copied"
            oracle = {p: oracles.tsel for p in PLATFORMS}
        support = {p: PlatformSupport(sup[p], oracle[p], profiles[p],
                                      notes=notes + ("" if p in ("cpu", "a2a3", "a5") else "; a5's headers"))
                   for p in PLATFORMS}

        def rnd(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return explicit_case(_op, _sup, platform, opts)

        tcmp = op == "TCMP"
        out.append(Instruction(
            name=op, family="compare-select",
            summary=("compare: dst = packed predicate bits of src0 cmp src1 over the valid region" if tcmp else
                     "select: dst = mask bit ? src0 : src1 over the valid region"),
            inputs=("src0", "src1") if tcmp else ("mask", "src0", "src1"), outputs=("dst",), platforms=support,
            random_case=rnd, explicit_case=explicit, draw_inputs=draw_inputs,
            role_dtypes={} if tcmp else {"mask": "uint8"},
            role_dtype_params={"dst": ("mask", "uint8")} if tcmp else {},
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=geometry_class, regions=ew.regions,
            known_difference=known_difference,
            unmodelled={"spec": "pto-spec's packed predicate storage (one bit per element of a Row x Col tile, "
                                "Row*Col/8 bytes) has no ptofuzz file layout yet"}))
    return out

