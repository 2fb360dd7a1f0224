"""pto-spec TMRGSORT (the spec platform of TMRGSORT): pto-spec's own test points as facts, the merge against an
independent recomputation, gen/check on spec case folders, and fuzzing it against the pto-isa models."""

from __future__ import annotations

import json

import numpy as np
import pytest
from backend_helpers import evaluate

from ptofuzz.core.case import COMMIT, EXACT, Case, OutcomeKind, Tile
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.instructions.tmrgsort import _spec_mrg_case
from ptofuzz.oracles import ieee

INST = registry.get("TMRGSORT")
ASL = "PTO-ISA/pto-spec e599a3d3"


def _case(dt: str, left: list[int], right: list[int], descending: int) -> tuple[Case, dict[str, np.ndarray]]:
    """A spec case of two one-row sources holding ``left`` and ``right`` (raw bits), in ptofuzz's smallest legal
    descriptors (pto-spec's tests configure other capacities: the merge does not read them)."""
    case = _spec_mrg_case(dt, len(left), len(right), descending)
    bits = np.dtype("<u4" if dt == "float32" else "<u2")
    inputs = {}
    for role, vals in (("src0", left), ("src1", right)):
        t = case.tile(role)
        tile = np.zeros(t.shape, bits)
        tile[0, :len(vals)] = vals
        inputs[role] = tile
    return case, inputs


def _merged(case: Case, inputs) -> list[int]:
    out = INST.evaluate(case, inputs)
    assert out.kind is OutcomeKind.OK, out
    n = case.tile("dst").valid_cols
    assert (out.classes["dst"][0, :n] == EXACT).all()
    return [int(v) for v in out.outputs["dst"][0, :n]]


# ---- pto-spec's TMRGSORT tests (facts: inputs and expected results; test id and file named) ----------------

@pytest.mark.parametrize("left, right, descending, expected", [
    pytest.param([0x3F800000, 0x40400000], [0x40000000, 0x40800000], 0,
                 [0x3F800000, 0x40000000, 0x40400000, 0x40800000],
                 id="PTO-AVS-TILE-TMRGSORT-KERNEL-001 tests/asl/tile/model/execution/sorting/"
                    "tile-exec-tmrgsort-kernel-001.asl"),
    pytest.param([0x00000000, 0x3F800000], [0x80000000, 0x40000000], 0,
                 [0x00000000, 0x80000000, 0x3F800000, 0x40000000],
                 id="PTO-AVS-TILE-TMRGSORT-STABLE-001 tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/"
                    "tile-exec-tmrgsort-stable-001.asl"),
])
def test_pto_spec_tmrgsort_execution_points(left, right, descending, expected):
    assert _merged(*_case("float32", left, right, descending)) == expected


def test_pto_spec_tmrgsort_snan_001():
    # PTO-AVS-TILE-TMRGSORT-SNAN-001, tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/
    # tile-bound-tmrgsort-snan-001.asl: an FP32 sNaN (left) merges after the number (right) and raises NV
    case, inputs = _case("float32", [0x7F800001], [0x3F800000], 0)
    out = INST.evaluate(case, inputs)
    assert out.outputs["dst"][0, :2].tolist() == [0x3F800000, 0x7F800001] and out.flags == (ieee.NV,)


def test_pto_spec_tmrgsort_order_and_legality_points():
    # PTO-AVS-TILE-TMRGSORT-ORDER-001 (tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/
    # tile-bound-tmrgsort-order-001.asl): an ascending merge rejects a descending left source [2, 1]
    out = INST.evaluate(*_case("float32", [0x40000000, 0x3F800000], [0x40400000, 0x40800000], 0))
    assert (out.kind, out.fault.name, out.fault.point) == (OutcomeKind.FAULT, "Fault_TileLegality", COMMIT)
    # PTO-AVS-TILE-TMRGSORT-LEGALITY-001 (tests/asl/tile/model/legality/sorting/tile-bound-tmrgsort-legality-001.asl):
    # [1, 3] + [2, 4] ascending is legal; with the left head raised to 5 it is not
    assert INST.evaluate(*_case("float32", [0x3F800000, 0x40400000], [0x40000000, 0x40800000], 0)).kind is \
        OutcomeKind.OK
    assert INST.evaluate(*_case("float32", [0x40A00000, 0x40400000], [0x40000000, 0x40800000], 0)).fault.name == \
        "Fault_TileLegality"


@pytest.mark.parametrize("dtype, legal", [("float32", True), ("float16", True), ("bfloat16", False),
                                          ("uint16", False), ("uint64", False)])
