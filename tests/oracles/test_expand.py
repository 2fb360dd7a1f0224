"""TROWEXPAND and TCOLEXPAND: hand-worked examples from pto-isa's pages and pto-spec, bit copies of special
values, the contracts (pto-spec's faults, the pages' runtime checks), and recomputation by plain Python loops."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import expand, registry

PLATFORMS = ("spec", "cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
NAN_PAYLOAD = 0x7FA00001  # a signalling NaN with a payload: a copy keeps it (no quietening, no canonical NaN)


def _f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _case(op: str, platform: str, dtype: str, dst: Tile, src: Tile) -> Case:
    return Case(op, platform, dtype, (("dst", dst), ("src", src)))


def _row_src(platform: str, rows: int) -> Tile:
    """TROWEXPAND's source of ``rows`` float32 values: pto-spec's one physical column, else 8 columns."""
    return Tile(32, 1, rows, 1) if platform == "spec" else Tile(rows, 8, rows, 1)


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_trowexpand_copies_each_rows_first_element_across_the_row(platform):
    """docs/isa/TROWEXPAND.md: dst[i, j] = src[i, 0]: src column [1.5, -0, sNaN, -inf] over a 4x3 valid region of
    an 8x32 destination (spec: 32x32): every row its element's bits, nothing outside the valid region."""
    col = np.array([_f32(1.5)[0], _f32(-0.0)[0], NAN_PAYLOAD, _f32(-np.inf)[0]], np.uint32)
    src_t = _row_src(platform, 4)
    src = np.full(src_t.shape, _f32(7.0)[0], np.uint32)  # other columns: 7.0, which no result may show
    src[:4, 0] = col
    dst_t = Tile(32 if platform == "spec" else 8, 32, 4, 3)
    out = registry.get("TROWEXPAND").evaluate(_case("TROWEXPAND", platform, "float32", dst_t, src_t), {"src": src})
    assert out.kind is OutcomeKind.OK, out
    assert out.outputs["dst"][:4, :3].tolist() == [[int(v)] * 3 for v in col]
    assert (out.classes["dst"][:4, :3] == EXACT).all()
    assert (out.classes["dst"][4:, :] == UNDEFINED).all() and (out.classes["dst"][:, 3:] == UNDEFINED).all()
    assert out.flags == (() if platform == "spec" else None)  # a copy raises no status flag in pto-spec


@pytest.mark.parametrize("platform", PLATFORMS)
def test_tcolexpand_copies_the_first_row_down_every_column(platform):
    """docs/isa/TCOLEXPAND.md: dst[i, j] = src[0, j]: int8 first row [-128, -1, 127, 0] (a copy, no sign or zero
    extension to show) over 3x4 of a 4x32 destination (spec: 4x32 is a legal 128-byte descriptor)."""
    first = np.array([-128, -1, 127, 0], np.int8)
    rows = 1 if platform == "spec" else 2
    src_t = Tile(4 if platform == "spec" else 2, 32, rows, 4)
    src = np.full(src_t.shape, 55, np.int8)
    src[0, :4] = first
    dst_t = Tile(4, 32, 3, 4)
    out = registry.get("TCOLEXPAND").evaluate(_case("TCOLEXPAND", platform, "int8", dst_t, src_t),
                                              {"src": src.view(np.uint8)})
    assert out.kind is OutcomeKind.OK, out
    assert out.outputs["dst"][:3, :4].view(np.int8).tolist() == [first.tolist()] * 3
    assert (out.classes["dst"][:3, :4] == EXACT).all() and (out.classes["dst"][3, :] == UNDEFINED).all()


def test_int8_row_expansion_keeps_the_sign_of_every_byte():
    """The historic sign-extension trap: TROWEXPAND of int8 -128, -1, 1 copies 0x80, 0xFF, 0x01 (uint8 too)."""
    for dtype in ("int8", "uint8"):
        src = np.zeros((3, 32), np.uint8)
        src[:, 0] = [0x80, 0xFF, 0x01]
        case = _case("TROWEXPAND", "a5", dtype, Tile(3, 64, 3, 64), Tile(3, 32, 3, 1))
        out = registry.get("TROWEXPAND").evaluate(case, {"src": src})
        assert out.outputs["dst"][:, 0].tolist() == [0x80, 0xFF, 0x01]
        assert (out.outputs["dst"] == np.array([[0x80], [0xFF], [0x01]], np.uint8)).all()


