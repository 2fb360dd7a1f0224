"""Bundles of the bitwise family (pto-spec 0.58.3): TANDS TORS TXORS TSHLS TSHRS under the closed tile-scalar schema
(``asl/block/model/dispatch/tile-scalar-schema.asl``); TAND TOR TXOR TSHL TSHR under none, so the generic path of
``tile-execution.asl`` and ``destination-shape.asl`` (``ResolveBundleTileDestinations``: an LB of 1..65535, else
the first bound source's descriptor). Hand-worked words and results, each rule on both sides, and the executor
against the direct spec oracle (``fuzz --oracles spec,bundle``)."""

from __future__ import annotations

import json

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

TILE_TILE = ("TAND", "TOR", "TXOR", "TSHL", "TSHR")
TILE_SCALAR = ("TANDS", "TORS", "TXORS", "TSHLS", "TSHRS")
OPS = TILE_TILE + TILE_SCALAR
ELEMENTWISE = ("TADD", "TSUB", "TMUL", "TMAX", "TMIN", "TABS", "TNEG", "TRELU", "TNOT", "TADDS", "TSUBS", "TMULS",
               "TMAXS", "TMINS")
BSTOP = 0x00000001
LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"

# words worked by hand: BSTART.TEPL = 0x00019181 | DataType << 27 | Mode << 25 | Function << 20
TAND_U8 = 0xD8619181  # U8 = 27, selector 0x06
TOR_U8 = 0xD8719181  # 0x07
TXOR_U8 = 0xD8819181  # 0x08
TSHL_S16 = 0x90919181  # S16 = 18, selector 0x09
TSHR_S16 = 0x90A19181  # 0x0A
TSHR_U16 = 0xD0A19181  # U16 = 26
TAND_FP32 = 0x08619181
IOT_SSD = 0x8608CE13  # B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>
IOT_S1_D = 0x0200DE13  # B.IOT M#1, mask=1111, ->T<SizeCode 1>
IOT_S2_LAST = 0x02185E13  # B.IOT M#2, mask=1111, <last>
IOT_D = 0x0000EE13  # B.IOT mask=1111, ->T<SizeCode 1>
IOT_SS_LAST = 0x86084E13  # B.IOT M#1, M#2, mask=1111, <last>
IOT_S1_D_LAST = 0x0208DE13  # B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>
IOR_A0 = 0x00010013  # B.IOR a0 (RegSrc0 = GPR 2)


def lb(n: int, value: int) -> int:
    """B.DIM zero, value, ->LBn: imm 11:0 in 31:20 (16:12 in 11:7), LB in 14:12."""
    return 0x00000043 | n << 12 | (value & 0xFFF) << 20 | (value >> 12) << 7


A_U8 = [[0xF0, 0xCC, 0xFF], [0x0F, 0x00, 0xAA]]
B_U8 = [[0x5A, 0xAA, 0x81], [0xFF, 0xFF, 0x55]]


def u8_pair(a=A_U8, b=B_U8, cols: int = 16, valid=(2, 3)) -> dict[int, ex.LocalTile]:
    """M#1 and M#2: 128 B U8 tiles of ``cols`` columns (8x16 by default), valid 2x3."""
    rows = 128 // cols
    return {32: ex.LocalTile.of("uint8", rows, cols, valid, a), 33: ex.LocalTile.of("uint8", rows, cols, valid, b)}


def fault(r: ex.ExecResult) -> tuple[str, str] | None:
    if r.fault is None:
        return None
    assert r.fault.point == COMMIT
    return r.fault.name, r.fault.reason


def test_the_table_holds_the_ten_bitwise_operations():
    others = {"TEXPANDS", "TCI", "TTRI", "TCMP", "TCMPS", "TSEL", "TSELS"}  # the other families' entries
    reduce_expand = {op for op, form in ex.CLOSED.items() if form.schema in ("reduction", "expansion")}
    assert set(ex.CLOSED) == set(OPS) | set(ELEMENTWISE) | others | reduce_expand
    for op in TILE_TILE:
        form = ex.CLOSED[op]
        assert (form.schema, form.sources, form.scalar, form.accepts) == ("generic", ("src0", "src1"), None,
                                                                          ex.VEC_INTEGER)
    for op in TILE_SCALAR:
        form = ex.CLOSED[op]
        assert (form.schema, form.sources, form.scalar, form.accepts) == ("tile-scalar", ("src0",), "scalar",
                                                                          ex.VEC_INTEGER)
    assert all(ex.CLOSED[op].oracle == "ptofuzz.oracles.bitwise:spec" and registry.get(op).bundle for op in OPS)
    assert ex.VEC_INTEGER == {"S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8"}


