"""The compare and select instructions (TCMP, TCMPS, TSEL, TSELS): capabilities, layouts and canonical cases per
platform.

Facts from pto-isa 3186c381 (``docs/isa/T{CMP,CMPS,SEL,SELS}.md``: the dtypes each implementation checks; the
system tests ``tests/{cpu/st,npu/<plat>/src/st}/testcase/t{cmp,cmps,sel,sels}/``: folder names, files and byte
layouts, as
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

TCMPS: as TCMP with ``input2.bin`` one element of the type (the ``scalar`` role, a 1x1 tile) and, on cpu too, a
golden of ``rows x ceil(cols / 8)`` bytes.

TSEL: ``input0.bin`` (selected by one bits), ``input1.bin`` (by zero bits), ``mask.bin`` and ``golden.bin``. cpu,
a2a3 and a5 write valid regions only (the mask ``valid rows x ceil(valid cols / 8)`` bytes); kirin9030 and
kirinDev0000 whole tiles, the mask ``rows x ceil32(cols)`` bytes, its bits in each row's first ``ceil(cols / 8)``.

TSELS: cpu's ``input.bin``, ``mask.bin`` (uint32 words, ``ceil(cols / 32)`` a row) and ``scalar.bin`` (one
element), whole tiles; the NPUs' ``input1.bin`` (the source), ``input2.bin`` (the scalar) and ``mask.bin``, whole
tiles named ``case_<dt>_<mask dt>_<dst>_<mask>_<src>_<valid>``: the mask's words (uint8, uint16 or uint32, the
parameter ``mask``) are read as each row's bytes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ptofuzz.core import dtypes, platforms
from ptofuzz.core.case import UNDEFINED, Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.layouts import Listed, Profile, whole_rows
from ptofuzz.generators import elementwise as gen
from ptofuzz.generators import values
from ptofuzz.generators.source import Source
from ptofuzz.instructions import elementwise as ew
from ptofuzz.instructions.registry import Instruction, PlatformSupport
from ptofuzz.oracles import cmpsel as oracles

if TYPE_CHECKING:
    from ptofuzz.core.signature import Signature

NAMES = ("TCMP", "TCMPS", "TSEL", "TSELS")  # registry.MODULES lists the same, in this order
PLAIN = {"float32": "float", "float16": "half", "bfloat16": "bf16"}  # others: numpy names (int16, uint64...)
PLATFORMS = ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
ROLES = {"TCMP": ("dst", "src0", "src1"), "TCMPS": ("dst", "src0", "scalar"), "TSEL": ("dst", "mask", "src0", "src1"),
         "TSELS": ("dst", "mask", "src0", "scalar")}
NAME_ROLES = {"TCMP": ("dst", "src0"), "TCMPS": ("dst", "src0"), "TSEL": ("dst", "mask"),
              "TSELS": ("dst", "mask", "src0")}
SCALAR = Tile(1, 1, 1, 1)
COMPARES = ("TCMP", "TCMPS")

# ---- dtype capabilities (docs/isa/<OP>.md "Implementation checks"; kirin runs a5's headers) ------------------
_NINE = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
_A5 = ("float32", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
#: TCMP on cpu: a uint32 mask takes the nine types, a uint8 mask int32, half and float (TCmp.h's TCmpCheck)
CPU_U8_MASK = oracles.CPU_U8_WORDS
DTYPES: dict[str, dict[str, tuple[str, ...]]] = {
    "TCMP": {"spec": oracles.SPEC_DTYPES, "cpu": _NINE, "a2a3": ("float32", "float16", "int32"), "a5": _A5},
    # TCMPS on cpu: TCmps.hpp is a template over the element type
    "TCMPS": {"spec": oracles.SPEC_DTYPES, "cpu": _NINE, "a2a3": ("float32", "float16", "int32", "int16", "uint16"),
              "a5": _A5},
    # TSEL on cpu: TSel.hpp is a template over the element type
    "TSEL": {"spec": oracles.SPEC_DTYPES, "cpu": _NINE,
             "a2a3": ("float32", "float16", "bfloat16", "int32", "int16", "uint32", "uint16"), "a5": _A5},
    # TSELS on cpu: TSelS.hpp is a template over the element and mask word types
    "TSELS": {"spec": oracles.SPEC_DTYPES, "cpu": _NINE,
              "a2a3": ("float32", "float16", "bfloat16", "int32", "int16", "uint32", "uint16"),
              "a5": ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")},
}
MASKS = ("uint8", "uint32")  # cpu TCMP's mask words
SELECT_MASKS = ("uint8", "uint16", "uint32")  # TSELS's mask words

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

_TCMPS_LISTED: dict[str, str] = {
    "cpu": """
        case_half_32x32_32x32_32x32_GE float16 32x32 32x32 GE
        case_half_32x64_32x64_32x64_LT float16 32x64 32x64 LT
        case_float_1x64_1x64_1x64_EQ float32 1x64 1x64 EQ
        case_float_8x64_8x64_8x64_GT float32 8x64 8x64 GT
        case_float_4x64_4x64_4x64_NE float32 4x64 4x64 NE
        case_float_128x128_128x128_128x128_LT float32 128x128 128x128 LT
        case_int8_32x32_32x32_32x32_EQ int8 32x32 32x32 EQ
        case_int8_16x32_16x32_16x32_GT int8 16x32 16x32 GT
        case_uint8_32x64_32x64_32x64_NE uint8 32x64 32x64 NE
        case_uint8_32x32_32x32_32x32_LT uint8 32x32 32x32 LT
        case_int16_8x32_8x32_8x32_GE int16 8x32 8x32 GE
        case_int16_64x64_64x64_64x64_LE int16 64x64 64x64 LE
        case_uint16_32x32_32x32_32x32_EQ uint16 32x32 32x32 EQ
        case_uint16_16x32_16x32_16x32_GT uint16 16x32 16x32 GT
        case_int32_64x64_64x64_64x64_EQ int32 64x64 64x64 EQ
        case_int32_16x32_16x32_16x32_LE int32 16x32 16x32 LE
        case_int32_77x96_77x96_77x96_GT int32 77x96 77x96 GT
        case_int32_32x32_32x32_32x32_GE int32 32x32 32x32 GE
        case_uint32_32x32_32x32_32x32_NE uint32 32x32 32x32 NE
        case_uint32_16x32_16x32_16x32_LE uint32 16x32 16x32 LE
        case_bf16_32x32_32x32_32x32_GE bfloat16 32x32 32x32 GE
        """,
    "a2a3": """
        case_ge_half_32x32_32x32_32x32 float16 32x32 32x32 GE
        case_eq_float_1x64_1x64_1x64 float32 1x64 1x64 EQ
        case_gt_float_8x64_8x64_8x64 float32 8x64 8x64 GT
        case_ne_float_4x64_4x64_4x64 float32 4x64 4x64 NE
        case_lt_float_128x128_64x64_128x128 float32 64x64 64x64 LT global=128x128
        case_eq_int32_64x64_32x32_64x64 int32 32x32 32x32 EQ global=64x64
        case_eq_int32_16x32_16x32_16x32 int32 16x32 16x32 EQ
        case_le_float_128x128_128x128_128x128 float32 128x128 128x128 LE
        case_eq_int32_77x81_32x32_77x81 int32 32x32 32x32 EQ global=77x81
        case_eq_int32_32x32_32x32_32x32 int32 32x32 32x32 EQ
        case_ne_float_32x32_32x32_32x32_nan float32 32x32 32x32 NE values=nan
        case_ne_float_32x32_32x32_32x32 float32 32x32 32x32 NE
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
    "kirin9030": """
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
        """,
}
_TCMPS = {**_TCMPS_LISTED, "kirinDev0000": _TCMPS_LISTED["kirin9030"],
          "a5": _TCMPS_LISTED["kirin9030"] + """
              case_bfloat16_32x32_16x32 bfloat16 32x32 16x32 EQ
              case_bfloat16_77x80_32x32 bfloat16 77x80 32x32 LE
              """ + "".join(f"case_{dt}_4x64_4x64_{m} {dt} 4x64 4x64 {m}\n" for dt in ("int64", "uint64")
                            for m in ("EQ", "NE", "LT", "GT", "GE", "LE"))}

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
# TSELS: cpu: name dtype tile valid (uint32 mask words); the NPUs: the name, case_<dt>_<mask>_<dst>_<mask>_<src>_<valid>
_TSELS_CPU = """
    case_float_64x64_64x64_64x64 float32 64x64 64x64
    case_int32_64x64_64x64_64x64 int32 64x64 64x64
    case_int16_64x64_64x64_64x64 int16 64x64 64x64
    case_half_16x256_16x256_16x256 float16 16x256 16x256
    case_uint16_64x64_64x64_64x64 uint16 64x64 64x64
    case_uint32_64x64_64x64_64x64 uint32 64x64 64x64
    case_bf16_16x256_16x256_16x256 bfloat16 16x256 16x256
    """