# ---- contracts ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("op,src,why", [
    ("TROWEXPAND", Tile(32, 2, 4, 1), "physical columns"),  # the source must be one physical column
    ("TROWEXPAND", Tile(32, 1, 3, 1), "valid shape 3x1"),  # its valid rows must be dst's
    ("TCOLEXPAND", Tile(1, 64, 1, 3), "64 physical columns"),  # its columns must be dst's
    ("TCOLEXPAND", Tile(4, 32, 2, 3), "valid shape 2x3"),  # one valid row
])
def test_spec_faults_before_any_effect_on_an_illegal_source(op, src, why):
    dst = Tile(4, 32, 4, 3)
    out = registry.get(op).evaluate(_case(op, "spec", "float32", dst, src), {"src": np.zeros(src.shape, np.uint32)})
    assert out.kind is OutcomeKind.FAULT and out.fault is not None
    assert out.fault.trap == 5 and why in out.fault.reason


def test_spec_faults_on_an_empty_region_and_a_64_bit_type():
    empty = _case("TROWEXPAND", "spec", "float32", Tile(4, 32, 0, 3), Tile(32, 1, 0, 1))
    out = registry.get("TROWEXPAND").evaluate(empty, {"src": np.zeros((32, 1), np.uint32)})
    assert out.kind is OutcomeKind.FAULT and "empty" in out.fault.reason
    wide = _case("TROWEXPAND", "spec", "int64", Tile(4, 16, 4, 3), Tile(16, 1, 4, 1))
    out = registry.get("TROWEXPAND").evaluate(wide, {"src": np.zeros((16, 1), np.uint64)})
    assert out.kind is OutcomeKind.FAULT and "int64" in out.fault.reason


@pytest.mark.parametrize("platform,src,kind", [
    ("a5", Tile(4, 8, 5, 1), OutcomeKind.UNSUPPORTED),  # A5 asserts srcValidRow == dstValidRow
    ("kirin9030", Tile(4, 8, 4, 0), OutcomeKind.UNSUPPORTED),  # and a nonempty source
    ("cpu", Tile(8, 8, 5, 2), OutcomeKind.OK),  # more rows than read: the formula is defined
    ("cpu", Tile(8, 8, 3, 1), OutcomeKind.UNSUPPORTED),  # fewer: src[3, 0] is no valid element
    ("a2a3", Tile(4, 8, 4, 0), OutcomeKind.OK),  # A2A3 returns early: nothing written
])
def test_the_pages_runtime_checks_on_the_row_source(platform, src, kind):
    case = _case("TROWEXPAND", platform, "float32", Tile(4, 16, 4, 16), src)
    out = registry.get("TROWEXPAND").evaluate(case, {"src": np.ones(src.shape, np.uint32)})
    assert out.kind is kind, out
    if kind is OutcomeKind.OK and 0 in src.valid:
        assert (out.classes["dst"] == UNDEFINED).all()
    elif kind is OutcomeKind.OK:
        assert (out.classes["dst"] == EXACT).all() and (out.outputs["dst"] == 1).all()


def test_a5_tcolexpand_needs_the_destinations_valid_columns():
    case = _case("TCOLEXPAND", "a5", "float32", Tile(4, 16, 4, 10), Tile(1, 16, 1, 12))
    out = registry.get("TCOLEXPAND").evaluate(case, {"src": np.ones((1, 16), np.uint32)})
    assert out.kind is OutcomeKind.UNSUPPORTED and "srcValidCol == dstValidCol" in out.reason
    out = registry.get("TCOLEXPAND").evaluate(case.on("cpu"), {"src": np.ones((1, 16), np.uint32)})
    assert out.kind is OutcomeKind.OK and (out.classes["dst"][:, :10] == EXACT).all()


# ---- independent recomputation -----------------------------------------------------------------------------

