"""Which fault a bundle raises, and where: the header and commit order of pto-spec's ASL model (PTO-ISA/pto-spec
e599a3d3, 0.58.3), one test per rule with the ASL file it comes from, and fuzzing that tells two pto-spec
models' faults apart by name and point, not only by trap number."""

from __future__ import annotations

import json

import pytest

from ptofuzz.bundle import asm
from ptofuzz.bundle import executor as ex
from ptofuzz.core.case import COMMIT, Fault, Outcome, at_word
from ptofuzz.engine import differential

TSORT_HEAD = "BSTART.SFU TSORT, FP32; B.DIM zero, 2, ->LB0"
TSORT_BINDINGS = "B.IOT M#1, mask=1111, ->T<SizeCode 1>; B.IOT mask=1111, <last>, ->U<SizeCode 1>"


def _src() -> dict[int, ex.LocalTile]:
    # M#1 (tile 32): 8x4 FP32, valid 1x2: 128 B, so values fit SizeCode 1 and indices too
    return {32: ex.LocalTile.of("float32", 8, 4, (1, 2), [[0x40400000, 0x3F800000]])}


def _run(text: str, tiles: dict[int, ex.LocalTile] | None = None) -> ex.ExecResult:
    return ex.execute(asm.assemble(text), _src() if tiles is None else tiles)


def _fault(r: ex.ExecResult) -> tuple[str, str] | None:
    return None if r.fault is None else (r.fault.name, r.fault.point)


# ---- header: asl/block/model/dispatch/commands.asl, asl/block/model/operands/shared-bindings.asl ------------

@pytest.mark.parametrize("stray", ["B.IOS S#1, mask=0000", "B.IOT M#1, mask=0000, <last>, ->T<SizeCode 1>",
                                   "B.IOT M#2, mask=0000"])
@pytest.mark.parametrize("where", ["before", "after"])
def test_a_zero_mask_binding_outside_a_block_is_a_no_op(stray, where):
    """commands.asl, BindBundleSharedIO / BindBundleTileIO handlers: PE mask 0000 returns before the "outside a
    block" check (ptofuzz raised Fault_BundleControl)."""
    block = f"{TSORT_HEAD}; {TSORT_BINDINGS}; BSTOP"
    r = _run(f"{stray}; {block}" if where == "before" else f"{block}; {stray}")
    assert _fault(r) is None and r.outcome == "ok"
    assert r.tiles[0].data[0, :2].view("<f4").tolist() == [1.0, 3.0]  # the block ran: ascending


@pytest.mark.parametrize("stray", ["B.IOS S#1, mask=1111", "B.IOT M#2, mask=0001"])
def test_a_binding_with_a_mask_outside_a_block_is_bundle_control_at_its_word(stray):
    """commands.asl: with a nonzero mask, a binding outside an active header is Fault_BundleControl."""
    r = _run(f"{stray}; {TSORT_HEAD}; {TSORT_BINDINGS}; BSTOP")
    assert _fault(r) == ("Fault_BundleControl", at_word(0)) and r.word == 0


def test_last_closes_only_the_tile_stream_a_shared_binding_with_another_mask_is_tile_legality():
    """commands.asl: B.IOS does not check BundleTileBindingSequenceClosed; shared-bindings.asl,
    BundleSharedMaskCanAppend: its mask must equal the tile bindings' (ptofuzz said Fault_BundleControl)."""
    r = _run(f"{TSORT_HEAD}; {TSORT_BINDINGS}; B.IOS S#1, mask=0001; BSTOP")
    assert _fault(r) == ("Fault_TileLegality", at_word(4)) and r.word == 4


def test_a_tile_binding_after_last_is_still_bundle_control():
    """commands.asl, BindBundleTileIO: BundleTileBindingSequenceClosed -> Fault_BundleControl."""
    r = _run(f"{TSORT_HEAD}; {TSORT_BINDINGS}; B.IOT M#2, mask=1111; BSTOP")
    assert _fault(r) == ("Fault_BundleControl", at_word(4))


def test_a_shared_id_bound_twice_is_bundle_control_at_that_word():
    """shared-bindings.asl, BindBundleSharedIO: a valid binding with the same Shared ID -> Fault_BundleControl
    (ptofuzz kept it and faulted at commit)."""
    r = _run(f"{TSORT_HEAD}; B.IOS S#3, mask=1111; B.IOS S#4, mask=1111; B.IOS S#3, mask=1111; "
             f"{TSORT_BINDINGS}; BSTOP")
    assert _fault(r) == ("Fault_BundleControl", at_word(4)) and "Shared ID 3" in r.fault.reason


