"""The BOUNDED element class: where a platform's order of evaluation cannot be read from its sources, the golden
holds one order's value and a stated ULP bound per element; a finite value within it agrees, anything else (one
ULP more, a NaN, an infinity) does not, and the bound excuses its own element only."""

from __future__ import annotations

import base64

import numpy as np

from ptofuzz.core import dtypes
from ptofuzz.core.case import BOUNDED, EXACT, Case, Outcome, OutcomeKind, Tile
from ptofuzz.engine import differential
from ptofuzz.engine.compare import compare
from ptofuzz.instructions import registry
from ptofuzz.io import casefolder

F32 = dtypes.get("float32")
ONE = 0x3F800000  # 1.0f
INF, QNAN = 0x7F800000, 0x7FC00000


def _row(*bits: int) -> np.ndarray:
    return np.array([bits], dtype=np.uint32)


def test_a_bounded_element_agrees_within_its_bound_and_not_one_ulp_more():
    expected = _row(ONE, ONE, ONE, ONE, ONE)
    classes = np.array([[BOUNDED, BOUNDED, BOUNDED, BOUNDED, EXACT]], dtype=np.uint8)
    bounds = np.array([[2, 2, 2, 2, 2]], dtype=np.uint32)
    within = _row(ONE + 2, ONE - 2, ONE, ONE, ONE)
    assert compare(expected, classes, within, F32, bounds=bounds).ok
    beyond = _row(ONE + 3, ONE - 3, QNAN, INF, ONE + 1)  # the EXACT neighbour is not excused by any bound
    cmp = compare(expected, classes, beyond, F32, bounds=bounds)
    assert cmp.mismatches == 5 and [e.col for e in cmp.first] == [0, 1, 2, 3, 4]


def test_without_stated_bounds_a_bounded_element_is_compared_bit_for_bit():
    expected, classes = _row(ONE), np.array([[BOUNDED]], dtype=np.uint8)
    assert compare(expected, classes, _row(ONE), F32).ok
    assert compare(expected, classes, _row(ONE + 1), F32).mismatches == 1


def test_a_bound_reaches_across_zero_by_the_ulps_between():
    expected = _row(0x00000001)  # the smallest subnormal
    classes, bounds = np.array([[BOUNDED]], dtype=np.uint8), np.array([[2]], dtype=np.uint32)
    assert compare(expected, classes, _row(0x80000001), F32, bounds=bounds).ok  # -min: 2 ULPs away
    assert compare(expected, classes, _row(0x80000002), F32, bounds=bounds).mismatches == 1  # 3


def _outcomes(bits_a: list[int], bits_b: list[int], bounded: list[int], bound: int) -> dict[str, Outcome]:
    shape = (1, len(bits_a))
    classes = np.zeros(shape, dtype=np.uint8)
    classes[0, bounded] = BOUNDED
    a = Outcome(OutcomeKind.OK, outputs={"dst": _row(*bits_a)}, classes={"dst": classes},
                bounds={"dst": np.full(shape, bound, dtype=np.uint32)})
    b = Outcome(OutcomeKind.OK, outputs={"dst": _row(*bits_b)}, classes={"dst": np.zeros(shape, np.uint8)})
    return {"a5": a, "cpu": b}


def test_a_campaign_sees_a_difference_past_the_bound_and_on_an_exact_neighbour_only():
    inst = registry.get("tadd")
    tile = Tile(1, 8, 1, 8)
    case = Case("TADD", "cpu", "float32", (("dst", tile), ("src0", tile), ("src1", tile)))
    base = [ONE] * 8
    quiet = differential.compare_batch(inst, case, _outcomes(base, [ONE + 3, ONE - 3] + base[2:], [0, 1], 3),
                                       None)
    assert not quiet.counts
    past = differential.compare_batch(inst, case, _outcomes(base, [ONE + 4] + base[1:], [0, 1], 3), None)
    neighbour = differential.compare_batch(inst, case, _outcomes(base, base[:2] + [ONE + 1] + base[3:], [0, 1], 3),
                                           None)
    assert len(past.counts) == 1 and len(neighbour.counts) == 1


def test_the_manifest_states_each_bounded_elements_ulps():
    classes = np.array([[EXACT, BOUNDED], [BOUNDED, EXACT]], dtype=np.uint8)
    bounds = np.array([[0, 7], [300, 0]], dtype=np.uint32)
    masks = casefolder.class_masks(classes, bounds)
    assert set(masks) == {"bounded"} and masks["bounded"]["count"] == 2 and masks["bounded"]["max_ulps"] == 300
    ulps = np.frombuffer(base64.b64decode(masks["bounded"]["ulps"]), "<u4")
    assert list(ulps) == [7, 300]
    assert (casefolder.classes_from_masks(masks, 4).reshape(2, 2) == classes).all()