@pytest.mark.parametrize("op", expand.NAMES)
@pytest.mark.parametrize("platform", PLATFORMS)
def test_random_cases_agree_with_a_loop_over_the_valid_region(op, platform):
    """Random legal cases (special values in the source, valid regions smaller than the tiles): every defined
    element is the source element the page's formula names, found by a plain loop."""
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.3)  # every element kind (NaNs, infinities, zeros, integer edges) in the source
    for k in range(25):
        src = seeded(k, op, platform)
        case = inst.random_case(src, platform, {})
        inputs = inst.draw_inputs(src, case, mix)
        out = inst.evaluate(case, inputs)
        if out.kind is not OutcomeKind.OK:
            continue
        rows, cols = case.tile("dst").valid
        s = inputs["src"]
        for i in range(case.tile("dst").rows):
            for j in range(case.tile("dst").cols):
                if i < rows and j < cols and 0 not in case.tile("src").valid:
                    want = s[i, 0] if op == "TROWEXPAND" else s[0, j]
                    assert out.classes["dst"][i, j] == EXACT and out.outputs["dst"][i, j] == want, (case, i, j)
                else:
                    assert out.classes["dst"][i, j] == UNDEFINED


def test_a_batch_axis_gives_each_item_its_own_copy():
    case = _case("TROWEXPAND", "cpu", "int16", Tile(2, 16, 2, 5), Tile(2, 16, 2, 1))
    src = np.arange(3 * 2 * 16, dtype=np.uint16).reshape(3, 2, 16)
    out = registry.get("TROWEXPAND").evaluate(case, {"src": src})
    assert out.outputs["dst"].shape == (3, 2, 16)
    assert (out.outputs["dst"][:, :, :5] == src[:, :, :1]).all()


# ---- fuzzing helpers ---------------------------------------------------------------------------------------

def _sig(pair: str, kind: str, dtype_class: str, geometry: str) -> Signature:
    return Signature("TROWEXPAND", dtype_class, pair, kind, "-", geometry)


def test_known_differences_match_their_own_signatures_only():
    kd = expand.known_difference
    assert kd(_sig("cpu~spec", "fault-vs-value", "float", "shape")) is not None
    assert kd(_sig("cpu~spec", "fault-vs-value", "int64", "spec-legal")) is not None
    assert kd(_sig("cpu~spec", "fault-vs-value", "float", "spec-legal")) is None  # a legal case must agree
    assert kd(_sig("cpu~cpusim", "fault-vs-value", "float", "shape")) is None  # not spec's
    assert kd(_sig("cpu~spec", "int-value", "int", "shape")) is None  # a value difference is no fault


def test_fault_classes_name_the_rule_broken():
    def cls(dst: Tile, src: Tile, op: str = "TROWEXPAND") -> str:
        return expand.fault_class(_case(op, "cpu", "float32", dst, src))
    assert cls(Tile(4, 32, 4, 3), Tile(32, 1, 4, 1)) == "spec-legal"
    assert cls(Tile(4, 32, 4, 3), Tile(4, 8, 4, 1)) == "shape"
    assert cls(Tile(4, 32, 4, 3), Tile(32, 1, 2, 1)) == "valid"
    assert cls(Tile(4, 32, 0, 3), Tile(32, 1, 0, 1)) == "empty"
    assert cls(Tile(4, 32, 4, 3), Tile(2, 32, 2, 3), "TCOLEXPAND") == "valid"


def test_illegal_spec_cases_fault_and_legal_random_spec_cases_do_not():
    for op in expand.NAMES:
        inst = registry.get(op)
        for k in range(40):
            src = seeded(k, op, "illegal")
            bad = inst.illegal_case(src, {})
            assert inst.evaluate(bad, {"src": np.zeros(bad.tile("src").shape, np.uint32)}).kind is \
                OutcomeKind.FAULT, bad
            good = inst.random_case(src, "spec", {"dtype": "float32"})
            assert inst.evaluate(good, {"src": np.zeros(good.tile("src").shape, np.uint32)}).kind is \
                OutcomeKind.OK, good
