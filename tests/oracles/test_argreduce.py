"""The arg reductions (TROWARGMAX, TROWARGMIN, TCOLARGMAX, TCOLARGMIN): hand-worked examples after pto-spec's
fold (an element is selected when MAX/MIN gives its bits and they differ from the accumulator) and the pages'
math (docs/isa/T{ROW,COL}ARG{MAX,MIN}.md: ties, NaNs open), recomputation of the spec's index by a plain loop
of the hardware min/max over each line, the value + index form, the planted ties and NaNs, and the runtime
checks."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import argreduce as arg
from ptofuzz.instructions import registry
from ptofuzz.oracles import argreduce as oracles
from ptofuzz.oracles import ieee

NAN32 = 0x7FC00000  # float32's canonical NaN
OTHER_NAN = 0x7FC00123
SNAN32 = 0x7F800001
NEG0 = 0x80000000
OPS = ("TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN")


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _lines(op: str, platform: str, lines: np.ndarray, dtype: str = "float32", *, val: bool = False):
    """Each row of ``lines`` one reduction (a row of the source, or a column of a column reduction) through the
    platform's oracle; returns (indices, their classes, outcome)."""
    dt = dtypes.get(dtype)
    n, k = lines.shape
    row = op.startswith("TROW")
    valid = (n, k) if row else (k, n)
    if platform == "spec":
        case = arg.spec_case(op, dtype, valid)
    else:
        case = arg._build(op, platform, dt, "int32", Tile(*arg.whole_rows(*valid, dt), *valid), val)
    s = case.tile("src")
    x = np.zeros(s.shape, dtype=lines.dtype)
    if row:
        x[:n, :k] = lines
    else:
        x[:k, :n] = lines.T
    out = registry.get(op).evaluate(case, {"src": x})
    if out.kind is not OutcomeKind.OK:
        return None, None, out
    idx, cls = out.outputs["dst_idx"], out.classes["dst_idx"]
    if row:
        return idx[:n, 0], cls[:n, 0], out
    return idx[0, :n], cls[0, :n], out


def test_spec_keeps_the_first_of_equal_extremes():
    """[3, 7, 7, 1]: argmax 1 (7 at 2 equals the accumulator: not selected), argmin 3; [5, 5, 5]: 0."""
    lines = np.array([[3, 7, 7, 1], [5, 5, 5, 5]], np.int32).view(np.uint32)
    for op, want in (("TROWARGMAX", [1, 0]), ("TROWARGMIN", [3, 0]), ("TCOLARGMAX", [1, 0]), ("TCOLARGMIN", [3, 0])):
        idx, cls, _ = _lines(op, "spec", lines, "int32")
        assert idx.tolist() == want and (cls == EXACT).all(), op


def test_spec_signed_zeros_and_nans():
    """MAX(-0, +0) = +0 differs from -0: selected; MAX(+0, -0) = +0 = the accumulator: not. NaNs are passed
    over (MAX(NaN, 2) = 2 is selected); a row of NaNs selects index 1 only when MAX(NaN, NaN), the canonical
    NaN, is the second element's bits and not the first's."""
    rows = np.array([
        [NEG0, 0, NEG0],           # max: 1; min: 0
        [0, NEG0, 0],              # max: 0; min: 1
        [OTHER_NAN, *f32(2.0, 5.0)],  # max: 2; min: 1
        [*f32(5.0), NAN32, *f32(5.0)],  # max: 0; min: 0
        [OTHER_NAN, NAN32, OTHER_NAN],  # all NaN: MAX(other, canonical) = canonical, its bits: 1
        [NAN32, NAN32, OTHER_NAN],      # canonical first: the accumulator already: 0
        [OTHER_NAN, OTHER_NAN, NAN32],  # canonical at 2: the accumulator is canonical after step 1: 0
    ], np.uint32)
    mx, _, out = _lines("TROWARGMAX", "spec", rows)
    mn, _, _ = _lines("TROWARGMIN", "spec", rows)
    assert mx.tolist() == [1, 0, 2, 0, 1, 0, 0]
    assert mn.tolist() == [0, 1, 1, 0, 1, 0, 0]
    assert out.flags == ()
    _, _, out = _lines("TROWARGMAX", "spec", np.array([[SNAN32, *f32(1.0)]], np.uint32))
    assert out.flags == (ieee.NV,)
    _, _, out = _lines("TROWARGMAX", "spec", np.array([[SNAN32]], np.uint32))  # one element: no step
    assert out.flags == ()


