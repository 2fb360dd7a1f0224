"""Bundles of the generation family (pto-spec 0.58.3): TEXPANDS under its closed schema
(``SelectedBundleClosedTEXPANDSSchemaLegal``, ``asl/block/model/dispatch/tile-scalar-schema.asl``): one B.IOT with
``<last>`` binding a destination and no source, LB0 required, the arithmetic types, the scalar B.IOR RegSrc0's low
element bits; TCI and TTRI under the generation schema (``generation-schema.asl``), their B.IOR RegSrc0 / RegSrc1
checked before allocation (``BundleOperationGPRBindingValuesLegal``, ``scalar-schema.asl``). Hand-worked words
and results, each rule on both sides, and the executor against the direct spec oracle
(``fuzz --oracles spec,bundle``)."""

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

BSTOP = 0x00000001
LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"

# BSTART.TEPL = 0x00019181 | DataType << 27 | Mode << 25 | Function << 20; TEXPANDS is selector 0x3B (Mode 1,
# Function 27)
TEXPANDS_U8 = 0xDBB19181  # U8 = 27
TEXPANDS_S16 = 0x93B19181  # S16 = 18
TEXPANDS_FP32 = 0x0BB19181  # FP32 = 1
IOT_D_LAST = 0x0008EE13  # B.IOT mask=1111, <last>, ->T<SizeCode 1>
IOT_D = 0x0000EE13  # the same without <last>
IOT_S1_D_LAST = 0x0208DE13  # B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>
IOR_A0 = 0x00010013  # B.IOR a0 (RegSrc0 = GPR 2)
IOR_A0_A1 = 0x00318013  # B.IOR a0, a1 (RegSrc1 = GPR 3 as well)


def lb(n: int, value: int) -> int:
    """B.DIM zero, value, ->LBn: imm 11:0 in 31:20 (16:12 in 11:7), LB in 14:12."""
    return 0x00000043 | n << 12 | (value & 0xFFF) << 20 | (value >> 12) << 7


def test_the_table_holds_texpands():
    form = ex.CLOSED["TEXPANDS"]
    assert (form.schema, form.sources, form.scalar) == ("tile-scalar", (), "scalar")
    assert form.oracle == "ptofuzz.oracles.generation:texpands_spec" and form.accepts == ex.VEC_ARITHMETIC
    assert registry.get("TEXPANDS").bundle
    assert asm.disassemble([TEXPANDS_U8, lb(0, 2), IOT_D_LAST, IOR_A0, BSTOP]) == [
        "BSTART.VEC TEXPANDS, U8", "B.DIM zero, 2, ->LB0", "B.IOT mask=1111, <last>, ->T<SizeCode 1>", "B.IOR a0",
        "BSTOP"]


@pytest.mark.parametrize(("start", "a0", "dims", "expect", "shape"), [
    # U8, LB0 = 2: a0 = 0x1ff, its low 8 bits 0xff in both columns of one row; 128 B of 2 columns: 64 rows
    (TEXPANDS_U8, 0x1FF, [lb(0, 2)], [[0xFF, 0xFF]], (64, 2, 1, 2)),
    # S16, 2x3 valid of 4 columns: -2 sign-extended in a0, 0xfffe in every valid element
    (TEXPANDS_S16, (1 << 64) - 2, [lb(0, 3), lb(1, 2), lb(2, 4)], [[0xFFFE] * 3] * 2, (16, 4, 2, 3)),
    # FP32: a signalling NaN's bits copied, no flag, no quieting
    (TEXPANDS_FP32, 0x7F800001, [lb(0, 1)], [[0x7F800001]], (32, 1, 1, 1)),
])
def test_texpands_hand_worked(start, a0, dims, expect, shape):
    r = ex.execute([start, *dims, IOT_D_LAST, IOR_A0, BSTOP], {}, {"a0": a0})
    assert r.fault is None and r.outcome == "ok", r.fault
    t = r.tiles[0]
    assert (t.rows, t.cols, t.valid_rows, t.valid_cols) == shape
    rows, cols = shape[2], shape[3]
    assert t.data[:rows, :cols].tolist() == expect
    assert r.blocks[0].flags == ()


