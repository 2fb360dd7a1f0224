"""Bundles of the compare family (pto-spec 0.58.3): TCMP under ``SelectedBundleClosedTCMPSchemaLegal``
(``asl/block/model/dispatch/comparison-schema.asl``), TCMPS under ``SelectedBundleClosedTCMPSSchemaLegal``
(``tile-scalar-schema.asl``); the packed predicate destination shaped as the first source
(``ResolveBundlePredicateDestination``, ``destination-shape.asl``), the comparison from B.DATR CMode (0 EQ, 1 NE,
2 LT, 3 GT, 4 LE, 5 GE: ``tile-schema.asl``). Hand-worked words and results, each rule on both sides, and the
executor against the direct spec oracle (``fuzz --oracles spec,bundle``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz.backends import bundle as backend
from ptofuzz.bundle import asm
from ptofuzz.bundle import executor as ex
from ptofuzz.core.case import COMMIT, Case, Tile
from ptofuzz.generators import bundle as gb
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import cmpsel

BSTOP = 0x00000001
LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"

# BSTART.TEPL = 0x00019181 | DataType << 27 | Mode << 25 | Function << 20: TCMP 0x0D, TCMPS 0x2D (Mode 1)
TCMP_U8 = 0xD8D19181  # U8 = 27
TCMPS_U8 = 0xDAD19181
TCMP_S8 = 0x98D19181  # S8 = 19
TCMP_FP32 = 0x08D19181  # FP32 = 1
IOT_SSD = 0x8608CE13  # B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>
IOT_SD = 0x0208DE13  # B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>
IOR_A0 = 0x00010013  # B.IOR a0
IOR_ZERO = 0x00000013  # B.IOR zero (every field 0)


def lb(n: int, value: int) -> int:
    return 0x00000043 | n << 12 | (value & 0xFFF) << 20 | (value >> 12) << 7


def datr(cmode: int = 0, pad: int = 0, sat: int = 0) -> int:
    """B.DATR: CMode 31:29, PadValue 28:27, Sat 26 (the other fields 0)."""
    return 0x00001023 | cmode << 29 | pad << 27 | sat << 26


def u8_row(a, b=None, cols: int = 16) -> dict[int, ex.LocalTile]:
    """M#1 (and M#2): 128 B U8 tiles of ``cols`` columns, one valid row of ``len(a)``."""
    tiles = {32: ex.LocalTile.of("uint8", 128 // cols, cols, (1, len(a)), [a])}
    if b is not None:
        tiles[33] = ex.LocalTile.of("uint8", 128 // cols, cols, (1, len(b)), [b])
    return tiles


A10 = list(range(10))
B10 = [c if c % 2 == 0 else 0 for c in range(10)]


def test_the_table_holds_the_comparisons():
    assert ex.CLOSED["TCMP"] == ex.ClosedTepl("compare", "ptofuzz.oracles.cmpsel:spec_tcmp", ("src0", "src1"))
    assert ex.CLOSED["TCMPS"] == ex.ClosedTepl("compare", "ptofuzz.oracles.cmpsel:spec_tcmp", ("src0",), "scalar")
    assert registry.get("TCMP").bundle and registry.get("TCMPS").bundle
    assert asm.disassemble([TCMP_U8, TCMPS_U8]) == ["BSTART.VEC TCMP, U8", "BSTART.VEC TCMPS, U8"]
    # B.DATR CMode in pto-spec's order: 3 is GT, 4 is LE
    assert [asm.disassemble([datr(c)])[0].split(",")[0] for c in range(6)] == [
        f"B.DATR cmode={m}" for m in ("EQ", "NE", "LT", "GT", "LE", "GE")]


@pytest.mark.parametrize(("words", "tiles", "a0", "expect"), [
    # EQ (no B.DATR): 0..9 against 0,0,2,0,4,...: columns 0 2 4 6 8 equal -> 0x55, 0x01
    ([TCMP_U8, lb(0, 10), lb(2, 16), IOT_SSD, BSTOP], u8_row(A10, B10), 0, [0x55, 0x01]),
    # NE (CMode 1): the complement within the valid bits
    ([TCMP_U8, lb(0, 10), lb(2, 16), datr(1), IOT_SSD, BSTOP], u8_row(A10, B10), 0, [0xAA, 0x02]),
    # TCMPS GE 5 (CMode 5): columns 5..9 -> 0xE0, 0x03; the scalar a0's low 8 bits (0x105 -> 5)
    ([TCMPS_U8, lb(0, 10), lb(2, 16), datr(5), IOT_SD, IOR_A0, BSTOP], u8_row(A10), 0x105, [0xE0, 0x03]),
    # CMode 3 is GT, CMode 4 LE (pto-isa's CmpMode has them the other way round)
    ([TCMPS_U8, lb(0, 10), lb(2, 16), datr(3), IOT_SD, IOR_A0, BSTOP], u8_row(A10), 5, [0xC0, 0x03]),
    ([TCMPS_U8, lb(0, 10), lb(2, 16), datr(4), IOT_SD, IOR_A0, BSTOP], u8_row(A10), 5, [0x3F, 0x00]),
])
def test_compare_hand_worked(words, tiles, a0, expect):
    r = ex.execute(words, tiles, {"a0": a0})
    assert r.fault is None and r.outcome == "ok", r.fault
    p = r.tiles[0]  # the predicate: 8 rows (the source's), 16/8 = 2 bytes a row, valid 1x2
    assert (p.dtype, p.rows, p.cols, p.valid_rows, p.valid_cols) == ("uint8", 8, 2, 1, 2)
    # the bits past column 9 of byte 1 are padding (the direct oracle leaves them undefined): mask them off
    assert [int(p.data[0, 0]), int(p.data[0, 1]) & 0x03] == expect
    assert np.array_equal(r.tiles[32].data, tiles[32].data)


def test_signed_unsigned_zero_and_signalling_nan():
    one = lambda dt, v: {32: ex.LocalTile.of(dt, 128 // (8 * ex.dtypes.get(dt).itemsize), 8, (1, 1), [[v[0]]]),  # noqa: E731
                         33: ex.LocalTile.of(dt, 128 // (8 * ex.dtypes.get(dt).itemsize), 8, (1, 1), [[v[1]]])}
    lt = [lb(0, 1), lb(2, 8), datr(2), IOT_SSD, BSTOP]
    assert ex.execute([TCMP_S8, *lt], one("int8", (0xFF, 1))).tiles[0].data[0, 0] & 1 == 1  # -1 < 1
    assert ex.execute([TCMP_U8, *lt], one("uint8", (0xFF, 1))).tiles[0].data[0, 0] & 1 == 0  # 255 > 1
    eq = [lb(0, 1), lb(2, 8), IOT_SSD, BSTOP]
    r = ex.execute([TCMP_FP32, *eq], one("float32", (0x80000000, 0)))
    assert r.tiles[0].data[0, 0] & 1 == 1 and r.blocks[0].flags == ()  # -0 == +0
    r = ex.execute([TCMP_FP32, *eq], one("float32", (0x7F800001, 0x3F800000)))
    assert r.tiles[0].data[0, 0] & 1 == 0 and r.blocks[0].flags == ("NV",)  # sNaN: false, invalid


BASE = [TCMP_U8, lb(0, 10), lb(2, 16), IOT_SSD, BSTOP]


@pytest.mark.parametrize(("words", "fault"), [
    # any B.IOR is illegal for TCMP: an all-zero one fails the schema, one naming a register binding completeness
    ([*BASE[:-1], IOR_ZERO, BSTOP], LEGALITY),
    ([*BASE[:-1], IOR_A0, BSTOP], CONTROL),
    # B.DATR: CMode and PadValue only
    ([*BASE[:3], datr(sat=1), *BASE[3:]], LEGALITY),
    # no LB0; LB2 that does not match the source's columns
    ([TCMP_U8, lb(2, 16), IOT_SSD, BSTOP], LEGALITY),
    ([TCMP_U8, lb(0, 10), lb(2, 8), IOT_SSD, BSTOP], LEGALITY),
    # one source: binding completeness
    ([TCMP_U8, lb(0, 10), lb(2, 16), IOT_SD, BSTOP], CONTROL),
    # a start type the schema takes, but not the sources' (S8 against U8 tiles); one it does not take (HiF8)
    ([TCMP_S8, lb(0, 10), lb(2, 16), IOT_SSD, BSTOP], LEGALITY),
    ([0x00D19181 | 6 << 27, lb(0, 10), lb(2, 16), IOT_SSD, BSTOP], LEGALITY),
])
def test_tcmp_schema_both_sides(words, fault):
    r = ex.execute(words, u8_row(A10, B10), {"a0": 1})
    assert (r.fault.name, r.fault.point) == (fault, COMMIT), r.fault
    assert set(r.tiles) == {32, 33}
    assert ex.execute(BASE, u8_row(A10, B10)).fault is None
    # with B.DATR CMode and PadValue set the base block still runs
    assert ex.execute([*BASE[:3], datr(cmode=1, pad=1), *BASE[3:]], u8_row(A10, B10)).fault is None


def test_tcmp_sources_of_different_shapes_fail_the_schema():
    tiles = u8_row(A10, B10)
    tiles[33] = ex.LocalTile.of("uint8", 4, 32, (1, 10), [B10])
    r = ex.execute(BASE, tiles)
    assert (r.fault.name, r.fault.point) == (LEGALITY, COMMIT)


def test_tcmps_reads_only_regsrc0():
    words = [TCMPS_U8, lb(0, 10), lb(2, 16), IOT_SD, 0x00318013, BSTOP]  # B.IOR a0, a1
    r = ex.execute(words, u8_row(A10), {"a0": 5, "a1": 1})
    assert r.fault.name == CONTROL
    r = ex.execute([TCMPS_U8, lb(0, 10), lb(2, 16), IOT_SD, BSTOP], u8_row(A10))  # no B.IOR: the scalar 0
    assert r.fault is None and int(r.tiles[0].data[0, 0]) == 0x01


def test_predicate_capacity():
    """64x128 U8 sources (8 KiB): their 1024 predicate bytes do not fit SizeCode 1 (128 B), do fit SizeCode 4."""
    tiles = {1: ex.LocalTile.of("uint8", 64, 128, (64, 128)), 2: ex.LocalTile.of("uint8", 64, 128, (64, 128))}
    iot = lambda size: 0x08104013 | 1 << 19 | size << 15 | 4 << 9  # noqa: E731  B.IOT T#2, T#3, mask=0001, <last>
    words = [TCMP_U8, lb(0, 128), lb(1, 64), lb(2, 128)]
    r = ex.execute([*words, iot(1), BSTOP], tiles)
    assert (r.fault.name, r.fault.point) == (ALLOCATION, COMMIT) and set(r.tiles) == {1, 2}
    r = ex.execute([*words, iot(4), BSTOP], tiles)
    assert r.fault is None and (r.tiles[0].rows, r.tiles[0].cols, r.tiles[0].capacity) == (64, 16, 1024)
    assert (r.tiles[0].data[:64, :16] == 0xFF).all()  # zeros equal zeros


def test_a_source_of_fewer_than_8_columns_is_unsupported_after_allocation():
    tiles = {32: ex.LocalTile.of("uint64", 8, 2, (1, 2), [[7, 9]]), 33: ex.LocalTile.of("uint64", 8, 2, (1, 2),
                                                                                         [[7, 8]])}
    r = ex.execute([0xC0D19181, lb(0, 2), IOT_SSD, BSTOP], tiles)
    assert r.fault is None and r.outcome == "unsupported"
    r = ex.execute([0xC0D19181, IOT_SSD, BSTOP], tiles)  # the schema still runs first
    assert r.fault.name == LEGALITY


def test_compare_spelling():
    t = Tile(8, 16, 1, 10)
    case = Case("TCMPS", "spec", "uint8", (("dst", Tile(8, 2, 1, 2)), ("src0", t), ("scalar", Tile(1, 1, 1, 1))),
                (("cmp", 5),))
    b = gb.bundle_for(case, {"src0": np.zeros(t.shape, np.uint8), "scalar": np.array([[5]], np.uint8)})
    assert asm.disassemble(b.words)[:3] == ["BSTART.VEC TCMPS, U8", "B.DIM zero, 10, ->LB0", "B.DIM zero, 16, ->LB2"]
    assert b.words[3] == datr(5) and b.words[4] == IOT_SD and b.words[5] == IOR_A0
    assert gb.CMP_TO_CMODE == {0: 0, 1: 1, 2: 2, 3: 4, 4: 3, 5: 5}
    assert gb.predicate_size(Tile(64, 128, 1, 1)) == 1024 and gb.predicate_size(Tile(8, 16, 1, 1)) == 128
    # a non-uint8 predicate, or one not shaped as the source, has no spelling
    assert "uint32" in gb.spelling_problem(case.replace(params=(("cmp", 5), ("mask", "uint32"))))
    assert gb.spelling_problem(case.replace(tiles=(("dst", Tile(8, 4, 1, 2)), *case.tiles[1:]))) is not None


@pytest.mark.parametrize("op", ["TCMP", "TCMPS"])
def test_bundles_equal_the_direct_spec_oracle(op):
    inst = registry.get(op)
    modes = set()
    for k in range(200):
        src = seeded(12, op, str(k))
        case = inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        assert direct.kind == bundled.kind == "ok", (case, bundled.reason, direct.reason)
        rows, cols = case.tile("src0").valid  # every valid predicate bit (a word's padding bits are undefined)
        assert np.array_equal(cmpsel.unpack(bundled.outputs["dst"], rows, cols),
                              cmpsel.unpack(direct.outputs["dst"], rows, cols)), case
        assert bundled.outputs["dst"].dtype == direct.outputs["dst"].dtype == np.uint8
        assert bundled.flags == direct.flags
        modes.add(case.param("cmp"))
    assert len(modes) >= 5


def test_fuzzing_finds_a_swapped_cmode(monkeypatch):
    from ptofuzz.engine import campaign

    monkeypatch.setattr(ex, "CMODE_TO_CMP", {**ex.CMODE_TO_CMP, 3: 3, 4: 4})  # GT/LE read in pto-isa's order
    plan = campaign.make_plan("tcmps", ["spec", "bundle"], seed=3, batch=32)
    store, _ = campaign.run_random(plan, runs=400)
    assert store.findings


@pytest.mark.parametrize("op", ["tcmp", "tcmps"])
def test_fuzz_cli_spec_bundle_finds_nothing(cli, tmp_path, op):
    res = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "3000", "--seed", "1", "--out", tmp_path, "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 3000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


# ---- TSEL, TSELS ----------------------------------------------------------------------------------------------
# TSEL 0x1A, TSELS 0x3A (Mode 1, Function 26)
TSEL_U8 = 0xD9A19181
TSELS_U8 = 0xDBA19181
TSEL_FP32 = 0x09A19181  # pto-spec's TSEL bundle test's start word
IOT_P_TRUE = 0x80004E13  # B.IOT T#1, M#1, mask=1111: the predicate and the true source, no <last>
IOT_FALSE_D = 0x0218DE13  # B.IOT M#2, mask=1111, <last>, ->T<SizeCode 1>: the false source and the destination
IOT_P_TRUE_D = 0x8008CE13  # B.IOT T#1, M#1, mask=1111, <last>, ->T<SizeCode 1> (TSELS)
A4, B4 = [3, 9, 0, 7], [5, 2, 0, 8]


def test_select_word_forms():
    assert asm.disassemble([TSEL_U8, TSELS_U8, IOT_P_TRUE, IOT_FALSE_D, IOT_P_TRUE_D]) == [
        "BSTART.VEC TSEL, U8", "BSTART.VEC TSELS, U8", "B.IOT T#1, M#1, mask=1111",
        "B.IOT M#2, mask=1111, <last>, ->T<SizeCode 1>", "B.IOT T#1, M#1, mask=1111, <last>, ->T<SizeCode 1>"]
    assert ex.CLOSED["TSEL"] == ex.ClosedTepl("select", "ptofuzz.oracles.cmpsel:spec_tsel", ("mask", "src0", "src1"))
    assert ex.CLOSED["TSELS"] == ex.ClosedTepl("select", "ptofuzz.oracles.cmpsel:spec_tsel", ("mask", "src0"),
                                               "scalar")
    assert registry.get("TSEL").bundle and registry.get("TSELS").bundle


def test_tcmp_then_tsel_is_the_maximum():
    """TCMP GT writes the predicate a > b to T#1; the next block selects a where it holds, b elsewhere."""
    words = [TCMP_U8, lb(0, 4), lb(2, 16), datr(3), IOT_SSD,
             TSEL_U8, lb(0, 4), lb(2, 16), IOT_P_TRUE, IOT_FALSE_D, BSTOP]
    r = ex.execute(words, u8_row(A4, B4))
    assert r.fault is None and r.outcome == "ok", r.fault
    assert int(r.tiles[0].data[0, 0]) & 0x0F == 0b0010 and r.tiles[0].logical == (8, 16, 1, 4)
    out = r.tiles[1]  # the next free T tile
    assert (out.dtype, out.rows, out.cols, out.valid_rows, out.valid_cols) == ("uint8", 8, 16, 1, 4)
    assert out.data[0, :4].tolist() == [5, 9, 0, 8] and out.logical is None


def test_tcmps_then_tsels_clamps_below_the_scalar():
    """TCMPS GE 5 then TSELS with the false value 0 in a0: a where a >= 5, else 0."""
    words = [TCMPS_U8, lb(0, 10), lb(2, 16), datr(5), IOT_SD, IOR_A0,
             TSELS_U8, lb(0, 10), lb(2, 16), IOT_P_TRUE_D, 0x00018013, BSTOP]  # B.IOR a1: RegSrc0 = GPR 3
    r = ex.execute(words, u8_row(A10), {"a0": 5, "a1": 0x100})  # a1's low 8 bits: 0
    assert r.fault is None and r.outcome == "ok", r.fault
    assert r.tiles[1].data[0, :10].tolist() == [0, 0, 0, 0, 0, 5, 6, 7, 8, 9]


def predicate_of(a, b, cols: int = 16) -> dict[int, ex.LocalTile]:
    """T#1 the predicate a > b (as TCMP GT leaves it), M#1 = a, M#2 = b."""
    r = ex.execute([TCMP_U8, lb(0, len(a)), lb(2, cols), datr(3), IOT_SSD, BSTOP], u8_row(a, b, cols))
    return {0: r.tiles[0], **u8_row(a, b, cols)}


SEL_BASE = [TSEL_U8, lb(0, 4), lb(2, 16), IOT_P_TRUE, IOT_FALSE_D, BSTOP]


@pytest.mark.parametrize(("words", "fault"), [
    # any B.IOR is illegal for TSEL: all-zero fails the schema, one naming a register binding completeness
    ([*SEL_BASE[:-1], IOR_ZERO, BSTOP], LEGALITY),
    ([*SEL_BASE[:-1], IOR_A0, BSTOP], CONTROL),
    # B.DATR: PadValue only (CMode is the comparisons')
    ([*SEL_BASE[:3], datr(cmode=1), *SEL_BASE[3:]], LEGALITY),
    # the bindings the other way round (the false source with the destination first): complete, not the schema's
    ([TSEL_U8, lb(0, 4), lb(2, 16), 0x0210DE13, 0x80084E13, BSTOP], LEGALITY),
    # all three sources and the destination in one B.IOT is no form; two sources only: binding completeness
    ([TSEL_U8, lb(0, 4), lb(2, 16), IOT_P_TRUE_D, BSTOP], CONTROL),
    # no LB0; a start type the schema takes that is not the sources' (S8)
    ([TSEL_U8, lb(2, 16), IOT_P_TRUE, IOT_FALSE_D, BSTOP], LEGALITY),
    ([0x99A19181, lb(0, 4), lb(2, 16), IOT_P_TRUE, IOT_FALSE_D, BSTOP], LEGALITY),
    # the predicate in the true source's place and a numeric tile in the predicate's
    ([TSEL_U8, lb(0, 4), lb(2, 16), 0x02004E13, IOT_FALSE_D, BSTOP], LEGALITY),
])
def test_tsel_schema_both_sides(words, fault):
    tiles = predicate_of(A4, B4)
    r = ex.execute(words, tiles, {"a0": 1})
    assert (r.fault.name, r.fault.point) == (fault, COMMIT), (r.fault, asm.disassemble(words))
    assert set(r.tiles) == {0, 32, 33}
    ok = ex.execute(SEL_BASE, tiles)
    assert ok.fault is None and ok.tiles[1].data[0, :4].tolist() == [5, 9, 0, 8]
    # a B.DATR of PadValue alone passes the B.DATR rule, but its DataType 0 makes the destination FP64
    # (ResolveBundleEffectiveDataType), as for the elementwise operations: allocated, then not the sources' type
    r = ex.execute([*SEL_BASE[:3], datr(pad=1), *SEL_BASE[3:]], tiles)
    assert (r.fault.name, r.fault.point) == (LEGALITY, COMMIT) and "FP64" in r.fault.reason


def test_tsel_predicate_shape_and_false_source_type():
    tiles = predicate_of(A4, B4)
    wide = predicate_of([*A4, 1], [*B4, 1])[0]  # a predicate of 5 valid columns against 4-column sources
    r = ex.execute(SEL_BASE, {**tiles, 0: wide})
    assert (r.fault.name, r.fault.point) == (LEGALITY, COMMIT)
    r = ex.execute(SEL_BASE, {**tiles, 33: ex.LocalTile.of("int8", 8, 16, (1, 4), [B4])})  # the false source S8
    assert (r.fault.name, r.fault.point) == (LEGALITY, COMMIT)


def test_tsels_reads_only_regsrc0_and_defaults_to_zero():
    tiles = predicate_of(A4, B4)
    base = [TSELS_U8, lb(0, 4), lb(2, 16), IOT_P_TRUE_D]
    r = ex.execute([*base, 0x00318013, BSTOP], tiles, {"a0": 1, "a1": 1})  # B.IOR a0, a1
    assert (r.fault.name, r.fault.point) == (CONTROL, COMMIT)
    r = ex.execute([*base, BSTOP], tiles)  # no B.IOR: the false value 0
    assert r.fault is None and r.tiles[1].data[0, :4].tolist() == [0, 9, 0, 0]


def test_select_spelling():
    t = Tile(8, 16, 1, 4)
    case = Case("TSEL", "spec", "uint8", (("dst", t), ("mask", Tile(8, 2, 1, 1)), ("src0", t), ("src1", t)))
    inputs = {"mask": np.zeros((8, 2), np.uint8), "src0": np.zeros(t.shape, np.uint8),
              "src1": np.zeros(t.shape, np.uint8)}
    b = gb.bundle_for(case, inputs)
    assert asm.disassemble(b.words) == ["BSTART.VEC TSEL, U8", "B.DIM zero, 4, ->LB0", "B.DIM zero, 16, ->LB2",
                                        "B.IOT M#1, M#2, mask=1111", "B.IOT M#3, mask=1111, <last>, ->T<SizeCode 1>",
                                        "BSTOP"]
    assert b.tiles[32].logical == (8, 16, 1, 4) and b.tiles[33].logical is None
    # a predicate tile not of the true source's shape has no spelling
    assert gb.spelling_problem(case.replace(tiles=(("dst", t), ("mask", Tile(8, 4, 1, 1)), ("src0", t),
                                                   ("src1", t)))) is not None


@pytest.mark.parametrize("op", ["TSEL", "TSELS"])
def test_selects_equal_the_direct_spec_oracle(op):
    inst = registry.get(op)
    for k in range(200):
        src = seeded(12, op, str(k))
        case = inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        assert direct.kind == bundled.kind == "ok", (case, bundled.reason, direct.reason)
        exact = direct.classes["dst"] == 0
        assert exact.any() and np.array_equal(bundled.outputs["dst"][exact], direct.outputs["dst"][exact]), case
        assert bundled.flags == direct.flags == ()


@pytest.mark.parametrize("op", ["tsel", "tsels"])
def test_fuzz_cli_spec_bundle_selects_find_nothing(cli, tmp_path, op):
    res = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "3000", "--seed", "1", "--out", tmp_path, "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 3000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]
