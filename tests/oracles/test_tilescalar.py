"""The tile-scalar arithmetic oracles (TADDS, TSUBS, TMULS, TMAXS, TMINS, TLRELU): hand-worked examples from
pto-isa's pages and pto-spec, what the pages leave open (classed, never filled), the scalar broadcast over the
valid region, tmins/a2a3's TMIN kernel, the float32 scalar carrier, and recomputation by independent means (numpy
and ml_dtypes arithmetic, Python integers)."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.core.layouts import spec_physical
from ptofuzz.instructions import registry
from ptofuzz.instructions import tilescalar as ts
from ptofuzz.oracles import carrier
from ptofuzz.oracles import tilescalar as oracles

F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")
PLATFORMS = ("spec", "cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")
SCALAR = Tile(1, 1, 1, 1)


def f32(*xs: float) -> np.ndarray:
    return np.array(xs, np.float32).view(np.uint32)


def _case(op: str, platform: str, dtype: str, rows: int, cols: int, *, valid: tuple[int, int] | None = None,
          src0: tuple[int, int] | None = None) -> Case:
    v = valid or (rows, cols)
    return Case(op, platform, dtype, (("dst", Tile(rows, cols, *v)), ("src0", Tile(*(src0 or (rows, cols)), *v)),
                                      ("scalar", SCALAR)))


def _run(op: str, platform: str, a: np.ndarray, s: int, dtype: str = "float32"):
    """One row of elements and a scalar (its bits) through the platform's oracle (via the registry)."""
    dt = dtypes.get(dtype)
    n = a.size
    cols = max(8, -(-n // 8) * 8) if platform != "spec" else max(1 << max(n - 1, 0).bit_length(), 128 // dt.itemsize)
    case = _case(op, platform, dtype, 1, cols, valid=(1, n))
    x = np.zeros((1, cols), dtype=dt.bits_dtype)
    x[0, :n] = a
    out = registry.get(op).evaluate(case, {"src0": x, "scalar": np.array([[s]], dtype=dt.bits_dtype)})
    assert out.kind is OutcomeKind.OK, out
    return out.outputs["dst"][0, :n], out.classes["dst"][0, :n], out


# ---- hand-worked examples ----------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", PLATFORMS)
def test_the_pages_formula_on_ordinary_floats(platform):
    """docs/isa/TADDS.md .. TLRELU.md: dst = src op scalar, for every element; 1.5, -2, 0.75 with the scalar 0.5
    are exact in every operation (TLRELU: 0.5 is the slope; pto-spec has no TLRELU)."""
    a, s = f32(1.5, -2.0, 0.75), int(f32(0.5)[0])
    expect = {"TADDS": (2.0, -1.5, 1.25), "TSUBS": (1.0, -2.5, 0.25), "TMULS": (0.75, -1.0, 0.375),
              "TMAXS": (1.5, 0.5, 0.75), "TMINS": (0.5, -2.0, 0.5), "TLRELU": (1.5, -1.0, 0.75)}
    for op, want in expect.items():
        if op == "TLRELU" and platform == "spec":
            assert "spec" not in registry.get(op).platforms and "spec" in registry.get(op).unmodelled
            continue
        res, cls, _ = _run(op, platform, a, s)
        assert res.tolist() == f32(*want).tolist() and cls.tolist() == [EXACT] * 3, op


def test_subtraction_is_source_minus_scalar_with_ieee_sign_rules():
    """pto-spec TSUBS: "Operand order is always Tile source minus scalar"; x - x = +0, (-0) - (+0) = -0;
    1 - 2**-25 rounds (a tie) to the even 1.0."""
    a = f32(5.0, -0.0, 1.0, 3.0)
    for platform in ("spec", "cpu", "a5"):
        res, cls, _ = _run("TSUBS", platform, a[:1], int(f32(5.0)[0]))
        assert res.tolist() == [0] and cls.tolist() == [EXACT]
        res, _, _ = _run("TSUBS", platform, a[1:2], 0)
        assert res.tolist() == [0x80000000]
        res, _, _ = _run("TSUBS", platform, a[2:], int(f32(2.0 ** -25)[0]))
        assert res.tolist() == f32(1.0, 3.0).tolist()


def test_leaky_relu_takes_the_source_above_zero_and_the_product_elsewhere():
    """docs/isa/TLRELU.md: (src > 0) ? src : src * slope. -0 is not > 0: -0 * -2 = +0, -0 * 0.5 = -0; a NaN
    is not > 0 either: NaN * slope is some NaN; +inf > 0 stays; -inf * 0 is invalid (some NaN)."""
    a = np.array([0x3FC00000, 0xC0000000, 0x80000000, 0x7F800000, 0x7FA00001, 0xFF800000], np.uint32)
    for platform in ("cpu", "a2a3", "a5", "kirin9030"):
        res, cls, _ = _run("TLRELU", platform, a, int(f32(-2.0)[0]))
        assert res[:4].tolist() == f32(1.5, 4.0, 0.0, float("inf")).tolist()
        assert cls.tolist() == [EXACT, EXACT, EXACT, EXACT, NAN, EXACT] and res[5] == 0x7F800000
        res, cls, _ = _run("TLRELU", platform, a[2:3], int(f32(0.5)[0]))
        assert res.tolist() == [0x80000000] and cls.tolist() == [EXACT]
        _, cls, _ = _run("TLRELU", platform, a[5:], 0)
        assert cls.tolist() == [NAN]


def test_integer_overflow_wraps_on_spec_and_is_left_open_by_the_pages():
    """pto-spec: "integer results wrap at the element width"; pto-isa's pages say nothing of overflow (signed
    overflow is undefined behaviour in the C++ simulator): an overflowing element is undefined, its neighbours
    exact. Max/min never overflow; unsigned max compares unsigned (pto-spec's U8 max(250, 9) = 250)."""
    a = np.array([32767, 100, -32768], np.int16).view(np.uint16)
    res, cls, _ = _run("TADDS", "spec", a, 1, "int16")
    assert res.view(np.int16).tolist() == [-32768, 101, -32767] and cls.tolist() == [EXACT] * 3
    for platform in ("cpu", "a2a3", "a5", "kirin9030"):
        res, cls, _ = _run("TADDS", platform, a, 1, "int16")
        assert cls.tolist() == [UNDEFINED, EXACT, EXACT] and res.view(np.int16)[1:].tolist() == [101, -32767]
        res, cls, _ = _run("TSUBS", platform, a, 1, "int16")
        assert cls.tolist() == [EXACT, EXACT, UNDEFINED] and res.view(np.int16)[:2].tolist() == [32766, 99]
        res, cls, _ = _run("TMULS", platform, a, 2, "int16")
        assert cls.tolist() == [UNDEFINED, EXACT, UNDEFINED] and res.view(np.int16)[1] == 200
    u = np.array([250, 3], np.uint8)
    for platform in ("spec", "cpu", "a5"):
        res, cls, _ = _run("TMAXS", platform, u, 9, "uint8")
        assert res.tolist() == [250, 9] and cls.tolist() == [EXACT, EXACT]
    res, cls, _ = _run("TSUBS", "spec", u, 9, "uint8")
    assert res.tolist() == [241, 250] and cls.tolist() == [EXACT, EXACT]
    _, cls, _ = _run("TSUBS", "a5", u, 9, "uint8")
    assert cls.tolist() == [EXACT, UNDEFINED]


def test_integer_leaky_relu_on_the_cpu():
    """tlrelu/cpu runs int32 and int16 (the simulator has no dtype check; the pages list floats only): positive
    elements pass, the others are multiplied, an overflowing product undefined."""
    a = np.array([7, -5, 0, -(1 << 31)], np.int32).view(np.uint32)
    res, cls, _ = _run("TLRELU", "cpu", a, 3, "int32")
    assert res.view(np.int32)[:3].tolist() == [7, -15, 0] and cls.tolist() == [EXACT, EXACT, EXACT, UNDEFINED]
    out = registry.get("TLRELU").evaluate(_case("TLRELU", "a5", "int32", 1, 8),
                                          {"src0": np.zeros((1, 8), np.uint32), "scalar": np.zeros((1, 1), np.uint32)})
    assert out.kind is OutcomeKind.UNSUPPORTED and "float32, float16" in out.reason


def test_max_min_with_a_nan_or_mixed_zeros_on_either_side():
    """pto-spec: a NaN loses to a number (whichever operand it is), two NaNs give the canonical NaN, an sNaN
    raises NV, max(+0, -0) = +0 and min = -0. pto-isa's pages: max/min with a NaN is open (undefined), of mixed
    zeros some zero."""
    snan, qnan = 0x7F800001, 0x7FC01234
    a = np.array([snan, 0x40000000, 0x80000000, 0x00000000], np.uint32)
    res, _, out = _run("TMAXS", "spec", a[:2], qnan)
    assert res.tolist() == [F32.canonical_nan, 0x40000000] and out.flags == ("NV",)
    res, _, out = _run("TMAXS", "spec", a[1:2], snan)
    assert res.tolist() == [0x40000000] and out.flags == ("NV",)
    res, _, _ = _run("TMAXS", "spec", a[2:], 0x00000000)
    assert res.tolist() == [0x00000000, 0x00000000]
    res, _, _ = _run("TMINS", "spec", a[2:], 0x00000000)
    assert res.tolist() == [0x80000000, 0x00000000]
    for platform in ("cpu", "a2a3", "a5"):
        _, cls, out = _run("TMAXS", platform, a, 0x00000000)
        assert cls.tolist() == [UNDEFINED, EXACT, ZERO, EXACT] and out.flags is None
        _, cls, _ = _run("TMINS", platform, a[1:], qnan)
        assert cls.tolist() == [UNDEFINED] * 3


def test_a_nan_scalar_gives_some_nan_on_pto_isa_and_the_canonical_nan_on_spec():
    """An sNaN scalar with a payload: pto-spec's add returns the canonical qNaN and raises NV; pto-isa's pages
    fix no NaN bits (class nan) on every element."""
    a = f32(1.0, -0.0, float("inf"))
    res, cls, out = _run("TADDS", "spec", a, 0xFF800123)
    assert res.tolist() == [F32.canonical_nan] * 3 and cls.tolist() == [EXACT] * 3 and out.flags == ("NV",)
    for platform in ("cpu", "a5"):
        _, cls, _ = _run("TMULS", platform, a, 0xFF800123)
        assert cls.tolist() == [NAN] * 3
    h = np.array([0x3C00, 0x7D01], np.uint16)  # 1.0 and a float16 sNaN with a payload
    res, cls, out = _run("TADDS", "spec", h, 0x3C00, "float16")
    assert res.tolist() == [0x4000, F16.canonical_nan] and out.flags == ("NV",)


def test_the_npu_leaves_overflow_and_subnormal_effects_open_the_cpu_does_not():
    """float32 max + max overflows to inf (cpu: IEEE, exact; an NPU may saturate: undefined). A subnormal that a
    flushing unit would change the result of is undefined on the NPU only; so is TLRELU's positive subnormal
    (a flushing unit compares it as zero and takes the product)."""
    big, tiny = 0x7F7FFFFF, 0x00000001
    a = np.array([big, tiny, 0x3F800000], np.uint32)
    res, cls, _ = _run("TADDS", "cpu", a[:1], big)
    assert res.tolist() == [0x7F800000] and cls.tolist() == [EXACT]
    _, cls, _ = _run("TADDS", "a5", a, big)
    assert cls.tolist() == [UNDEFINED, EXACT, EXACT]
    res, cls, _ = _run("TADDS", "cpu", a[1:], tiny)
    assert res.tolist() == [2, 0x3F800000] and cls.tolist() == [EXACT, EXACT]
    _, cls, _ = _run("TADDS", "a5", a[1:], tiny)
    assert cls.tolist() == [UNDEFINED, EXACT]  # 1 + tiny rounds to 1 either way
    res, cls, _ = _run("TLRELU", "cpu", a[1:2], int(f32(0.5)[0]))
    assert res.tolist() == [tiny] and cls.tolist() == [EXACT]
    _, cls, _ = _run("TLRELU", "a2a3", a[1:2], int(f32(0.5)[0]))
    assert cls.tolist() == [UNDEFINED]


# ---- geometry ----------------------------------------------------------------------------------------------

def test_the_scalar_is_broadcast_and_the_source_read_at_its_own_stride():
    """a5's TMAXSTest.case_float_16x200_20x512_16x200: src0 is a 20x512 tile, dst 16x200, valid 16x200; every
    valid element is max(src0[i, j], scalar), read at src0's row stride of 512."""
    (case,) = [c for n, c in ts.canonical("TMAXS", "a5") if n == "case_float_16x200_20x512_16x200"]
    s0 = np.arange(20 * 512, dtype=np.float32).reshape(20, 512) - 3000
    out = registry.get("TMAXS").evaluate(case, {"src0": s0.view(np.uint32), "scalar": f32(100.5).reshape(1, 1)})
    dst = out.outputs["dst"].view(np.float32)
    assert dst.shape == (16, 200) and (out.classes["dst"] == EXACT).all()
    assert np.array_equal(dst, np.maximum(s0[:16, :200], np.float32(100.5)))
    wide = _case("TADDS", "cpu", "float32", 4, 16, valid=(2, 8), src0=(4, 32))
    out = registry.get("TADDS").evaluate(wide, {"src0": np.zeros((4, 32), np.uint32), "scalar": f32(1.0)[None]})
    assert (out.classes["dst"][:2, :8] == EXACT).all() and (out.outputs["dst"][:2, :8] == f32(1.0)[0]).all()
    assert (out.classes["dst"][2:, :] == UNDEFINED).all() and (out.classes["dst"][:, 8:] == UNDEFINED).all()


def test_an_empty_valid_region_defines_nothing_on_pto_isa_and_faults_on_spec():
    for platform in ("cpu", "a5"):
        zeros = {"src0": np.zeros((4, 8), np.uint32), "scalar": np.zeros((1, 1), np.uint32)}
        out = registry.get("TMULS").evaluate(_case("TMULS", platform, "float32", 4, 8, valid=(0, 8)), zeros)
        assert out.kind is OutcomeKind.OK and (out.classes["dst"] == UNDEFINED).all()
    out = registry.get("TMULS").evaluate(_case("TMULS", "spec", "float32", 4, 32, valid=(4, 0)),
                                         {"src0": np.zeros((4, 32), np.uint32), "scalar": np.zeros((1, 1), np.uint32)})
    assert out.kind is OutcomeKind.FAULT and "empty" in out.fault.reason


@pytest.mark.parametrize(("src0", "why"), [
    (Tile(4, 64, 4, 32), "source and destination physical shapes differ"),
    (Tile(4, 32, 4, 31), "source and destination valid shapes differ"),
])
def test_spec_faults_on_a_source_that_does_not_match_the_destination(src0, why):
    """pto-spec TileShapeAndTypeMatch: many pto-isa tests use a wider dst than src (32x128 with 32x64)."""
    case = Case("TADDS", "spec", "float32", (("dst", Tile(4, 32, 4, 32)), ("src0", src0), ("scalar", SCALAR)))
    out = registry.get("TADDS").evaluate(case, {"src0": np.zeros(src0.shape, np.uint32),
                                                "scalar": np.zeros((1, 1), np.uint32)})
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality" and why in out.fault.reason
    assert oracles.spec_legality(_case("TADDS", "spec", "float32", 4, 32)) is None


def test_spec_faults_on_64_bit_integers_which_a5_computes():
    a = np.array([2, -3], np.int64).view(np.uint64)
    res, cls, _ = _run("TMULS", "a5", a, 7, "int64")
    assert res.view(np.int64).tolist() == [14, -21] and cls.tolist() == [EXACT, EXACT]
    out = registry.get("TMULS").evaluate(_case("TMULS", "spec", "int64", 1, 16),
                                         {"src0": np.zeros((1, 16), np.uint64), "scalar": np.zeros((1, 1), np.uint64)})
    assert out.kind is OutcomeKind.FAULT and out.fault.name == "Fault_TileLegality"


def test_tmins_on_a2a3_is_the_tmin_its_kernel_runs():
    """tmins/a2a3's kernel calls TMIN(dst, src0, src1): case_float_60x60_PAD_VALUE_MIN has dst 60x128, src0
    64x64, the second tile 60x128, valid 60x60; every valid element is min(src0[i, j], src1[i, j])."""
    cases = dict(ts.canonical("TMINS", "a2a3"))
    case = cases["case_float_60x60_PAD_VALUE_MIN"]
    assert case.param("kernel") == "TMIN" and case.tile("scalar") == Tile(60, 128, 60, 60)
    rng = np.random.default_rng(5)
    s0 = rng.standard_normal((64, 64)).astype(np.float32)
    s1 = rng.standard_normal((60, 128)).astype(np.float32)
    out = registry.get("TMINS").evaluate(case, {"src0": s0.view(np.uint32), "scalar": s1.view(np.uint32)})
    dst = out.outputs["dst"].view(np.float32)
    assert np.array_equal(dst[:, :60], np.minimum(s0[:60, :60], s1[:, :60]))
    assert (out.classes["dst"][:, :60] == EXACT).all() and (out.classes["dst"][:, 60:] == UNDEFINED).all()
    assert all(c.param("kernel") == "TMIN" for c in cases.values()) and len(cases) == 8


# ---- the float32 scalar carrier ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16", "int8",
                                   "uint8"])
