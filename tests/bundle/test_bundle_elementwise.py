"""Bundles of the elementwise TEPL operations (pto-spec 0.58.3: ``asl/block/model/dispatch/tile-schema.asl``,
``tile-scalar-schema.asl``, ``destination-shape.asl``, ``tile-execution.asl``): hand-worked words and results, the
faults of each rule on both sides, and the executor against the direct spec oracles (``fuzz --oracles
spec,bundle``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz.backends import bundle as backend
from ptofuzz.bundle import asm
from ptofuzz.bundle import encoding as enc
from ptofuzz.bundle import executor as ex
from ptofuzz.core.case import COMMIT
from ptofuzz.generators import bundle as gb
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry

OPS = ("TADD", "TSUB", "TMUL", "TMAX", "TMIN", "TABS", "TNEG", "TRELU", "TNOT", "TADDS", "TSUBS", "TMULS", "TMAXS",
       "TMINS")
BSTOP = 0x00000001
LEGALITY, CONTROL, ALLOCATION = "Fault_TileLegality", "Fault_BundleControl", "Fault_TileAllocation"


def test_the_table_holds_exactly_the_fourteen_operations():  # and the bitwise family (test_bundle_bitwise.py)
    others = (".bitwise:spec", ".generation:texpands_spec", ".generation:tci_spec", ".generation:ttri_spec",
              ".cmpsel:spec_tcmp", ".cmpsel:spec_tsel")  # the other families' entries
    reduce_expand = {"reduction", "expansion"}  # test_bundle_reduce_expand.py
    assert {op for op, form in ex.CLOSED.items()
            if not form.oracle.endswith(others) and form.schema not in reduce_expand} == set(OPS)
    assert {op for op, i in registry.all_instructions().items() if i.bundle} >= set(OPS)
    assert not registry.get("TLRELU").bundle  # pto-spec deleted TLRELU: no selector, no bundle
    assert "TLRELU" not in enc.SELECTOR_OF


# BSTART.TEPL = 0x00019181 | DataType << 27 | Mode << 25 | Function << 20, worked by hand for each entry
@pytest.mark.parametrize(("op", "dtype", "word"), [
    ("TADD", "FP32", 0x08019181), ("TSUB", "S32", 0x88119181), ("TMUL", "U8", 0xD8219181),
    ("TMAX", "FP16", 0x20B19181), ("TMIN", "BF16", 0x28C19181), ("TABS", "FP16", 0x20F19181),
    ("TNOT", "U16", 0xD1019181), ("TNEG", "S8", 0x99119181), ("TRELU", "FP32", 0x09719181),
    ("TADDS", "S16", 0x92019181), ("TSUBS", "FP32", 0x0A119181), ("TMULS", "U32", 0xCA219181),
    ("TMAXS", "S32", 0x8AB19181), ("TMINS", "FP16", 0x22C19181),
])
def test_start_words(op, dtype, word):
    assert asm.assemble(f"BSTART.VEC {op}, {dtype}") == [word]
    assert asm.disassemble([word]) == [f"BSTART.VEC {op}, {dtype}"]
    assert enc.ENGINE[op] == "VEC"
    with pytest.raises(asm.AsmError, match="runs on the VEC"):
        asm.assemble(f"BSTART.SFU {op}, {dtype}")


F = {1.5: 0x3FC00000, -2.0: 0xC0000000, 2.25: 0x40100000, 0.5: 0x3F000000, 3.75: 0x40700000, -1.5: 0xBFC00000,
     1.0: 0x3F800000, -1.0: 0xBF800000}
TADD_WORDS = [0x08019181, 0x00200043, 0x8608CE13, BSTOP]  # TADD FP32; LB0 = 2; M#1, M#2 -> T<SizeCode 1>, 1111


def two_f32(a, b, rows=16, cols=2, valid=(1, 2)):
    """M#1 and M#2: 128 B FP32 tiles (16x2 by default) holding rows ``a`` and ``b``."""
    return {32: ex.LocalTile.of("float32", rows, cols, valid, [a]), 33: ex.LocalTile.of("float32", rows, cols, valid,
                                                                                         [b])}