def test_texpands_without_a_b_ior_fills_zero():
    r = ex.execute([TEXPANDS_U8, lb(0, 2), IOT_D_LAST, BSTOP], {}, {"a0": 0x55})
    assert r.fault is None and r.tiles[0].data[0, :2].tolist() == [0, 0]


@pytest.mark.parametrize(("words", "fault"), [
    # the schema: LB0 required (and 1..65535), LB1 nonzero when present
    ([TEXPANDS_U8, IOT_D_LAST, IOR_A0, BSTOP], LEGALITY),
    ([TEXPANDS_U8, lb(0, 2), lb(1, 0), IOT_D_LAST, IOR_A0, BSTOP], LEGALITY),
    # two destinations: TEXPANDS writes one (binding completeness)
    ([TEXPANDS_U8, lb(0, 2), IOT_D, IOT_D_LAST, IOR_A0, BSTOP], CONTROL),
    # a source bound: TEXPANDS reads none (binding completeness)
    ([TEXPANDS_U8, lb(0, 2), IOT_S1_D_LAST, IOR_A0, BSTOP], CONTROL),
    # B.IOR RegSrc1 TEXPANDS does not read
    ([TEXPANDS_U8, lb(0, 2), IOT_D_LAST, IOR_A0_A1, BSTOP], CONTROL),
    # no <last>
    ([TEXPANDS_U8, lb(0, 2), IOT_D, IOR_A0, BSTOP], CONTROL),
    # a type outside the arithmetic ones
    ([0x03B19181 | 6 << 27, lb(0, 2), IOT_D_LAST, IOR_A0, BSTOP], LEGALITY),  # HiF8
    # 3 U8 valid columns of Col 3 (no power of two): the destination cannot be allocated
    ([TEXPANDS_U8, lb(0, 3), IOT_D_LAST, IOR_A0, BSTOP], ALLOCATION),
])
def test_texpands_schema_both_sides(words, fault):
    src = {32: ex.LocalTile.of("uint8", 8, 16, (1, 2), [[1, 2]])}
    r = ex.execute(words, src, {"a0": 7, "a1": 1})
    assert (r.fault.name, r.fault.point) == (fault, COMMIT), r.fault
    assert 0 not in r.tiles and set(r.tiles) == {32}
    legal = ex.execute([TEXPANDS_U8, lb(0, 2), IOT_D_LAST, IOR_A0, BSTOP], src, {"a0": 7, "a1": 1})
    assert legal.fault is None and legal.tiles[0].data[0, :2].tolist() == [7, 7]


def test_texpands_of_a_type_without_an_element_model_is_unsupported():
    """FP64 is in TEXPANDS's types: pto-spec fills it, ptofuzz has no FP64 element; the block is sized (a TSize
    too small for one FP64 row is an allocation fault) and then answered unsupported, not faulted."""
    fp64 = 0x03B19181  # DataType 0
    r = ex.execute([fp64, lb(0, 2), IOT_D_LAST, IOR_A0, BSTOP], {}, {"a0": 1})
    assert r.fault is None and r.outcome == "unsupported"
    r = ex.execute([fp64, lb(0, 32), IOT_D_LAST, IOR_A0, BSTOP], {}, {"a0": 1})  # 32 x 8 B > 128 B
    assert r.fault.name == ALLOCATION


def test_texpands_spelling():
    t = Tile(16, 4, 2, 3)  # 128 B of S16
    case = Case("TEXPANDS", "spec", "int16", (("dst", t), ("scalar", Tile(1, 1, 1, 1))))
    b = gb.bundle_for(case, {"scalar": np.array([[0xFFFE]], np.uint16)})
    assert asm.disassemble(b.words) == ["BSTART.VEC TEXPANDS, S16", "B.DIM zero, 3, ->LB0", "B.DIM zero, 2, ->LB1",
                                        "B.DIM zero, 4, ->LB2", "B.IOT mask=1111, <last>, ->T<SizeCode 1>",
                                        "B.IOR a0", "BSTOP"]
    assert b.tiles == {} and b.gprs == {"a0": (1 << 64) - 2}
    assert enc.decode(b.words[0])["selector"] == 0x3B