@pytest.mark.parametrize(("op", "dtype", "word"), [
    ("TAND", "U8", TAND_U8), ("TOR", "U8", TOR_U8), ("TXOR", "U8", TXOR_U8), ("TSHL", "S16", TSHL_S16),
    ("TSHR", "S16", TSHR_S16), ("TSHR", "U16", TSHR_U16), ("TAND", "FP32", TAND_FP32),
    # Mode 1 (bit 25): selectors 0x26..0x2A
    ("TANDS", "U8", 0xDA619181), ("TORS", "S32", 0x8A719181), ("TXORS", "U32", 0xCA819181),
    ("TSHLS", "U8", 0xDA919181), ("TSHRS", "S8", 0x9AA19181),
])
def test_start_words(op, dtype, word):
    assert asm.assemble(f"BSTART.VEC {op}, {dtype}") == [word]
    assert asm.disassemble([word]) == [f"BSTART.VEC {op}, {dtype}"]
    assert enc.ENGINE[op] == "VEC"


@pytest.mark.parametrize(("start", "expect"), [
    (TAND_U8, [[0x50, 0x88, 0x81], [0x0F, 0x00, 0x00]]),
    (TOR_U8, [[0xFA, 0xEE, 0xFF], [0xFF, 0xFF, 0xFF]]),
    (TXOR_U8, [[0xAA, 0x66, 0x7E], [0xF0, 0xFF, 0xFF]]),
])
def test_tile_tile_u8_hand_worked_with_no_b_dim(start, expect):
    # no B.DIM at all: the destination takes M#1's descriptor (valid 2x3, 16 columns; 128 B -> 8 rows)
    words = [start, IOT_SSD, BSTOP]
    tiles = u8_pair()
    r = ex.execute(words, tiles)
    assert r.fault is None and r.outcome == "ok", r.fault
    d = r.tiles[0]
    assert (d.dtype, d.rows, d.cols, d.valid_rows, d.valid_cols) == ("uint8", 8, 16, 2, 3)
    assert d.data[:2, :3].tolist() == expect
    assert all(np.array_equal(r.tiles[k].data, tiles[k].data) for k in (32, 33))  # sources persist


def s16_pair(a, b):
    return {32: ex.LocalTile.of("int16", 4, 16, (1, 3), [a]), 33: ex.LocalTile.of("int16", 4, 16, (1, 3), [b])}


@pytest.mark.parametrize(("start", "a", "counts", "expect"), [
    # << keeps the low 16 bits; a count of 17 is 17 & 15 = 1
    (TSHL_S16, [1, 0x4001, 0xFFFF], [3, 1, 17], [8, 0x8002, 0xFFFE]),
    # S16 >> is arithmetic, U16 >> logical; a count of 16 is 0
    (TSHR_S16, [0x8000, 0x7FFF, 0x8000], [15, 4, 16], [0xFFFF, 0x07FF, 0x8000]),
    (TSHR_U16, [0x8000, 0x7FFF, 0x8000], [15, 4, 16], [0x0001, 0x07FF, 0x8000]),
])
def test_shifts_hand_worked(start, a, counts, expect):
    tiles = s16_pair(a, counts)
    if start == TSHR_U16:
        tiles = {k: ex.LocalTile(t.dtype.replace("int", "uint"), t.rows, t.cols, t.valid_rows, t.valid_cols,
                                 t.data.view(np.uint16), t.capacity) for k, t in tiles.items()}
    r = ex.execute([start, IOT_SSD, BSTOP], tiles)
    assert r.fault is None, r.fault
    assert r.tiles[0].data[0, :3].tolist() == expect


