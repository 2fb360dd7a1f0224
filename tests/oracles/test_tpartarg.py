"""TPARTARGMAX / TPARTARGMIN: hand-worked examples per platform, with the pto-isa lines (3186c381) they follow.

Values are float32/float16 bit patterns; indices are chosen so that which source won is visible: src0's
indices are 0.., src1's 100.. .
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.engine import campaign
from ptofuzz.instructions import registry
from ptofuzz.oracles import tpartarg

F32 = {"1": 0x3F800000, "2": 0x40000000, "3": 0x40400000, "-1": 0xBF800000, "+0": 0, "-0": 0x80000000,
       "qnan": 0x7FC00000, "snan": 0x7F800001, "min-sub": 0x00000001, "inf": 0x7F800000}
F16 = {"1": 0x3C00, "2": 0x4000, "-1": 0xBC00, "qnan": 0x7E00}


def _case(op: str, platform: str, dtype: str, dst, src0, src1, idx: str = "uint32", tiles=None) -> Case:
    """Value tiles of exactly their valid region (or ``tiles``); index tiles shaped as their value tiles."""
    valid = {"dst": dst, "src0": src0, "src1": src1}
    shapes = tiles or {r: (max(v[0], 1), max(v[1], 1)) for r, v in valid.items()}
    t = {r: Tile(*shapes[r], *valid[r]) for r in valid}
    roles = (("dst", t["dst"]), ("src0", t["src0"]), ("src1", t["src1"]), ("dst_idx", t["dst"]),
             ("src0_idx", t["src0"]), ("src1_idx", t["src1"]))
    return Case(op, platform, dtype, roles, (("idx", idx),))


def _inputs(case: Case, a, b, bits=np.uint32, idx_bits=np.uint32) -> dict[str, np.ndarray]:
    s0, s1 = case.tile("src0").shape, case.tile("src1").shape
    return {"src0": np.array(a, bits).reshape(s0), "src1": np.array(b, bits).reshape(s1),
            "src0_idx": np.arange(s0[0] * s0[1], dtype=idx_bits).reshape(s0),
            "src1_idx": (100 + np.arange(s1[0] * s1[1])).astype(idx_bits).reshape(s1)}


def _run(case: Case, inputs):
    out = registry.get(case.op).evaluate(case, inputs)
    assert out.kind == "ok", out.reason
    return out


# ---- cpu: include/pto/cpu/TPartArgMax.hpp:21 (src0 > src1), TPartArgMin.hpp:21 (src0 < src1),
#      TPartArgCommon.hpp:38-44 (true -> src0, else src1), TPartOp.hpp:52-73 (one valid: copy; neither: 0, 0)

def test_cpu_argmax_ties_nan_and_signed_zero_take_src1():
    f = F32
    case = _case("TPARTARGMAX", "cpu", "float32", (1, 6), (1, 6), (1, 6))
    a = [f["2"], f["1"], f["1"], f["qnan"], f["3"], f["-0"]]
    b = [f["1"], f["2"], f["1"], f["3"], f["qnan"], f["+0"]]
    out = _run(case, _inputs(case, a, b))
    # 2>1 src0; 1>2 no -> src1; tie -> src1; NaN > 3 false -> src1; 3 > NaN false -> src1 (the NaN); -0 > +0 false
    assert out.outputs["dst"][0].tolist() == [f["2"], f["2"], f["1"], f["3"], f["qnan"], f["+0"]]
    assert out.outputs["dst_idx"][0].tolist() == [0, 101, 102, 103, 104, 105]
    assert (out.classes["dst"] == EXACT).all() and (out.classes["dst_idx"] == EXACT).all()


def test_cpu_argmin_one_source_valid_copies_it_and_neither_writes_zero():
    # dst 2x3; src0 valid 1x3 (row 0), src1 valid 2x1 (column 0): (0,0) both, (0,1..2) src0, (1,0) src1, (1,1..2)
    # neither -> value 0 and index 0
    f = F32
    case = _case("TPARTARGMIN", "cpu", "float32", (2, 3), (1, 3), (2, 1), tiles={"dst": (2, 3), "src0": (2, 3),
                                                                               "src1": (2, 3)})
    a = [f["2"], f["3"], f["-1"], f["1"], f["1"], f["1"]]
    b = [f["1"], f["1"], f["1"], f["-1"], f["2"], f["2"]]
    out = _run(case, _inputs(case, a, b))
    assert out.outputs["dst"].tolist() == [[f["1"], f["3"], f["-1"]], [f["-1"], 0, 0]]
    assert out.outputs["dst_idx"].tolist() == [[100, 1, 2], [103, 0, 0]]
    assert (out.classes["dst_idx"] == EXACT).all()  # the neither region is defined on the cpu


def test_cpu_takes_integer_values_and_16_bit_indices():
    case = _case("TPARTARGMAX", "cpu", "int8", (1, 4), (1, 4), (1, 4), idx="int16")
    a = np.array([-128, 127, 5, -1], np.int8).view(np.uint8)
    b = np.array([127, -128, 5, 0], np.int8).view(np.uint8)
    out = _run(case, _inputs(case, a, b, np.uint8, np.uint16))
    assert out.outputs["dst"].view(np.int8)[0].tolist() == [127, 127, 5, 0]
    assert out.outputs["dst_idx"][0].tolist() == [100, 1, 102, 103]


def test_cpu_refuses_index_tiles_of_another_shape():
    """TPartInstr2 addresses index tiles with the value tiles' offsets (TPartOp.hpp:54-58)."""
    case = _case("TPARTARGMAX", "cpu", "float32", (1, 8), (1, 8), (1, 8))
    tiles = dict(case.tiles)
    tiles["dst_idx"] = Tile(1, 16, 1, 8)
    odd = case.replace(tiles=tuple(tiles.items()))
    out = registry.get("TPARTARGMAX").evaluate(odd, _inputs(odd, [0] * 8, [0] * 8))
    assert out.kind == "unsupported" and "dst_idx" in out.reason