def _spec_loop(op: str, line: np.ndarray, dt: dtypes.DType) -> int:
    """pto-spec's fold written as its loop: the hardware min/max of the accumulator and each element."""
    acc, best = line[:1], 0
    for k in range(1, line.size):
        res, _ = ieee.spec_max_min(op, acc, line[k:k + 1], dt) if dt.is_float else (
            np.array([max(int(acc[0]), int(line[k])) if op == "max" else min(int(acc[0]), int(line[k]))],
                     line.dtype), None)
        if res[0] == line[k] and res[0] != acc[0]:
            best = k
        acc = res
    return best


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "uint16", "int32"])
@pytest.mark.parametrize("op", OPS)
def test_spec_index_is_the_loop_of_its_fold(op, dtype):
    """Random lines with special values, planted ties and NaNs: the closed form equals the step-by-step fold."""
    dt = dtypes.get(dtype)
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.4)
    for k in range(12):
        src = seeded(k, op, dtype, "spec-loop")
        case = arg.spec_case(op, dtype, (int(src.integers(1, 9)), int(src.integers(1, 9))))
        x = inst.draw_inputs(src, case, mix)["src"]
        out = inst.evaluate(case, {"src": x})
        r, c = case.tile("src").valid
        lines = x[:r, :c] if op.startswith("TROW") else x[:r, :c].T
        if dt.name.startswith("int"):
            lines = lines.view(f"<i{dt.itemsize}")
        got = out.outputs["dst_idx"][:r, 0] if op.startswith("TROW") else out.outputs["dst_idx"][0, :c]
        want = [_spec_loop(oracles.OPS[op][1], line, dt) for line in lines]
        assert got.tolist() == want, (case, lines)


def test_documented_ties_and_nans_are_open():
    """cpu: [1, 9, 4] -> 1 pinned; [9, 1, 9] a tie for the max: undefined (its min, 1, pinned); [2, NaN, 3]
    undefined; [-0, +0, -1] max: a tie of zeros, undefined; min -1 pinned."""
    rows = np.array([f32(1, 9, 4), f32(9, 1, 9), [*f32(2.0), NAN32, *f32(3.0)], [NEG0, 0, *f32(-1.0)]], np.uint32)
    idx, cls, _ = _lines("TROWARGMAX", "cpu", rows)
    assert idx[0] == 1 and cls.tolist() == [EXACT, UNDEFINED, UNDEFINED, UNDEFINED]
    idx, cls, _ = _lines("TROWARGMIN", "cpu", rows)
    assert idx[[0, 1, 3]].tolist() == [0, 1, 2] and cls.tolist() == [EXACT, EXACT, UNDEFINED, EXACT]


def test_value_form_writes_the_values_with_their_classes():
    """TCOLARGMAX value + index, float32 columns [1, -0], [+0, -0], [3, 8]: indices 0, open (a tie of zeros), 1;
    values 1, some zero, 8. The index form leaves the value tile unwritten."""
    lines = np.array([f32(1.0).tolist() + [NEG0], [0, NEG0], f32(3.0, 8.0).tolist()], np.uint32)
    idx, cls, out = _lines("TCOLARGMAX", "cpu", lines, val=True)
    assert idx[[0, 2]].tolist() == [0, 1] and cls.tolist() == [EXACT, UNDEFINED, EXACT]
    v, vc = out.outputs["dst"][0, :3], out.classes["dst"][0, :3]
    assert v[[0, 2]].tolist() == f32(1.0, 8.0).tolist() and vc.tolist() == [EXACT, ZERO, EXACT]
    _, _, out = _lines("TCOLARGMAX", "cpu", lines, val=False)
    assert (out.classes["dst"] == UNDEFINED).all()


def test_npu_subnormals_that_a_flush_would_tie_are_open():
    """a5: [smallest subnormal, 0] argmax 0 on the cpu; flushed, both zeros tie: undefined on the NPU."""
    rows = np.array([[1, 0], [*f32(2.0, 1.0)]], np.uint32)
    _, cls, _ = _lines("TROWARGMAX", "cpu", rows)
    assert cls.tolist() == [EXACT, EXACT]
    _, cls, _ = _lines("TROWARGMAX", "a5", rows)
    assert cls.tolist() == [UNDEFINED, EXACT]