def test_tadd_fp32_hand_worked():
    assert asm.disassemble(TADD_WORDS) == ["BSTART.VEC TADD, FP32", "B.DIM zero, 2, ->LB0",
                                           "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>", "BSTOP"]
    tiles = two_f32([F[1.5], F[-2.0]], [F[2.25], F[0.5]])
    r = ex.execute(TADD_WORDS, tiles)
    assert r.fault is None and r.outcome == "ok"
    d = r.tiles[0]  # T#1: LB1 defaults to 1, LB2 to LB0; 128 B of 2 FP32 columns: 16 rows
    assert (d.dtype, d.rows, d.cols, d.valid_rows, d.valid_cols) == ("float32", 16, 2, 1, 2)
    assert d.data[0].tolist() == [F[3.75], F[-1.5]]
    assert r.blocks[0].flags == ()
    assert all(np.array_equal(r.tiles[k].data, tiles[k].data) for k in (32, 33))  # sources persist


def test_tadd_inexact_raises_nx_and_tsub_is_left_minus_right():
    tiny = 0x30800000  # 2**-30: 1 + 2**-30 rounds to 1
    r = ex.execute(TADD_WORDS, two_f32([F[1.0], F[1.0]], [tiny, F[1.0]]))
    assert r.tiles[0].data[0].tolist() == [F[1.0], 0x40000000] and r.blocks[0].flags == ("NX",)
    tsub = [0x08119181, *TADD_WORDS[1:]]  # TSUB FP32
    r = ex.execute(tsub, two_f32([F[1.5], F[0.5]], [F[2.25], F[0.5]]))
    assert r.tiles[0].data[0].tolist() == [0xBF400000, 0]  # -0.75, +0


def tadds(a0=None, extra=()):
    """TADDS S16, LB0 = 2, M#1 -> T<SizeCode 1>, then B.IOR a0 (unless a0 is None), on M#1 = [10, -32768]."""
    words = [0x92019181, 0x00200043, 0x0208DE13, *([0x00010013] if a0 is not None else []), *extra, BSTOP]
    src = {32: ex.LocalTile.of("int16", 32, 2, (1, 2), [[10, 0x8000]])}
    return ex.execute(words, src, {"a0": a0} if a0 is not None else {}), src


def test_tadds_scalar_is_the_low_element_bits_of_a0():
    assert asm.disassemble([0x0208DE13, 0x00010013]) == ["B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>", "B.IOR a0"]
    r, src = tadds(-3)  # 10 - 3 = 7; -32768 - 3 wraps to 32765
    assert r.outcome == "ok" and r.tiles[0].data[0].tolist() == [7, 0x7FFD]
    assert r.tiles[32].data[0].tolist() == [10, 0x8000]
    r, _ = tadds(0x12345678_0000FFFD)  # the bits above the element are not read
    assert r.tiles[0].data[0].tolist() == [7, 0x7FFD]
    r, _ = tadds(0xFFFD0000)  # ... and -3 above them is not -3
    assert r.tiles[0].data[0].tolist() == [10, 0x8000]
    r, _ = tadds(None)  # no B.IOR: the scalar is zero (SelectedBundleTileScalarRawValue)
    assert r.outcome == "ok" and r.tiles[0].data[0].tolist() == [10, 0x8000]


def test_batched_scalars_run_as_one_bundle():
    src = ex.LocalTile.of("int16", 32, 2, (1, 2), [[10, 0x8000]])
    src.data = np.stack([src.data, src.data])
    r = ex.execute([0x92019181, 0x00200043, 0x0208DE13, 0x00010013, BSTOP], {32: src},
                   {"a0": np.array([1, 0xFFFF], np.uint64)})
    assert r.tiles[0].data[:, 0].tolist() == [[11, 0x8001], [9, 0x7FFF]]
    with pytest.raises(ValueError, match="batched values"):  # a check may not read a batched register
        ex.execute(asm.assemble("BSTART.VEC TADD, FP32; B.DIM a0, 2, ->LB0; BSTOP"), {}, {"a0": np.array([1, 2])})