def test_a_fifth_shared_binding_is_bundle_control_at_that_word():
    """shared-bindings.asl, BindBundleSharedIO: no free slot of the four -> Fault_BundleControl."""
    shared = "; ".join(f"B.IOS S#{k}, mask=1111" for k in range(1, 6))
    r = _run(f"{TSORT_HEAD}; {shared}; {TSORT_BINDINGS}; BSTOP")
    assert _fault(r) == ("Fault_BundleControl", at_word(6)) and "fifth" in r.fault.reason
    four = "; ".join(f"B.IOS S#{k}, mask=1111" for k in range(1, 5))
    assert _fault(_run(f"{TSORT_HEAD}; {four}; {TSORT_BINDINGS}; BSTOP")) == ("Fault_TileLegality", COMMIT)


def test_shared_bindings_must_share_one_mask():
    """shared-bindings.asl, BundleSharedMaskCanAppend: every Shared binding's mask equal -> else TileLegality."""
    r = _run(f"{TSORT_HEAD}; B.IOS S#1, mask=0001; B.IOS S#2, mask=0010; BSTOP")
    assert _fault(r) == ("Fault_TileLegality", at_word(3))


# ---- commit: asl/block/model/dispatch/tile-execution.asl ------------------------------------------------------

@pytest.mark.parametrize("bindings", [TSORT_BINDINGS, "B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>", ""])
def test_an_unconsumed_shared_binding_is_tile_legality_before_the_binding_counts(bindings):
    """tile-execution.asl: BundleSharedBindingsUnconsumed -> Fault_TileLegality comes before
    BundleOperationBindingsComplete (wrong counts, no <last>: Fault_BundleControl); ptofuzz said BundleControl."""
    r = _run(f"{TSORT_HEAD}; B.IOS S#1, mask=1111; {bindings}; BSTOP".replace("; ;", ";"))
    assert _fault(r) == ("Fault_TileLegality", COMMIT) and r.word == (5 if bindings == TSORT_BINDINGS else 4
                                                                       if bindings else 3)
    wrong_counts = _run(f"{TSORT_HEAD}; B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>; BSTOP")
    assert _fault(wrong_counts) == ("Fault_BundleControl", COMMIT)


def test_a_tpart_block_with_a_shared_binding_is_tile_legality_at_commit():
    """tile-execution.asl (and partial-schema.asl: BundleSharedBindingCount() != 0)."""
    tiles = {32: ex.LocalTile.of("int16", 8, 8, (2, 8), [[1] * 8, [2] * 8]),
             33: ex.LocalTile.of("int16", 8, 8, (2, 8), [[3] * 8, [4] * 8])}
    legal = ("BSTART.SFU TPARTADD, S16; B.DIM zero, 8, ->LB0; B.DIM zero, 2, ->LB1; "
             "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>")
    assert _run(f"{legal}; BSTOP", tiles).outcome == "ok"
    assert _fault(_run(f"{legal}; B.IOS S#9, mask=1111; BSTOP", tiles)) == ("Fault_TileLegality", COMMIT)


def test_the_sorting_schema_comes_before_destination_allocation():
    """tile-execution.asl: SelectedBundleClosedSortingSchemaLegal before ResolveBundleTileDestinationsForOperation;
    sorting-schema.asl, TileSortDataTypeSupported: FP32 or FP16. A BF16 TSORT whose index destination is too small
    is Fault_TileLegality (ptofuzz allocated first: Fault_TileAllocation)."""
    src = {32: ex.LocalTile.of("bfloat16", 8, 8, (8, 8), [[0x3F80] * 8] * 8)}  # 128 B of BF16, 256 B of indices
    small_index = ("BSTART.SFU TSORT, BF16; B.IOT M#1, mask=1111, ->T<SizeCode 1>; "
                   "B.IOT mask=1111, <last>, ->U<SizeCode 1>; BSTOP")
    r = _run(small_index, src)
    assert _fault(r) == ("Fault_TileLegality", COMMIT) and "BF16" in r.fault.reason
    fp16 = {32: ex.LocalTile.of("float16", 8, 8, (8, 8), [[0x3C00] * 8] * 8)}  # the same with FP16: allocation
    r = _run(small_index.replace("BF16", "FP16"), fp16)
    assert _fault(r) == ("Fault_TileAllocation", COMMIT)


def test_the_partial_schema_comes_before_destination_allocation():
    """partial-schema.asl: source types, regions and descriptors before the destination is allocated; here the
    sources do not cover ValidRow x ValidCol and the destination's SizeCode is too small (was TileAllocation)."""
    tiles = {32: ex.LocalTile.of("int16", 8, 8, (1, 8), [[1] * 8]),
             33: ex.LocalTile.of("int16", 8, 8, (2, 4), [[3] * 4, [4] * 4])}
    words = ("BSTART.SFU TPARTADD, S16; B.DIM zero, 64, ->LB0; B.DIM zero, 2, ->LB1; "
             "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>; BSTOP")
    r = _run(words, tiles)
    assert _fault(r) == ("Fault_TileLegality", COMMIT) and "neither source" in r.fault.reason


