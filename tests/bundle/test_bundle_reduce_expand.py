"""Bundles of the reductions and expansions (pto-spec 0.58.3): TROW/TCOL MAX, MIN, SUM, PROD, ARGMAX, ARGMIN under the
closed reduction schema (``SelectedBundleClosedReductionSchemaLegal``, ``asl/block/model/dispatch/
reduction-schema.asl``; the destination derived from the source by ``ResolveBundleTileDestinationsForOperation``,
``destination-shape.asl``), TROWEXPAND, TCOLEXPAND and the arithmetic expansions under the closed expansion schema
(``expansion-schema.asl``). Hand-worked words and results, each rule on both sides, the generator's spellings and
the executor against the direct spec oracle (``fuzz --oracles spec,bundle``)."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.backends import bundle as backend
from ptofuzz.bundle import asm
from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle import executor as ex
from ptofuzz.core.case import COMMIT, Case, Tile
from ptofuzz.generators import bundle as gb
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

BSTOP = 0x00000001
LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"

# BSTART.TEPL = 0x00019181 | DataType << 27 | Mode << 25 | Function << 20; the row operations are Mode 2, Function
# 0..13 (selectors 0x40..0x4D), the column ones Function 16..29 (0x50..0x5D)
TROWMAX_S16 = 0x94119181  # 0x41, S16 = 18
TCOLMAX_U16 = 0xD5119181  # 0x51, U16 = 26
TROWSUM_U8 = 0xDC019181  # 0x40, U8 = 27
TCOLSUM_FP32 = 0x0D019181  # 0x50, FP32 = 1
TROWPROD_U8 = 0xDC319181  # 0x43
TCOLPROD_FP32 = 0x0D319181  # 0x53
TROWARGMAX_U8 = 0xDCC19181  # 0x4C
TCOLARGMIN_U8 = 0xDDD19181  # 0x5D
TROWMAX_FP32 = 0x0C119181
TROWMAX_HIF8 = 0x34119181  # HiF8 = 6: no arithmetic type
TROWEXPAND_U8 = 0xDC419181  # 0x44
TCOLEXPAND_U8 = 0xDD419181  # 0x54
TROWEXPANDADD_U8 = 0xDC519181  # 0x45
TROWEXPANDSUB_S8 = 0x9C619181  # 0x46, S8 = 19
TCOLEXPANDMUL_U16 = 0xD5719181  # 0x57
IOT_S1_D1 = 0x0208DE13  # B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>
IOT_S1_D2 = 0x02095E13  # ... ->T<SizeCode 2>
IOT_S1S2_D1 = 0x8608CE13  # B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>
IOT_S1S2_D2 = 0x86094E13  # ... ->T<SizeCode 2>
DATR_PAD_NULL = 0x18001023  # B.DATR PadValue Null (3), every other field 0 (DataType 0: FP64)
DATR_CMODE_NE = 0x20001023
IOR_ZERO, IOR_A0 = 0x00000013, 0x00010013
M1, M2 = 32, 33

OPS = ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN", "TROWSUM", "TCOLSUM", "TROWPROD", "TCOLPROD", "TROWARGMAX",
       "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN", "TROWEXPAND", "TCOLEXPAND", "TROWEXPANDADD", "TROWEXPANDSUB",
       "TROWEXPANDMUL", "TROWEXPANDMAX", "TROWEXPANDMIN", "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL",
       "TCOLEXPANDMAX", "TCOLEXPANDMIN")


def lb(n: int, value: int) -> int:
    """B.DIM zero, value, ->LBn: imm 11:0 in 31:20 (16:12 in 11:7), LB in 14:12."""
    return 0x00000043 | n << 12 | (value & 0xFFF) << 20 | (value >> 12) << 7


def lbs(valid_cols: int, valid_rows: int, cols: int) -> list[int]:
    return [lb(0, valid_cols), lb(1, valid_rows), lb(2, cols)]


def test_the_table_holds_the_reductions_and_expansions():
    for op in OPS:
        form = ex.CLOSED[op]
        assert form.schema == ("expansion" if "EXPAND" in op else "reduction") and op in ex.SUPPORTED
        arithmetic = "EXPAND" in op and op not in ("TROWEXPAND", "TCOLEXPAND")
        assert form.sources == (("src0", "src1") if arithmetic else ("src",))
        assert registry.get(op).bundle and enc.ENGINE[op] == "SFU"
    assert ex.CLOSED["TCOLEXPANDMIN"].oracle == "ptofuzz.oracles.expandop:spec"
    assert asm.disassemble([TROWMAX_S16, *lbs(3, 2, 16), IOT_S1_D1, BSTOP]) == [
        "BSTART.SFU TROWMAX, S16", "B.DIM zero, 3, ->LB0", "B.DIM zero, 2, ->LB1", "B.DIM zero, 16, ->LB2",
        "B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>", "BSTOP"]
    assert asm.assemble("BSTART.SFU TCOLARGMIN, U8") == [TCOLARGMIN_U8]


def _s16_source() -> dict[int, ex.LocalTile]:
    # 4x16 S16 (128 B), valid 2x3: rows [1, -1, 5] and [-32768, 7, 2]
    return {M1: ex.LocalTile.of("int16", 4, 16, (2, 3), [[1, 0xFFFF, 5], [0x8000, 7, 2]])}


@pytest.mark.parametrize(("start", "dtype", "words", "shape", "cells"), [
    # S16 row maxima 5 and 7; the destination 128 B of one column: 64 rows, valid 2x1
    (TROWMAX_S16, "int16", lbs(3, 2, 16), (64, 1, 2, 1), {(0, 0): 5, (1, 0): 7}),
    # the same bits as U16, column maxima: 0x8000 over 1, 0xffff over 7, 5 over 2; one row of 16 columns (4 rows)
    (TCOLMAX_U16, "uint16", lbs(3, 2, 16), (4, 16, 1, 3), {(0, 0): 0x8000, (0, 1): 0xFFFF, (0, 2): 5}),
])
def test_max_reductions_hand_worked(start, dtype, words, shape, cells):
    tiles = _s16_source()
    tiles[M1].dtype = dtype
    r = ex.execute([start, *words, IOT_S1_D1, BSTOP], tiles)
    assert r.fault is None and r.outcome == "ok", r.fault
    t = r.tiles[0]
    assert (t.dtype, t.rows, t.cols, t.valid_rows, t.valid_cols) == (dtype, *shape)
    assert {k: int(t.data[k]) for k in cells} == cells
    assert M1 in r.tiles and r.tiles[M1].data[1, 0] == 0x8000  # the source persists


def test_row_sum_wraps_and_column_sum_folds_from_zero_in_order():
    # U8 200 + 100 + 7 = 307: 51 modulo 256
    src = {M1: ex.LocalTile.of("uint8", 8, 16, (1, 3), [[200, 100, 7]])}
    r = ex.execute([TROWSUM_U8, lb(0, 3), lb(2, 16), IOT_S1_D1, BSTOP], src)
    assert r.fault is None and r.tiles[0].data[0, 0] == 51 and (r.tiles[0].rows, r.tiles[0].cols) == (128, 1)
    # FP32 column 1, 2**-24, 2**-24: ((+0 + 1) + u) + u, each step a tie back to 1 (0x3f800000); a tree adding the
    # two small terms first would give 1 + 2**-23 (0x3f800001)
    col = {M1: ex.LocalTile.of("float32", 4, 8, (3, 1), [[0x3F800000], [0x33800000], [0x33800000]])}
    r = ex.execute([TCOLSUM_FP32, lb(0, 1), lb(1, 3), lb(2, 8), IOT_S1_D1, BSTOP], col)
    assert r.fault is None and r.tiles[0].data[0, 0] == 0x3F800000
    assert (r.tiles[0].rows, r.tiles[0].cols, r.tiles[0].valid_rows, r.tiles[0].valid_cols) == (4, 8, 1, 1)


def test_row_product_wraps_and_column_product_folds_from_one_in_order():
    # U8 20 * 20 * 3 = 1200: 176 modulo 256 (a typed fold: 400 wraps to 144 first, 144 * 3 = 432 -> 176 the same)
    src = {M1: ex.LocalTile.of("uint8", 8, 16, (1, 3), [[20, 20, 3]])}
    r = ex.execute([TROWPROD_U8, lb(0, 3), lb(2, 16), IOT_S1_D1, BSTOP], src)
    assert r.fault is None and r.tiles[0].data[0, 0] == 176 and (r.tiles[0].rows, r.tiles[0].cols) == (128, 1)
    # FP32 column 2**100, 2**100, 2**-100: ((1 * H) * H) * (1/H) overflows to +inf at the second step (0x7f800000);
    # a pairing of the last two first would give 2**100 (0x71800000)
    col = {M1: ex.LocalTile.of("float32", 4, 8, (3, 1), [[0x71800000], [0x71800000], [0x0D800000]])}
    r = ex.execute([TCOLPROD_FP32, lb(0, 1), lb(1, 3), lb(2, 8), IOT_S1_D1, BSTOP], col)
    assert r.fault is None and r.tiles[0].data[0, 0] == 0x7F800000
    assert (r.tiles[0].rows, r.tiles[0].cols, r.tiles[0].valid_rows, r.tiles[0].valid_cols) == (4, 8, 1, 1)


def test_arg_reductions_publish_u32_indices_of_the_first_extreme():
    # U8 row [1, 9, 9]: the first of the equal maxima, index 1, in a U32 destination (128 B: 32 rows of one column)
    src = {M1: ex.LocalTile.of("uint8", 32, 4, (1, 3), [[1, 9, 9]])}
    r = ex.execute([TROWARGMAX_U8, lb(0, 3), lb(2, 4), IOT_S1_D1, BSTOP], src)
    t = r.tiles[0]
    assert r.fault is None and (t.dtype, t.rows, t.cols, t.valid_rows) == ("uint32", 32, 1, 1) and t.data[0, 0] == 1
    # columns [5, 3, 3] and [1, 1, 0]: minima first at rows 1 and 2
    src = {M1: ex.LocalTile.of("uint8", 32, 4, (3, 2), [[5, 1], [3, 1], [3, 0]])}
    r = ex.execute([TCOLARGMIN_U8, lb(0, 2), lb(1, 3), lb(2, 4), IOT_S1_D1, BSTOP], src)
    t = r.tiles[0]
    assert r.fault is None and (t.dtype, t.rows, t.cols, t.valid_cols) == ("uint32", 8, 4, 2)
    assert t.data[0, :2].tolist() == [1, 2]


def test_a_signalling_nan_is_passed_over_and_raises_nv():
    # FP32 [1, sNaN, 2]: the maximum 2 (0x40000000), NV raised, the sNaN's bits kept in the source
    src = {M1: ex.LocalTile.of("float32", 4, 8, (1, 3), [[0x3F800000, 0x7F800001, 0x40000000]])}
    r = ex.execute([TROWMAX_FP32, lb(0, 3), lb(2, 8), IOT_S1_D1, BSTOP], src)
    assert r.fault is None and r.tiles[0].data[0, 0] == 0x40000000 and r.blocks[0].flags == ("NV",)


def _broadcast_row(values_: list[int], dtype: str = "uint8", rows: int = 128) -> ex.LocalTile:
    return ex.LocalTile.of(dtype, rows, 1, (len(values_), 1), [[v] for v in values_])


def _full(value: int, dtype: str = "uint8", rows: int = 32) -> ex.LocalTile:
    return ex.LocalTile.of(dtype, rows, 4, (2, 3), [[value] * 3] * 2)


@pytest.mark.parametrize(("start", "words", "tiles", "dtype", "expect"), [
    # TROWEXPAND U8: the broadcast column [7, 9] copied across LB0 = 3 columns of 2 rows (a 32x4 destination)
    (TROWEXPAND_U8, [*lbs(3, 2, 4), IOT_S1_D1], {M1: _broadcast_row([7, 9])}, "uint8", [[7, 7, 7], [9, 9, 9]]),
    # TCOLEXPAND U8: the broadcast row [1, 2, 3] (one valid row of 4 columns) copied down 2 rows
    (TCOLEXPAND_U8, [*lbs(3, 2, 4), IOT_S1_D1], {M1: ex.LocalTile.of("uint8", 32, 4, (1, 3), [[1, 2, 3]])},
     "uint8", [[1, 2, 3], [1, 2, 3]]),
    # TROWEXPANDADD U8: 250 + 10 = 260 -> 4, 250 + 20 = 270 -> 14 (wrapping)
    (TROWEXPANDADD_U8, [*lbs(3, 2, 4), IOT_S1S2_D1], {M1: _full(250), M2: _broadcast_row([10, 20])}, "uint8",
     [[4, 4, 4], [14, 14, 14]]),
    # TROWEXPANDSUB S8: 2 - (-3) = 5 in operand order (full minus broadcast), 2 - 1 = 1
    (TROWEXPANDSUB_S8, [*lbs(3, 2, 4), IOT_S1S2_D1], {M1: _full(2, "int8"), M2: _broadcast_row([0xFD, 1], "int8")},
     "int8", [[5, 5, 5], [1, 1, 1]]),
    # TCOLEXPANDMUL U16 (16x4 tiles): 400 * 200 = 80000 -> 14464, 400 * 2 = 800, 400 * 1
    (TCOLEXPANDMUL_U16, [*lbs(3, 2, 4), IOT_S1S2_D1],
     {M1: _full(400, "uint16", 16), M2: ex.LocalTile.of("uint16", 16, 4, (1, 3), [[200, 2, 1]])}, "uint16",
     [[14464, 800, 400]] * 2),
])
def test_expansions_hand_worked(start, words, tiles, dtype, expect):
    r = ex.execute([start, *words, BSTOP], tiles)
    assert r.fault is None and r.outcome == "ok", r.fault
    t = r.tiles[0]
    assert (t.dtype, t.cols, t.valid_rows, t.valid_cols) == (dtype, 4, 2, 3)
    assert t.data[:2, :3].tolist() == expect
    assert set(r.tiles) == {0, *tiles}


# ---- the rules, each on both sides ------------------------------------------------------------------------------

ROW_OK = [TROWMAX_S16, *lbs(3, 2, 16)]


@pytest.mark.parametrize(("words", "fault", "why"), [
    # a B.IOR: naming a register the operation does not read is a binding fault; an all-zero one fails the schema
    (ROW_OK + [IOT_S1_D1, IOR_A0], CONTROL, "uses no B.IOR register"),
    (ROW_OK + [IOT_S1_D1, IOR_ZERO], LEGALITY, "not even an all-zero one"),
    # B.DATR: PadValue only (CMode here)
    ([TROWMAX_S16, DATR_CMODE_NE, *lbs(3, 2, 16), IOT_S1_D1], LEGALITY, "only PadValue"),
    # LB0 required, LB1 nonzero when present
    ([TROWMAX_S16, lb(1, 2), lb(2, 16), IOT_S1_D1], LEGALITY, "needs LB0"),
    ([TROWMAX_S16, lb(0, 3), lb(1, 0), lb(2, 16), IOT_S1_D1], LEGALITY, "LB1 = 0"),
    # the source against the LBs (valid 2x3 of 16 columns): LB0 = 4, LB2 = 8
    ([TROWMAX_S16, *lbs(4, 2, 16), IOT_S1_D1], LEGALITY, "does not match LB1 x LB0"),
    ([TROWMAX_S16, *lbs(3, 2, 8), IOT_S1_D1], LEGALITY, "does not match LB1 x LB0"),
    # the BSTART type: the source's (U16 against the S16 source), an arithmetic one (HiF8 is not)
    ([TCOLMAX_U16, *lbs(3, 2, 16), IOT_S1_D1], LEGALITY, "must be a legal numeric U16 tile"),
    ([TROWMAX_HIF8, *lbs(3, 2, 16), IOT_S1_D1], LEGALITY, "does not take HiF8"),
    # the binding: source and destination in one B.IOT with <last>; one source only
    (ROW_OK + [0x02005E13, 0x0008EE13], LEGALITY, "in one B.IOT marked <last>"),
    (ROW_OK + [IOT_S1S2_D1], CONTROL, "binds 1 source(s)"),
    # no <last>: the binding rule as well (Fault_BundleControl, not the schema's Fault_TileLegality)
    (ROW_OK + [0x0200DE13], CONTROL, "no binding is marked <last>"),
])
def test_reduction_rules(words, fault, why):
    tiles = _s16_source()
    r = ex.execute([*words, BSTOP], tiles)
    assert r.fault is not None and (r.fault.name, r.fault.point) == (fault, COMMIT), r.fault
    assert why in r.fault.reason and set(r.tiles) == {M1}
    assert ex.execute([*ROW_OK, IOT_S1_D1, BSTOP], _s16_source()).outcome == "ok"  # the block that passes


def test_a_pad_value_datr_keeps_a_reductions_type_and_makes_an_expansions_fp64():
    # the reduction's destination type is the source's whatever B.DATR's DataType (0, FP64) says: it runs
    r = ex.execute([TROWMAX_S16, DATR_PAD_NULL, *lbs(3, 2, 16), IOT_S1_D1, BSTOP], _s16_source())
    assert r.fault is None and r.tiles[0].dtype == "int16" and r.tiles[0].data[:2, 0].tolist() == [5, 7]
    # an expansion's destination takes B.DATR's FP64: sized (2x3 of 4 columns in 128 B), then no source matches it
    r = ex.execute([TROWEXPAND_U8, DATR_PAD_NULL, *lbs(3, 2, 4), IOT_S1_D1, BSTOP], {M1: _broadcast_row([7, 9])})
    assert r.fault is not None and r.fault.name == LEGALITY and "FP64" in r.fault.reason and 0 not in r.tiles


@pytest.mark.parametrize(("start", "valid", "cols", "iot", "fault"), [
    # a row reduction of 40 valid FP32 rows: 128 B of one column holds 32 rows (too few), 256 B 64
    (TROWMAX_FP32, (40, 3), 8, IOT_S1_D1, ALLOCATION),
    (TROWMAX_FP32, (40, 3), 8, IOT_S1_D2, None),
    # a column reduction of 64 FP32 columns: one row is 256 B, more than TSize 128 B
    (TCOLSUM_FP32, (2, 64), 64, IOT_S1_D1, ALLOCATION),
    (TCOLSUM_FP32, (2, 64), 64, IOT_S1_D2, None),
])
def test_a_reductions_tsize_holds_its_derived_destination(start, valid, cols, iot, fault):
    rows = 64 if cols == 8 else 2
    src = {M1: ex.LocalTile.of("float32", rows, cols, valid, [[0x3F800000] * valid[1]] * valid[0])}
    r = ex.execute([start, *lbs(valid[1], valid[0], cols), iot, BSTOP], src)
    if fault is None:
        assert r.fault is None and r.outcome == "ok"
    else:
        assert (r.fault.name, r.fault.point) == (fault, COMMIT) and set(r.tiles) == {M1}


@pytest.mark.parametrize(("start", "words", "tiles", "fault", "why"), [
    # the row broadcast source must be one physical column of LB1 valid rows: two columns fail before allocation
    (TROWEXPANDADD_U8, [*lbs(3, 2, 4), IOT_S1S2_D1], {M1: _full(1), M2: ex.LocalTile.of("uint8", 64, 2, (2, 1))},
     LEGALITY, "the broadcast source"),
    # and LB1 valid rows: the broadcast column holds 3
    (TROWEXPANDADD_U8, [*lbs(3, 2, 4), IOT_S1S2_D1], {M1: _full(1), M2: _broadcast_row([1, 2, 3])}, LEGALITY,
     "the broadcast source"),
    # the full-shape source against the LBs (LB0 = 2 against its 3 valid columns)
    (TROWEXPANDADD_U8, [*lbs(2, 2, 4), IOT_S1S2_D1], {M1: _full(1), M2: _broadcast_row([1, 2])}, LEGALITY,
     "the full-shape source"),
    # a column broadcast source must have LB2 columns: 8 against its 4
    (TCOLEXPAND_U8, [*lbs(3, 2, 8), IOT_S1_D1], {M1: ex.LocalTile.of("uint8", 32, 4, (1, 3))}, LEGALITY,
     "the broadcast source"),
    # TSize 256 B gives a 64x4 destination; the full-shape source is 32x4: TileOperandsLegal_ExecuteTileExpand after
    # allocation
    (TROWEXPANDADD_U8, [*lbs(3, 2, 4), IOT_S1S2_D2], {M1: _full(1), M2: _broadcast_row([1, 2])}, LEGALITY,
     "physical shape 32x4 is not the destination's 64x4"),
    # the copies bind one source, the arithmetic forms two
    (TROWEXPAND_U8, [*lbs(3, 2, 4), IOT_S1S2_D1], {M1: _broadcast_row([1, 2]), M2: _broadcast_row([1, 2])}, CONTROL,
     "binds 1 source(s)"),
    (TROWEXPANDADD_U8, [*lbs(3, 2, 4), IOT_S1_D1], {M1: _full(1)}, CONTROL, "binds 2 source(s)"),
])
def test_expansion_rules(start, words, tiles, fault, why):
    r = ex.execute([start, *words, BSTOP], tiles)
    assert r.fault is not None and (r.fault.name, r.fault.point) == (fault, COMMIT), r.fault
    assert why in r.fault.reason and set(r.tiles) == set(tiles)


# ---- the generator's spellings and the executor against the direct oracle ---------------------------------------

def test_spelling_rules():
    case = gb.reduce_expand_case("TROWARGMAX", "int16", (3, 5))
    assert gb.spelling_problem(case) is None
    assert gb.spelling_problem(case.replace(params=(("idx", "int16"),))) == \
        "an index destination of int16: a bundle's is U32"
    assert "value + index" in gb.spelling_problem(case.replace(params=(("idx", "int32"), ("val", 1))))
    d, s = Tile(4, 2, 3, 1), case.tile("src")  # a row destination of two columns
    assert "shaped from the source" in gb.spelling_problem(Case("TROWMAX", "spec", "int16", (("dst", d), ("src", s))))
    few = Case("TROWMAX", "spec", "float32", (("dst", Tile(32, 1, 40, 1)), ("src", Tile(64, 8, 40, 3))))
    assert "fewer rows" in gb.spelling_problem(few)
    big = Case("TCOLMAX", "spec", "float32", (("dst", Tile(1, 32, 1, 32)), ("src", Tile(1024, 32, 4, 32))))
    assert gb.spelling_problem(big).startswith("the source src tile's 131072 B is no Local tile size")
    assert gb.spelling_problem(gb.reduce_expand_case("TCOLEXPAND", "uint8", (2, 3))) is None


@pytest.mark.parametrize("op", OPS)
def test_the_bundle_backend_agrees_with_the_direct_spec_oracle(op):
    inst = registry.get(op)
    mix = values.ValueMix.parse("snan,qnan,zero,inf,tie", 0.3)
    for k in range(12):
        src = seeded(k, "reduce-expand", op)
        case = inst.illegal_case(src, {}) if inst.illegal_case is not None and k % 4 == 3 else \
            inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, mix)
        a, b = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        if gb.spelling_problem(case) is not None:
            assert b.kind.name == "UNSUPPORTED"
            continue
        assert a.kind == b.kind, (case, a.reason, b.reason)
        if a.fault is not None:
            assert (a.fault.name, a.fault.trap, a.fault.point) == (b.fault.name, b.fault.trap, b.fault.point)
            continue
        for role, expected in a.outputs.items():
            exact = a.classes[role] == 0
            assert np.array_equal(b.classes[role] == 0, exact), role
            assert np.array_equal(expected[exact], b.outputs[role][exact]), (case, role)
        assert tuple(a.flags or ()) == tuple(b.flags or ())


@pytest.mark.parametrize("op", ["TCOLARGMAX", "TROWEXPANDMIN"])
def test_gen_writes_the_bundle_and_its_expected_outcome(tmp_path, op):
    import json

    from ptofuzz.engine import generate

    generate.generate(op, "spec", tmp_path, random=2, bundle=True)
    folders = sorted(p for p in tmp_path.iterdir() if p.is_dir())
    assert len(folders) == 2
    for folder in folders:
        manifest = json.loads((folder / "ptofuzz.json").read_text())
        words = [int(w, 16) for w in manifest["bundle"]["words"]]
        assert manifest["bundle"]["expected"]["outcome"] == "ok"
        text = (folder / "bundle.s").read_text().splitlines()
        assert text[1] == f"BSTART.SFU {op}, {enc.DATATYPES[words[0] >> 27]}" and text[-1] == "BSTOP"
        assert asm.assemble("\n".join(text[1:])) == words
        assert (folder / "bundle.bin").stat().st_size == 4 * len(words)
        published = manifest["bundle"]["expected"]["blocks"][0]["published"]["T#1"]
        assert published["dtype"] == ("uint32" if "ARG" in op else manifest["dtype"])  # U32 indices