def test_every_drawn_scalar_survives_the_float32_carrier(dtype):
    """Random bit patterns (NaNs with payloads, subnormals, integer extremes): moved to what float32 holds, they
    read back bit for bit; an integer below 2**24 is never moved, a larger one keeps its top 24 bits, toward
    zero (INT32_MAX becomes 2**31 - 128)."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 1 << dt.bits, 50000, dtype=np.uint64).astype(dt.bits_dtype)
    near = carrier.nearest(raw, dt, F32)
    assert carrier.representable(near, dt, F32).all()
    assert np.array_equal(carrier.decode(carrier.encode(near, dt, F32), F32, dt), near)
    if dt.is_float or dt.bits < 32:
        assert np.array_equal(near, raw)
    else:
        v, w = (x.view(f"<{'i' if dt.kind == 'int' else 'u'}4").astype(np.int64) for x in (raw, near))
        small = np.abs(v) < 1 << 24
        assert np.array_equal(v[small], w[small]) and (np.abs(w) <= np.abs(v)).all()
        assert (np.abs(v - w) < np.maximum(np.abs(v) >> 23, 1)).all()
    if dtype == "int32":
        edges = np.array([0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x01000001], np.uint32)
        assert carrier.nearest(edges, dt, F32).view(np.int32).tolist() == [2**31 - 128, -2**31, -1, 2**24]


def test_the_kernel_s_conversion_of_the_carrier():
    """The float32 the test writes, converted as the kernel does: (half) rounds to nearest even, an integer
    parameter truncates toward zero; out of range or NaN is undefined (an error naming the value)."""
    assert carrier.decode(f32(678664640.0), F32, dtypes.get("int32")).view(np.int32).tolist() == [678664640]
    assert carrier.decode(f32(-2.7, 2.7), F32, dtypes.get("int16")).view(np.int16).tolist() == [-2, 2]
    half = carrier.decode(f32(1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 70000.0), F32, F16)
    assert half.view(np.float16).tolist() == [1.0, 1.0 + 2.0 ** -9, float("inf")]
    assert carrier.decode(np.array([0xFF800123], np.uint32), F32, F16).tolist() == [0xFE00]  # payload gone: quiet
    for bad in (3e9, float("nan")):
        with pytest.raises(carrier.CarrierError, match="int32"):
            carrier.decode(f32(bad), F32, dtypes.get("int32"))
    with pytest.raises(carrier.CarrierError, match="16777217"):
        carrier.encode(np.array([16777217], np.uint32), dtypes.get("int32"), F32)


# ---- recomputation by independent means --------------------------------------------------------------------

NUMPY = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
ARITH = {"TADDS": np.add, "TSUBS": np.subtract, "TMULS": np.multiply}


def _batch(op: str, platform: str, dt: dtypes.DType, n: int, cols: int, seed: int):
    """``n`` random cases stacked (random bits, one scalar each) and the outcome of one batched evaluation."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 1 << dt.bits, (n, 1, cols), dtype=np.uint64).astype(dt.bits_dtype)
    s = rng.integers(0, 1 << dt.bits, (n, 1, 1), dtype=np.uint64).astype(dt.bits_dtype)
    case = _case(op, platform, dt.name, 1, cols)
    return a, s, registry.get(op).evaluate(case, {"src0": a, "scalar": s})