def test_the_sources_are_taken_in_binding_order_and_may_span_b_iots():
    a, counts = [1, 2, 3], [4, 1, 0]
    # one binding M#1, M#2: 1 << 4, 2 << 1, 3 << 0
    r = ex.execute([TSHL_S16, IOT_SSD, BSTOP], s16_pair(a, counts))
    assert r.tiles[0].data[0, :3].tolist() == [16, 4, 3]
    # M#1 with the destination, then M#2 marked <last>: the same operands (TMAX's closed schema rejects this)
    r = ex.execute([TSHL_S16, IOT_S1_D, IOT_S2_LAST, BSTOP], s16_pair(a, counts))
    assert r.fault is None and r.tiles[0].data[0, :3].tolist() == [16, 4, 3]
    # M#2 first, then M#1: the operands swap (4 << 1, 1 << 2, 0 << 3)
    swapped = asm.assemble("B.IOT M#2, mask=1111, ->T<SizeCode 1>; B.IOT M#1, mask=1111, <last>")
    r = ex.execute([TSHL_S16, *swapped, BSTOP], s16_pair(a, counts))
    assert r.fault is None and r.tiles[0].data[0, :3].tolist() == [8, 4, 0]
    # a destination-only binding first: the shape still comes from the first bound source
    r = ex.execute([TAND_U8, IOT_D, IOT_SS_LAST, BSTOP], u8_pair())
    assert r.fault is None and (r.tiles[0].valid_rows, r.tiles[0].valid_cols, r.tiles[0].cols) == (2, 3, 16)
    # the counts and <last> are still checked: one source is a binding-count fault, no <last> too
    r = ex.execute([TAND_U8, IOT_S1_D_LAST, BSTOP], u8_pair())
    assert fault(r) == (CONTROL, "TAND binds 2 source(s) and 1 destination(s), not 1 and 1")
    r = ex.execute([TAND_U8, IOT_S1_D, asm.assemble("B.IOT M#2, mask=1111")[0], BSTOP], u8_pair())
    assert fault(r) == (CONTROL, "no binding is marked <last>")


@pytest.mark.parametrize(("dims", "expect", "shape"), [
    # every LB omitted, or written 0 (0 is "not 1..65535": the source's), or written as the source's: legal
    ((), None, (2, 3, 16)),
    ((lb(0, 0), lb(1, 0), lb(2, 0)), None, (2, 3, 16)),
    ((lb(0, 3), lb(1, 2), lb(2, 16)), None, (2, 3, 16)),
    # TADD's schema rejects LB0 = 0 (test_bundle_elementwise); an LB that differs from the sources is allocated,
    # then the operation rejects the shapes (its own legality, after allocation)
    ((lb(0, 2),), (LEGALITY, "valid"), None),
    ((lb(2, 32),), (LEGALITY, "shape"), None),
    # 16 valid rows do not fit 128 B of 16 U8 columns (8 rows): allocation first
    ((lb(1, 16),), (ALLOCATION, "gives 8 rows"), None),
    ((lb(2, 12),), (ALLOCATION, "columns 12 are not a power of two"), None),
])
def test_generic_lbs_both_sides(dims, expect, shape):
    r = ex.execute([TAND_U8, *dims, IOT_SSD, BSTOP], u8_pair())
    got = fault(r)
    if expect is None:
        assert got is None, got
        d = r.tiles[0]
        assert (d.valid_rows, d.valid_cols, d.cols) == shape
        assert d.data[:2, :3].tolist() == [[0x50, 0x88, 0x81], [0x0F, 0x00, 0x00]]
    else:
        assert got is not None and got[0] == expect[0] and expect[1] in got[1], got
        assert set(r.tiles) == {32, 33}  # nothing published


