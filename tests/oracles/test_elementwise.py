"""The elementwise tile-tile arithmetic oracles (TADD, TSUB, TMUL, TMAX, TMIN): hand-worked examples from
pto-isa's pages and pto-spec, what the pages leave open (classed, never filled), geometry, and recomputation by
independent means (numpy and ml_dtypes arithmetic, Python integers)."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.instructions import registry
from ptofuzz.oracles import elementwise as ew
from ptofuzz.oracles import integer

F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")
PLATFORMS = ("spec", "cpu", "a2a3", "a5")


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _case(op: str, platform: str, dtype: str, rows: int, cols: int, *, valid: tuple[int, int] | None = None,
          src0: tuple[int, int] | None = None) -> Case:
    v = valid or (rows, cols)
    tiles = (("dst", Tile(rows, cols, *v)), ("src0", Tile(*(src0 or (rows, cols)), *v)),
             ("src1", Tile(rows, cols, *v)))
    return Case(op, platform, dtype, tiles)


def _run(op: str, platform: str, a: np.ndarray, b: np.ndarray, dtype: str = "float32"):
    """One row of elements through the platform's oracle (via the registry's dtype check)."""
    n = a.size
    cols = max(8, -(-n // 8) * 8) if platform != "spec" else 1 << max(n - 1, 0).bit_length()
    cols = max(cols, 128 // dtypes.get(dtype).itemsize if platform == "spec" else cols)
    case = _case(op, platform, dtype, 1, cols, valid=(1, n))
    pad = np.zeros((1, cols), dtype=a.dtype)
    x, y = pad.copy(), pad.copy()
    x[0, :n], y[0, :n] = a, b
    out = registry.get(op).evaluate(case, {"src0": x, "src1": y})
    assert out.kind is OutcomeKind.OK, out
    return out.outputs["dst"][0, :n], out.classes["dst"][0, :n], out


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_pages_formula_on_ordinary_floats(platform):
    """docs/isa/TADD.md .. TMIN.md: dst = src0 op src1; 1.5 and 2.25 are exact in every operation."""
    a, b = f32(1.5, -2.0, 0.75), f32(2.25, 0.5, 0.75)
    expect = {"TADD": (3.75, -1.5, 1.5), "TSUB": (-0.75, -2.5, 0.0), "TMUL": (3.375, -1.0, 0.5625),
              "TMAX": (2.25, 0.5, 0.75), "TMIN": (1.5, -2.0, 0.75)}
    for op, want in expect.items():
        res, cls, _ = _run(op, platform, a, b)
        assert res.tolist() == f32(*want).tolist() and cls.tolist() == [EXACT] * 3, op


def test_subtraction_rounds_to_nearest_even_and_keeps_the_sign_rules():
    """x - x = +0 and (-0) - (+0) = -0 under round-to-nearest-even; 1 - 2**-24 needs no rounding, 1 - 2**-25
    rounds (a tie) to the even neighbour 1.0."""
    a = f32(5.0, -0.0, 1.0, 1.0)
    b = f32(5.0, 0.0, 2.0 ** -24, 2.0 ** -25)
    for platform in ("spec", "cpu"):
        res, cls, _ = _run("TSUB", platform, a, b)
        assert res.tolist() == f32(0.0, -0.0, 1.0 - 2.0 ** -24, 1.0).tolist()
        assert res[0] == 0 and res[1] == 0x80000000 and cls.tolist() == [EXACT] * 4


def test_integer_overflow_wraps_on_spec_and_is_left_open_by_the_pages():
    """pto-spec's integers wrap; pto-isa's pages say nothing of overflow (and signed overflow is undefined
    behaviour in the C++ simulator), so an overflowing element is undefined there, its neighbours exact."""
    a = np.array([32767, 100, -32768], np.int16).view(np.uint16)
    b = np.array([1, 1, 1], np.int16).view(np.uint16)
    res, cls, _ = _run("TADD", "spec", a, b, "int16")
    assert res.view(np.int16).tolist() == [-32768, 101, -32767] and cls.tolist() == [EXACT] * 3
    for platform in ("cpu", "a2a3", "a5"):
        res, cls, _ = _run("TADD", platform, a, b, "int16")
        assert cls.tolist() == [UNDEFINED, EXACT, EXACT] and res.view(np.int16)[1:].tolist() == [101, -32767]
        res, cls, _ = _run("TSUB", platform, a, b, "int16")
        assert cls.tolist() == [EXACT, EXACT, UNDEFINED] and res.view(np.int16)[:2].tolist() == [32766, 99]
    u = np.array([3, 7], np.uint8)
    res, cls, _ = _run("TSUB", "spec", u, u[::-1].copy(), "uint8")
    assert res.tolist() == [252, 4] and cls.tolist() == [EXACT, EXACT]
    res, cls, _ = _run("TSUB", "cpu", u, u[::-1].copy(), "uint8")
    assert cls.tolist() == [UNDEFINED, EXACT] and res[1] == 4


def test_max_min_with_a_nan_or_mixed_zeros():
    """pto-spec: a NaN loses to a number, two NaNs give the canonical NaN (an sNaN raises NV), max(+0, -0) = +0
    and min = -0. pto-isa's pages: max/min of a NaN is open (undefined), of mixed zeros some zero."""
    snan, qnan = 0x7F800001, 0x7FC01234
    a = np.array([snan, qnan, 0x00000000, 0x3F800000], np.uint32)
    b = np.array([0x40000000, snan, 0x80000000, 0x3F800000], np.uint32)
    res, cls, out = _run("TMAX", "spec", a, b)
    assert res.tolist() == [0x40000000, F32.canonical_nan, 0x00000000, 0x3F800000] and out.flags == ("NV",)
    res, _, _ = _run("TMIN", "spec", a, b)
    assert res.tolist()[2] == 0x80000000
    for platform in ("cpu", "a5"):
        _, cls, out = _run("TMAX", platform, a, b)
        assert cls.tolist() == [UNDEFINED, UNDEFINED, ZERO, EXACT] and out.flags is None