# ---- fault points in outcomes and in fuzzing ----------------------------------------------------------------

def test_every_executor_fault_says_where_it_was_raised():
    decode = ex.execute([0xFFFFFFFF], {})
    assert (decode.fault.name, decode.fault.point, decode.word) == ("Fault_IllegalInstruction", at_word(0), 0)
    r = _run(f"{TSORT_HEAD}; B.IOS S#1, mask=1111; {TSORT_BINDINGS}; BSTOP")
    assert ex.describe(r)["fault"] == {"name": "Fault_TileLegality", "trap": 5, "point": COMMIT, "word": 5,
                                       "reason": r.fault.reason}
    assert Outcome.faulted("Fault_TileLegality", 5, "x", COMMIT).summary()["fault"]["point"] == COMMIT


def test_differential_tells_faults_apart_by_name_and_point_only_where_both_models_say_them():
    from ptofuzz.core.case import Case, OutcomeKind, Tile
    from ptofuzz.instructions import registry

    inst = registry.get("TSORT")
    t = Tile(8, 4, 1, 2)
    case = Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)))

    def kinds(fa: Fault, fb: Fault) -> set[str]:
        outs = {"spec": Outcome(OutcomeKind.FAULT, fault=fa), "bundle": Outcome(OutcomeKind.FAULT, fault=fb)}
        return {s.kind for s in differential.compare_batch(inst, case, outs, None).counts}

    legality = Fault("Fault_TileLegality", 5, "", COMMIT)
    assert kinds(legality, legality) == set()
    assert kinds(legality, Fault("Fault_BundleControl", 5, "", COMMIT)) == {differential.FAULT_POINT}
    assert kinds(legality, Fault("Fault_TileLegality", 5, "", at_word(3))) == {differential.FAULT_POINT}
    assert kinds(legality, Fault("Fault_IllegalInstruction", 4, "", at_word(0))) == {differential.FAULT_KIND}
    # a platform model says only the trap: the same trap is agreement, whatever the name
    assert kinds(legality, Fault("Fault_TileAllocation", 5, "")) == set()


@pytest.mark.slow
@pytest.mark.parametrize("op", ["tsort", "tpartadd", "tadds"])
@pytest.mark.parametrize("plant", ["name", "point"])
def test_spec_bundle_fuzzing_reports_a_planted_fault_change_of_one_trap(cli, tmp_path, monkeypatch, op, plant):
    """The executor's commit faults planted as another fault of trap 5, or as raised at a word instead of at
    commit: the campaign (which draws illegal spec cases too) reports it; unplanted, it reports nothing."""
    clean = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "60000", "--seed", "3", "--out", tmp_path / "a",
                "--json")
    assert clean.code == 0 and json.loads(clean.out)["signatures"] == []
    if plant == "name":
        monkeypatch.setattr(ex, "_legality", lambda reason: ex._Fault("Fault_BundleControl", 5, reason))
    else:
        monkeypatch.setattr(ex, "COMMIT", at_word(1))
    res = cli("fuzz", op, "--oracles", "spec,bundle", "--runs", "60000", "--seed", "3", "--out", tmp_path / "b",
              "--json")
    assert res.code == 1, res
    sigs = json.loads(res.out)["signatures"]
    assert {differential.Signature.from_key(s["signature"]).kind for s in sigs} == {differential.FAULT_POINT}
    assert all(s["hits"] > 100 for s in sigs)


def test_a_case_s_descending_flag_reaches_the_bundle_as_its_value():
    """The flag register holds the case's flag, so an illegal flag faults in the bundle as in the direct oracle
    (the bundle spelling once wrote 1 for any nonzero flag, and the bundle sorted what spec rejects)."""
    from ptofuzz.generators import bundle as gb
    from ptofuzz.generators import values
    from ptofuzz.generators.source import seeded
    from ptofuzz.instructions import registry
    from ptofuzz.instructions.tsort import _tsort_case

    case = _tsort_case("float32", 2, 8, descending=3)
    inputs = registry.get("TSORT").draw_inputs(seeded(1), case, values.ValueMix(0.0))
    b = gb.bundle_for(case, inputs)
    assert b.gprs == {"a0": 3}
    r = ex.execute(b.words, b.tiles, b.gprs)
    spec = registry.get("TSORT").evaluate(case, inputs)
    assert _fault(r) == (spec.fault.name, spec.fault.point) == ("Fault_TileLegality", COMMIT)