# ---- a2a3: include/pto/npu/a2a3/TPartArgOp.hpp:225 (vcmp_ge, MAX), :251 (vcmp_le, MIN), :68-76 (vsel src0 where
#      the mask is set), :207-219 (checkTiles), :147 (two smaller sources: assert)

def test_a2a3_ties_take_src0_and_nan_is_undefined():
    f = F32
    case = _case("TPARTARGMAX", "a2a3", "float32", (1, 4), (1, 4), (1, 4))
    out = _run(case, _inputs(case, [f["1"], f["1"], f["qnan"], f["1"]], [f["1"], f["2"], f["1"], f["qnan"]]))
    assert out.outputs["dst"][0, :2].tolist() == [f["1"], f["2"]]
    assert out.outputs["dst_idx"][0, :2].tolist() == [0, 101]  # tie: src0 >= src1 holds, src0 wins
    assert out.classes["dst"][0].tolist() == [EXACT, EXACT, UNDEFINED, UNDEFINED]
    assert out.classes["dst_idx"][0].tolist() == [EXACT, EXACT, UNDEFINED, UNDEFINED]


def test_a2a3_argmin_picks_the_smaller_and_copies_the_smaller_sources_rest():
    f = F32
    # dst 2x2 = src0; src1 1x2 (row 0 only): row 1 is src0's
    case = _case("TPARTARGMIN", "a2a3", "float32", (2, 2), (2, 2), (1, 2))
    out = _run(case, _inputs(case, [f["2"], f["-1"], f["3"], f["1"]], [f["1"], f["-1"]]))
    assert out.outputs["dst"].tolist() == [[f["1"], f["-1"]], [f["3"], f["1"]]]
    assert out.outputs["dst_idx"].tolist() == [[100, 1], [2, 3]]


def test_a2a3_refuses_what_check_tiles_refuses():
    inst = registry.get("TPARTARGMAX")
    crossed = _case("TPARTARGMAX", "a2a3", "float32", (2, 2), (2, 1), (1, 2))  # neither source is dst
    assert inst.evaluate(crossed, _inputs(crossed, [0] * 2, [0] * 2)).kind == "unsupported"
    pair = _case("TPARTARGMAX", "a2a3", "float32", (1, 8), (1, 8), (1, 8), idx="int16")  # float32 needs 32-bit
    out = inst.evaluate(pair, _inputs(pair, [0] * 8, [0] * 8, idx_bits=np.uint16))
    assert out.kind == "unsupported" and "int16" in out.reason


# ---- a5 (and kirin, which include it): include/pto/npu/a5/TPartArgMax.hpp:22 / TPartArgMin.hpp:22 (vcmp_gt /
#      vcmp_lt of src1 against src0), TPartArgBinOps.hpp:121-122 (vsel src1 where set), :218-233 (TPartArgCheck),
#      :252-257 (an empty source: TMOV of the other)