def test_unary_hand_worked():
    # TABS FP16, LB0 = 3, LB2 = 4: sign cleared, the NaN's payload kept
    words = [0x20F19181, 0x00300043, 0x00402043, 0x0208DE13, BSTOP]
    assert asm.disassemble(words[1:3]) == ["B.DIM zero, 3, ->LB0", "B.DIM zero, 4, ->LB2"]
    r = ex.execute(words, {32: ex.LocalTile.of("float16", 16, 4, (1, 3), [[0x8000, 0xBE00, 0xFE01]])})
    assert r.tiles[0].data[0, :3].tolist() == [0x0000, 0x3E00, 0x7E01] and r.blocks[0].flags == ()
    # TRELU FP32: a signaling NaN becomes the canonical NaN and raises NV; -1 becomes +0
    words = [0x09719181, 0x00200043, 0x0208DE13, BSTOP]
    r = ex.execute(words, {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x7F800001, F[-1.0]]])})
    assert r.tiles[0].data[0].tolist() == [0x7FC00000, 0] and r.blocks[0].flags == ("NV",)
    # TNOT U8 complements; TNOT takes no float type (its schema: the integer types)
    words = [0xD9019181, 0x00200043, 0x0208DE13, BSTOP]
    r = ex.execute(words, {32: ex.LocalTile.of("uint8", 64, 2, (1, 2), [[0x0F, 0xA5]])})
    assert r.tiles[0].data[0].tolist() == [0xF0, 0x5A]
    r = ex.execute([0x09019181, *words[1:]], {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0, 0]])})
    assert fault(r) == (LEGALITY, "does not take FP32") and set(r.tiles) == {32}


def fault(r: ex.ExecResult, point: str = COMMIT) -> tuple[str, str] | None:
    """The fault's name and the reason's part the tests name (and the point: commit unless told)."""
    if r.fault is None:
        return None
    assert r.fault.point == point
    return r.fault.name, next((p for p in REASONS if p in r.fault.reason), r.fault.reason)


REASONS = ("needs LB0", "must be 1..65535", "in one B.IOT marked <last>", "uses no B.IOR register",
           "uses only B.IOR RegSrc0", "takes only PadValue", "the destination is FP64", "does not take FP32",
           "must be a legal S32 tile", "takes one element type", "does not match LB1 x LB0", "binds 1 source",
           "gives 16 rows", "holds no whole rows", "columns 3 are not a power of two", "needs 1x2")


def tadd(text: str, tiles=None) -> ex.ExecResult:
    """``BSTART.VEC TADD, FP32``, the header ``text``, BSTOP, on M#1 = [1.5, -2], M#2 = [2.25, 0.5] (16x2)."""
    return ex.execute(asm.assemble(f"BSTART.VEC TADD, FP32; {text}; BSTOP"),
                      tiles or two_f32([F[1.5], F[-2.0]], [F[2.25], F[0.5]]))


BIND2 = "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>"


@pytest.mark.parametrize(("text", "expect"), [
    # LB0 is required and nonzero; LB1 and LB2 default, and are 1..65535 when present
    (BIND2, (LEGALITY, "needs LB0")),
    (f"B.DIM LB0=0; {BIND2}", (LEGALITY, "needs LB0")),
    (f"B.DIM LB0=2; B.DIM LB1=0; {BIND2}", (LEGALITY, "must be 1..65535")),
    (f"B.DIM LB0=2; B.DIM LB1=1; B.DIM LB2=2; {BIND2}", None),
    # one terminal B.IOT: the same operands in two bindings pass the counts and fail the schema
    ("B.DIM LB0=2; B.IOT M#1, mask=1111, ->T<SizeCode 1>; B.IOT M#2, mask=1111, <last>",
     (LEGALITY, "in one B.IOT marked <last>")),
    # B.IOR: TADD reads no register; an all-zero B.IOR names none and is legal
    (f"B.DIM LB0=2; {BIND2}; B.IOR a0", (CONTROL, "uses no B.IOR register")),
    (f"B.DIM LB0=2; {BIND2}; B.IOR zero", None),
    # B.DATR: only PadValue may be nonzero, DataType included (the assembler's default is DTYPE_NONE, 31); so a
    # legal B.DATR has DataType 0, which makes the destination FP64, and the FP32 sources do not match it
    (f"B.DATR cmode=LT, dtype=FP64; B.DIM LB0=2; {BIND2}", (LEGALITY, "takes only PadValue")),
    (f"B.DATR; B.DIM LB0=2; {BIND2}", (LEGALITY, "takes only PadValue")),
    (f"B.DATR pad=Max, dtype=FP64; B.DIM LB0=2; {BIND2}", (LEGALITY, "the destination is FP64")),
    (f"B.DATR dtype=FP64; B.DIM LB0=2; {BIND2}", (LEGALITY, "the destination is FP64")),
    # the destination: LB1 rows must fit TSize; LB2 below LB0 or not a power of two is no descriptor
    (f"B.DIM LB0=2; B.DIM LB1=64; {BIND2}", (ALLOCATION, "gives 16 rows")),
    (f"B.DIM LB0=2; B.DIM LB2=1; {BIND2}", (ALLOCATION, "needs 1x2")),
    (f"B.DIM LB0=3; {BIND2}", (ALLOCATION, "columns 3 are not a power of two")),
])
def test_tadd_rules_both_sides(text, expect):
    r = tadd(text)
    assert fault(r) == expect, r.fault
    if expect is None:
        assert r.tiles[0].data[0].tolist() == [F[3.75], F[-1.5]]
    else:
        assert set(r.tiles) == {32, 33}  # nothing published


