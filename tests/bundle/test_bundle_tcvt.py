"""TCVT bundles (pto-spec 0.58.3): ``BSTART.VEC TCVT, <source type>``, an optional B.DATR (DataType: the
destination type, DTYPE_NONE or no B.DATR inheriting the source's; RMode; Sat; Canonicalize; Layout; PadValue),
B.DIM LB0 (LB1, LB2 optional) and one terminal B.IOT binding the source and the destination. The checks of
``asl/block/model/dispatch/tile-execution.asl`` in their order, ``SelectedBundleClosedTCVTSchemaLegal``
(``tcvt-schema.asl``), the E8M0 pair rule (``asl/arch/profile/e8m0-conversion.asl``) and ``TileOperandsLegal_TCVT``
(``asl/tile/model/legality/operand-schema.asl``); the values are the conversion spec oracle's. Hand-worked words
and values, each rule on both sides, and the executor against the direct spec oracle (``fuzz --oracles
spec,bundle``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz.backends import bundle as backend
from ptofuzz.bundle import asm
from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle import executor as ex
from ptofuzz.core import dtypes
from ptofuzz.core.case import COMMIT, Case, Tile
from ptofuzz.generators import bundle as gb
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import conversion

LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"
BSTOP = 0x00000001


def start(type_code: int) -> int:
    """BSTART.TEPL TCVT (Mode 0, Function 27): 0x01B19181 | DataType << 27."""
    return 0x01B19181 | type_code << 27


def datr(*, cmode=0, pad=0, sat=0, canon=0, dtype=31, rmode=0, layout=0) -> int:
    """B.DATR: CMode 31:29, Pad 28:27, Sat 26, Canon 25, DataType 24:20, RMode 17:15, Layout 11:7."""
    return (0x00001023 | cmode << 29 | pad << 27 | sat << 26 | canon << 25 | dtype << 20 | rmode << 15
            | layout << 7)


def lb(n: int, value: int) -> int:
    return 0x00000043 | n << 12 | (value & 0xFFF) << 20 | (value >> 12) << 7


def iot_sd(src: int = 32, size: int = 1, last: bool = True) -> int:
    """B.IOT <src>, mask=1111, [<last>,] ->T<SizeCode size>."""
    return 0x00005013 | src << 20 | int(last) << 19 | size << 15 | 7 << 9


FP32, FP16, BF16, S32, U16, U8, E4M3, E5M2, HIF8, E8M0, FP64 = 1, 4, 5, 17, 26, 27, 7, 8, 6, 13, 0


def test_selector_and_assembly():
    assert enc.SELECTORS[0x1B] == "TCVT" and enc.ENGINE["TCVT"] == "VEC" and "TCVT" in ex.SUPPORTED
    words = [start(U8), datr(dtype=U16, pad=3, rmode=2, sat=1), lb(0, 2), lb(2, 8), iot_sd(1, 2), BSTOP]
    assert asm.disassemble(words) == [
        "BSTART.VEC TCVT, U8", "B.DATR cmode=EQ, pad=Null, sat=1, canon=0, dtype=U16, rmode=RTZ, layout=NORM",
        "B.DIM zero, 2, ->LB0", "B.DIM zero, 8, ->LB2", "B.IOT T#2, mask=1111, <last>, ->T<SizeCode 2>", "BSTOP"]
    assert asm.assemble("\n".join(asm.disassemble(words))) == words
    assert registry.get("TCVT").bundle


@pytest.mark.parametrize(("type_code", "extra", "dtype", "row", "expect", "out"), [
    # FP32 1.0 and 65520 to FP16 (B.DATR DataType FP16, RMode default: RNE): 0x3c00, and the tie above 65504
    # rounds to 65536, past the range: infinity without Sat, the largest finite 0x7bff with it
    (FP32, [datr(dtype=FP16)], "float32", [0x3F800000, 0x477FF000], [0x3C00, 0x7C00], "float16"),
    (FP32, [datr(dtype=FP16, sat=1)], "float32", [0x3F800000, 0x477FF000], [0x3C00, 0x7BFF], "float16"),
    # FP32 -2.5 to S32: the default toward zero -2; RNE -2 (tie to even); RNA -3; RTM -3; RTP -2; RTO -3 (odd)
    (FP32, [datr(dtype=S32)], "float32", [0xC0200000], [0xFFFFFFFE], "int32"),
    (FP32, [datr(dtype=S32, rmode=1)], "float32", [0xC0200000], [0xFFFFFFFE], "int32"),
    (FP32, [datr(dtype=S32, rmode=5)], "float32", [0xC0200000], [0xFFFFFFFD], "int32"),
    (FP32, [datr(dtype=S32, rmode=3)], "float32", [0xC0200000], [0xFFFFFFFD], "int32"),
    (FP32, [datr(dtype=S32, rmode=4)], "float32", [0xC0200000], [0xFFFFFFFE], "int32"),
    (FP32, [datr(dtype=S32, rmode=6)], "float32", [0xC0200000], [0xFFFFFFFD], "int32"),
    # RMode 7 (RHB): a tie to the greater neighbour: -2.5 to -2, 2.5 to 3
    (FP32, [datr(dtype=S32, rmode=7)], "float32", [0xC0200000, 0x40200000], [0xFFFFFFFE, 3], "int32"),
    # a NaN to S32: the indefinite value (the minimum) without Sat, 0 with it
    (FP32, [datr(dtype=S32)], "float32", [0x7FC00000], [0x80000000], "int32"),
    (FP32, [datr(dtype=S32, sat=1)], "float32", [0x7FC00000], [0], "int32"),
    # U16 300 to U8: modulo 256 (44) without Sat, clamped to 255 with it
    (U16, [datr(dtype=U8)], "uint16", [300], [44], "uint8"),
    (U16, [datr(dtype=U8, sat=1)], "uint16", [300], [255], "uint8"),
    # no B.DATR, or DTYPE_NONE: the source type; FP32 to FP32 keeps a number, a NaN (here signalling) becomes
    # the canonical NaN (the conversion profile's rule for every produced NaN)
    (FP32, [], "float32", [0x3FC00000, 0x7F800001], [0x3FC00000, 0x7FC00000], "float32"),
    (FP32, [datr(rmode=2)], "float32", [0x3FC00000], [0x3FC00000], "float32"),
    # the 8-bit floats: FP32 1.0 to E4M3 (0x38) and E5M2 (0x3c); E4M3 0x38 back to FP32
    (FP32, [datr(dtype=E4M3)], "float32", [0x3F800000], [0x38], "float8_e4m3"),
    (FP32, [datr(dtype=E5M2)], "float32", [0x3F800000], [0x3C], "float8_e5m2"),
    (E4M3, [datr(dtype=FP32)], "float8_e4m3", [0x38], [0x3F800000], "float32"),
])
def test_hand_worked(type_code, extra, dtype, row, expect, out):
    # a 16x8 source (valid 1 x len(row)); the destination 16x8 too, its TSize 128 elements of its type
    src = {32: ex.LocalTile.of(dtype, 16, 8, (1, len(row)), [row])}
    size = (128 * np.dtype(ex.LocalTile.of(out, 1, 1, (1, 1)).data.dtype).itemsize // 128).bit_length()
    words = [start(type_code), *extra, lb(0, len(row)), lb(2, 8), iot_sd(size=size), BSTOP]
    r = ex.execute(words, src)
    assert r.fault is None and r.outcome == "ok", (r.fault, r.blocks)
    t = r.tiles[0]
    assert t.dtype == out and (t.rows, t.cols, t.valid_rows, t.valid_cols) == (16, 8, 1, len(row))
    assert t.data[0, :len(row)].tolist() == expect
    assert np.array_equal(r.tiles[32].data, src[32].data)  # the source persists
    assert r.blocks[0].flags == ()


def u8_block(*extra: int, dims: tuple[int, ...] | None = None, binding: tuple[int, ...] | None = None,
             start_type: int = U8) -> list[int]:
    """U8 [7, 9] (M#1: 16x8, valid 1x2) to U16 in 256 B unless ``extra`` holds another B.DATR."""
    head = list(extra) if extra else [datr(dtype=U16)]
    return [start(start_type), *head, *(dims if dims is not None else (lb(0, 2), lb(2, 8))),
            *(binding if binding is not None else (iot_sd(size=2),)), BSTOP]


U8_SRC = {32: ex.LocalTile.of("uint8", 16, 8, (1, 2), [[7, 9]])}
IOR_A0 = 0x00010013
IOT_S = 0x00005013 | 32 << 20 | 7 << 9  # B.IOT M#1, mask=1111 (no destination, no <last>)
IOT_D = 0x00006013 | 1 << 19 | 2 << 15 | 7 << 9  # B.IOT mask=1111, <last>, ->T<SizeCode 2>


@pytest.mark.parametrize(("words", "fault"), [
    # binding completeness and B.IOR fields (Fault_BundleControl): no <last>; a second source; a register read
    (u8_block(binding=(iot_sd(size=2, last=False),)), CONTROL),
    (u8_block(binding=(0x00004013 | 32 << 20 | 33 << 26 | 1 << 19 | 2 << 15 | 7 << 9,)), CONTROL),
    (u8_block(datr(dtype=U16), IOR_A0), CONTROL),
    # B.DATR: CMode is the one field TCVT does not take
    (u8_block(datr(dtype=U16, cmode=1)), LEGALITY),
    # the schema: any B.IOR, even all zero; the source and destination in two B.IOTs; LB0 missing; LB1 zero
    (u8_block(datr(dtype=U16), 0x00000013), LEGALITY),
    (u8_block(binding=(IOT_S, IOT_D)), LEGALITY),
    (u8_block(dims=(lb(2, 8),)), LEGALITY),
    (u8_block(dims=(lb(0, 2), lb(1, 0), lb(2, 8))), LEGALITY),
    # the source not of the BSTART type (U8 tile, BSTART S32)
    (u8_block(datr(dtype=U16), start_type=S32), LEGALITY),
    # an E8M0 destination from U8 (only FP16, BF16, FP32 sources)
    (u8_block(datr(dtype=E8M0)), LEGALITY),
    # Canonicalize on an ordinary source; a Layout reading a DN / ZN / NZ source (DN2ND, ZN2NZ, NZ2ND)
    (u8_block(datr(dtype=U16, canon=1)), LEGALITY),
    *[(u8_block(datr(dtype=U16, layout=code)), LEGALITY) for code in (6, 20, 27)],
    # the destination (LB0..LB2 in U16): TSize 128 B holds 8 rows of 8 U16, the source has 16: allocated, then
    # TileOperandsLegal_TCVT; 8 valid rows in 64 B rows... a TSize of 128 B for LB1 = 9 rows: no room
    (u8_block(binding=(iot_sd(size=1),)), LEGALITY),
    (u8_block(dims=(lb(0, 2), lb(1, 9), lb(2, 8)), binding=(iot_sd(size=1),)), ALLOCATION),
])
def test_rules_both_sides(words, fault):
    r = ex.execute(words, U8_SRC, {"a0": 0})
    assert (r.fault.name, r.fault.point) == (fault, COMMIT), (r.fault, asm.disassemble(words))
    assert set(r.tiles) == {32}
    ok = ex.execute(u8_block(), U8_SRC, {"a0": 0})
    assert ok.fault is None and ok.tiles[0].data[0, :2].tolist() == [7, 9] and ok.tiles[0].dtype == "uint16"


@pytest.mark.parametrize("extra", [
    datr(dtype=U16, pad=1, sat=1, rmode=4),  # every field but CMode and Canonicalize, nonzero
    datr(dtype=U16, layout=0),
])
def test_fields_tcvt_takes(extra):
    r = ex.execute(u8_block(extra), U8_SRC)
    assert r.fault is None and r.tiles[0].data[0, :2].tolist() == [7, 9]


@pytest.mark.parametrize(("words", "reason"), [
    # legal blocks ptofuzz does not compute: a DN/ZN/NZ destination (ND2DN, ND2ZN, ND2NZ), FP64 and
    # E8M0 destinations (no element model), a CUBE conversion Layout (the schema cannot index it)
    *[(u8_block(datr(dtype=U16, layout=code)), "row-major") for code in (1, 3, 4)],
    (u8_block(datr(dtype=FP64), binding=(iot_sd(size=4),)), "FP64"),
    ([start(FP32), datr(dtype=E8M0), lb(0, 2), lb(2, 8), iot_sd(size=1), BSTOP], "E8M0"),
    (u8_block(datr(dtype=U16, layout=21)), "unreachable"),
])
def test_unsupported_after_every_check(words, reason):
    src = dict(U8_SRC) if enc.decode(words[0])["datatype"] == U8 else {
        32: ex.LocalTile.of("float32", 16, 8, (1, 2), [[0x3F800000, 0x40000000]])}
    r = ex.execute(words, src)
    assert r.fault is None and r.outcome == "unsupported" and reason in r.blocks[0].reason, r.blocks
    assert 0 not in r.tiles


def test_unsupported_types_are_still_sized():
    """An FP64 destination of 16x8 needs 1 KiB: a TSize of 256 B is an allocation fault, not unsupported; a
    512 B TSize gives 8 rows against the source's 16: TileOperandsLegal_TCVT."""
    r = ex.execute(u8_block(datr(dtype=FP64), dims=(lb(0, 2), lb(1, 9), lb(2, 8)), binding=(iot_sd(size=2),)),
                   U8_SRC)
    assert r.fault.name == ALLOCATION
    r = ex.execute(u8_block(datr(dtype=FP64), binding=(iot_sd(size=3),)), U8_SRC)
    assert r.fault.name == LEGALITY and "TileOperandsLegal_TCVT" in r.fault.reason


def test_pe_mask_zero_is_a_no_op():
    r = ex.execute(u8_block(binding=(iot_sd(size=2) & ~(7 << 9),)), U8_SRC)
    assert r.fault is None and r.outcome == "noop" and set(r.tiles) == {32}


def test_spelling():
    t = Tile(16, 8, 2, 5)
    case = Case("TCVT", "spec", "float32", (("dst", t), ("src", t)),
                ((conversion.TO, "int16"), (conversion.RMODE, 2), (conversion.SAT, conversion.SAT_ON)))
    b = gb.bundle_for(case, {"src": np.zeros((16, 8), np.uint32)})
    assert asm.disassemble(b.words) == [
        "BSTART.VEC TCVT, FP32", "B.DATR cmode=EQ, pad=Null, sat=1, canon=0, dtype=S16, rmode=RNA, layout=NORM",
        "B.DIM zero, 5, ->LB0", "B.DIM zero, 2, ->LB1", "B.DIM zero, 8, ->LB2",
        "B.IOT M#1, mask=1111, <last>, ->T<SizeCode 2>", "BSTOP"]
    same = Case("TCVT", "spec", "float32", (("dst", t), ("src", t)), ((conversion.TO, "float32"),
                                                                         (conversion.RMODE, 0)))
    assert not any(enc.decode(w).form == "B.DATR" for w in gb.bundle_for(same, {"src": np.zeros((16, 8))}).words)
    rounded = Case("TCVT", "spec", "float32", (("dst", t), ("src", t)), ((conversion.TO, "float32"),
                                                                            (conversion.RMODE, 3)))
    w = next(w for w in gb.bundle_for(rounded, {"src": np.zeros((16, 8))}).words if enc.decode(w).form == "B.DATR")
    assert enc.decode(w)["datatype"] == 31 and enc.decode(w)["rmode"] == 3  # DTYPE_NONE, RTM
    odd = case.replace(params=((conversion.TO, "int16"), (conversion.RMODE, 9)))
    assert gb.spelling_problem(odd) is not None


def test_bundles_equal_the_direct_spec_oracle():
    """Random spec cases (every pair of ptofuzz's types, every mode, saturation on, off and the default) through
    the direct oracle and the bundle: the same values and the same open elements; and broken bundles of them
    fault as the direct oracle does."""
    inst = registry.get("TCVT")
    pairs = set()
    for k in range(150):
        src = seeded(31, "TCVT", str(k))
        case = inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        four = {t for t in (case.dtype, case.param(conversion.TO)) if dtypes.get(t).bits == 4}
        if four:  # the spec model converts the 4-bit lanes; the bundle spells no packed tile yet
            # (a pair of two 4-bit types: the reason names one of them)
            assert direct.kind == "ok" and bundled.kind == "unsupported" and any(t in bundled.reason for t in four)
            continue
        assert bundled.kind == direct.kind == "ok", (case, bundled.reason)
        assert np.array_equal(bundled.classes["dst"], direct.classes["dst"]), case
        exact = direct.classes["dst"] == 0
        assert np.array_equal(bundled.outputs["dst"][exact], direct.outputs["dst"][exact]), case
        pairs.add((case.dtype, case.param(conversion.TO)))
        # the destination's valid region one column narrower than the source's: both fault after allocation
        d = case.tile("dst")
        if d.valid_cols > 1:
            narrow = case.replace(tiles=(("dst", Tile(d.rows, d.cols, d.valid_rows, d.valid_cols - 1)),
                                         ("src", case.tile("src"))))
            a, b = inst.evaluate(narrow, inputs), backend.evaluate(narrow, inputs)
            assert a.kind == b.kind == "fault" and (a.fault.name, a.fault.point) == (b.fault.name, b.fault.point)
    assert len(pairs) >= 60


def test_a_batch_runs_as_one_bundle():
    inst = registry.get("TCVT")
    src = seeded(5, "TCVT")
    case = inst.random_case(src, "spec", {"dtype": "float32", "to": "int8"})
    batch = inst.draw_batch(src, case, values.ValueMix(0.3), 6)
    whole = backend.evaluate(case, batch)
    assert whole.kind == "ok" and whole.outputs["dst"].shape[0] == 6
    for i in range(6):
        direct = inst.evaluate(case, {"src": batch["src"][i]})
        exact = direct.classes["dst"] == 0
        assert np.array_equal(whole.outputs["dst"][i][exact], direct.outputs["dst"][exact])


def test_fuzz_cli_spec_bundle_finds_nothing(cli, tmp_path):
    res = cli("fuzz", "tcvt", "--oracles", "spec,bundle", "--runs", "3000", "--seed", "1", "--out", tmp_path,
              "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 3000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


def test_gen_bundle_of_tcvt_checks(cli, tmp_path):
    assert cli("gen", "tcvt", "--platform", "spec", "--bundle", "--dtype", "float32", "--to", "float16",
               "--random", "4",
               "-o", tmp_path).code == 0
    manifests = [json.loads((p / "ptofuzz.json").read_text())["bundle"] for p in tmp_path.iterdir() if p.is_dir()]
    assert manifests and all(m["expected"]["outcome"] == "ok" for m in manifests)
    assert cli("check", tmp_path).code == 0