@pytest.mark.parametrize(("dtype", "op"), list(itertools.product(NUMPY, ARITH)))
def test_float_results_agree_with_numpy_and_ml_dtypes(dtype, op):
    """400 cases of 64 random bit patterns and a random scalar each: pto-spec's result, and the cpu's where it
    is exact, equal the element type's own arithmetic with the scalar broadcast; NaN results are the canonical
    NaN on spec and class nan on the cpu."""
    dt = dtypes.get(dtype)
    a, s, out = _batch(op, "spec", dt, 400, 64, 7)
    with np.errstate(all="ignore"):
        ref = ARITH[op](a.view(NUMPY[dtype]), s.view(NUMPY[dtype])).view(dt.bits_dtype)
    nan = np.isnan(ref.view(NUMPY[dtype]).astype(np.float32))
    spec = out.outputs["dst"]
    assert np.array_equal(spec[~nan], ref[~nan]) and (spec[nan] == dt.canonical_nan).all()
    cpu = registry.get(op).evaluate(_case(op, "cpu", dtype, 1, 64), {"src0": a, "scalar": s})
    res, cls = cpu.outputs["dst"], cpu.classes["dst"]
    assert np.array_equal(res[~nan], ref[~nan]) and (cls[~nan] == EXACT).all() and (cls[nan] == NAN).all()