_TSELS_A2A3 = """
    uint16_uint8_2x16_2x32_2x16_2x16 uint16_uint16_2x16_2x16_2x16_2x16 uint16_uint32_2x16_2x8_2x16_2x16
    uint32_uint8_2x8_2x32_2x8_2x8 uint32_uint16_2x8_2x16_2x8_2x8 uint32_uint32_2x8_2x8_2x8_2x8
    half_uint8_2x16_2x32_2x16_2x16 half_uint16_2x16_2x16_2x16_2x16 half_uint32_2x16_2x8_2x16_2x16
    float_uint8_2x8_2x32_2x8_2x8 float_uint16_2x8_2x16_2x8_2x8 float_uint32_2x8_2x8_2x8_2x8
    uint16_uint8_2x32_2x64_2x128_2x31 float_uint8_2x32_2x64_2x128_2x31
    half_uint8_32x672_32x96_32x672_32x666
    """
_TSELS_A5 = """
    uint8_uint8_2x32_2x32_2x32_2x32 uint8_uint16_2x32_2x16_2x32_2x32 uint8_uint32_2x32_2x8_2x32_2x32
    uint8_uint8_2x32_2x64_2x128_2x31 uint8_uint8_32x672_32x96_32x672_32x666
    """
_TSELS = {"cpu": _TSELS_CPU,
          "a2a3": _TSELS_A2A3 + "float_uint8_32x672_32x96_32x672_32x666 float_uint8_1x8192_1x4096_1x8192_1x8192",
          "a5": _TSELS_A2A3 + _TSELS_A5 + """float_uint8_32x672_32x96_32x672_32x666
              float_uint8_1x8192_1x4096_1x8192_1x8192 int64_uint8_4x16_4x32_4x16_4x16
              uint64_uint8_4x16_4x32_4x16_4x16""",
          **{k: _TSELS_A2A3 + _TSELS_A5 + """float_uint8_16x672_16x96_16x672_16x666
                 float_uint8_1x8192_1x4096_1x8192_1x8192""" for k in ("kirin9030", "kirinDev0000")}}