@pytest.mark.parametrize("platform", ["a5", "kirin9030", "kirinDev0000"])
def test_a5_src1_only_when_strictly_better(platform):
    f = F32
    case = _case("TPARTARGMAX", platform, "float32", (1, 4), (1, 4), (1, 4))
    out = _run(case, _inputs(case, [f["1"], f["1"], f["-0"], f["min-sub"]], [f["1"], f["2"], f["+0"], f["+0"]]))
    assert out.outputs["dst_idx"][0, :3].tolist() == [0, 101, 2]  # tie -> src0; -0 vs +0 is a tie -> src0 (-0)
    assert out.outputs["dst"][0, 2] == f["-0"]
    # a subnormal against +0: a flushing compare ties (src0) as the exact one does (src0 > 0 picks src0): defined
    assert out.classes["dst"][0, 3] == EXACT and out.outputs["dst_idx"][0, 3] == 3


def test_a5_argmin_subnormal_that_a_flush_would_reorder_is_undefined():
    f = F32
    case = _case("TPARTARGMIN", "a5", "float32", (1, 2), (1, 2), (1, 2))
    # min(+0, min-sub) = +0 (src0) exactly; flushed, min-sub == 0 ties -> src0 as well: defined.
    # min(min-sub, +0) = +0 (src1) exactly; flushed it ties -> src0: the two disagree, undefined.
    out = _run(case, _inputs(case, [f["+0"], f["min-sub"]], [f["min-sub"], f["+0"]]))
    assert out.classes["dst"][0].tolist() == [EXACT, UNDEFINED]
    assert out.outputs["dst_idx"][0, 0] == 0


def test_a5_empty_source_copies_the_other_and_float16_pairs_with_16_bit_indices():
    f = F16
    # a5 case_fp32_8x7_8x7_8x0 in miniature, float16 with uint16 indices: src1 empty -> dst = src0
    case = _case("TPARTARGMAX", "a5", "float16", (2, 3), (2, 3), (2, 0), idx="uint16",
                 tiles={"dst": (2, 16), "src0": (2, 16), "src1": (1, 16)})
    a = ([f["1"], f["-1"], f["qnan"]] + [0] * 13) * 2
    out = _run(case, _inputs(case, a, [f["2"]] * 16, np.uint16, np.uint16))
    assert out.outputs["dst"][:, :3].tolist() == [[f["1"], f["-1"], f["qnan"]]] * 2  # a copied NaN is exact
    assert out.outputs["dst_idx"][:, :3].tolist() == [[0, 1, 2], [16, 17, 18]]
    assert (out.classes["dst"][:, :3] == EXACT).all() and (out.classes["dst"][:, 3:] == UNDEFINED).all()


def test_npu_neither_region_and_outside_are_undefined():
    # a5 requires dst = max(src) with one source = dst, so "neither" cannot occur there; outside the valid region
    # the kernels store nothing
    case = _case("TPARTARGMAX", "a5", "float32", (1, 7), (1, 7), (1, 3), tiles={"dst": (1, 8), "src0": (1, 8),
                                                                              "src1": (1, 8)})
    out = _run(case, _inputs(case, [F32["1"]] * 8, [F32["2"]] * 8))
    assert out.outputs["dst_idx"][0, :7].tolist() == [100, 101, 102, 3, 4, 5, 6]
    assert out.classes["dst_idx"][0, 7] == UNDEFINED


def test_models_by_implementation():
    assert tpartarg.oracle_of("kirin9030") is tpartarg.oracle_of("a5") is tpartarg.npu
    assert tpartarg.oracle_of("cpu") is tpartarg.cpu_checked


# ---- files, CLI, fuzzing ------------------------------------------------------------------------------

def test_gen_kirinX90_writes_kirin9030_folders(cli, tmp_path):
    res = cli("gen", "tpartargmax", "--platform", "kirinX90", "--out", tmp_path)
    assert res.code == 0, res.out
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["TPARTARGMAXTest.case_fp16_10x31_8x16_10x31", "TPARTARGMAXTest.case_fp16_5x33_5x33_5x30",
                     "TPARTARGMAXTest.case_fp32_12x63_12x63_6x60", "TPARTARGMAXTest.case_fp32_2x24_2x24_2x8",
                     "TPARTARGMAXTest.case_fp32_64x64_64x64_64x64"]
    assert cli("check", tmp_path).code == 0