def test_a_nan_result_is_some_nan_on_pto_isa_and_canonical_on_spec():
    """An sNaN with a payload plus 1: pto-spec returns the canonical qNaN and raises NV; pto-isa's pages fix no
    NaN bits (class nan). inf - inf is invalid: canonical NaN, NV."""
    a = np.array([0xFF800123, 0x7F800000], np.uint32)
    b = f32(1.0, float("inf"))
    res, cls, out = _run("TADD", "spec", a, b)
    assert res.tolist() == [F32.canonical_nan, 0x7F800000] and cls.tolist() == [EXACT, EXACT]
    res, cls, out = _run("TSUB", "spec", a, b)
    assert res.tolist() == [F32.canonical_nan] * 2 and out.flags == ("NV",)
    _, cls, _ = _run("TSUB", "cpu", a, b)
    assert cls.tolist() == [NAN, NAN]


def test_the_npu_leaves_overflow_and_subnormal_effects_open_the_cpu_does_not():
    """float32 max + max overflows to inf (cpu: IEEE, exact); an NPU may saturate (undefined). A subnormal
    operand that a flush-to-zero unit would change the sum of is undefined on the NPU only."""
    big, tiny = 0x7F7FFFFF, 0x00000001
    a = np.array([big, tiny, 0x3F800000], np.uint32)
    b = np.array([big, tiny, tiny], np.uint32)
    res, cls, _ = _run("TADD", "cpu", a, b)
    assert res.tolist() == [0x7F800000, 0x00000002, 0x3F800000] and cls.tolist() == [EXACT] * 3
    _, cls, _ = _run("TADD", "a5", a, b)
    assert cls.tolist() == [UNDEFINED, UNDEFINED, EXACT]  # 1 + tiny rounds to 1 either way


# ---- geometry ----------------------------------------------------------------------------------------------

def test_each_source_is_read_at_its_own_stride_and_nothing_outside_the_valid_region_is_defined():
    """a5's TADDTest.case_float_16x32_16x64_16x32_16x31: src0 is a 16x64 tile, dst and src1 16x32, valid 16x31."""
    case = _case("TADD", "a5", "float32", 16, 32, valid=(16, 31), src0=(16, 64))
    s0 = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    s1 = np.full((16, 32), 0.5, np.float32)
    out = registry.get("TADD").evaluate(case, {"src0": s0.view(np.uint32), "src1": s1.view(np.uint32)})
    dst = out.outputs["dst"].view(np.float32)
    assert dst[3, 5] == 3 * 64 + 5 + 0.5 and dst[15, 30] == 15 * 64 + 30 + 0.5
    assert (out.classes["dst"][:, 31] == UNDEFINED).all() and (out.classes["dst"][:, :31] == EXACT).all()


def test_an_empty_valid_region_defines_nothing_on_pto_isa_and_faults_on_spec():
    for platform in ("cpu", "a5"):
        case = _case("TMUL", platform, "float32", 4, 8, valid=(0, 8))
        out = registry.get("TMUL").evaluate(case, {"src0": np.zeros((4, 8), np.uint32),
                                                   "src1": np.zeros((4, 8), np.uint32)})
        assert out.kind is OutcomeKind.OK and (out.classes["dst"] == UNDEFINED).all()
    spec = _case("TMUL", "spec", "float32", 4, 32, valid=(0, 32))
    assert registry.get("TMUL").evaluate(spec, {"src0": np.zeros((4, 32), np.uint32),
                                                "src1": np.zeros((4, 32), np.uint32)}).kind is OutcomeKind.FAULT