@pytest.mark.parametrize("dtype", list(NUMPY))
def test_leaky_relu_agrees_with_numpy_where(dtype):
    """cpu TLRELU = where(src > 0, src, src * slope) in the element type's arithmetic (numpy and ml_dtypes),
    bit for bit wherever it is not a NaN (then class nan)."""
    dt = dtypes.get(dtype)
    a, s, out = _batch("TLRELU", "cpu", dt, 400, 64, 9)
    x, k = a.view(NUMPY[dtype]), s.view(NUMPY[dtype])
    with np.errstate(all="ignore"):
        ref = np.where(x > 0, x, x * k).view(dt.bits_dtype)
    nan = np.isnan(ref.view(NUMPY[dtype]).astype(np.float32))
    assert np.array_equal(out.outputs["dst"][~nan], ref[~nan])
    assert (out.classes["dst"][~nan] == EXACT).all() and (out.classes["dst"][nan] == NAN).all()


@pytest.mark.parametrize("dtype", list(NUMPY))
def test_max_min_agree_with_numpy_away_from_nans_and_mixed_zeros(dtype):
    """spec, cpu and a5 TMAXS/TMINS equal numpy's maximum/minimum wherever no NaN and no pair of zeros meet
    (and, on a5, no subnormal); there the cpu's and a5's classes are exact."""
    dt = dtypes.get(dtype)
    for op, fn in (("TMAXS", np.maximum), ("TMINS", np.minimum)):
        a, s, out = _batch(op, "spec", dt, 300, 64, 13)
        x, k = a.view(NUMPY[dtype]), s.view(NUMPY[dtype])
        with np.errstate(invalid="ignore"):
            ref = fn(x, k).view(dt.bits_dtype)
        xf, kf = x.astype(np.float32), np.broadcast_to(k.astype(np.float32), x.shape)
        plain = ~np.isnan(xf) & ~np.isnan(kf) & ~((xf == 0) & (kf == 0))
        assert np.array_equal(out.outputs["dst"][plain], ref[plain])
        for platform in ("cpu", "a5"):
            got = registry.get(op).evaluate(_case(op, platform, dtype, 1, 64), {"src0": a, "scalar": s})
            sub = np.zeros(x.shape, bool)
            if platform == "a5":
                tiny = np.float32(2.0 ** (2 - (1 << (dt.exp_bits - 1))))
                sub = ((xf != 0) & (np.abs(xf) < tiny)) | ((kf != 0) & (np.abs(kf) < tiny))
            keep = plain & ~sub
            assert np.array_equal(got.outputs["dst"][keep], ref[keep])
            assert (got.classes["dst"][keep] == EXACT).all()
            if platform == "cpu":
                sb = np.broadcast_to(s, a.shape)
                mixed = (xf == 0) & (kf == 0) & (a != sb)
                assert (got.classes["dst"][mixed] == ZERO).all()
                assert (got.classes["dst"][np.isnan(kf)] == UNDEFINED).all()


INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
EXACT_OPS = {"TADDS": lambda x, y: x + y, "TSUBS": lambda x, y: x - y, "TMULS": lambda x, y: x * y,
             "TMAXS": max, "TMINS": min, "TLRELU": lambda x, y: x if x > 0 else x * y}


def _int_platform(dtype: str) -> str:
    return "a5" if dtypes.get(dtype).bits == 64 else "cpu"


@pytest.mark.parametrize(("dtype", "op"), [(d, o) for d, o in itertools.product(INTS, EXACT_OPS)
                                           if d in registry.get(o).support(_int_platform(d)).dtypes])
def test_integer_results_agree_with_python_integers(dtype, op):
    """Extremes, -1, 0, 1 and random values against every scalar among them: the cpu's (a5's for 64-bit) result
    is the exact one wherever that fits, undefined exactly where it does not; spec wraps it modulo 2**bits."""
    dt = dtypes.get(dtype)
    platform = _int_platform(dtype)
    rng = np.random.default_rng(17)
    edges = [dt.int_min, dt.int_min + 1, -1 if dt.kind == "int" else 2, 0, 1, dt.int_max - 1, dt.int_max]
    kind = np.int64 if dt.kind == "int" else np.uint64
    rand = [int(v) for v in rng.integers(dt.int_min, dt.int_max, 57, endpoint=True, dtype=kind)]
    xs = edges + rand
    width = f"<{'i' if dt.kind == 'int' else 'u'}{dt.itemsize}"
    a = np.array([xs] * len(edges), dtype=kind).astype(width).view(dt.bits_dtype)[:, None, :]
    s = np.array(edges, dtype=kind).astype(width).view(dt.bits_dtype)[:, None, None]
    case = _case(op, platform, dtype, 1, 64)
    out = registry.get(op).evaluate(case, {"src0": a, "scalar": s})
    exact = [[EXACT_OPS[op](x, y) for x in xs] for y in edges]
    fits = np.array([[dt.int_min <= e <= dt.int_max for e in row] for row in exact])
    got = out.outputs["dst"][:, 0, :].view(width).astype(object)
    assert (out.classes["dst"][:, 0, :] == np.where(fits, EXACT, UNDEFINED)).all()
    assert [[int(v) for v, f in zip(r, fr) if f] for r, fr in zip(got, fits)] == \
        [[e for e, f in zip(r, fr) if f] for r, fr in zip(exact, fits)]
    if op != "TLRELU" and dt.bits < 64:
        rows = spec_physical(1, 64, dt)[0]  # a legal descriptor holds at least 128 bytes
        spec_case = _case(op, "spec", dtype, rows, 64, valid=(1, 64))
        tall = np.zeros((len(edges), rows, 64), dt.bits_dtype)
        tall[:, :1, :] = a
        spec = registry.get(op).evaluate(spec_case, {"src0": tall, "scalar": s})
        wrapped = [[(e - dt.int_min) % (1 << dt.bits) + dt.int_min for e in row] for row in exact]
        assert spec.outputs["dst"][:, 0, :].view(width).astype(object).tolist() == wrapped