def test_pto_spec_tmrgsort_types_001(dtype, legal):
    # PTO-AVS-TILE-TMRGSORT-TYPES-001 (tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/
    # tile-bound-tmrgsort-types-001.asl): FP32 and FP16 streams only; U64 1 + 2 is rejected, FP16 1.0 + 2.0 legal
    bits = {"float32": (0x3F800000, 0x40000000), "float16": (0x3C00, 0x4000)}.get(dtype, (1, 2))
    d = {"float32": 4, "float16": 2, "bfloat16": 2, "uint16": 2, "uint64": 8}[dtype]
    t1, t2 = Tile(128 // d, 1, 1, 1), Tile(64 // d, 2, 1, 2)
    case = Case("TMRGSORT", "spec", dtype, (("dst", t2), ("src0", t1), ("src1", t1)), (("descending", 0),))
    arr = {4: np.uint32, 2: np.uint16, 8: np.uint64}[d]
    inputs = {"src0": np.array([[bits[0]]] + [[0]] * (t1.rows - 1), arr),
              "src1": np.array([[bits[1]]] + [[0]] * (t1.rows - 1), arr)}
    out = INST.evaluate(case, inputs)
    if legal:
        assert out.kind is OutcomeKind.OK and out.outputs["dst"][0].tolist() == list(bits)
    else:
        assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality"


# ---- the merge against an independent recomputation ------------------------------------------------------

def _python_merge(left: np.ndarray, right: np.ndarray, dt: str, descending: bool) -> list[int]:
    """The two-pointer merge, element by element, with Python floats: take the left head unless the right one
    must come first (numbers by value with +0 == -0, NaNs after every number, ties to the left)."""
    view = np.float32 if dt == "float32" else np.float16

    def before(a: int, b: int) -> bool:  # may a precede b
        fa, fb = float(np.array(a, left.dtype).view(view)), float(np.array(b, left.dtype).view(view))
        if np.isnan(fa):
            return bool(np.isnan(fb))
        if np.isnan(fb) or fa == fb:
            return True
        return fa > fb if descending else fa < fb

    out, i, j = [], 0, 0
    while i < len(left) or j < len(right):
        if j >= len(right) or (i < len(left) and before(int(left[i]), int(right[j]))):
            out.append(int(left[i]))
            i += 1
        else:
            out.append(int(right[j]))
            j += 1
    return out


@pytest.mark.parametrize("profile", ["default", "sort", "nan", "zero,subnormal", "tie,equal"])
def test_random_spec_merges_equal_the_two_pointer_merge(profile):
    mix = values.ValueMix.parse(profile, 0.3)
    geo = seeded(4, "geometry", profile)
    for k in range(40):
        case = INST.random_case(geo, "spec", {})
        inputs = INST.draw_inputs(seeded(4, profile, str(k)), case, mix)
        a, b = (inputs[r][0, :case.tile(r).valid_cols] for r in ("src0", "src1"))
        expect = _python_merge(a, b, case.dtype, bool(case.param("descending")))
        assert _merged(case, inputs) == expect, (case, k)


def test_stacked_spec_cases_are_each_their_own():
    case = _spec_mrg_case("float16", 7, 30, 1)
    stacked = INST.draw_batch(seeded(6), case, values.ValueMix(0.3), 16)
    out = INST.evaluate(case, stacked)
    for i in range(16):
        one = INST.evaluate(case, {r: v[i] for r, v in stacked.items()})
        np.testing.assert_array_equal(out.outputs["dst"][i], one.outputs["dst"])


# ---- the pto-isa models on spec cases ----------------------------------------------------------------------

@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_a_platform_runs_a_spec_case_as_the_same_records(platform):
    from ptofuzz.instructions.tmrgsort import _mrg_case, _row
    from ptofuzz.oracles import mrgsort

    case = _spec_mrg_case("float32", 5, 9, 1)
    inputs = INST.draw_inputs(seeded(8), case, values.ValueMix(0.0))
    got = INST.evaluate(case.on(platform), inputs)
    a, b = inputs["src0"][0, :5], inputs["src1"][0, :9]
    rec = _mrg_case(platform, "float32", {"dst": _row(14, 14), "src0": _row(5, 5), "src1": _row(9, 9)}, lists=2)
    want = mrgsort.tmrgsort(rec, {"src0": mrgsort.join_records(a, np.arange(5, dtype=np.uint32), "float32")[None],
                                  "src1": mrgsort.join_records(b, np.arange(5, 14, dtype=np.uint32), "float32")[None]},
                            platform)
    assert got.outputs["dst"][0, :14].tolist() == want.outputs["dst"][0, 0:28:2].tolist()
    assert got.outputs["dst"][0, :14].tolist() == _python_merge(a, b, "float32", True)  # plain data: all agree
    ascending = _spec_mrg_case("float32", 5, 9, 0)
    assert INST.evaluate(ascending.on(platform), inputs).kind is OutcomeKind.UNSUPPORTED


# ---- gen, check and fuzz ----------------------------------------------------------------------------------

def test_gen_and_check_spec_case_folders(cli, tmp_path):
    res = cli("gen", "tmrgsort", "--platform", "spec", "--out", tmp_path / "c")
    assert res.code == 0, res
    folders = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len(folders) == 7 and "TMRGSORTSpec.case_float32_1x4of8x4_1x2of16x2_1x2of16x2_desc0" in folders
    assert cli("check", tmp_path / "c").code == 0
    res = cli("gen", "tmrgsort", "--platform", "spec", "--shape", "1x5", "--descending", "--dtype", "f16",
              "--out", tmp_path / "e")
    assert res.code == 0 and "TMRGSORTSpec.case_float16_1x10of4x16_1x5of8x8_1x5of8x8_desc1" in res.out
    folder = tmp_path / "e" / "TMRGSORTSpec.case_float16_1x10of4x16_1x5of8x8_1x5of8x8_desc1"
    src0 = np.fromfile(folder / "input0.bin", "<u2").reshape(8, 8)[0, :5].view(np.float16)
    assert (np.diff(src0.astype(np.float64)) <= 0).all()  # drawn sorted descending
    golden = np.fromfile(folder / "golden.bin", "<u2")
    golden[0] ^= 0x8000
    golden.tofile(folder / "golden.bin")
    assert cli("check", tmp_path / "e").code == 1
    assert cli("gen", "tmrgsort", "--platform", "spec", "--lists", "3").code == 2


def test_fuzz_spec_against_the_pto_isa_models(cli, tmp_path):
    res = cli("fuzz", "tmrgsort", "--oracles", "spec,cpu,a2a3,a5", "--runs", "40000", "--seed", "1", "--out",
              tmp_path, "--json")
    data = json.loads(res.out)
    assert data["oracles"] == ["spec", "cpu", "a2a3", "a5"]
    sigs = {s["signature"]: s for s in data["signatures"]}
    # pto-spec puts every NaN after every number, pto-isa's cpu merge takes a NaN head where it meets it; pto-spec
    # rejects an empty list (one spec case in eight is drawn illegal), pto-isa merges it: documented, nothing new
    assert res.code == 0 and all(s["known"] for s in sigs.values())
    found = sigs["TMRGSORT/float/cpu~spec/ordering/-/-"]
    assert found["hits"] > 100 and "NaN" in found["known"]
    assert set(sigs) <= {"TMRGSORT/float/cpu~spec/ordering/-/-",
                         *(f"TMRGSORT/float/{p}~spec/fault-vs-value/-/empty-source" for p in ("a2a3", "a5", "cpu"))}


# ---- the bundle form ----------------------------------------------------------------------------------------

def test_pto_spec_tmrgsort_bundle_001():
    # PTO-AVS-TILE-TMRGSORT-BUNDLE-001 (tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/
    # tile-exec-tmrgsort-bundle-001.asl): M#1 [1, 3] and M#2 [2, 4] (FP32, 128 B of 16x2, valid 1x2); one B.IOT
    # with both sources, ->T<SizeCode 1>, mask 0001, <last>; no B.DIM: T#1 is valid 1x4 holding [1, 2, 3, 4]
    from ptofuzz.bundle import asm
    from ptofuzz.bundle import executor as ex

    tiles = {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x3F800000, 0x40400000]]),
             33: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x40000000, 0x40800000]])}
    r = ex.execute(asm.assemble("BSTART.SFU TMRGSORT, FP32; B.IOT M#1, M#2, mask=0001, <last>, ->T<SizeCode 1>; "
                                "BSTOP"), tiles)
    assert r.fault is None and r.outcome == "ok"
    t = r.tiles[0]
    assert (t.valid_rows, t.valid_cols, t.cols) == (1, 4, 4)
    assert t.data[0, :4].tolist() == [0x3F800000, 0x40000000, 0x40400000, 0x40800000]


