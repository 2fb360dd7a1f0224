"""The bundle executor: pto-spec's worked bundle tests (``tests/asl/tile/irregular-and-complex/sorting/TSORT/``,
``tests/asl/tile/irregular-and-complex/union/TPARTADD/``), every illegal class with its documented fault and trap,
no-ops, don't-care bits, and agreement with the direct spec oracles."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.bundle import asm
from ptofuzz.bundle import executor as ex
from ptofuzz.generators import bundle as gb
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry


def test_tsort_bundle_001():
    # PTO-AVS-TILE-TSORT-BUNDLE-001: M#1 (tile 32) 8x4 FP32, valid 1x4 [3, 1, 2, 0]; LB0 = 3; values to T,
    # indices to U, SizeCode 1 each; mask 0001; ascending
    src = ex.LocalTile.of("float32", 8, 4, (1, 4), [[0x40400000, 0x3F800000, 0x40000000, 0]])
    words = [0x0EC19181] + asm.assemble("B.DIM zero, 3, ->LB0; B.IOT M#1, mask=0001, ->T<SizeCode 1>;"
                                        "B.IOT mask=0001, <last>, ->U<SizeCode 1>") + [0x00000001]
    r = ex.execute(words, {32: src})
    assert r.fault is None and r.outcome == "ok"
    assert r.tiles[0].data[0].view(np.float32).tolist() == [1.0, 2.0, 3.0, 0.0]  # T0
    assert r.tiles[16].data[0].tolist() == [1, 2, 0, 0]  # U0: the last group {0.0} has index 0
    assert (r.tiles[0].rows, r.tiles[0].cols, r.tiles[16].dtype) == (8, 4, "uint32")


def test_tsort_snan_sets_nv_through_a_bundle():
    src = ex.LocalTile.of("float32", 8, 4, (1, 2), [[0x7F800001, 0x3F800000]])
    words = asm.assemble("BSTART.SFU TSORT, FP32; B.DIM zero, 2, ->LB0; B.IOT M#1, mask=1111, ->T<SizeCode 1>;"
                         "B.IOT mask=1111, <last>, ->U<SizeCode 1>; BSTOP")
    r = ex.execute(words, {32: src})
    assert r.tiles[0].data[0, :2].tolist() == [0x3F800000, 0x7F800001] and r.tiles[16].data[0, :2].tolist() == [1, 0]
    assert r.blocks[0].flags == ("NV",)


F32 = {3.0: 0x40400000, 1.0: 0x3F800000, 2.0: 0x40000000, 0.0: 0, 4.0: 0x40800000, 5.0: 0x40A00000,
       6.0: 0x40C00000, 7.0: 0x40E00000}


def test_tsort_groups_001():
    # PTO-AVS-TILE-TSORT-GROUPS-001: 2x4 FP32, W = 3, ascending
    src = ex.LocalTile.of("float32", 8, 4, (2, 4), [[F32[v] for v in (3, 1, 2, 0)], [F32[v] for v in (6, 4, 5, 7)]])
    words = asm.assemble("BSTART.SFU TSORT, FP32; B.DIM LB0=3; B.IOT M#1, mask=1111, ->T<SizeCode 1>;"
                         "B.IOT mask=1111, <last>, ->U<SizeCode 1>; BSTOP")
    r = ex.execute(words, {32: src})
    assert r.tiles[0].data[:2].view(np.float32).tolist() == [[1, 2, 3, 0], [4, 5, 6, 7]]
    assert r.tiles[16].data[1].tolist() == [1, 2, 0, 0]


@pytest.mark.parametrize("desc, expected", [
    (0, [31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 6, 1, 3, 4, 5, 0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
         30, 2, 7]),
    (1, [30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 0, 4, 5, 1, 3, 6, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29,
         31, 2, 7]),
])
def test_the_hardware_conformance_sort_vector(desc, expected):
    # pto-spec spec/evidence/pto-isa-0583-hardware-numeric-vectors.json (vector_groups.sort): 32 FP32 values,
    # default width 32; +0 (index 1) stays before -0 (index 3), NaNs last
    vals = [3.0, 0.0, "nan0", "-0", 2.0, 2.0, -1.0, "nan1"]
    for k in range(4, 16):
        vals += [float(k), float(-k)]
    bits = [{"nan0": 0x7FC00000, "nan1": 0x7FC00001, "-0": 0x80000000}.get(v) if isinstance(v, str)
            else int(np.float32(v).view(np.uint32)) for v in vals]
    src = ex.LocalTile.of("float32", 4, 32, (1, 32), [bits])
    text = "BSTART.SFU TSORT, FP32; " + ("B.IOR a0; " if desc else "") + \
        "B.IOT M#1, mask=1111, ->T<SizeCode 3>; B.IOT mask=1111, <last>, ->U<SizeCode 3>; BSTOP"  # 4x32: 512 B
    r = ex.execute(asm.assemble(text), {32: src}, {"a0": 1})
    assert r.fault is None and r.tiles[16].data[0].tolist() == expected


def test_tpartadd_bundle_001():
    # tile-exec-tpartadd-bundle-001: BSTART 0x97119181 (S16), LB0 = 3, LB2 = 4, SizeCode 1 -> [4, 6, 7] in tile 0
    left = ex.LocalTile.of("int16", 16, 4, (1, 3), [[1, 2, 7]])
    right = ex.LocalTile.of("int16", 16, 4, (1, 2), [[3, 4]])
    words = [0x97119181] + asm.assemble("B.DIM zero, 3, ->LB0; B.DIM zero, 4, ->LB2;"
                                        "B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>; BSTOP")
    r = ex.execute(words, {32: left, 33: right})
    assert r.outcome == "ok" and r.tiles[0].data[0, :3].tolist() == [4, 6, 7]
    assert (r.tiles[0].rows, r.tiles[0].cols, r.tiles[0].valid_rows, r.tiles[0].valid_cols) == (16, 4, 1, 3)


def test_b_dim_adds_the_register_and_wraps():
    src = ex.LocalTile.of("float32", 8, 4, (1, 4), [[0x40400000, 0x3F800000, 0x40000000, 0]])
    words = asm.assemble("BSTART.SFU TSORT, FP32; B.DIM a1, 65534, ->LB0; B.IOT M#1, mask=1111, ->T<SizeCode 1>;"
                         "B.IOT mask=1111, <last>, ->U<SizeCode 1>; BSTOP")
    r = ex.execute(words, {32: src}, {"a1": 5})  # (5 + 65534) mod 65536 = 3
    assert r.tiles[16].data[0].tolist() == [1, 2, 0, 0]


REASONS = {"reserved-datatype": "DataType 21 is reserved", "gpr-selector": "selector 28 is reserved",
           "sizecode": "SizeCode 12 is reserved", "mixed-masks": "differs from the earlier bindings",
           "missing-last": "no binding is marked <last>", "duplicate-dim": "LB0 written twice",
           "duplicate-ior": "a second B.IOR", "datr-on-tpart": "takes no B.DATR",
           "sort-width": "sort_width 65 is above 64", "descending-flag": "is neither 0 nor 1",
           "dst-too-small": "the valid region needs", "dst-too-large": "destinations match the source's shape",
           "missing-lb0": "needs LB0 = ValidCol", "split-binding": "in one B.IOT marked <last>",
           "ior-on-tadd": "uses no B.IOR register", "datr-on-tadd": "the destination is FP64",
           "scalar-source-shape": "does not match LB1 x LB0", "cmode-on-tcvt": "CMode nonzero",
           "tcvt-source-type": "must be a legal numeric FP16 tile", "tcvt-canonicalize": "exactly for a private CUBE",
           "tcvt-layout": "reads a DN source", "tcvt-shape": "TileOperandsLegal_TCVT",
           "reduce-source-shape": "does not match LB1 x LB0", "reduce-zero-ior": "not even an all-zero one",
           "reduce-ior-register": "uses no B.IOR register", "expand-broadcast-shape": "the broadcast source",
           "expand-full-rows": "full-shape source's physical shape"}


@pytest.mark.parametrize("kind", sorted(gb.ILLEGAL))
def test_each_illegal_class_gives_its_fault_and_publishes_nothing(kind):
    b = gb.illegal(kind, seeded(1, kind))
    r = ex.execute(b.words, b.tiles, b.gprs)
    assert r.fault is not None and (r.fault.name, r.fault.trap) == (b.fault, b.trap), r.fault
    assert REASONS[kind] in r.fault.reason  # faulting for the intended reason, not just the same class
    assert set(r.tiles) == set(b.tiles)  # no destination published
    assert all(np.array_equal(r.tiles[k].data, b.tiles[k].data) for k in b.tiles)


def test_dont_care_bits_change_nothing_and_mask_zero_is_a_no_op():
    b = gb.illegal("dont-care", seeded(2))
    base = gb._base("TSORT", seeded(2))
    r, r0 = ex.execute(b.words, b.tiles, b.gprs), ex.execute(base.words, base.tiles, base.gprs)
    assert r.outcome == r0.outcome == "ok"
    assert all(np.array_equal(r.tiles[k].data, r0.tiles[k].data) for k in (0, 16))
    noop = gb.illegal("noop", seeded(3))
    r = ex.execute(noop.words, noop.tiles, noop.gprs)
    assert r.outcome == "noop" and set(r.tiles) == set(noop.tiles)


def test_a_reserved_selector_faults_before_the_open_block_retires():
    b = gb._base("TSORT", seeded(4))
    words = b.words[:-1] + [0x0F519181]  # instead of BSTOP: BSTART with selector 0x75 (a hole)
    r = ex.execute(words, b.tiles, b.gprs)
    assert (r.fault.name, r.fault.trap) == ("Fault_IllegalInstruction", 4) and not r.blocks
    assert set(r.tiles) == set(b.tiles)


def test_a_mask_zero_binding_after_last_is_dropped_and_nothing_ran_is_not_ok():
    b = gb._base("TSORT", seeded(9))
    extra = asm.assemble("B.IOT mask=0000, ->N<SizeCode 1>")
    r = ex.execute(b.words[:-1] + extra + b.words[-1:], b.tiles, b.gprs)
    assert r.outcome == "ok"  # the strict no-op is dropped before the stream's end is checked
    assert ex.execute([], {}).outcome == "empty"
    assert ex.execute(asm.assemble("BSTART.SFU TDIV, FP32; BSTOP"), {}).outcome == "unsupported"
    empty_tadd = ex.execute(asm.assemble("BSTART.VEC TADD, FP32; BSTOP"), {})  # TADD runs: it binds nothing
    assert (empty_tadd.fault.name, empty_tadd.fault.point) == ("Fault_BundleControl", "commit")
    assert ex.execute(b.words[:-1], b.tiles, b.gprs).outcome == "open"


@pytest.mark.parametrize("args", [["tpartadd", "--dtype", "int8", "--shape", "1x16"],
                                  ["tpartadd", "--dtype", "float32", "--shape", "4x6"],
                                  ["tsort", "--dtype", "float16", "--shape", "128x256"]])
def test_gen_bundle_for_cases_with_no_bundle_spelling(cli, tmp_path, args):
    import json

    res = cli("gen", *args, "--platform", "spec", "--bundle", "-o", tmp_path)
    assert res.code == 0, res
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert "no bundle spelling" in json.loads((folder / "ptofuzz.json").read_text())["bundle"]["none"]
    assert not (folder / "bundle.bin").exists()


def _spec_case(op, dtype, rows, cols, vr, vc, **params):
    from ptofuzz.core.case import Case, Tile

    t = Tile(rows, cols, vr, vc)
    roles = ("src", "dst", "idx") if op == "TSORT" else ("dst", "src0", "src1")
    return Case(op, "spec", dtype, tuple((r, t) for r in roles), tuple(sorted(params.items())))


@pytest.mark.parametrize(("case", "why"), [
    # int8 1x16 = 16 B and float32 4x6 = 96 B: below the smallest Local tile (128 B)
    (_spec_case("TPARTADD", "int8", 1, 16, 1, 16), "the destination tile's 16 B is no Local tile size"),
    (_spec_case("TPARTADD", "float32", 4, 6, 4, 6), "the destination tile's 96 B is no Local tile size"),
    # float16 128x256 = 64 KiB fits SizeCode 10, but its U32 indices take 128 KiB
    (_spec_case("TSORT", "float16", 128, 256, 128, 256), "the index tile's 131072 B is no Local tile size"),
    (_spec_case("TPARTADD", "float32", 8, 16, 8, 16), None),  # 512 B: SizeCode 3
    (_spec_case("TSORT", "float32", 8, 32, 8, 32, sort_width=32), None),
])
def test_which_spec_cases_have_a_bundle_spelling_is_a_rule(case, why):
    got = gb.spelling_problem(case)
    assert (got is None) if why is None else (got is not None and why in got), got
    if why is None:  # the rule's "spellable" is really spellable: the bundle builds and encodes
        inputs = {r: np.zeros(t.shape, np.uint32) for r, t in case.tiles if r.startswith("src")}
        assert gb.bundle_for(case, inputs).words
    else:
        with pytest.raises(ValueError, match="no bundle spelling"):
            gb.bundle_for(case, {})


def test_a_bug_while_building_a_bundle_raises_instead_of_becoming_unsupported(monkeypatch):
    from ptofuzz.backends import bundle as oracle

    case = _spec_case("TPARTADD", "float32", 8, 16, 8, 16)
    inputs = {"src0": np.zeros((8, 16), np.uint32), "src1": np.zeros((8, 16), np.uint32)}
    assert oracle.evaluate(case, inputs).kind == "ok"

    def broken(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(gb, "tpart_bundle", broken)
    with pytest.raises(KeyError, match="a bug"):
        oracle.evaluate(case, inputs)


def test_the_core_capacity_is_charged_per_enabled_pe():
    b = gb._base("TPARTADD", seeded(8))
    need = sum(t.capacity * 4 for t in b.tiles.values())
    assert ex.execute(b.words, b.tiles, capacity=need).fault.name == "Fault_TileAllocation"
    assert ex.execute(b.words, b.tiles, capacity=need + 4 * 256).fault is None


def test_header_commands_outside_a_block_and_after_last():
    r = ex.execute(asm.assemble("B.DIM zero, 3, ->LB0"), {})
    assert r.fault.name == "Fault_BundleControl"
    b = gb._base("TPARTADD", seeded(5))
    words = b.words[:-1] + [b.words[-2]] + b.words[-1:]  # the <last> binding twice
    assert ex.execute(words, b.tiles).fault.name == "Fault_BundleControl"


@pytest.mark.parametrize("op", ["TSORT", "TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN"])
def test_legal_bundles_equal_the_direct_spec_oracle(op):
    inst = registry.get(op)
    src = seeded(6, op)
    compared = 0
    for k in range(40):
        case = inst.random_case(src, "spec", {})
        if op == "TSORT" and case.tile("src").rows * case.tile("src").cols * 4 > 32768:
            continue  # an index destination above 64 KiB has no SizeCode
        inputs = inst.draw_inputs(seeded(7, op, str(k)), case, values.ValueMix())
        direct = inst.evaluate(case, inputs)
        b = gb.bundle_for(case, inputs)
        r = ex.execute(b.words, b.tiles, b.gprs, capacity=1 << 30)  # the direct oracle has no core budget
        if direct.kind == "fault":
            assert r.fault is not None and r.fault.trap == direct.fault.trap == 5, (case, r.fault, direct.fault)
            continue
        assert r.fault is None, (case, r.fault)
        compared += 1
        roles = ("dst", "idx") if op == "TSORT" else ("dst",)
        for role, slot in zip(roles, (0, 16)):
            t = r.tiles[slot]
            vr, vc = t.valid_rows, t.valid_cols
            assert np.array_equal(t.data[:vr, :vc], direct.outputs[role][:vr, :vc])
        assert r.blocks[0].flags == tuple(direct.flags or ())
    assert compared >= 10


@pytest.mark.parametrize("op", ["tsort", "tpartadd", "tpartmax"])
def test_gen_bundle_writes_words_text_and_the_expected_outcome(cli, tmp_path, op):
    import json

    assert cli("gen", op, "--platform", "spec", "--bundle", "-o", tmp_path).code == 0
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert folders
    for folder in folders:
        manifest = json.loads((folder / "ptofuzz.json").read_text())
        words = [int(w, 16) for w in manifest["bundle"]["words"]]
        assert (folder / "bundle.bin").read_bytes() == b"".join(w.to_bytes(4, "little") for w in words)
        text = (folder / "bundle.s").read_text()
        assert asm.assemble(text) == words  # the header line is a comment
        # the executor agrees with the direct oracle on whether the case is legal
        assert (manifest["bundle"]["expected"]["outcome"] == "ok") == (manifest["expected"]["outcome"] == "ok") \
            or manifest["params"].get("contract")  # the contract header's BF16 TSORT has no bundle spelling
    assert cli("check", tmp_path).code == 0
    bad = cli("gen", op, "--platform", "a5" if op != "tsort" else "spec", "--bundle", "--random", "1", "-o",
              tmp_path / "x")
    assert (bad.code == 2 and "--bundle" in bad.err) if op != "tsort" else bad.code == 0


def test_the_checked_in_bundle_fuzz_corpus_runs_clean():
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("fuzz_bundle", root / "fuzz" / "fuzz_bundle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    run = mod.target()
    files = sorted((root / "corpora" / "bundle-atheris").iterdir())
    assert len(files) > 100
    for f in files:  # decode/encode/assemble round trips and the executor: no exception on any of them
        run(f.read_bytes())


@pytest.mark.parametrize("op", ["tsort", "tpartadd", "tpartmul", "tpartmax", "tpartmin"])
def test_fuzzing_the_executor_against_the_spec_oracle_finds_nothing(op):
    from ptofuzz.engine import campaign

    plan = campaign.make_plan(op, ["spec", "bundle"], seed=3, batch=32)
    store, stats = campaign.run_random(plan, runs=1500)
    assert stats.cases == 1500 and not store.findings, sorted(store.findings)


def test_fuzzing_the_executor_finds_a_planted_off_by_one(monkeypatch):
    from ptofuzz.bundle import encoding as enc
    from ptofuzz.engine import campaign

    real = gb.tpart_bundle

    def off_by_one(case, inputs, **kw):  # a broken encoder: LB1 (ValidRow) one short when there are 2 rows or more
        b = real(case, inputs, **kw)
        for k, w in enumerate(b.words):
            cmd = enc.decode(w)
            if cmd.form == "B.DIM" and cmd["lb"] == 1 and cmd["imm"] > 1:
                b.words[k] = enc.encode(enc.Command("B.DIM", {**cmd.fields, "imm": cmd["imm"] - 1}))
        return b

    monkeypatch.setattr(gb, "tpart_bundle", off_by_one)
    plan = campaign.make_plan("tpartadd", ["spec", "bundle"], seed=3, batch=32)
    store, _ = campaign.run_random(plan, runs=3000)
    assert any(f.signature.pair == "bundle~spec" and f.new for f in store.findings.values())
