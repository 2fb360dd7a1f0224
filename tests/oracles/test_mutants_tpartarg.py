"""oracles/tpartarg.py behaviours the mutation run (tests/README.md) found unpinned: the default index type,
what each refusal says, the NPU index-region check, the NPU select on subnormals, MIN's operand order and
batched inputs. Values are float32 bit patterns; src0's indices are 0.., src1's 100.."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.oracles import tpartarg

ONE, TWO, THREE = 0x3F800000, 0x40000000, 0x40400000
MIN_SUB, TWO_SUB, NEG_SUB = 0x00000001, 0x00000002, 0x80000001  # float32 subnormals
QNAN = 0x7FC00000


def _case(op, platform, dtype, dst, src0, src1, idx="uint32", idx_valid=None):
    valid = {"dst": dst, "src0": src0, "src1": src1}
    t = {r: Tile(max(v[0], 1), max(v[1], 1), *v) for r, v in valid.items()}
    iv = idx_valid or {}
    it = {r: Tile(t[r].rows, t[r].cols, *iv.get(r, valid[r])) for r in valid}
    roles = tuple((r, t[r]) for r in valid) + tuple((r + "_idx", it[r]) for r in valid)
    return Case(op, platform, dtype, roles, (("idx", idx),) if idx else ())


def _inputs(case, a, b, lead=()):
    s0, s1 = case.tile("src0").shape, case.tile("src1").shape
    return {"src0": np.array(a, np.uint32).reshape(lead + s0), "src1": np.array(b, np.uint32).reshape(lead + s1),
            "src0_idx": np.arange(np.prod(lead + s0), dtype=np.uint32).reshape(lead + s0),
            "src1_idx": (100 + np.arange(np.prod(lead + s1))).astype(np.uint32).reshape(lead + s1)}


def test_a_case_without_an_idx_param_has_uint32_indices():
    case = _case("TPARTARGMAX", "cpu", "float32", (1, 2), (1, 2), (1, 2), idx=None)
    assert tpartarg.index_dtype(case).name == "uint32"
    out = tpartarg.oracle_of("cpu")(case, _inputs(case, [TWO, ONE], [ONE, TWO]))
    assert out.kind == "ok" and out.outputs["dst_idx"].tolist() == [[0, 101]]


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_outputs_keep_their_element_types_and_class_codes(platform):
    case = _case("TPARTARGMAX", platform, "float32", (1, 4), (1, 4), (1, 2))
    out = tpartarg.oracle_of(platform)(case, _inputs(case, [ONE, TWO, THREE, ONE], [TWO, ONE]))
    assert out.outputs["dst"].dtype == np.uint32 and out.outputs["dst_idx"].dtype == np.uint32
    assert out.classes["dst"].dtype == np.uint8 and out.classes["dst_idx"].dtype == np.uint8
    assert out.outputs["dst"].tolist() == [[TWO, TWO, THREE, ONE]]
    assert out.outputs["dst_idx"].tolist() == [[100, 1, 2, 3]]


# ---- refusals and what they say ---------------------------------------------------------------------------


def test_the_cpu_refuses_index_tiles_shaped_unlike_their_value_tiles():
    t = Tile(1, 4, 1, 4)
    roles = (("dst", t), ("src0", t), ("src1", t), ("dst_idx", Tile(2, 4, 1, 4)), ("src0_idx", t), ("src1_idx", t))
    out = tpartarg.oracle_of("cpu")(Case("TPARTARGMAX", "cpu", "float32", roles, (("idx", "uint32"),)), {})
    assert out.kind == "unsupported"
    assert out.reason == ("cpu addresses dst_idx (2x4) with dst's offsets (1x4); give index tiles their value "
                          "tiles' shapes")


def test_the_cpu_model_takes_only_16_and_32_bit_index_tiles():
    case = _case("TPARTARGMAX", "cpu", "float32", (1, 2), (1, 2), (1, 2), idx="int8")
    out = tpartarg.oracle_of("cpu")(case, _inputs(case, [ONE, TWO], [TWO, ONE]))
    assert out.kind == "unsupported"
    assert out.reason == "ptofuzz's cpu model takes index tiles of int16, uint16, int32, uint32"


def test_the_npus_name_the_value_and_index_pairs_they_take():
    case = _case("TPARTARGMIN", "a5", "bfloat16", (1, 2), (1, 2), (1, 2))
    out = tpartarg.oracle_of("a5")(case, {})
    assert out.kind == "unsupported"
    assert out.reason == ("TPARTARGMIN on a5 does not pair bfloat16 values with uint32 indices (float32 with "
                          "int32, uint32; float16 with int16, uint16, int32, uint32)")


def test_the_npus_require_index_regions_equal_to_the_value_regions():
    case = _case("TPARTARGMAX", "a2a3", "float32", (2, 4), (2, 4), (2, 4), idx_valid={"src1": (1, 4)})
    out = tpartarg.oracle_of("a2a3")(case, {})
    assert out.kind == "unsupported"
    assert out.reason == ("a2a3 requires index valid regions equal to the value ones: src1_idx valid region 1x4 "
                          "differs from src1's 2x4")


@pytest.mark.parametrize(("dst", "src0", "src1"), [((1, 8), (1, 4), (1, 4)), ((2, 3), (1, 3), (2, 1))])
def test_the_npus_refuse_a_destination_no_source_equals(dst, src0, src1):
    case = _case("TPARTARGMAX", "a5", "float32", dst, src0, src1)
    out = tpartarg.oracle_of("a5")(case, {})
    assert out.kind == "unsupported"
    assert out.reason == (f"a5 requires dst = max(src0, src1) and one source = dst (dst {dst[0]}x{dst[1]}, src0 "
                          f"{src0[0]}x{src0[1]}, src1 {src1[0]}x{src1[1]})")


# ---- the NPU select ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("platform", ["a2a3", "a5"])
def test_npu_argmin_takes_src1_only_when_strictly_smaller(platform):
    case = _case("TPARTARGMIN", platform, "float32", (1, 3), (1, 3), (1, 3))
    out = tpartarg.oracle_of(platform)(case, _inputs(case, [ONE, TWO, TWO], [TWO, ONE, TWO]))
    assert out.outputs["dst"].tolist() == [[ONE, ONE, TWO]]
    assert out.outputs["dst_idx"].tolist() == [[0, 101, 2]]  # 1<2 src0; 1<2 src1; tie src0
    assert (out.classes["dst"] == EXACT).all()


@pytest.mark.parametrize("platform", ["a2a3", "a5"])
@pytest.mark.parametrize("op", ["TPARTARGMAX", "TPARTARGMIN"])
def test_npu_select_is_undefined_where_flushing_subnormals_would_choose_otherwise(platform, op):
    """Flushed, every subnormal below is 0 (the negative one -0): a pair whose choice flips when both become 0
    is undefined; one whose choice stands (a subnormal against 1.0, two subnormals that still tie) is not.
    A NaN operand is undefined whatever the subnormals do."""
    a = [MIN_SUB, MIN_SUB, TWO_SUB, NEG_SUB, MIN_SUB, QNAN]
    b = [TWO_SUB, ONE, MIN_SUB, NEG_SUB, NEG_SUB, ONE]
    case = _case(op, platform, "float32", (1, 6), (1, 6), (1, 6))
    out = tpartarg.oracle_of(platform)(case, _inputs(case, a, b))
    U, E = UNDEFINED, EXACT
    if op == "TPARTARGMAX":
        # exact: 1 vs 2 sub -> src1 (flushed tie -> src0: flips); sub vs 1.0 -> src1 both ways; 2 vs 1 sub ->
        # src0 both ways (flushed tie -> src0); equal -> src0 both ways; +sub vs -sub -> src0 (flushed +0 vs
        # -0 compare equal -> src0)
        assert out.classes["dst"].tolist() == [[U, E, E, E, E, U]]
        assert out.outputs["dst_idx"][0, 1:5].tolist() == [101, 2, 3, 4]
    else:
        # exact: 1 vs 2 sub -> src0 both ways; sub vs 1.0 -> src0; 2 vs 1 sub -> src1 (flushed tie -> src0:
        # flips); equal -> src0; +sub vs -sub -> src1 (flushed: equal -> src0: flips)
        assert out.classes["dst"].tolist() == [[E, E, U, E, U, U]]
        assert out.outputs["dst_idx"][0, [0, 1, 3]].tolist() == [0, 1, 3]
    assert out.classes["dst_idx"].tolist() == out.classes["dst"].tolist()


@pytest.mark.parametrize("platform", ["cpu", "a5"])
def test_batches_equal_one_case_at_a_time(platform):
    rng = np.random.default_rng(5)
    vals = rng.integers(-2, 3, (3, 2, 4)).astype(np.float32).view(np.uint32)
    other = rng.integers(-2, 3, (3, 2, 4)).astype(np.float32).view(np.uint32)
    case = _case("TPARTARGMAX", platform, "float32", (2, 4), (2, 4), (2, 4))
    full = _inputs(case, vals, other, lead=(3,))
    together = tpartarg.oracle_of(platform)(case, full)
    for k in range(3):
        alone = tpartarg.oracle_of(platform)(case, {role: v[k] for role, v in full.items()})
        for role in ("dst", "dst_idx"):
            assert together.outputs[role][k].tolist() == alone.outputs[role].tolist()
            assert together.classes[role][k].tolist() == alone.classes[role].tolist()