@pytest.mark.parametrize("descending, left, right, expected", [
    (0, [1.0, 3.0], [1.0, 2.0], [1.0, 1.0, 2.0, 3.0]),
    (1, [3.0, 1.0], [2.0, 1.0], [3.0, 2.0, 1.0, 1.0]),
])
def test_pto_spec_tmrgsort_end_to_end_execution_001(descending, left, right, expected):
    # PTO-AVS-BLOCK-TMRGSORT-END-TO-END-EXECUTION-001 (tests/asl/block/operands/B.IOR/
    # block-exec-b-ior-tmrgsort-end-to-end-001.asl): U#1 and U#2 (FP32, 16x2, valid 1x2); a B.IOT with U#1 and
    # ->T<SizeCode 1>, a source-only B.IOT with U#2 and <last>, both mask 1000; B.IOR reads the flag from a4;
    # equal keys keep the left source first in both directions
    from ptofuzz.bundle import asm
    from ptofuzz.bundle import executor as ex

    bits = {v: int(np.float32(v).view(np.uint32)) for v in (1.0, 2.0, 3.0)}
    tiles = {16: ex.LocalTile.of("float32", 16, 2, (1, 2), [[bits[v] for v in left]]),
             17: ex.LocalTile.of("float32", 16, 2, (1, 2), [[bits[v] for v in right]])}
    words = asm.assemble("BSTART.SFU TMRGSORT, FP32; B.IOT U#1, mask=1000, ->T<SizeCode 1>; "
                         "B.IOT U#2, mask=1000, <last>; B.IOR a4; BSTOP")
    r = ex.execute(words, tiles, {"a4": descending})
    assert r.fault is None and r.outcome == "ok"
    assert r.tiles[0].data[0, :4].tolist() == [bits[v] for v in expected]