def test_the_pages_runtime_rule_on_valid_regions():
    """docs/isa/TSUBS.md: src0's valid rows and columns equal dst's (A2A3 and A5): else unsupported. TADDS on A5
    asks only the columns: dst's valid rows are the iteration domain, a row past src0's tile is undefined."""
    for platform in ("cpu", "a2a3", "a5"):
        case = Case("TSUBS", platform, "float32", (("dst", Tile(4, 8, 4, 8)), ("src0", Tile(4, 8, 3, 8)),
                                                   ("scalar", SCALAR)))
        out = registry.get("TSUBS").evaluate(case, {"src0": np.zeros((4, 8), np.uint32),
                                                    "scalar": f32(1.0)[None]})
        assert out.kind is OutcomeKind.UNSUPPORTED and "GetValidRow() and GetValidCol()" in out.reason
    case = Case("TADDS", "a5", "float32", (("dst", Tile(4, 8, 4, 8)), ("src0", Tile(3, 8, 2, 8)), ("scalar", SCALAR)))
    src = np.arange(24, dtype=np.float32).reshape(3, 8)
    inputs = {"src0": src.view(np.uint32), "scalar": f32(1.0)[None]}
    out = registry.get("TADDS").evaluate(case, inputs)
    assert out.kind is OutcomeKind.OK
    assert np.array_equal(out.outputs["dst"][:3].view(np.float32), src + 1)
    assert (out.classes["dst"][:3] == EXACT).all() and (out.classes["dst"][3] == UNDEFINED).all()
    for platform in ("a2a3", "cpu"):
        assert registry.get("TADDS").evaluate(case.on(platform), inputs).kind is OutcomeKind.UNSUPPORTED