@pytest.mark.parametrize(("args", "message"), [
    (("--platform", "a5", "--dtype", "int8"),
     "TPARTARGMAX on a5 does not support dtype int8; use one of: float32, float16"),
    (("--platform", "kirin9030", "--dtype", "float32", "--index-dtype", "int16"),
     "--index-dtype int16: TPARTARGMAX on kirin9030 pairs float32 values with int32, uint32 indices"),
    (("--platform", "a2a3", "--dtype", "bf16"),
     "TPARTARGMAX on a2a3 does not support dtype bfloat16"),
])
def test_a_dtype_a_platform_lacks_is_a_one_line_usage_error(cli, tmp_path, args, message):
    res = cli("gen", "tpartargmax", *args, "--out", tmp_path)
    assert res.code == 2 and message in res.err and len(res.err.strip().splitlines()) == 1, res.err
    assert not any(tmp_path.iterdir())


def test_explicit_and_random_cases_round_trip_through_their_folders(cli, tmp_path):
    res = cli("gen", "tpartargmin", "--platform", "a5", "--dtype", "float16", "--index-dtype", "int16",
              "--dst", "5x33", "--src1", "5x30", "--out", tmp_path / "x")
    assert res.code == 0, res.out
    (folder,) = (tmp_path / "x").iterdir()
    assert folder.name == "TPARTARGMINTest.case_fp16_s16_5x33of5x48_5x33of5x48_5x30of5x32"
    assert (folder / "input0_idx.bin").stat().st_size == 5 * 48 * 2
    assert cli("gen", "tpartargmax", "--platform", "cpu", "--random", "30", "--out", tmp_path / "r").code == 0
    assert cli("gen", "tpartargmax", "--platform", "a2a3", "--random", "30", "--out", tmp_path / "r2").code == 0
    res = cli("check", tmp_path / "x", tmp_path / "r", tmp_path / "r2")
    assert res.code == 0 and "61 of 61 case(s) pass" in res.out, res.out


def test_fuzz_cpu_against_the_npus_shows_only_the_tie_rule():
    plan = campaign.make_plan("TPARTARGMAX", ["cpu", "a2a3", "a5", "kirinX90"], seed=3)
    store, stats = campaign.run_random(plan, runs=3000)
    found = [f.signature for f in store.findings.values()]
    assert stats.cases == 3000 and plan.oracles == ("cpu", "a2a3", "a5", "kirin9030")
    assert {(s.kind, s.region) for s in found} == {("index", "op"), ("signed-zero", "op")}
    assert {s.pair for s in found} == {"a2a3~cpu", "a5~cpu", "cpu~kirin9030"}  # the NPUs agree with each other
    assert all(f.known for f in store.findings.values())


def test_the_default_oracles_are_the_three_implementations():
    assert campaign.make_plan("TPARTARGMIN").oracles == ("cpu", "a2a3", "a5")
    row = next(r for r in api.capabilities() if r["op"] == "TPARTARGMIN" and r["platform"] == "spec")
    assert row["unmodelled"] and row["dtypes"] == [] and "pto-spec deleted" in row["notes"]
    with pytest.raises(UsageError, match="TPARTARGMIN has no spec model"):
        campaign.make_plan("TPARTARGMIN", ["spec", "cpu"])


def test_check_reads_a_pto_isa_a2a3_folder_without_a_manifest(tmp_path):
    api.generate("tpartargmax", "a2a3", tmp_path)
    folder = tmp_path / "TPARTARGMAXTest.case_float_uint32_tile_diff"
    (folder / "ptofuzz.json").unlink()
    (v,) = api.check([folder], "a2a3")
    assert v.verdict == "pass" and [f.file for f in v.files] == ["dst_val.bin", "dst_idx.bin"]
    idx = np.fromfile(folder / "dst_idx.bin", np.uint32).reshape(4, 16)  # dst_idx tile 4x16, valid 4x7
    assert (idx[:, 7:] == 0).all()