def agreement(op: str, n: int) -> dict[str, int]:
    """``n`` cases (one in four illegal) through the direct spec oracle and the bundle executor."""
    inst = registry.get(op)
    counts = {"ok": 0, "fault": 0}
    for k in range(n):
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
    return counts


def test_texpands_bundles_equal_the_direct_spec_oracle():
    counts = agreement("TEXPANDS", 300)
    assert counts["ok"] >= 200 and counts["fault"] >= 60, counts


def test_fuzz_cli_spec_bundle_finds_nothing(cli, tmp_path):
    res = cli("fuzz", "texpands", "--oracles", "spec,bundle", "--runs", "5000", "--seed", "1", "--out", tmp_path,
              "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 5000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


# ---- TCI, TTRI --------------------------------------------------------------------------------------------------
TCI_U16 = 0xD6619181  # Mode 3, Function 6, U16 = 26: BSTART.SFU TCI, U16
TCI_S16 = 0x96619181  # S16 = 18
TTRI_FP16 = 0x26719181  # Function 7, FP16 = 4
IOR_A0_A1_GEN = 0x00310013  # B.IOR a0, a1: RegSrc0 = GPR 2, RegSrc1 = GPR 3


def test_the_table_holds_tci_and_ttri():
    assert asm.disassemble([TCI_U16, TTRI_FP16, IOR_A0_A1_GEN]) == ["BSTART.SFU TCI, U16", "BSTART.SFU TTRI, FP16",
                                                                     "B.IOR a0, a1"]
    assert ex.CLOSED["TCI"].accepts == {"S32", "S16", "U32", "U16"}
    assert ex.CLOSED["TTRI"].accepts == {"FP32", "FP16", "S32", "S16", "U32", "U16"}
    assert all(ex.CLOSED[op].schema == "generation" and registry.get(op).bundle for op in ("TCI", "TTRI"))


@pytest.mark.parametrize(("words", "gprs", "row"), [
    # no B.IOR: start 0, ascending
    ([TCI_U16, lb(0, 4), IOT_D_LAST, BSTOP], {}, [0, 1, 2, 3]),
    # start 0xfffe (a0's low 16 bits of 0x1fffe), ascending: wraps at 16 bits
    ([TCI_U16, lb(0, 4), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a0": 0x1FFFE, "a1": 0}, [0xFFFE, 0xFFFF, 0, 1]),
    # S16 start -1 (sign-extended in a0), descending: -1 -2 -3 as 16-bit patterns
    ([TCI_S16, lb(0, 3), lb(2, 4), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a0": (1 << 64) - 1, "a1": 1},
     [0xFFFF, 0xFFFE, 0xFFFD]),
])
def test_tci_hand_worked(words, gprs, row):
    r = ex.execute(words, {}, gprs)
    assert r.fault is None and r.outcome == "ok", r.fault
    t = r.tiles[0]
    assert (t.valid_rows, t.valid_cols) == (1, len(row)) and t.data[0, :len(row)].tolist() == row


@pytest.mark.parametrize(("gprs", "rows"), [
    # lower, diagonal 0 over 2x3 (Col 4): ones where c <= r
    ({}, [[0x3C00, 0, 0], [0x3C00, 0x3C00, 0]]),
    # upper (a1 = 1), diagonal -1 (a0 = 2**64 - 1): ones where c >= r - 1
    ({"a0": (1 << 64) - 1, "a1": 1}, [[0x3C00] * 3, [0x3C00] * 3]),
    # lower, diagonal -65535: no ones
    ({"a0": (1 << 64) - 65535, "a1": 0}, [[0, 0, 0], [0, 0, 0]]),
])
def test_ttri_hand_worked(gprs, rows):
    words = [TTRI_FP16, lb(0, 3), lb(1, 2), lb(2, 4), IOT_D_LAST, *([IOR_A0_A1_GEN] if gprs else []), BSTOP]
    r = ex.execute(words, {}, gprs)
    assert r.fault is None, r.fault
    t = r.tiles[0]
    assert (t.rows, t.cols, t.valid_rows, t.valid_cols) == (16, 4, 2, 3)
    assert t.data[:2, :3].tolist() == rows


@pytest.mark.parametrize(("words", "gprs", "fault"), [
    # the B.IOR values, before allocation: the direction / orientation exactly 0 or 1; TTRI's diagonal bound
    ([TCI_U16, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a1": 2}, LEGALITY),
    ([TTRI_FP16, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a1": 2}, LEGALITY),
    ([TTRI_FP16, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a0": 65536}, LEGALITY),
    ([TTRI_FP16, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], {"a0": (1 << 64) - 65536}, LEGALITY),
    # RegSrc2 is read by neither (binding completeness)
    ([TCI_U16, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN | 4 << 27, BSTOP], {}, CONTROL),
    # B.DATR: every field zero (a nonzero PadValue is illegal)
    ([TCI_U16, 0x08001023, lb(0, 2), IOT_D_LAST, BSTOP], {}, LEGALITY),
    # LBs: LB0 required; LB2 below LB0; TCI's LB1 other than 1; TTRI's LB1 of 0
    ([TCI_U16, IOT_D_LAST, BSTOP], {}, LEGALITY),
    ([TTRI_FP16, lb(0, 3), lb(2, 2), IOT_D_LAST, BSTOP], {}, LEGALITY),
    ([TCI_U16, lb(0, 2), lb(1, 2), IOT_D_LAST, BSTOP], {}, LEGALITY),
    ([TTRI_FP16, lb(0, 2), lb(1, 0), IOT_D_LAST, BSTOP], {}, LEGALITY),
    # a type outside the operation's; a bound source
    ([0x06619181 | 19 << 27, lb(0, 2), IOT_D_LAST, BSTOP], {}, LEGALITY),  # BSTART.SFU TCI, S8
    ([TCI_U16, lb(0, 2), IOT_S1_D_LAST, BSTOP], {}, CONTROL),
    # 3 columns of U16 (no power of two): the destination cannot be allocated
    ([TCI_U16, lb(0, 3), IOT_D_LAST, BSTOP], {}, ALLOCATION),
])
def test_generation_rules_both_sides(words, gprs, fault):
    src = {32: ex.LocalTile.of("uint16", 4, 16, (1, 2), [[1, 2]])}
    r = ex.execute(words, src, {"a0": 0, "a1": 0, **gprs})
    assert (r.fault.name, r.fault.point) == (fault, COMMIT), (r.fault, asm.disassemble(words))
    assert set(r.tiles) == {32}
    legal = {"a0": 5, "a1": 1}
    for start in (TCI_U16, TTRI_FP16):
        ok = ex.execute([start, lb(0, 2), IOT_D_LAST, IOR_A0_A1_GEN, BSTOP], src, legal)
        assert ok.fault is None and 0 in ok.tiles


def test_a_b_datr_makes_the_destination_fp64():
    """An all-zero B.DATR passes the B.DATR rule; its DataType 0 makes the destination FP64
    (ResolveBundleEffectiveDataType), which TCI does not take: sized, then Fault_TileLegality."""
    r = ex.execute([TCI_U16, 0x00001023, lb(0, 2), IOT_D_LAST, BSTOP], {})
    assert (r.fault.name, r.fault.point) == (LEGALITY, COMMIT) and "FP64" in r.fault.reason


def test_generation_spelling():
    case = Case("TTRI", "spec", "float16", (("dst", Tile(16, 4, 2, 3)),), (("upper", 1), ("diagonal", -1)))
    b = gb.bundle_for(case, {})
    assert asm.disassemble(b.words) == ["BSTART.SFU TTRI, FP16", "B.DIM zero, 3, ->LB0", "B.DIM zero, 2, ->LB1",
                                        "B.DIM zero, 4, ->LB2", "B.IOT mask=1111, <last>, ->T<SizeCode 1>",
                                        "B.IOR a0, a1", "BSTOP"]
    assert b.gprs == {"a0": (1 << 64) - 1, "a1": 1}


@pytest.mark.parametrize("op", ["TCI", "TTRI"])
def test_tci_ttri_bundles_equal_the_direct_spec_oracle(op):
    counts = agreement(op, 200)
    assert counts["ok"] >= 120 and counts["fault"] >= 40, counts


@pytest.mark.parametrize("op", ["tci", "ttri"])
def test_fuzz_cli_spec_bundle_tci_ttri_find_nothing(cli, tmp_path, op):
    res = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "1500", "--seed", "1", "--out", tmp_path, "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 1500 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


def test_gen_bundle_of_ttri_checks_including_cases_without_a_spelling(cli, tmp_path):
    """gen --bundle writes a bundle for every TTRI case a Local tile holds and says why for the others (a 128 KiB
    destination); check reads both kinds of manifest."""
    from ptofuzz.io import validate

    assert cli("gen", "ttri", "--platform", "spec", "--bundle", "-o", tmp_path).code == 0
    manifests = [json.loads((p / "ptofuzz.json").read_text())["bundle"] for p in tmp_path.iterdir() if p.is_dir()]
    spelled = [m for m in manifests if "words" in m]
    unspelled = [m for m in manifests if "none" in m]
    assert spelled and unspelled and all("Local tile size" in m["none"] for m in unspelled)
    assert all(m["expected"]["outcome"] == "ok" for m in spelled)
    assert cli("check", tmp_path).code == 0
    validate.validate("bundle", unspelled[0])
    with pytest.raises(ValueError):  # neither a bundle nor the reason there is none
        validate.validate("bundle", {"gprs": {}})


@pytest.mark.parametrize("op", ["TCI", "TTRI"])
def test_a_batch_of_starts_or_diagonals_runs_as_batched_a0_values(op):
    """A batch's per-item starts (TCI) or diagonals (TTRI) are batched values of a0: one bundle run gives each
    item's result as the direct spec oracle gives it for the item alone."""
    inst = registry.get(op)
    src = seeded(21, op)
    ran = 0
    for _ in range(20):
        case = inst.random_case(src, "spec", {})
        batch = inst.draw_batch(src, case, values.ValueMix(), 8)
        param = inst.batch_params[0]
        b = gb.bundle_for(case, batch)
        assert b.gprs["a0"].shape == (8,)
        whole = backend.evaluate(case, batch)
        assert whole.kind == "ok", whole.reason
        ran += 1
        for i in range(8):
            item, inputs = inst.item(case, {r: v[i] for r, v in batch.items()})
            assert item.param(param) == int(batch[param][i, 0, 0])
            direct = inst.evaluate(item, inputs)
            exact = direct.classes["dst"] == 0
            assert np.array_equal(whole.outputs["dst"][i][exact], direct.outputs["dst"][exact]), item
    assert ran == 20


def test_batched_ttri_diagonals_must_all_pass_or_all_fail_the_bound():
    """All past +-65535: the block's one fault; some inside and some outside: no single outcome, an error."""
    case = Case("TTRI", "spec", "float32", (("dst", Tile(4, 16, 4, 16)),), (("upper", 0),))
    out = backend.evaluate(case, {"diagonal": np.array([65536, -65536, -(2**31)]).reshape(3, 1, 1)})
    assert out.kind == "fault" and out.fault.name == LEGALITY and "65536" in out.fault.reason
    inside = backend.evaluate(case, {"diagonal": np.array([65535, -65535, 0]).reshape(3, 1, 1)})
    assert inside.kind == "ok" and inside.outputs["dst"].shape == (3, 4, 16)
    with pytest.raises(ValueError, match="both inside and outside"):
        backend.evaluate(case, {"diagonal": np.array([65535, 65536]).reshape(2, 1, 1)})