def test_without_a_source_descriptor_the_shape_falls_back_to_one():
    # M#1 unallocated: no LB -> a 1x1 destination of 1 column (128 B: 128 rows), then the source is undefined
    r = ex.execute([TAND_U8, IOT_SSD, BSTOP], {33: u8_pair()[33]})
    assert fault(r) == (LEGALITY, "source M#1 is not allocated (reading undefined elements)")
    # LB0 = 3 alone: Col defaults to the resolved ValidCol, 3, which is no descriptor: allocation first
    r = ex.execute([TAND_U8, lb(0, 3), IOT_SSD, BSTOP], {33: u8_pair()[33]})
    assert fault(r)[0] == ALLOCATION and "columns 3 are not a power of two" in fault(r)[1]
    # with M#1 there, the same LB0 = 3 takes Col from M#1 (16): legal
    assert fault(ex.execute([TAND_U8, lb(0, 3), IOT_SSD, BSTOP], u8_pair())) is None


def test_the_type_is_checked_after_allocation_for_tand_and_before_for_tands():
    f32 = {k: ex.LocalTile.of("float32", 8, 4, (2, 3), [[0, 0, 0]]) for k in (32, 33)}
    r = ex.execute([TAND_FP32, IOT_SSD, BSTOP], f32)
    assert fault(r) == (LEGALITY, "TAND does not take FP32")
    # 16 valid rows of 4 FP32 columns overflow 128 B: TAND allocates first, so the allocation fault wins
    r = ex.execute([TAND_FP32, lb(1, 16), IOT_SSD, BSTOP], f32)
    assert fault(r)[0] == ALLOCATION
    # TANDS: its closed schema rejects the type before allocating
    one = {32: f32[32]}
    r = ex.execute([0x0A619181, lb(0, 3), lb(1, 16), lb(2, 4), IOT_S1_D_LAST, BSTOP], one)
    assert fault(r) == (LEGALITY, "TANDS does not take FP32")
    # an S16 start over U8 sources: allocated as S16, then one element type is required
    r = ex.execute([TSHL_S16, IOT_SSD, BSTOP], u8_pair())
    assert fault(r)[0] == LEGALITY and "takes one element type" in fault(r)[1]


@pytest.mark.parametrize(("extra", "expect"), [
    ([IOR_A0], (CONTROL, "TAND uses no B.IOR register; rs0 nonzero")),
    ([0x00000013], None),  # B.IOR zero: names no register, legal
    (asm.assemble("B.DATR cmode=LT, dtype=FP64"), (LEGALITY, "TAND takes only PadValue in B.DATR; cmode nonzero")),
    # PadValue alone is legal, but DataType 0 makes the destination FP64: 128 B of 16 FP64 columns is one row,
    # and the source's 2 valid rows do not fit (sized in the effective type, before any type check)
    (asm.assemble("B.DATR pad=Max, dtype=FP64"), (ALLOCATION, "128 B gives 1 rows of 16 FP64")),
])
def test_tand_header_fields_both_sides(extra, expect):
    r = ex.execute([TAND_U8, IOT_SSD, *extra, BSTOP], u8_pair(), {"a0": 7})
    got = fault(r)
    if expect is None:
        assert got is None and r.tiles[0].data[0, :3].tolist() == [0x50, 0x88, 0x81]
    else:
        assert got is not None and got[0] == expect[0] and expect[1] in got[1], got
        assert set(r.tiles) == {32, 33}


def test_mask_zero_is_a_noop():
    r = ex.execute([TAND_U8, asm.assemble("B.IOT M#1, M#2, mask=0000, <last>, ->T<SizeCode 1>")[0], BSTOP],
                   u8_pair())
    assert r.fault is None and r.outcome == "noop" and 0 not in r.tiles


def u8_row(values_, dtype="uint8"):
    return {32: ex.LocalTile.of(dtype, 16, 8, (1, len(values_)), [values_])}


@pytest.mark.parametrize(("start", "dtype", "a", "a0", "expect"), [
    # the scalar is a0's low element bits: 0x...0F is 15
    (0xDA619181, "uint8", [170, 243], 0x12345F0F, [10, 3]),  # TANDS
    (0xDA719181, "uint8", [160, 240], 15, [175, 255]),  # TORS
    (0xDA819181, "uint8", [170, 243], 0xFF0F, [165, 252]),  # TXORS
    (0xDA919181, "uint8", [129, 3], 9, [2, 6]),  # TSHLS: 9 & 7 = 1, the result 8 bits wide
    (0x9AA19181, "int8", [0x80, 126], 9, [0xC0, 63]),  # TSHRS S8: arithmetic, count 1
])
def test_tile_scalar_hand_worked(start, dtype, a, a0, expect):
    words = [start, lb(0, 2), lb(2, 8), IOT_S1_D_LAST, IOR_A0, BSTOP]
    tiles = u8_row(a, dtype)
    r = ex.execute(words, tiles, {"a0": a0})
    assert r.fault is None, r.fault
    assert r.tiles[0].data[0, :2].tolist() == expect
    assert np.array_equal(r.tiles[32].data, tiles[32].data)