def test_runtime_checks_and_spec_legality():
    """An empty source is outside the pages' checks (unsupported) and a spec fault; so is a value + index case
    on spec (pto-spec writes the indices only) and a 16-bit index."""
    inst = registry.get("TROWARGMAX")
    f = dtypes.get("float32")
    empty = arg._build("TROWARGMAX", "cpu", f, "int32", Tile(4, 8, 4, 0), False)
    assert inst.evaluate(empty, {"src": np.zeros((4, 8), np.uint32)}).kind is OutcomeKind.UNSUPPORTED
    legal = arg.spec_case("TROWARGMAX", "float32", (4, 8))
    assert oracles.spec_problem(legal) == ""
    case = Case("TROWARGMAX", "spec", "float32", legal.tiles, (("idx", "int16"),))
    assert "S32 or U32" in oracles.spec_problem(case)
    case = Case("TROWARGMAX", "spec", "float32", legal.tiles, (("idx", "int32"), ("val", 1)))
    assert "no value output" in oracles.spec_problem(case)
    assert inst.evaluate(case, {"src": np.zeros((4, 8), np.uint32)}).kind is OutcomeKind.FAULT


@pytest.mark.parametrize("op", OPS)
def test_planted_lines_hold_ties_at_the_ends_and_nans(op):
    """The generator's plants: over many float32 draws some line ties its first and last index at the extreme,
    some holds a NaN first, some last, some is all one value."""
    inst = registry.get(op)
    case = arg._build(op, "cpu", dtypes.get("float32"), "int32", Tile(8, 8, 8, 8), False)
    seen = set()
    for k in range(20):
        x = inst.draw_inputs(seeded(k, op, "plants"), case, values.ValueMix(rate=0.0))["src"]
        lines = x if op.startswith("TROW") else x.T
        nan = ieee.is_nan(lines, dtypes.get("float32"))
        for line, isnan in zip(lines, nan):
            if isnan[0]:
                seen.add("nan-first")
            if isnan[-1]:
                seen.add("nan-last")
            if (line == line[0]).all():
                seen.add("all-equal")
            elif not isnan.any() and line[0] == line[-1]:
                seen.add("tie-first-last")
    assert seen == set(arg.PLANTS)


def test_gen_cases_are_the_system_tests_hand_checked():
    """Two folders by hand: a2a3's TROWARGMAX value + index case 'case_uint32_float_784x1_777x8_777x24_777x8_777x17'
    (value tile 784x1, index tile 777x8, source 777x24 of valid 777x17) and a5's TCOLCMAXTest.case011 (float16 +
    int16 index, 1x256 of valid 1x255: value and index rows of 256)."""
    cases = dict(arg.canonical("TROWARGMAX", "a2a3"))
    c = cases["case_uint32_float_784x1_777x8_777x24_777x8_777x17"]
    assert c.tile("dst") == Tile(784, 1, 777, 1) and c.tile("dst_idx") == Tile(777, 8, 777, 1)
    assert c.tile("src") == Tile(777, 24, 777, 17) and c.param("idx") == "uint32" and c.param("val") == 1
    c = dict(arg.canonical("TCOLARGMAX", "a5"))["case011"]
    assert c.dtype == "float16" and c.param("idx") == "int16" and c.tile("dst_idx") == Tile(1, 256, 1, 255)
    prof = registry.get("TCOLARGMAX").support("a5").profile
    assert prof.goldens(c) == (("golden.bin", "dst"), ("idx.bin", "dst_idx"))


@pytest.mark.parametrize("op", ["TROWARGMAX", "TROWARGMIN", "TCOLARGMAX", "TCOLARGMIN"])
@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_canonical_data_pins_every_valid_index(op, platform):
    """gen redraws lines whose index the data left open (ties, NaNs, subnormals) with plain values and one unique
    extreme: pto-isa's own comparison cannot honour a placeholder, so every valid index of a system test's
    folder is pinned; the raw draw leaves some open, so the redraw is what pins them."""
    from ptofuzz.engine.generate import realize
    from ptofuzz.instructions import registry

    inst = registry.get(op)
    opened = 0
    for name, case in inst.support(platform).profile.canonical:
        raw_inputs, raw = realize(inst, name, case, 0, 0.05, defined=False)
        _, outcome = realize(inst, name, case, 0, 0.05)
        d = case.tile("dst_idx")
        valid = (slice(0, d.valid_rows), slice(0, d.valid_cols))
        assert (outcome.classes["dst_idx"][valid] == 0).all(), name
        opened += int((raw.classes["dst_idx"][valid] != 0).any())
    assert opened  # the plain draw alone leaves open indices in some folder