@pytest.mark.parametrize("text, fault", [
    ("BSTART.SFU TMRGSORT, FP32; B.DIM zero, 4, ->LB0; B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>; BSTOP",
     "Fault_TileLegality"),  # the sorting schema: no LB at all
    ("BSTART.SFU TMRGSORT, BF16; B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>; BSTOP", "Fault_TileLegality"),
    ("BSTART.SFU TMRGSORT, FP32; B.IOT M#1, mask=1111, <last>, ->T<SizeCode 1>; BSTOP", "Fault_BundleControl"),
])
def test_tmrgsort_bundle_faults_at_commit(text, fault):
    from ptofuzz.bundle import asm
    from ptofuzz.bundle import executor as ex

    tiles = {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x3F800000, 0x40400000]]),
             33: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x40000000, 0x40800000]])}
    r = ex.execute(asm.assemble(text), tiles)
    assert (r.fault.name, r.fault.point) == (fault, COMMIT)


def test_random_spec_cases_equal_their_bundles_and_fuzz_agrees(cli, tmp_path):
    for k in range(60):
        src = seeded(11, str(k))
        case = INST.random_case(src, "spec", {})
        inputs = INST.draw_inputs(src, case, values.ValueMix(0.3))
        direct, bundled = INST.evaluate(case, inputs), evaluate(INST, case.on("bundle"), inputs)
        assert direct.kind == bundled.kind
        np.testing.assert_array_equal(direct.outputs["dst"], bundled.outputs["dst"])
        assert tuple(direct.flags or ()) == tuple(bundled.flags or ())
    res = cli("fuzz", "tmrgsort", "--oracles", "spec,bundle", "--runs", "20000", "--seed", "2", "--out", tmp_path)
    assert res.code == 0, res


def test_pto_spec_tmrgsort_static_001():
    # PTO-AVS-TILE-TMRGSORT-STATIC-001 (tests/asl/tile/irregular-and-complex/sorting/TMRGSORT/
    # tile-static-tmrgsort-contract-001.asl): TEPL selector 0x06D is TMRGSORT, an SFU operation; an all-zero
    # B.DATR is accepted
    from ptofuzz.bundle import asm
    from ptofuzz.bundle import encoding as enc
    from ptofuzz.bundle import executor as ex

    assert enc.SELECTORS[0x6D] == "TMRGSORT" and enc.ENGINE["TMRGSORT"] == "SFU"
    assert asm.disassemble([0x0ED19181]) == ["BSTART.SFU TMRGSORT, FP32"]
    tiles = {32: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x3F800000, 0x40400000]]),
             33: ex.LocalTile.of("float32", 16, 2, (1, 2), [[0x40000000, 0x40800000]])}
    words = asm.assemble("BSTART.SFU TMRGSORT, FP32; B.DATR cmode=EQ, pad=Zero, sat=0, canon=0, dtype=FP64, "
                         "rmode=DEFAULT, layout=NORM; B.IOT M#1, M#2, mask=1111, <last>, ->T<SizeCode 1>; BSTOP")
    assert ex.execute(words, tiles).outcome == "ok"
