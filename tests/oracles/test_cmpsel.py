"""TCMP and TSEL: hand-worked examples from the pages' statements, the mask layout both ways, what is left open,
and an element-by-element recomputation."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.generators.source import seeded
from ptofuzz.generators.values import ValueMix
from ptofuzz.instructions import registry
from ptofuzz.oracles import cmpsel

F32_NAN = 0x7FC00001  # a quiet NaN with a payload
NEG_ZERO = 0x80000000


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).view(np.uint32)


def tcmp_case(platform: str, dtype: str, rows: int, cols: int, mode: str, mask: str | None = "uint8",
              valid: tuple[int, int] | None = None) -> Case:
    vr, vc = valid or (rows, cols)
    width = 32 if mask == "uint32" else 8
    dst_cols = cols if platform == "cpu" else -(-cols // 8)
    src = Tile(rows, cols, vr, vc)
    return Case("TCMP", platform, dtype, (("dst", Tile(rows, dst_cols, vr, -(-vc // width))), ("src0", src),
                                          ("src1", src)),
                (("cmp", cmpsel.MODES.index(mode)), ("mask", mask if platform == "cpu" else None)))


OPERATOR = {"EQ": operator.eq, "NE": operator.ne, "LT": operator.lt, "GT": operator.gt, "LE": operator.le,
            "GE": operator.ge}


def value(bits: np.generic, dt: dtypes.DType) -> float:
    """One element's value, through numpy's own types (ml_dtypes for bfloat16): Python compares it."""
    return float(dtypes.view_values(np.array([bits]), dt)[0]) if dt.is_float else \
        int(np.array([bits]).view(f"<{'i' if dt.kind == 'int' else 'u'}{dt.itemsize}")[0])


def run(case: Case, **inputs: np.ndarray):
    return registry.get(case.op).evaluate(case, inputs)


def test_tcmp_packs_row_by_row_lowest_column_in_the_lowest_bit():
    # 1x16 float32 row: src0 = 0..15, src1 = 7 everywhere; LT is true for columns 0..6 -> byte 0 = 0b01111111
    case = tcmp_case("a5", "float32", 1, 16, "LT")
    out = run(case, src0=f32(*range(16)).reshape(1, 16), src1=f32(*[7] * 16).reshape(1, 16))
    assert out.outputs["dst"].tolist() == [[0x7F, 0x00]]
    assert out.classes["dst"].tolist() == [[EXACT, EXACT]]
    out = run(case.replace(params=(("cmp", cmpsel.MODES.index("GE")),)), src0=f32(*range(16)).reshape(1, 16),
              src1=f32(*[7] * 16).reshape(1, 16))
    assert out.outputs["dst"].tolist() == [[0x80, 0xFF]]


@pytest.mark.parametrize("mode,expected", [("EQ", 0b0001), ("NE", 0b1110), ("LT", 0b0010), ("GT", 0b1100),
                                           ("LE", 0b0011), ("GE", 0b1101)])
def test_every_mode_on_one_row(mode, expected):
    # columns: 2 vs 2, 1 vs 3, 5 vs 4, 9 vs -9 (then 4 padding columns of the byte are outside the region)
    case = tcmp_case("a2a3", "float32", 1, 8, mode, valid=(1, 4))
    a = f32(2, 1, 5, 9, 0, 0, 0, 0).reshape(1, 8)
    b = f32(2, 3, 4, -9, 0, 0, 0, 0).reshape(1, 8)
    out = run(case, src0=a, src1=b)
    assert int(out.outputs["dst"][0, 0]) & 0x0F == expected
    assert out.classes["dst"][0, 0] == UNDEFINED  # bits 4..7 of the byte are padding: the pages leave them open


def test_tcmp_cpu_uint32_words_and_the_words_past_the_region():
    # 2x64 int16 on cpu with uint32 words: each row's 64 bits are words 0 and 1; words 2.. of the tile are open
    case = tcmp_case("cpu", "int16", 2, 64, "EQ", mask="uint32")
    a = np.zeros((2, 64), dtype=np.uint16)
    b = a.copy()
    b[0, 1] = 1  # row 0: every column equal but column 1
    b[1, 32:] = 5  # row 1: columns 32.. differ
    out = run(case, src0=a, src1=b)
    dst = out.outputs["dst"]
    assert dst.dtype == np.uint32 and dst.shape == (2, 64)
    assert dst[0, :2].tolist() == [0xFFFFFFFD, 0xFFFFFFFF]
    assert dst[1, :2].tolist() == [0xFFFFFFFF, 0x00000000]
    assert (out.classes["dst"][:, :2] == EXACT).all() and (out.classes["dst"][:, 2:] == UNDEFINED).all()


def test_nan_leaves_its_bit_open_and_signed_zeros_are_equal():
    case = tcmp_case("a5", "float32", 1, 16, "EQ")
    a = f32(*range(16)).reshape(1, 16)
    b = a.copy()
    a[0, 0] = 0
    b[0, 0] = NEG_ZERO  # +0 == -0
    out = run(case, src0=a, src1=b)
    assert out.outputs["dst"].tolist() == [[0xFF, 0xFF]] and (out.classes["dst"] == EXACT).all()
    b[0, 9] = F32_NAN  # byte 1 holds column 9: open; byte 0 is not
    out = run(case, src0=a, src1=b)
    assert out.classes["dst"].tolist() == [[EXACT, UNDEFINED]]
    assert out.outputs["dst"][0, 0] == 0xFF


def test_integers_compare_by_their_signedness():
    a = np.array([[0xFF, 0x01] + [0] * 6], dtype=np.uint8)  # int8: -1, 1; uint8: 255, 1
    b = np.array([[0x01, 0xFF] + [0] * 6], dtype=np.uint8)
    signed = run(tcmp_case("a5", "int8", 1, 8, "LT"), src0=a, src1=b)
    unsigned = run(tcmp_case("a5", "uint8", 1, 8, "LT"), src0=a, src1=b)
    assert int(signed.outputs["dst"][0, 0]) == 0b01  # -1 < 1, and 1 < -1 is false
    assert int(unsigned.outputs["dst"][0, 0]) == 0b10  # 255 < 1 is false, 1 < 255


def test_a2a3_int32_compares_for_equality_whatever_the_mode():
    a = np.array([[1, 2, 3, 4, 5, 6, 7, 8]], dtype=np.uint32)
    b = np.array([[1, 0, 3, 9, 5, 0, 7, 0]], dtype=np.uint32)
    gt = run(tcmp_case("a2a3", "int32", 1, 8, "GT"), src0=a, src1=b)
    assert int(gt.outputs["dst"][0, 0]) == 0b01010101  # the EQ bits
    a5 = run(tcmp_case("a5", "int32", 1, 8, "GT"), src0=a, src1=b)
    assert int(a5.outputs["dst"][0, 0]) == 0b10100010  # a5 follows the mode: 2>0, 6>0, 8>0
    f = run(tcmp_case("a2a3", "float32", 1, 8, "GT"), src0=f32(1, 2, 3, 4, 5, 6, 7, 8).reshape(1, 8),
            src1=f32(1, 0, 3, 9, 5, 0, 7, 0).reshape(1, 8))
    assert int(f.outputs["dst"][0, 0]) == 0b10100010  # the rule is int32's only


def tsel_case(platform: str, dtype: str, rows: int, cols: int, valid: tuple[int, int] | None = None,
              mask_cols: int | None = None) -> Case:
    vr, vc = valid or (rows, cols)
    t = Tile(rows, cols, vr, vc)
    m = Tile(rows, mask_cols or -(-cols // 8), vr, -(-vc // 8))
    return Case("TSEL", platform, dtype, (("dst", t), ("mask", m), ("src0", t), ("src1", t)))


def test_tsel_takes_src0_on_one_bits_and_copies_nan_payloads():
    case = tsel_case("a5", "float32", 2, 8, valid=(2, 6))
    a = np.full((2, 8), F32_NAN, dtype=np.uint32)
    b = np.arange(16, dtype=np.uint32).reshape(2, 8)
    mask = np.array([[0b00000101], [0b11111110]], dtype=np.uint8)
    out = run(case, src0=a, src1=b, mask=mask)
    assert out.outputs["dst"][0, :6].tolist() == [F32_NAN, 1, F32_NAN, 3, 4, 5]
    assert out.outputs["dst"][1, :6].tolist() == [8, F32_NAN, F32_NAN, F32_NAN, F32_NAN, F32_NAN]
    assert (out.classes["dst"][:, :6] == EXACT).all() and (out.classes["dst"][:, 6:] == UNDEFINED).all()


def test_tsel_reads_each_data_row_from_its_own_mask_row():
    # 2x12 valid: row 1's bits start at mask byte (1, 0), not after row 0's twelve bits
    case = tsel_case("a2a3", "int16", 2, 16, valid=(2, 12), mask_cols=2)
    mask = np.array([[0x00, 0x00], [0xFF, 0x0F]], dtype=np.uint8)
    out = run(case, src0=np.ones((2, 16), np.uint16), src1=np.zeros((2, 16), np.uint16), mask=mask)
    assert out.outputs["dst"][0, :12].tolist() == [0] * 12
    assert out.outputs["dst"][1, :12].tolist() == [1] * 12


def test_outside_the_pages_contract_is_unsupported():
    case = tsel_case("a5", "float32", 2, 16, mask_cols=1)  # 16 columns need 2 mask bytes a row
    out = run(case, src0=np.zeros((2, 16), np.uint32), src1=np.zeros((2, 16), np.uint32),
              mask=np.zeros((2, 1), np.uint8))
    assert out.kind.value == "unsupported"
    case = tcmp_case("a5", "float32", 2, 16, "EQ")
    bad = case.replace(tiles=(case.tiles[0], case.tiles[1], ("src1", Tile(2, 16, 2, 8))))
    assert run(bad, src0=np.zeros((2, 16), np.uint32), src1=np.zeros((2, 16), np.uint32)).kind.value == \
        "unsupported"


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5", "kirin9030"])
@pytest.mark.parametrize("op", ["TCMP", "TCMPS", "TSEL", "TSELS"])
def test_random_cases_against_an_element_by_element_recomputation(op, platform):
    inst = registry.get(op)
    src = seeded(11, op, platform)
    for _ in range(12):
        case = inst.random_case(src, platform, {})
        inputs = inst.draw_inputs(src, case, ValueMix())
        out = inst.evaluate(case, inputs)
        if op in ("TCMP", "TCMPS"):
            rows, cols = case.tile("src0").valid
            width = cmpsel.word_bits(case)
            dt = dtypes.get(case.dtype)
            mode = "EQ" if platform == "a2a3" and case.dtype == "int32" else cmpsel.mode_name(case)
            second = inputs["src1"] if op == "TCMP" else np.broadcast_to(inputs["scalar"], inputs["src0"].shape)
            for i in range(rows):
                for w in range(-(-cols // width)):
                    word, open_ = 0, False
                    for k in range(width):
                        j = w * width + k
                        if j >= cols:
                            open_ = True
                            continue
                        x, y = value(inputs["src0"][i, j], dt), value(second[i, j], dt)
                        if math.isnan(x) or math.isnan(y):
                            open_ = True
                            continue
                        word |= int(OPERATOR[mode](x, y)) << k
                    assert out.classes["dst"][i, w] == (UNDEFINED if open_ else EXACT)
                    if not open_:
                        assert int(out.outputs["dst"][i, w]) == word
        else:
            rows, cols = case.tile("dst").valid
            width = inputs["mask"].dtype.itemsize * 8
            for i in range(rows):
                for j in range(cols):
                    bit = (int(inputs["mask"][i, j // width]) >> (j % width)) & 1
                    want = inputs["src0"][i, j] if bit else \
                        inputs["src1"][i, j] if op == "TSEL" else inputs["scalar"][0, 0]
                    assert out.outputs["dst"][i, j] == want and out.classes["dst"][i, j] == EXACT


def test_tcmps_compares_every_element_with_the_scalar():
    case = Case("TCMPS", "a5", "int16", (("dst", Tile(2, 2, 2, 2)), ("src0", Tile(2, 16, 2, 16)),
                                          ("scalar", Tile(1, 1, 1, 1))), (("cmp", cmpsel.MODES.index("GT")),))
    a = np.arange(32, dtype=np.uint16).reshape(2, 16) - np.uint16(8)  # -8 .. 23 as int16 bits
    out = run(case, src0=a, scalar=np.array([[3]], dtype=np.uint16))
    # row 0: -8..7 > 3 -> columns 12..15; row 1: 8..23 > 3 -> all
    assert out.outputs["dst"].tolist() == [[0x00, 0xF0], [0xFF, 0xFF]]
    assert (out.classes["dst"] == EXACT).all()
    a2a3 = run(case.on("a2a3").replace(dtype="int32"), src0=np.full((2, 16), 3, np.uint32),
               scalar=np.array([[3]], dtype=np.uint32))
    assert a2a3.outputs["dst"].tolist() == [[0xFF, 0xFF], [0xFF, 0xFF]]  # int32 on a2a3: EQ, 3 == 3


def test_tsels_reads_wide_mask_words_as_their_little_endian_bytes():
    t = Tile(1, 40, 1, 40)
    case = Case("TSELS", "a5", "uint8", (("dst", t), ("mask", Tile(1, 2, 1, 2)), ("src0", t),
                                         ("scalar", Tile(1, 1, 1, 1))), (("mask", "uint32"),))
    mask = np.array([[0x000000FF, 0x00000080]], dtype=np.uint32)  # columns 0..7 and 39
    out = run(case, src0=np.arange(40, dtype=np.uint8).reshape(1, 40), scalar=np.array([[200]], np.uint8),
              mask=mask)
    want = [c if c < 8 or c == 39 else 200 for c in range(40)]
    assert out.outputs["dst"][0].tolist() == want


def spec_tcmp_case(op: str, dtype: str, rows: int, cols: int, mode: str, valid: tuple[int, int] | None = None
                   ) -> Case:
    vr, vc = valid or (rows, cols)
    t = Tile(rows, cols, vr, vc)
    pred = Tile(rows, cols // 8, vr, -(-vc // 8))
    second = ("src1", t) if op == "TCMP" else ("scalar", Tile(1, 1, 1, 1))
    return Case(op, "spec", dtype, (("dst", pred), ("src0", t), second), (("cmp", cmpsel.MODES.index(mode)),))


@pytest.mark.parametrize("mode,expected", [("EQ", 0b0101), ("NE", 0b1010), ("LT", 0), ("GT", 0), ("LE", 0b0101),
                                           ("GE", 0b0101)])
def test_spec_pins_nan_comparisons_false_but_ne(mode, expected):
    # columns: 1 vs 1, NaN vs 1, -0 vs +0, 1 vs sNaN; padding columns 4..7 undefined
    case = spec_tcmp_case("TCMP", "float32", 4, 8, mode, valid=(4, 4))
    a = np.zeros((4, 8), np.uint32)
    b = np.zeros((4, 8), np.uint32)
    a[:, :4] = [f32(1)[0], 0x7FC00000, NEG_ZERO, f32(1)[0]]
    b[:, :4] = [f32(1)[0], f32(1)[0], 0, 0x7F800001]
    out = run(case, src0=a, src1=b)
    assert [int(v) & 0x0F for v in out.outputs["dst"][:, 0]] == [expected] * 4
    assert (out.classes["dst"] == UNDEFINED).all()  # every byte holds padding bits (PadValue Null)
    assert out.flags == ("NV",)  # the signaling NaN
    full = spec_tcmp_case("TCMP", "float32", 4, 8, mode)
    quiet = run(full, src0=a, src1=np.where(b == 0x7F800001, np.uint32(0x7FC00000), b))
    assert quiet.flags == () and (quiet.classes["dst"] == EXACT).all()


def test_spec_faults_and_the_layout_ptofuzz_cannot_write():
    case = spec_tcmp_case("TCMPS", "int16", 8, 16, "EQ")
    good = run(case, src0=np.zeros((8, 16), np.uint16), scalar=np.zeros((1, 1), np.uint16))
    assert good.kind.value == "ok" and (good.outputs["dst"] == 0xFF).all()
    bad = case.replace(tiles=(("dst", Tile(8, 4, 8, 2)), *case.tiles[1:]))  # a predicate of another shape
    assert run(bad, src0=np.zeros((8, 16), np.uint16), scalar=np.zeros((1, 1), np.uint16)).fault.trap == 5
    empty = spec_tcmp_case("TCMPS", "int16", 8, 16, "EQ", valid=(0, 16))
    assert run(empty, src0=np.zeros((8, 16), np.uint16), scalar=np.zeros((1, 1), np.uint16)).kind.value == "fault"
    narrow = spec_tcmp_case("TCMP", "float32", 32, 4, "EQ")  # 4 columns: rows share predicate bytes
    out = run(narrow.replace(tiles=(("dst", Tile(32, 1, 32, 1)), *narrow.tiles[1:])),
              src0=np.zeros((32, 4), np.uint32), src1=np.zeros((32, 4), np.uint32))
    assert out.kind.value == "unsupported"
    wide = Case("TSELS", "spec", "int16", (("dst", Tile(8, 16, 8, 16)), ("mask", Tile(8, 1, 8, 1)),
                                           ("src0", Tile(8, 16, 8, 16)), ("scalar", Tile(1, 1, 1, 1))),
                (("mask", "uint16"),))
    assert run(wide, src0=np.zeros((8, 16), np.uint16), scalar=np.zeros((1, 1), np.uint16),
               mask=np.zeros((8, 1), np.uint16)).fault.trap == 5  # wider words are no predicate