def test_diff_of_an_index_finding_shows_value_and_index_side_by_side(cli, tmp_path):
    out = tmp_path / "run"
    assert cli("fuzz", "tpartargmax", "--oracles", "cpu,a5", "--runs", "2000", "--seed", "4", "--out", out).code == 0
    (folder,) = [p for p in out.iterdir() if "_index_" in p.name]
    res = cli("diff", folder)
    assert res.code == 1, res.out
    lines = res.out.splitlines()
    k = lines.index("  value / index at these elements:")
    block = lines[k + 1:k + 6]  # one element: where, src0, src1, then each oracle's value / index
    src0, src1, a5, cpu = (line.split(None, 1 if line.split()[0].startswith("src") else 2)[-1] for line in block[1:])
    assert src0.split(" / ")[0] == src1.split(" / ")[0]  # a tie in the values ...
    assert a5 == src0 and cpu == src1  # ... a5 keeps src0's index, cpu takes src1's
    assert f"reproduce: ptofuzz diff {folder} --oracles a5,cpu" in res.out
    beside = json.loads(cli("diff", folder, "--json").out)[1]["beside"]
    assert beside[0]["element"] == block[0].strip() and set(beside[0]) == {"element", "src0", "src1", "a5 dst",
                                                                             "cpu dst"}


def _scalar_reference(case: Case, inputs) -> tuple[dict, dict]:
    """The rules of the headers, one element at a time in plain Python (independent of the vectorised model):
    (value, index) per defined destination element; None where the platform leaves it undefined."""
    from ptofuzz.core import dtypes

    dt = dtypes.get(case.dtype)
    with np.errstate(invalid="ignore"):  # an sNaN widened is a NaN: all this needs
        a, b = (dtypes.view_values(inputs[r], dt).astype(np.float64) for r in ("src0", "src1"))
    cpu = case.platform == "cpu"
    want = {}
    (R, C), v0, v1 = case.tile("dst").valid, case.tile("src0").valid, case.tile("src1").valid
    for r in range(R):
        for c in range(C):
            in0, in1 = r < v0[0] and c < v0[1], r < v1[0] and c < v1[1]
            if in0 and in1:
                x, y = float(a[r, c]), float(b[r, c])
                if cpu:
                    take1 = not (x > y if case.op == "TPARTARGMAX" else x < y)
                elif math.isnan(x) or math.isnan(y):
                    want[r, c] = None  # an NPU compare of a NaN: undefined
                    continue
                else:
                    take1 = y > x if case.op == "TPARTARGMAX" else y < x
                src = "src1" if take1 else "src0"
            elif in0 or in1:
                src = "src0" if in0 else "src1"
            else:
                want[r, c] = (0, 0) if cpu else None
                continue
            want[r, c] = (int(inputs[src][r, c]), int(inputs[src + "_idx"][r, c]))
    return want


@pytest.mark.parametrize("op", ["TPARTARGMAX", "TPARTARGMIN"])
@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5", "kirinDev0000"])
def test_the_model_matches_an_element_by_element_recomputation(op, platform):
    from ptofuzz.generators import values
    from ptofuzz.generators.source import seeded

    inst = registry.get(op)
    src = seeded(7, op, platform, "reference")
    checked = 0
    for _ in range(60):
        case = inst.random_case(src, platform, {"shape": (6, 40), "index_dtype": "uint32"})
        inputs = inst.draw_inputs(src, case, values.ValueMix(0.3))
        out = inst.evaluate(case, inputs)
        if out.kind == "unsupported":
            assert platform != "cpu", out.reason
            continue
        for (r, c), expect in _scalar_reference(case, inputs).items():
            cls = (out.classes["dst"][r, c], out.classes["dst_idx"][r, c])
            if expect is None:
                assert cls == (UNDEFINED, UNDEFINED), (case, r, c)
                continue
            if cls == (UNDEFINED, UNDEFINED):  # a subnormal that a flushing compare would order otherwise
                assert platform != "cpu"
                continue
            assert cls == (EXACT, EXACT) and (out.outputs["dst"][r, c], out.outputs["dst_idx"][r, c]) == expect
            checked += 1
    assert checked > 2000


@pytest.mark.parametrize("command", [("fuzz", "tpartargmax", "--runs", "10", "--oracles", "cpu,a5"),
                                     ("gen", "tpartargmax", "--platform", "a5", "--random", "2")])
def test_an_index_type_no_platform_takes_is_refused_before_any_case(cli, tmp_path, command):
    res = cli(*command, "--index-dtype", "float32", "--out", tmp_path / "o")
    assert res.code == 2 and "--index-dtype float32: TPARTARGMAX takes one of int16, uint16, int32, uint32" in res.err
    assert not (tmp_path / "o").exists()