def test_the_destination_is_sized_in_its_effective_type():
    # 1x32 FP32 in 128 B: one row; as FP64 (a B.DATR's DataType) half a row: an allocation fault, not legality
    row = [F[1.0]] * 32
    tiles = two_f32(row, row, rows=1, cols=32, valid=(1, 32))
    assert fault(tadd(f"B.DIM LB0=32; {BIND2}", tiles)) is None
    assert fault(tadd(f"B.DATR dtype=FP64; B.DIM LB0=32; {BIND2}", tiles)) == (ALLOCATION, "holds no whole rows")


def test_schema_before_allocation_only_for_tile_scalar_sources():
    # the source (valid 1x2) against LB1 = 64, which 128 B cannot hold: TADDS checks its source in the schema
    # (legality first); TADD allocates first and checks its sources in the operation (allocation first)
    r, _ = tadds(3, extra=[enc.encode(enc.Command("B.DIM", {"lb": 1, "rs": 0, "imm": 64}))])
    assert fault(r) == (LEGALITY, "does not match LB1 x LB0")
    assert fault(tadd(f"B.DIM LB0=2; B.DIM LB1=64; {BIND2}")) == (ALLOCATION, "gives 16 rows")
    # the type: TADDS rejects an S32 start with FP32 sources in the schema, TADD after allocating an S32 tile
    src = {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[F[1.0], F[1.0]]])}
    r = ex.execute([0x8A019181, 0x00200043, 0x0208DE13, BSTOP], src)  # TADDS S32
    assert fault(r) == (LEGALITY, "must be a legal S32 tile")
    r = ex.execute([0x88019181, 0x00200043, 0x8608CE13, BSTOP], two_f32([0, 0], [0, 0]))  # TADD S32
    assert fault(r) == (LEGALITY, "takes one element type")


def test_tile_scalar_b_ior_and_unary_counts():
    r, _ = tadds(3, extra=[])
    assert fault(r) is None
    rs1 = enc.encode(enc.Command("B.IOR", {"rd": 0, "rs0": 2, "rs1": 3, "rs2": 0}))  # B.IOR a0, a1
    r = ex.execute([0x92019181, 0x00200043, 0x0208DE13, rs1, BSTOP],
                   {32: ex.LocalTile.of("int16", 32, 2, (1, 2), [[1, 2]])}, {"a0": 1})
    assert fault(r) == (CONTROL, "uses only B.IOR RegSrc0")
    # TABS binds one source: two are a binding-count fault (Fault_BundleControl), before the schema
    r = ex.execute([0x20F19181, 0x00200043, 0x8608CE13, BSTOP], {
        k: ex.LocalTile.of("float16", 32, 2, (1, 2), [[0, 0]]) for k in (32, 33)})
    assert fault(r) == (CONTROL, "binds 1 source")


# ---- against the direct spec oracles -------------------------------------------------------------------------

@pytest.mark.parametrize("op", OPS)
def test_bundles_equal_the_direct_spec_oracle(op):
    inst = registry.get(op)
    counts = {"ok": 0, "fault": 0}
    for k in range(60):
        src = seeded(11, op, str(k))
        case = inst.illegal_case(src, {}) if k % 4 == 0 else inst.random_case(src, "spec", {})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = inst.evaluate(case, inputs), backend.evaluate(case, inputs)
        assert bundled.kind == direct.kind, (case, bundled.reason, direct.reason)
        counts[direct.kind] += 1
        if direct.kind == "fault":
            assert (bundled.fault.name, bundled.fault.point) == (direct.fault.name, direct.fault.point), case
            continue
        exact = direct.classes["dst"] == 0
        assert np.array_equal(bundled.outputs["dst"][exact], direct.outputs["dst"][exact]), case
        assert bundled.flags == direct.flags
    assert counts["ok"] >= 30 and counts["fault"] >= 10, counts