def test_tile_scalar_closed_schema_both_sides():
    tands = 0xDA619181
    # LB0 is required (the closed schema), unlike TAND
    r = ex.execute([tands, IOT_S1_D_LAST, IOR_A0, BSTOP], u8_row([1, 2]), {"a0": 1})
    assert fault(r) == (LEGALITY, "TANDS needs LB0 = ValidCol in 1..65535")
    # the source must match LB1 x LB0 and LB2 (valid 1x2 of 8 columns)
    r = ex.execute([tands, lb(0, 2), IOT_S1_D_LAST, IOR_A0, BSTOP], u8_row([1, 2]), {"a0": 1})
    assert fault(r)[0] == LEGALITY and "does not match LB1 x LB0" in fault(r)[1]
    # no <last>: binding completeness (Fault_BundleControl), before the schema
    r = ex.execute([tands, lb(0, 2), lb(2, 8), IOT_S1_D, BSTOP], u8_row([1, 2]), {"a0": 1})
    assert fault(r) == (CONTROL, "no binding is marked <last>")
    # complete, but in two B.IOTs: the schema wants one terminal B.IOT (TAND takes this form)
    r = ex.execute([tands, lb(0, 2), lb(2, 8), asm.assemble("B.IOT M#1, mask=1111")[0],
                    asm.assemble("B.IOT mask=1111, <last>, ->T<SizeCode 1>")[0], BSTOP], u8_row([1, 2]))
    assert fault(r)[0] == LEGALITY and "in one B.IOT marked <last>" in fault(r)[1]
    # RegSrc1 is not read
    r = ex.execute([tands, lb(0, 2), lb(2, 8), IOT_S1_D_LAST, asm.assemble("B.IOR a0, a1")[0], BSTOP],
                   u8_row([1, 2]), {"a0": 1})
    assert fault(r)[0] == CONTROL and "uses only B.IOR RegSrc0" in fault(r)[1]
    # no B.IOR: the scalar is zero (AND with 0)
    r = ex.execute([tands, lb(0, 2), lb(2, 8), IOT_S1_D_LAST, BSTOP], u8_row([0xFF, 0x0F]))
    assert r.fault is None and r.tiles[0].data[0, :2].tolist() == [0, 0]


# ---- against the direct spec oracle ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", OPS)
def test_bundles_equal_the_direct_spec_oracle(op):
    inst = registry.get(op)
    counts = {"ok": 0, "fault": 0}
    for k in range(40):
        src = seeded(12, op, str(k))
        case = inst.illegal_case(src, {}) if k % 4 == 0 else inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        assert bundled.kind == direct.kind, (case, bundled.reason, direct.reason)
        counts[direct.kind] += 1
        if direct.kind == "fault":
            assert (bundled.fault.name, bundled.fault.point) == (direct.fault.name, direct.fault.point), case
            continue
        exact = direct.classes["dst"] == 0
        assert exact.any() and np.array_equal(bundled.outputs["dst"][exact], direct.outputs["dst"][exact]), case
    assert counts["ok"] >= 20 and counts["fault"] >= 8, counts