@pytest.mark.parametrize(("change", "why"), [
    ({"src0": Tile(4, 64, 4, 32)}, "source and destination physical shapes differ"),
    ({"src1": Tile(4, 32, 4, 31)}, "source and destination valid shapes differ"),
])
def test_spec_faults_on_tiles_that_do_not_match(change, why):
    tiles = {r: Tile(4, 32, 4, 32) for r in ("dst", "src0", "src1")} | change
    case = Case("TADD", "spec", "float32", tuple(tiles.items()))
    out = registry.get("TADD").evaluate(case, {r: np.zeros(tiles[r].shape, np.uint32) for r in ("src0", "src1")})
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality" and why in out.fault.reason
    legal = Case("TADD", "spec", "float32", tuple((r, Tile(4, 32, 4, 32)) for r in ("dst", "src0", "src1")))
    assert ew.spec_legality(legal) is None


def test_spec_faults_on_a_type_it_does_not_take_and_a5_computes_it():
    a = np.array([2, -3], np.int64).view(np.uint64)
    res, cls, _ = _run("TMUL", "a5", a, a.copy(), "int64")
    assert res.view(np.int64).tolist() == [4, 9] and cls.tolist() == [EXACT, EXACT]
    case = _case("TMUL", "spec", "int64", 1, 16)
    out = registry.get("TMUL").evaluate(case, {"src0": np.zeros((1, 16), np.uint64),
                                               "src1": np.zeros((1, 16), np.uint64)})
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality"


# ---- recomputation by independent means --------------------------------------------------------------------

NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
ARITH = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


@pytest.mark.parametrize(("dtype", "op"), list(itertools.product(NUMPY, ARITH)))
def test_float_results_agree_with_numpy_and_ml_dtypes_on_every_non_nan(dtype, op):
    """20,000 random bit patterns (every class of value): pto-spec's result, and the cpu's where it is exact,
    equal the element type's own arithmetic (numpy float32/float16, ml_dtypes bfloat16: each rounds the exact
    result once); NaN results are the canonical NaN on spec and class nan on the cpu."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(7)
    a = rng.integers(0, 1 << dt.bits, 20000, dtype=np.uint64).astype(dt.bits_dtype)
    b = rng.integers(0, 1 << dt.bits, 20000, dtype=np.uint64).astype(dt.bits_dtype)
    with np.errstate(all="ignore"):
        ref = ARITH[op](a.view(NUMPY[dtype]), b.view(NUMPY[dtype])).view(dt.bits_dtype)
    nan = np.isnan(ref.view(NUMPY[dtype]).astype(np.float32))
    spec, _, _ = ew.spec_element(op, a, b, dt)
    assert np.array_equal(spec[~nan], ref[~nan]) and (spec[nan] == dt.canonical_nan).all()
    cpu, cls, _ = ew.documented_element(op, a, b, dt, npu=False)
    assert np.array_equal(cpu[~nan], ref[~nan]) and (cls[~nan] == EXACT).all() and (cls[nan] == NAN).all()


INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


@pytest.mark.parametrize(("dtype", "op"), list(itertools.product(INTS, ("add", "sub", "mul"))))
def test_integer_wrap_and_overflow_agree_with_python_integers(dtype, op):
    """Extremes, -1, 0, 1 and random values: the wrapped result is the exact one modulo 2**bits, and an element
    overflows exactly when the exact one is out of range."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(11)
    edges = [dt.int_min, dt.int_min + 1, -1 if dt.kind == "int" else 2, 0, 1, dt.int_max - 1, dt.int_max]
    pairs = list(itertools.product(edges, repeat=2))
    pairs += [(int(x), int(y)) for x, y in rng.integers(dt.int_min, dt.int_max, (400, 2), endpoint=True,
                                                         dtype=np.int64 if dt.kind == "int" else np.uint64)]
    width = f"<{'i' if dt.kind == 'int' else 'u'}{dt.itemsize}"
    vals = np.array(pairs, dtype=np.int64 if dt.kind == "int" else np.uint64).astype(width)
    a, b = vals[:, 0].view(dt.bits_dtype), vals[:, 1].view(dt.bits_dtype)
    exact = [x + y if op == "add" else x - y if op == "sub" else x * y for x, y in pairs]
    wrapped = integer.add_mul(op, a, b, dt)
    assert [int(v) for v in wrapped.view(vals.dtype)] == [
        (e - dt.int_min) % (1 << dt.bits) + dt.int_min for e in exact]
    assert integer.overflows(op, a, b, dt).tolist() == [not dt.int_min <= e <= dt.int_max for e in exact]