#: TSEL's system tests whose files hold the valid region only
TSEL_COMPACT = ("cpu", "a2a3", "a5")


def _rxc(token: str) -> tuple[int, int]:
    r, c = token.split("x")
    return int(r), int(c)


def _ceil(n: int, m: int) -> int:
    return -(-n // m) * m


# ---- derived tiles: the mask's from the data's, per platform --------------------------------------------------

def tcmp_dst(platform: str, op: str, src: Tile, width: int) -> Tile:
    """A compare's mask tile for a source tile: cpu TCMP's has the source's shape (its words uint8 or uint32),
    every other ``rows x ceil(cols / 8)`` bytes; its valid region is the packed source valid region."""
    cols = src.cols if platform == "cpu" and op == "TCMP" else oracles.packed_cols(src.cols, 8)
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


def _mask_tile(rows: int, cols: int, data: Tile, width: int) -> Tile:
    return Tile(rows, cols, data.valid_rows, oracles.packed_cols(data.valid_cols, width))


def _derive(op: str) -> Callable[[dict[str, Tile]], tuple[tuple[str, Tile], ...]]:
    """Every role's tile from the named ones: the second source is the first's tile (TCMP) or the destination's
    (TSEL); a scalar is 1x1."""
    def derive(tiles: dict[str, Tile]) -> tuple[tuple[str, Tile], ...]:
        if op == "TSEL":
            return (("dst", tiles["dst"]), ("mask", tiles["mask"]), ("src0", tiles["dst"]), ("src1", tiles["dst"]))
        named = {**tiles, "src1": tiles["src0"]} if op == "TCMP" else {**tiles, "scalar": SCALAR}
        return tuple((r, named[r]) for r in ROLES[op])
    return derive


def canonical(op: str, platform: str) -> tuple[tuple[str, Case], ...]:
    """The cases of ``op``'s system test on ``platform``: (name after the suite's dot, case)."""
    out = []
    tiles: tuple[tuple[str, Tile], ...]
    table = {"TCMP": _TCMP, "TCMPS": _TCMPS, "TSEL": _TSEL, "TSELS": _TSELS}[op][platform]
    if op == "TSELS" and platform != "cpu":  # the names say it all: <dt>_<mask>_<dst>_<mask>_<src>_<valid>
        for name in table.split():
            dt, mdt, dst, mask, src, valid = name.split("_")
            v = _rxc(valid)
            width = dtypes.get(mdt).bits
            tiles = (("dst", Tile(*_rxc(dst), *v)), ("mask", _mask_tile(*_rxc(mask), Tile(1, 1, *v), width)),
                     ("src0", Tile(*_rxc(src), *v)), ("scalar", SCALAR))
            out.append((f"case_{name}", Case(op, platform, PLAIN_BACK.get(dt, dt), tiles, (("mask", mdt),))))
        return tuple(out)
    for line in filter(None, (s.strip() for s in table.splitlines())):
        name, dt, tile, valid, *rest = line.split()
        t = Tile(*_rxc(tile), *_rxc(valid))
        params: dict[str, Any] = {}
        if op in COMPARES:
            params["cmp"] = oracles.MODES.index(rest[0])
            for kv in rest[1:]:
                key, _, value = kv.partition("=")
                params[key] = value
            width = dtypes.get(params.get("mask", "uint8")).bits
            second = ("src1", t) if op == "TCMP" else ("scalar", SCALAR)
            tiles = (("dst", tcmp_dst(platform, op, t, width)), ("src0", t), second)
        elif op == "TSEL":
            tiles = (("dst", t), ("mask", tsel_mask(platform, t)), ("src0", t), ("src1", t))
        else:  # cpu TSELS: uint32 words, ceil(cols / 32) a row
            params["mask"] = "uint32"
            tiles = (("dst", t), ("mask", _mask_tile(t.rows, oracles.packed_cols(t.cols, 32), t, 32)), ("src0", t),
                     ("scalar", SCALAR))
        out.append((name, Case(op, platform, dt, tiles, tuple(params.items()))))
    return tuple(out)


PLAIN_BACK = {spelled: name for name, spelled in PLAIN.items()}


def spec_tile(valid_rows: int, valid_cols: int, dt: dtypes.DType) -> tuple[int, int]:
    """The smallest legal pto-spec descriptor of at least 8 columns holding a valid region (a predicate of
    fewer columns packs several rows into a byte, which ptofuzz's files do not lay out)."""
    cols = max(8, 1 << max(valid_cols - 1, 0).bit_length())
    capacity = 128
    while capacity < max(valid_rows, 1) * cols * dt.itemsize:
        capacity *= 2
    return max(capacity // (cols * dt.itemsize), 1), cols


def spec_case(op: str, dt: str, valid: tuple[int, int], mode: int, phys: tuple[int, int] | None = None) -> Case:
    """A spec case: the data tiles one legal descriptor, the predicate (TCMP's destination, a select's mask) its
    byte tile."""
    data = Tile(*(phys or spec_tile(*valid, dtypes.get(dt))), *valid)
    pred = oracles.spec_predicate(data)
    if op == "TCMP":
        return Case(op, "spec", dt, (("dst", pred), ("src0", data), ("src1", data)), (("cmp", mode),))
    if op == "TCMPS":
        return Case(op, "spec", dt, (("dst", pred), ("src0", data), ("scalar", SCALAR)), (("cmp", mode),))
    if op == "TSEL":
        return Case(op, "spec", dt, (("dst", data), ("mask", pred), ("src0", data), ("src1", data)))
    return Case(op, "spec", dt, (("dst", data), ("mask", pred), ("src0", data), ("scalar", SCALAR)),
                (("mask", "uint8"),))


def _spec_union(op: str, lists: Sequence[Sequence[tuple[str, Case]]]) -> tuple[tuple[str, Case], ...]:
    """spec's canonical list: every platform case's dtype (those pto-spec takes), valid region and comparison
    once, its tiles the smallest legal descriptor."""
    seen: dict[tuple[str, tuple[int, int], int], Case] = {}
    for cases in lists:
        for _, c in cases:
            if c.dtype in oracles.SPEC_DTYPES and 0 not in c.tile("src0").valid:
                key = (c.dtype, c.tile("src0").valid, int(c.param("cmp", 0)))
                seen.setdefault(key, spec_case(op, c.dtype, key[1], key[2]))
    out = []
    for c in seen.values():
        mode = f"_{oracles.MODES[int(c.param('cmp'))]}" if op in COMPARES else ""
        out.append((f"case_{c.dtype}_{c.tile('src0').token()}{mode}", c))
    return tuple(out)


def _files(op: str, platform: str) -> tuple[tuple[str, str], ...]:
    if op in COMPARES:
        return (("input1.bin", "src0"), ("input2.bin", "src1" if op == "TCMP" else "scalar"))
    if op == "TSEL":
        return (("input0.bin", "src0"), ("input1.bin", "src1"), ("mask.bin", "mask"))
    if platform == "cpu":
        return (("input.bin", "src0"), ("mask.bin", "mask"), ("scalar.bin", "scalar"))
    return (("input1.bin", "src0"), ("input2.bin", "scalar"), ("mask.bin", "mask"))


def _profiles(op: str) -> dict[str, Profile]:
    golden = (("golden.bin", "dst"),)
    output = (("output.bin", "dst"),)
    out: dict[str, Profile] = {}
    for platform in PLATFORMS:
        root = platforms.get(platform).test_root
        compact = op == "TSEL" and platform in TSEL_COMPACT
        mask_named = (op == "TCMP" and platform == "cpu") or op == "TSELS"
        out[platform] = Profile(
            op, platform, f"{op}Test", _files(op, platform), golden, output, NAME_ROLES[op], compact=compact,
            spelling=PLAIN, canonical=Listed(canonical, op, platform),
            param_tokens=(("cmp", "cmp"),) if op in COMPARES else (), derive=_derive(op),
            dtype_param="mask" if mask_named else None,
            note=f"{root}/testcase/{op.lower()}: {'valid-region files' if compact else 'each file its whole tile'}")
    out["spec"] = Profile(
        op, "spec", f"{op}Spec", _files(op, "a5"), golden, output, NAME_ROLES[op], compact=False, spelling={},
        canonical=Listed(_spec_union, op, [p.canonical for p in out.values()]),
        param_tokens=(("cmp", "cmp"),) if op in COMPARES else (), derive=_derive(op),
        dtype_param="mask" if op == "TSELS" else None,
        note="ptofuzz full-tile layout; the data tiles one legal pto-spec descriptor, the predicate its byte tile")
    return {"spec": out.pop("spec"), **out}


# ---- cases ----------------------------------------------------------------------------------------------------

def _compare_case(op: str, platform: str, dt: str, src: Tile, mode: int, mask: str | None) -> Case:
    width = dtypes.get(mask or "uint8").bits
    second = ("src1", src) if op == "TCMP" else ("scalar", SCALAR)
    return Case(op, platform, dt, (("dst", tcmp_dst(platform, op, src, width)), ("src0", src), second),
                (("cmp", mode), ("mask", mask)))


def _select_case(op: str, platform: str, dt: str, data: Tile, mask_cols: int, mask: str) -> Case:
    m = _mask_tile(data.rows, mask_cols, data, dtypes.get(mask).bits)
    if op == "TSEL":
        return Case(op, platform, dt, (("dst", data), ("mask", m), ("src0", data), ("src1", data)))
    return Case(op, platform, dt, (("dst", data), ("mask", m), ("src0", data), ("scalar", SCALAR)),
                (("mask", mask),))


def _cpu_mask(source: Source, dt: str) -> str:
    return source.choice(MASKS) if dt in CPU_U8_MASK else "uint32"


def random_case(source: Source, op: str, platform: str, sup: tuple[str, ...], constraints: Mapping[str, Any]
                ) -> Case:
    """A case legal on ``platform``: one valid region for every data tile, whole 32-byte rows (0-3 blocks to
    spare), a random comparison; the mask tile of the platform's layout (a few words wider now and then: a
    mask's row stride is its own)."""
    dt = dtypes.get(constraints.get("dtype") or source.choice(sup))
    spec = platforms.get(platform).kind == platforms.SPEC
    valid = gen.valid_region(source, dt, allow_zero=not spec, shape=constraints.get("shape"))
    if spec:
        return spec_case(op, dt.name, valid, int(source.integers(0, len(oracles.MODES) - 1)))
    r, c = whole_rows(*valid, dt)
    c += int(source.integers(0, 3)) * gen.block(dt)
    data = Tile(r, c, *valid)
    if op == "TCMPS" and platform == "cpu":  # a tile of 32 * 2**k columns (the strides cpusim compiles)
        c = max(32, 1 << max(valid[1] - 1, 0).bit_length()) << int(source.integers(0, 1))
        data = Tile(r, c, *valid)
    if op in COMPARES:
        mask = _cpu_mask(source, dt.name) if platform == "cpu" and op == "TCMP" else None
        return _compare_case(op, platform, dt.name, data, int(source.integers(0, len(oracles.MODES) - 1)), mask)
    if op == "TSEL":
        base = tsel_mask(platform, data).cols
        return _select_case(op, platform, dt.name, data, base + int(source.integers(0, 1)) * 32, "uint8")
    word = source.choice(SELECT_MASKS)
    bits = dtypes.get(word).bits
    per = 32 // (bits // 8)  # words of a 32-byte block
    base = _ceil(oracles.packed_cols(c, bits), per)
    return _select_case(op, platform, dt.name, data, base + int(source.integers(0, 1)) * per, word)


def illegal_spec_case(source: Source, op: str, legal: Callable[[Source, str, Mapping[str, Any]], Case],
                      constraints: Mapping[str, Any]) -> Case:
    """A spec case pto-spec rejects (Fault_TileLegality): a legal one from ``legal`` with its data tiles' valid
    region emptied (no rows or no columns; the predicate shaped from it), or, with a second data tile (TCMP and
    TSEL's src1, TSELS's dst), that tile's valid region other than src0's. A bundle spells both."""
    case = legal(source, "spec", constraints)
    data = case.tile("src0")
    second = {"TCMP": "src1", "TSEL": "src1", "TSELS": "dst"}.get(op)
    vr, vc = data.valid
    other = ((vr - 1, vc) if vr > 1 else (vr, vc - 1) if vc > 1 else (vr + 1, vc) if data.rows > 1 else
             (vr, vc + 1) if data.cols > 1 else None)
    if second is not None and other is not None and source.choice(("valid", "empty")) == "valid":
        tiles = tuple((r, Tile(t.rows, t.cols, *other) if r == second else t) for r, t in case.tiles)
        return case.replace(tiles=tiles)
    empty = Tile(data.rows, data.cols, *((0, vc) if float(source.random(1)[0]) < 0.5 else (vr, 0)))
    pred = "dst" if op in COMPARES else "mask"
    tiles = tuple((r, oracles.spec_predicate(empty) if r == pred else empty if r in ("src0", "src1", "dst") else t)
                  for r, t in case.tiles)
    return case.replace(tiles=tiles)


def explicit_case(op: str, sup: Mapping[str, tuple[str, ...]], platform: str, opts: Mapping[str, Any]) -> Case:
    """The one case ``--dtype --shape --dst`` describe (``--dst`` the valid region, ``--shape`` the data tiles;
    EQ, on cpu TCMP a uint8 mask where the type takes one, TSELS uint32 mask words)."""
    dt = dtypes.get(opts.get("dtype") or sup[platforms.canonical(platform)][0])
    shape: tuple[int, int] | None = opts.get("shape")
    valid: tuple[int, int] = opts.get("dst") or shape or (16, 16)
    if platforms.get(platform).kind == platforms.SPEC:
        return spec_case(op, dt.name, valid, 0, shape)
    shape = shape or whole_rows(*valid, dt)
    if valid[0] > shape[0] or valid[1] > shape[1]:
        raise UsageError(f"--dst {valid[0]}x{valid[1]} is larger than the tile {shape[0]}x{shape[1]}; pass a bigger "
                         "--shape or a smaller --dst")
    data = Tile(*shape, *valid)
    if op in COMPARES:
        mask = ("uint8" if dt.name in CPU_U8_MASK else "uint32") if platform == "cpu" and op == "TCMP" else None
        return _compare_case(op, platform, dt.name, data, 0, mask)
    if op == "TSEL":
        return _select_case(op, platform, dt.name, data, tsel_mask(platform, data).cols, "uint8")
    return _select_case(op, platform, dt.name, data, _ceil(oracles.packed_cols(shape[1], 32), 8), "uint32")


def replay_flags(case: Case) -> str:
    d = case.tile("src0")
    return f" --shape {d.rows}x{d.cols} --dst {d.valid_rows}x{d.valid_cols}"


# ---- inputs ---------------------------------------------------------------------------------------------------

EQUAL_SHARE = 0.3  # compares: the share of elements equal to their other operand (every mode's edge)


def _mask_words(source: Source, case: Case, lead: tuple[int, ...] = ()) -> np.ndarray:
    m = case.tile("mask").shape
    dt = dtypes.get(case.param("mask") or "uint8")
    n = int(np.prod(lead, dtype=np.int64)) * m[0] * m[1]
    return source.bits(dt.bits, n).reshape(*lead, *m)


def _scalar(source: Source, case: Case, a: np.ndarray, mix: values.ValueMix, lead: tuple[int, ...] = ()
            ) -> np.ndarray:
    """A scalar: one of the source's valid elements half the time (equal operands), else drawn."""
    dt = dtypes.get(case.dtype)
    s = values.draw(source, dt, (*lead, 1, 1), mix)
    rows, cols = case.tile("src0").valid
    if rows and cols and float(source.random(1)[0]) < 0.5:
        i, j = int(source.integers(0, rows - 1)), int(source.integers(0, cols - 1))
        s[..., 0, 0] = a[..., i, j]
    return s


def draw_inputs(source: Source, case: Case, mix: values.ValueMix) -> dict[str, np.ndarray]:
    """The sources over their whole tiles: TCMP's src1 a copy of src0 at :data:`EQUAL_SHARE` of the elements, a
    scalar one of the source's elements half the time (a ``values=nan`` case: every element the canonical NaN,
    as its system test writes); a select's mask random words over its whole tile."""
    dt = dtypes.get(case.dtype)
    shape = case.tile("src0").shape
    a = values.draw(source, dt, shape, mix)
    nan = None
    if case.param("values") == "nan":
        nan = np.full(shape, dt.canonical_nan, dtype=dt.bits_dtype)
    if case.op == "TCMP":
        if nan is not None:
            return {"src0": nan, "src1": nan.copy()}
        b = values.draw(source, dt, shape, mix)
        same = source.random(a.size).reshape(shape) < EQUAL_SHARE
        return {"src0": a, "src1": np.where(same, a, b)}
    if case.op == "TCMPS":
        if nan is not None:
            return {"src0": nan, "scalar": nan[:1, :1].copy()}
        return {"src0": a, "scalar": _scalar(source, case, a, mix)}
    mask = _mask_words(source, case)
    if case.op == "TSEL":
        return {"src0": a, "src1": values.draw(source, dt, shape, mix), "mask": mask}
    return {"src0": a, "scalar": values.draw(source, dt, (1, 1), mix), "mask": mask}


def draw_batch(source: Source, case: Case, mix: values.ValueMix, n: int) -> dict[str, np.ndarray]:
    """``n`` cases' inputs at once, stacked on a leading axis (element-level special values only)."""
    dt = dtypes.get(case.dtype)
    r, c = case.tile("src0").shape
    a = values.draw(source, dt, (n, r, c), mix)
    if case.op == "TCMP":
        b = values.draw(source, dt, (n, r, c), mix)
        same = source.random(n * r * c).reshape(n, r, c) < EQUAL_SHARE
        return {"src0": a, "src1": np.where(same, a, b)}
    if case.op == "TCMPS":
        return {"src0": a, "scalar": _scalar(source, case, a, mix, (n,))}
    mask = _mask_words(source, case, (n,))
    if case.op == "TSEL":
        return {"src0": a, "src1": values.draw(source, dt, (n, r, c), mix), "mask": mask}
    return {"src0": a, "scalar": values.draw(source, dt, (n, 1, 1), mix), "mask": mask}


def redraw(items: list[tuple[Source, Case, dict[str, np.ndarray], Any]]) -> list[Any]:
    """Compares: plain values for the NaNs of the sources' valid regions and the scalar (a NaN leaves its bit, so
    its word, open), then the case again; a ``values=nan`` case keeps its NaNs (they are what it tests). The
    selects leave nothing open."""
    out: list[Any] = []
    for source, case, inputs, outcome in items:
        dt = dtypes.get(case.dtype)
        if case.op not in COMPARES or not dt.is_float or case.param("values") == "nan" or not outcome.classes or \
                not bool(np.any(outcome.classes["dst"] == UNDEFINED)):
            out.append(None)
            continue
        rows, cols = case.tile("src0").valid
        new = {role: bits.copy() for role, bits in inputs.items()}
        changed = False
        for role in ("src0", "src1" if case.op == "TCMP" else "scalar"):
            region = new[role][:rows, :cols]
            nan = (region & dt.abs_mask) > dt.exp_mask
            if nan.any():
                region[nan] = values.plain(source, dt, int(nan.sum()))
                changed = True
        out.append((new, None) if changed else None)
    return out


# ---- fuzzing: geometry classes, regions ------------------------------------------------------------------------

def geometry_class(case: Case) -> str:
    """``empty`` (no valid element); TCMPS: whether each row's packed bytes fill the source tile's row
    (``packed=tile``: the valid columns rounded up to whole bytes are the tile's columns, or one row) or not
    (``packed<tile``), what pto-isa's simulator packs by (``cpusim-tcmps-row-stride``); the others: whether the
    valid region fills the data tile (``full``) or not (``part``), and whether a row's last mask word is partly
    padding (``,pad``: the valid columns no multiple of the word's bits), where the simulator's TSEL reads its
    mask as one stream (``cpusim-tsel-mask-stream``)."""
    s = case.tile("src0")
    if 0 in s.valid:
        return "empty"
    if case.op == "TCMPS":
        fills = s.valid_rows == 1 or oracles.packed_cols(s.valid_cols, 8) * 8 == s.cols
        return "packed=tile" if fills else "packed<tile"
    base = "full" if s.valid == s.shape else "part"
    width = 8 if case.op == "TSEL" else oracles.word_bits(case)
    if s.valid_cols % width:
        base += ",pad"
    return base


REGIONS = ("valid", "outside")


def regions(case: Case, role: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Inside the destination's valid region or outside it. The first region is not named ``op``: a mismatch
    inside keeps the geometry in its signature (where the simulator's packing goes wrong depends on it)."""
    return REGIONS, ew.regions(case, role)[1]


def fault_class(case: Case) -> str:
    """For a fault against a value: which pto-spec rule the case breaks, or ``spec-legal``."""
    fault = oracles.spec_legality(case.on("spec"))
    if fault is None or fault.fault is None:
        return "spec-legal"
    why = fault.fault.reason
    return "shape" if "physical shapes" in why else "valid" if "valid shapes" in why else \
        "empty" if "empty" in why else "mask-words" if "numeric storage" in why else \
        "predicate" if "predicate tile must" in why else "nodesc"


def known_difference(sig: Signature) -> str | None:
    """The documented difference: a2a3's int32 compares are EQ (its only integer compare types besides int32,
    TCMPS's int16 and uint16, compare as everywhere else, so an integer difference with a2a3 is int32's)."""
    a, b = sig.oracles()
    if sig.kind == "fault-vs-value" and "spec" in (a, b):
        if sig.dtype_class == "int64":
            return f"pto-spec's {sig.op} takes no 64-bit integers (its contract lists the types); a5 does"
        if sig.geometry != "spec-legal":
            return ("pto-spec faults where the data tiles' shapes or valid shapes differ, on an empty valid region, "
                    "on tiles that are no legal descriptor and on a mask or destination that is no predicate of "
                    "the data's shape (cpu's uint32 or TSELS's wider mask words are numeric storage); pto-isa "
                    "reads each tile at its own stride")
    if "a2a3" in (a, b) and sig.dtype_class == "int" and sig.op in COMPARES and sig.kind == "int-value":
        return (f"a2a3's {sig.op} of int32 compares for equality whatever the mode (docs/isa/{sig.op}.md, "
                "Implementation checks (A2A3))")
    return None


# ---- the instructions --------------------------------------------------------------------------------------

SUMMARY = {"TCMP": "compare: dst = packed predicate bits of src0 cmp src1 over the valid region",
           "TCMPS": "compare with a scalar: dst = packed predicate bits of src0 cmp scalar over the valid region",
           "TSEL": "select: dst = mask bit ? src0 : src1 over the valid region",
           "TSELS": "select with a scalar: dst = mask bit ? src0 : scalar over the valid region"}
NOTES = {"TCMP": "docs/isa/TCMP.md: bit j%W of word (i, j/W) = src0 cmp src1, low bit first; a NaN operand, "
                 "padding bits and words outside the packed region undefined",
         "TCMPS": "docs/isa/TCMPS.md: bit j%8 of byte (i, j/8) = src0 cmp scalar, low bit first; a NaN operand, "
                  "padding bits and bytes outside the packed region undefined",
         "TSEL": "docs/isa/TSEL.md: dst = bit j of mask row i ? src0 : src1, bits copied",
         "TSELS": "docs/isa/TSELS.md: dst = bit j of mask row i ? src0 : scalar, bits copied"}


#: the operations with a bundle form the executor runs (:data:`ptofuzz.bundle.executor.CLOSED`)
BUNDLED = ("TCMP", "TCMPS", "TSEL", "TSELS")


def instructions(names: Collection[str] = NAMES) -> list[Instruction]:
    """The instructions named (all by default), in :data:`NAMES` order."""
    out = []
    for op in (o for o in NAMES if o in names):
        profiles = _profiles(op)
        sup = {**DTYPES[op], "kirin9030": DTYPES[op]["a5"], "kirinDev0000": DTYPES[op]["a5"]}
        compare = op in COMPARES
        oracle: dict[str, Callable[[Case, Mapping[str, np.ndarray]], Any]]
        if compare:
            oracle = {p: oracles.tcmp for p in PLATFORMS} | {"a2a3": oracles.tcmp_a2a3, "cpu": oracles.tcmp_cpu}
        else:
            oracle = {p: oracles.tsel for p in PLATFORMS}
        support = {"spec": PlatformSupport(sup["spec"], oracles.spec_tcmp if compare else oracles.spec_tsel,
                                           profiles["spec"], bad_dtype="fault", has_system_test=False,
                                           notes=("pto-spec: NaN compares false but NE, +0 == -0" if compare
                                                  else "pto-spec: the chosen element's bits") +
                                           "; data tiles of one shape, a predicate of theirs, else "
                                           "Fault_TileLegality"),
                   **{p: PlatformSupport(sup[p], oracle[p], profiles[p],
                                         notes=NOTES[op] + ("" if p in ("cpu", "a2a3", "a5") else "; a5's headers"))
                      for p in PLATFORMS}}

        def rnd(source: Source, platform: str, constraints: Mapping[str, Any], *, _op: str = op,
                _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return random_case(source, _op, platform, _sup[platforms.canonical(platform)], constraints)

        def explicit(platform: str, opts: Mapping[str, Any], *, _op: str = op,
                     _sup: dict[str, tuple[str, ...]] = sup) -> Case:
            return explicit_case(_op, _sup, platform, opts)

        def illegal(source: Source, constraints: Mapping[str, Any], *, _op: str = op,
                    _rnd: Callable[[Source, str, Mapping[str, Any]], Case] = rnd) -> Case:
            return illegal_spec_case(source, _op, _rnd, constraints)

        roles = ROLES[op]
        out.append(Instruction(
            name=op, family="compare-select", summary=SUMMARY[op],
            inputs=tuple(r for r in roles if r != "dst"), outputs=("dst",), platforms=support,
            random_case=rnd, explicit_case=explicit, draw_inputs=draw_inputs,
            role_dtypes={"mask": "uint8"} if op == "TSEL" else {},
            role_dtype_params={"dst": ("mask", "uint8")} if compare else
            {"mask": ("mask", "uint8")} if op == "TSELS" else {},
            options=("dtype", "shape", "dst"), random_options=("dtype", "shape"), replay_flags=replay_flags,
            redraw=redraw, draw_batch=draw_batch, geometry_class=geometry_class, regions=regions,
            fault_class=fault_class, known_difference=known_difference, bundle=op in BUNDLED,
            illegal_case=illegal))
    return out