def test_generic_spelling_writes_only_the_lbs_that_differ_from_the_first_source():
    t = Tile(8, 16, 2, 3)  # 128 B of U8
    case = Case("TAND", "spec", "uint8", (("dst", t), ("src0", t), ("src1", t)))
    assert gb.spelling_problem(case) is None
    b = gb.bundle_for(case, {r: np.zeros(t.shape, np.uint8) for r in ("src0", "src1")})
    assert asm.disassemble(b.words) == ["BSTART.VEC TAND, U8", "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>",
                                        "BSTOP"]
    # a destination narrower than the sources: LB0 written (the operation then rejects the shapes)
    case = case.replace(tiles=(("dst", Tile(8, 16, 2, 2)), ("src0", t), ("src1", t)))
    assert [w for w in asm.disassemble(gb.bundle_for(case, {r: np.zeros(t.shape, np.uint8) for r in (
        "src0", "src1")}).words) if w.startswith("B.DIM")] == ["B.DIM zero, 2, ->LB0"]
    # an empty destination region the first source does not share has no spelling (an LB of 0 is a default)
    case = case.replace(tiles=(("dst", Tile(8, 16, 0, 3)), ("src0", t), ("src1", t)))
    assert "ValidRow 0" in gb.spelling_problem(case)
    # ... while one every tile shares is the sources' own, spelled with no LB, and the operation rejects it
    e = Tile(8, 16, 0, 3)
    case = case.replace(tiles=(("dst", e), ("src0", e), ("src1", e)))
    zeros = {r: np.zeros(e.shape, np.uint8) for r in ("src0", "src1")}
    assert backend.evaluate(case, zeros).fault.name == registry.get("TAND").evaluate(case, zeros).fault.name == \
        LEGALITY


def test_fuzzing_finds_a_planted_default_bug(monkeypatch):
    from ptofuzz.engine import campaign

    real = ex._generic_shape

    def wrong(block, tiles, first):  # LB1 omitted read as 1 (the closed schemas' default), not the source's
        (rows, valid_cols), cols = real(block, tiles, first)
        return (block.lbs.get(1) or 1, valid_cols), cols

    monkeypatch.setattr(ex, "_generic_shape", wrong)
    plan = campaign.make_plan("tand", ["spec", "bundle"], seed=3, batch=32)
    store, _ = campaign.run_random(plan, runs=400)
    assert store.findings


@pytest.mark.parametrize("op", ["tand", "tshr", "txors", "tshls"])
def test_fuzz_cli_spec_bundle_finds_nothing(cli, tmp_path, op):
    res = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "5000", "--seed", "1", "--out", tmp_path, "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 5000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


@pytest.mark.parametrize("op", ["tand", "tshrs"])
def test_gen_bundle_writes_bitwise_bundles(cli, tmp_path, op):
    assert cli("gen", op, "--platform", "spec", "--bundle", "-o", tmp_path).code == 0
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) >= 5
    for folder in folders:
        manifest = json.loads((folder / "ptofuzz.json").read_text())
        words = [int(w, 16) for w in manifest["bundle"]["words"]]
        assert (folder / "bundle.bin").read_bytes() == b"".join(w.to_bytes(4, "little") for w in words)
        assert asm.assemble((folder / "bundle.s").read_text()) == words
        assert manifest["bundle"]["expected"]["outcome"] == "ok"
        if op == "tshrs":
            scalar = int.from_bytes((folder / "scalar.bin").read_bytes(), "little")
            bits = 8 * len((folder / "scalar.bin").read_bytes())
            assert manifest["bundle"]["gprs"]["a0"] & ((1 << bits) - 1) == scalar
    assert cli("check", tmp_path).code == 0


@pytest.mark.parametrize("code", sorted(c for c, name in enc.DATATYPES.items() if name != "NONE"))
def test_every_start_type_of_a_generic_operation_commits_to_a_verdict(code):
    """TAND sizes its destination in any start type before checking it (TileElementBits: 4-bit types too): U8
    runs; a 64-bit type (16 columns in 128 B: one row, the sources' 2 valid rows do not fit) is an allocation
    fault; every other type a legality fault at commit (not TAND's type, or not the sources')."""
    name = enc.DATATYPES[code]
    start = 0x00619181 | code << 27
    assert asm.disassemble([start]) == [f"BSTART.VEC TAND, {name}"]
    r = ex.execute([start, IOT_SSD, BSTOP], u8_pair())
    expect = None if name == "U8" else ALLOCATION if name in ("FP64", "S64", "U64") else LEGALITY
    assert (None if r.fault is None else r.fault.name) == expect, r.fault
    if expect is not None:
        assert r.fault.point == COMMIT and set(r.tiles) == {32, 33}