@pytest.mark.parametrize("op", ["tadd", "tmax", "tabs", "tnot", "tadds", "tmins"])
def test_fuzzing_the_executor_against_the_spec_oracle_finds_nothing(op):
    from ptofuzz.engine import campaign

    plan = campaign.make_plan(op, ["spec", "bundle"], seed=3, batch=32)
    store, stats = campaign.run_random(plan, runs=1500)
    assert stats.cases == 1500 and not store.findings, sorted(store.findings)


def test_fuzz_cli_tadd_spec_bundle_finds_nothing(cli, tmp_path):
    res = cli("fuzz", "tadd", "--oracles", "spec,bundle", "--runs", "20000", "--seed", "1", "--out", tmp_path,
              "--json")
    assert res.code == 0, res
    out = json.loads(res.out)
    assert out["cases"] == 20000 and out["signatures"] == [] and out["oracles"] == ["spec", "bundle"]


def test_fuzzing_finds_a_planted_scalar_bug(monkeypatch):
    from ptofuzz.engine import campaign

    real = gb.scalar_register
    monkeypatch.setattr(gb, "scalar_register", lambda bits, dtype: real(bits, dtype) ^ 1)  # the low bit flipped
    plan = campaign.make_plan("tadds", ["spec", "bundle"], seed=3, batch=32)
    store, _ = campaign.run_random(plan, runs=200)
    assert store.findings


def test_spelling_omits_the_defaults_and_places_b_ior_after_the_binding():
    inst = registry.get("TADDS")
    case = inst.explicit_case("spec", {"dtype": "int16", "dst": (1, 16)})
    inputs = inst.draw_inputs(seeded(4), case, values.ValueMix())
    b = gb.bundle_for(case, inputs)
    text = asm.disassemble(b.words)
    assert text[0] == "BSTART.VEC TADDS, S16" and text[-2:] == ["B.IOR a0", "BSTOP"]
    assert [t for t in text if t.startswith("B.DIM")] == ["B.DIM zero, 16, ->LB0"]  # LB1 = 1, LB2 = LB0
    value = int(inputs["scalar"][0, 0])
    assert b.gprs == {"a0": value - 0x10000 & (1 << 64) - 1 if value & 0x8000 else value}  # sign-extended


@pytest.mark.parametrize("op", ["tadd", "tabs", "tadds"])
def test_gen_bundle_writes_elementwise_bundles(cli, tmp_path, op):
    assert cli("gen", op, "--platform", "spec", "--bundle", "-o", tmp_path).code == 0
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) >= 5
    for folder in folders:
        manifest = json.loads((folder / "ptofuzz.json").read_text())
        words = [int(w, 16) for w in manifest["bundle"]["words"]]
        assert (folder / "bundle.bin").read_bytes() == b"".join(w.to_bytes(4, "little") for w in words)
        text = (folder / "bundle.s").read_text()
        assert asm.assemble(text) == words
        assert manifest["bundle"]["expected"]["outcome"] == manifest["expected"]["outcome"] == "ok"
        if op == "tadds":  # the register named in the header holds scalar.bin's element in its low bits
            scalar = int.from_bytes((folder / "scalar.bin").read_bytes(), "little")
            bits = 8 * len((folder / "scalar.bin").read_bytes())
            assert manifest["bundle"]["gprs"]["a0"] & ((1 << bits) - 1) == scalar
            assert f"a0 = {manifest['bundle']['gprs']['a0']:#x} (scalar.bin" in text.splitlines()[0]
    assert cli("check", tmp_path).code == 0


@pytest.mark.parametrize(("start", "expect"), [
    ("TADD, FP64", (LEGALITY, "the destination is FP64")),  # accepted, sized as FP64, matched by no FP32 source
    ("TADD, E4M3", (LEGALITY, "the destination is E4M3")),
    ("TADD, HiF8", (LEGALITY, "does not take HiF8")),  # outside TileVecArithmeticDataTypeSupported: the schema
    ("TADD, FP32", None),
])
def test_start_types_the_schema_accepts_but_ptofuzz_does_not_model(start, expect):
    r = ex.execute(asm.assemble(f"BSTART.VEC {start}; B.DIM LB0=2; {BIND2}; BSTOP"),
                   two_f32([F[1.5], F[-2.0]], [F[2.25], F[0.5]]))
    if expect is None:
        assert r.fault is None and r.outcome == "ok"
    else:
        assert (r.fault.name, r.fault.point) == (expect[0], COMMIT) and expect[1] in r.fault.reason, r.fault
