"""Property tests (Hypothesis) for the TPART* oracles of every platform.

References:
- pto-spec 0.58.3 ``ExecuteTilePartial`` (``asl/tile/model/execution/complex.asl``) and the contracts
  ``asl/tile/irregular-and-complex/union/TPART*.asl``: op where both sources cover, bit copy where one covers,
  Null padding outside the dst valid region; IEEE 754 RNE add/mul with canonical NaN and status flags; canonical
  NaNs of ``spec/hardware-conformance-profile.json``.
- pto-isa ``include/pto/cpu/TPartOp.hpp`` (cpu copies and writes 0 where neither source is valid),
  ``include/pto/npu/a2a3/TPartOp.hpp`` and ``include/pto/npu/a5/TPartBinOps.hpp`` (a2a3/a5 copy the big source),
  ``include/pto/npu/a5/Int64Reduce.hpp`` (a5 Int64Part).

The float reference here is independent of ``oracles/ieee.py``: exact rational arithmetic with
``fractions.Fraction`` and a hand-written round-to-nearest-even into each target format.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tpart_helpers import cropped

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, Tile
from ptofuzz.core.layouts import spec_physical
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee

SETTINGS = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
OPS = ("TPARTADD", "TPARTMUL", "TPARTMAX", "TPARTMIN")
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
PLATFORMS = ("spec", "cpu", "a2a3", "a5")

# ---------------------------------------------------------------------------------------------------------
# helpers: cases and inputs


def tile(valid, pad=(0, 0)):
    return Tile(valid[0] + pad[0], valid[1] + pad[1], valid[0], valid[1])


def make_case(op, platform, dtype, dst, src0, src1):
    return Case(op, platform, dtype, (("dst", dst), ("src0", src0), ("src1", src1)))


def evaluate(inst, case, inputs):
    """Evaluate; on spec, first grow every physical tile to the smallest legal pto-spec descriptor holding it
    (the oracle only reads valid regions), then cut the outputs back to the case's dst shape."""
    if case.platform != "spec":
        return inst.evaluate(case, inputs)
    dt = dtypes.get(case.dtype)
    legal = case.replace(tiles=tuple((r, Tile(*spec_physical(t.rows, t.cols, dt), *t.valid)) for r, t in case.tiles))
    return cropped(inst.evaluate(legal, inputs), *case.tile("dst").shape)


def draw_bits(seed, key, dtype, shape, special_rate):
    return values.draw(seeded(seed, key), dtypes.get(dtype), shape, special_rate)


def pool_bits(seed, dtype, shape):
    """Elements drawn from a few edge values, so that pairs like (+0, -0), (x, NaN), (sNaN, qNaN) are common:
    +-0, +-1, -inf, the smallest subnormal, an sNaN and a qNaN with payloads (floats); the integer edges."""
    dt = dtypes.get(dtype)
    if dt.is_float:
        one = ((1 << (dt.exp_bits - 1)) - 1) << dt.man_bits
        pool = np.array([0, dt.sign_mask, one, one | dt.sign_mask, dt.exp_mask | dt.sign_mask, 1,
                         dt.exp_mask | 5, dt.exp_mask | dt.quiet_bit | 3 | dt.sign_mask], dt.bits_dtype)
    else:
        pool = np.unique(values.special_pool(dt, ("zero", "extreme")))
    return pool[np.random.default_rng(seed).integers(0, len(pool), size=shape)]


def placed(bits, rows, cols):
    """A source's bits on the dst grid (only meaningful where the source is valid)."""
    out = np.zeros((rows, cols), bits.dtype)
    r, c = min(rows, bits.shape[0]), min(cols, bits.shape[1])
    out[:r, :c] = bits[:r, :c]
    return out


def region(valid, rows, cols):
    return (np.arange(rows)[:, None] < valid[0]) & (np.arange(cols)[None, :] < valid[1])


pads = st.tuples(st.integers(0, 2), st.integers(0, 3))


@st.composite
def legal_geometry(draw, platform):
    """(dst, src0, src1) tiles legal on ``platform`` (pto-spec ``TilePartialCoverageLegal``; pto-isa's
    ``TPart*.hpp`` geometry checks; docs/reference/oracles.md)."""
    if platform == "cpu":  # anything at all: empty regions, sources overhanging the dst
        dv = (draw(st.integers(0, 5)), draw(st.integers(0, 9)))
        s0 = (draw(st.integers(0, 7)), draw(st.integers(0, 11)))
        s1 = (draw(st.integers(0, 7)), draw(st.integers(0, 11)))
        return tile(dv, draw(pads)), tile(s0, draw(pads)), tile(s1, draw(pads))
    dv = (draw(st.integers(1, 5)), draw(st.integers(1, 9)))
    lo = 1 if platform == "spec" else 0  # spec: empty sources are illegal; npu: a copy of the other
    small = (draw(st.integers(lo, dv[0])), draw(st.integers(lo, dv[1])))
    big_first = draw(st.booleans())
    s0, s1 = (dv, small) if big_first else (small, dv)
    return tile(dv, draw(pads)), tile(s0, draw(pads)), tile(s1, draw(pads))


# ---------------------------------------------------------------------------------------------------------
# Commutativity on the spec oracle (both sources cover the whole destination)


@pytest.mark.parametrize("dtype", SPEC_DTYPES)
@settings(max_examples=40, **SETTINGS)
@given(dv=st.tuples(st.integers(1, 4), st.integers(1, 12)), pad0=pads, pad1=pads,
       seed=st.integers(0, 2**32 - 1), special_rate=st.sampled_from([0.0, 0.1, 0.5, 1.0]), pool=st.booleans())
def test_spec_ops_are_commutative_when_both_sources_cover_the_dst(dtype, dv, pad0, pad1, seed, special_rate, pool):
    # NaN results are canonical (ExecuteTilePartial, hardware-conformance-profile), max/min of one NaN returns
    # the other operand and of two NaNs the canonical NaN, mixed zeros are fixed (+0 / -0): every result is
    # independent of the operand order.
    t0, t1 = tile(dv, pad0), tile(dv, pad1)
    if pool:  # operands from a small pool of edge values, so (+0, -0), (x, NaN), (NaN, NaN) pairs are common
        a, b = pool_bits(seed, dtype, t0.shape), pool_bits(seed + 1, dtype, t1.shape)
    else:
        a = draw_bits(seed, "src0", dtype, t0.shape, special_rate)
        b = draw_bits(seed, "src1", dtype, t1.shape, special_rate)
    for op in OPS:
        inst = registry.get(op)
        ab = evaluate(inst, make_case(op, "spec", dtype, tile(dv), t0, t1), {"src0": a, "src1": b})
        ba = evaluate(inst, make_case(op, "spec", dtype, tile(dv), t1, t0), {"src0": b, "src1": a})
        assert ab.kind == ba.kind == "ok"
        assert np.array_equal(ab.outputs["dst"], ba.outputs["dst"]), op
        assert np.array_equal(ab.classes["dst"], ba.classes["dst"]), op
        assert ab.flags == ba.flags, op


# ---------------------------------------------------------------------------------------------------------
# Coverage semantics on every platform


@pytest.mark.parametrize("platform", PLATFORMS)
@settings(max_examples=150, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), op=st.sampled_from(OPS),
       special_rate=st.sampled_from([0.05, 0.5]))
def test_copy_regions_are_bit_copies_and_outside_the_dst_is_undefined(platform, data, seed, op, special_rate):
    dtype = data.draw(st.sampled_from(registry.get(op).support(platform).dtypes), label="dtype")
    d, t0, t1 = data.draw(legal_geometry(platform), label="tiles")
    a = draw_bits(seed, "src0", dtype, t0.shape, special_rate)
    b = draw_bits(seed, "src1", dtype, t1.shape, special_rate)
    out = evaluate(registry.get(op), make_case(op, platform, dtype, d, t0, t1), {"src0": a, "src1": b})
    assert out.kind == "ok", out.reason
    bits, cls = out.outputs["dst"], out.classes["dst"]
    assert bits.shape == cls.shape == d.shape
    assert bits.dtype == np.dtype(dtypes.get(dtype).bits_dtype)

    R, C = d.shape
    dst_valid = region(d.valid, R, C)
    in0 = region(t0.valid, R, C) & dst_valid
    in1 = region(t1.valid, R, C) & dst_valid
    a_on, b_on = placed(a, R, C), placed(b, R, C)

    # ExecuteTilePartial and every TPart*.hpp: covered by exactly one source -> that source's bits, exact (sNaN
    # payloads included)
    only0, only1 = in0 & ~in1, in1 & ~in0
    assert np.array_equal(bits[only0], a_on[only0])
    assert np.array_equal(bits[only1], b_on[only1])
    assert (cls[only0 | only1] == EXACT).all()
    # Null padding / not written: everything outside the dst valid region is undefined
    assert (cls[~dst_valid] == UNDEFINED).all()
    # cpu: covered by neither -> the simulator writes 0 (exact); elsewhere this cannot happen in a legal case
    neither = dst_valid & ~in0 & ~in1
    if platform == "cpu":
        assert (bits[neither] == 0).all() and (cls[neither] == EXACT).all()
    else:
        assert not neither.any()


@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), op=st.sampled_from(("TPARTADD", "TPARTMAX", "TPARTMIN")),
       dtype=st.sampled_from(("int64", "uint64")))
def test_a5_int64_copies_match_the_generic_rule_when_one_source_is_the_dst(data, seed, op, dtype):
    # With one source equal to the dst and the other inside it, Int64Part (taller rows, wider tail) reduces to
    # "op where both, copy where one" (include/pto/npu/a5/TPartBinOps.hpp), for every dst width below 64 columns.
    d, t0, t1 = data.draw(legal_geometry("a5"), label="tiles")
    a = draw_bits(seed, "src0", dtype, t0.shape, 0.2)
    b = draw_bits(seed, "src1", dtype, t1.shape, 0.2)
    out = evaluate(registry.get(op), make_case(op, "a5", dtype, d, t0, t1), {"src0": a, "src1": b})
    assert out.kind == "ok"
    bits, cls = out.outputs["dst"], out.classes["dst"]
    R, C = d.shape
    dst_valid = region(d.valid, R, C)
    in0, in1 = region(t0.valid, R, C) & dst_valid, region(t1.valid, R, C) & dst_valid
    a_on, b_on = placed(a, R, C), placed(b, R, C)
    both = in0 & in1
    if op == "TPARTADD":
        want = a_on + b_on
    else:
        va, vb = (a_on.view(np.int64), b_on.view(np.int64)) if dtype == "int64" else (a_on, b_on)
        want = (np.maximum(va, vb) if op == "TPARTMAX" else np.minimum(va, vb)).view(np.uint64)
    assert np.array_equal(bits[both], want[both])
    assert np.array_equal(bits[in0 & ~in1], a_on[in0 & ~in1])
    assert np.array_equal(bits[in1 & ~in0], b_on[in1 & ~in0])
    assert (cls[dst_valid] == EXACT).all() and (cls[~dst_valid] == UNDEFINED).all()


# ---------------------------------------------------------------------------------------------------------
# Independent float reference: exact rationals + hand-written RNE

FORMATS = {"float32": (8, 23), "float16": (5, 10), "bfloat16": (8, 7)}  # (exponent bits, fraction bits)


def pow2(k: int) -> Fraction:
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def decode(bits, dtype):
    """(sign, kind, magnitude): kind "fin" with an exact Fraction magnitude, "inf", "qnan" or "snan"."""
    e, m = FORMATS[dtype]
    bias = (1 << (e - 1)) - 1
    sign = (bits >> (e + m)) & 1
    exp = (bits >> m) & ((1 << e) - 1)
    frac = bits & ((1 << m) - 1)
    if exp == (1 << e) - 1:
        # sNaN: exponent all ones, fraction nonzero with its MSB clear (IEEE 754-2019 6.2.1)
        return sign, ("inf" if frac == 0 else "qnan" if frac >> (m - 1) else "snan"), None
    if exp == 0:
        return sign, "fin", frac * pow2(1 - bias - m)
    return sign, "fin", ((1 << m) | frac) * pow2(exp - bias - m)


def floor_log2(x: Fraction) -> int:
    """k with 2**k <= x < 2**(k+1), in integer arithmetic."""
    n, d = x.numerator, x.denominator
    k = n.bit_length() - d.bit_length()
    return k if (n << max(-k, 0)) >= (d << max(k, 0)) else k - 1


def encode_rne(sign, mag: Fraction, dtype):
    """Round ``(-1)**sign * mag`` to nearest, ties to even, in ``dtype``: (bits, inexact, overflow)."""
    e, m = FORMATS[dtype]
    bias = (1 << (e - 1)) - 1
    emin, emax = 1 - bias, bias
    sbit = sign << (e + m)
    if mag == 0:
        return sbit, False, False
    E = max(floor_log2(mag), emin)  # subnormals share emin's quantum 2**(emin - m)
    # mag / 2**(E - m) = num / den; n = that quotient rounded half to even
    num, den = mag.numerator << max(m - E, 0), mag.denominator << max(E - m, 0)
    n, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and n & 1):
        n += 1
    inexact = rem != 0
    if n == 1 << (m + 1):  # rounding carried into the next binade
        n, E = n >> 1, E + 1
    if E > emax:  # beyond the largest finite after rounding with an unbounded exponent: overflow to inf
        return sbit | (((1 << e) - 1) << m), True, True
    if n >= 1 << m:
        return sbit | ((E + bias) << m) | (n - (1 << m)), inexact, False
    assert E == emin
    return sbit | n, inexact, False  # subnormal (or a zero after underflow)


def reference(op, x, y, dtype):
    """(bits, flags) of IEEE 754 x+y / x*y with RNE and canonical NaN output.

    Flags: NV (invalid or an sNaN operand), OF, UF (tiny before rounding and inexact), NX (inexact or OF)."""
    e, m = FORMATS[dtype]
    nan = ((1 << e) - 1) << m | (1 << (m - 1))  # canonical qNaN (spec/hardware-conformance-profile.json)
    inf = ((1 << e) - 1) << m
    sx, kx, mx = decode(x, dtype)
    sy, ky, my = decode(y, dtype)
    if "snan" in (kx, ky):
        return nan, {"NV"}
    if "qnan" in (kx, ky):
        return nan, set()
    if op == "add":
        if kx == "inf" or ky == "inf":
            if kx == ky == "inf" and sx != sy:
                return nan, {"NV"}  # inf - inf
            return (sx if kx == "inf" else sy) << (e + m) | inf, set()
        exact = (-mx if sx else mx) + (-my if sy else my)
        sign = (sx & sy) if exact == 0 else int(exact < 0)  # x + (-x) = +0 under RNE; -0 + -0 = -0
        mag = abs(exact)
    else:
        sign = sx ^ sy
        if kx == "inf" or ky == "inf":
            if (my if kx == "inf" else mx) == 0:
                return nan, {"NV"}  # 0 * inf
            return sign << (e + m) | inf, set()
        mag = mx * my
    bits, inexact, overflow = encode_rne(sign, mag, dtype)
    flags = set()
    if inexact:
        flags.add("NX")
    if overflow:
        flags.add("OF")
    if inexact and 0 < mag < pow2(2 - (1 << (e - 1))):
        flags.add("UF")
    return bits, flags


def float_bits(dtype):
    """Non-NaN bit patterns with the exponent field biased to its edges (subnormals, overflow, near 1)."""
    e, m = FORMATS[dtype]
    top, bias = (1 << e) - 1, (1 << (e - 1)) - 1
    exps = st.integers(0, top - 1) | st.sampled_from([0, 0, 1, 2, top - 1, top - 2, bias, bias - 1, bias + 1, top])
    fracs = st.integers(0, (1 << m) - 1) | st.sampled_from([0, 1, (1 << m) - 1, 1 << (m - 1)])
    return st.tuples(st.booleans(), exps, fracs).map(
        lambda t: int(t[0]) << (e + m) | t[1] << m | (0 if t[1] == top else t[2]))  # exp all ones: infinity


def float_pair(dtype):
    """Independent operands, or near-cancelling ones, or ones a few binades apart (rounding ties)."""
    e, m = FORMATS[dtype]
    sign = 1 << (e + m)

    def close(t):
        x, ydelta, ysign, yfrac, mode = t
        if mode == 0:  # cancellation: y = -x give or take a few ulps
            y = ((x ^ sign) + ydelta) & (2 * sign - 1)
        else:  # y a few binades below x, random fraction: sticky bits and ties in the sum
            xexp = (x >> m) & ((1 << e) - 1)
            y = int(ysign) * sign | max(0, xexp - mode) << m | yfrac
        return (x, x) if decode(y, dtype)[1] in ("qnan", "snan") else (x, y)

    dependent = st.tuples(float_bits(dtype), st.integers(-3, 3), st.booleans(), st.integers(0, (1 << m) - 1),
                          st.integers(0, m + 3)).map(close)
    return st.tuples(float_bits(dtype), float_bits(dtype)) | dependent


PAIR_LISTS = {dt: st.lists(float_pair(dt), min_size=1, max_size=8) for dt in FORMATS}  # built once


def test_reference_rounding_self_check():
    # The test's own RNE against hand-worked values (the RNE rule of pto-spec's TPARTADD/TPARTMUL contracts).
    assert reference("add", 0x3F800000, 0x33800000, "float32") == (0x3F800000, {"NX"})  # 1 + 2**-24
    assert reference("add", 0x3F800000, 0x34400000, "float32") == (0x3F800002, {"NX"})  # 1 + 3*2**-24
    assert reference("add", 0x7BFF, 0x4C00, "float16") == (0x7C00, {"OF", "NX"})  # 65504 + 16
    assert reference("mul", 0x0001, 0x3800, "float16") == (0x0000, {"UF", "NX"})  # 2**-25 -> 0
    assert reference("mul", 0x3F81, 0x3FC0, "bfloat16") == (0x3FC2, {"NX"})
    assert reference("add", 0x8000, 0x8000, "bfloat16") == (0x8000, set())
    assert reference("add", 0x03FF, 0x0001, "float16") == (0x0400, set())


def check_against_reference(op, dtype, xs, ys):
    """Evaluate TPART``op`` on 1xN tiles of (xs, ys) on every platform and compare with :func:`reference`."""
    dt = dtypes.get(dtype)
    n = len(xs)
    a = np.array([xs], dtype=dt.bits_dtype)
    b = np.array([ys], dtype=dt.bits_dtype)
    expected = [reference(op, int(x), int(y), dtype) for x, y in zip(xs, ys)]
    want_bits = [bits for bits, _ in expected]
    name = {"add": "TPARTADD", "mul": "TPARTMUL"}[op]
    inst = registry.get(name)
    geometry = (tile((1, n)), tile((1, n)), tile((1, n)))

    # spec oracle: every bit, and the status flags ORed over the tile (ExecuteTilePartial)
    out = evaluate(inst, make_case(name, "spec", dtype, *geometry), {"src0": a, "src1": b})
    assert out.kind == "ok"
    got_bits = [int(v) for v in out.outputs["dst"][0]]
    bad = [(hex(x), hex(y), hex(g), hex(w)) for x, y, g, w in zip(xs, ys, got_bits, want_bits) if g != w]
    assert not bad, f"{dtype} {op}: (x, y, oracle, reference): {bad}"
    assert (out.classes["dst"] == EXACT).all()
    assert set(out.flags) == set().union(*(f for _, f in expected))

    # per-element flags of the element operation behind the spec oracle
    _, flags = ieee.add_mul(op, a[0], b[0], dt)
    for i, (_, f) in enumerate(expected):
        got = {k for k in ("NV", "OF", "UF", "NX") if bool(flags[k][i])}
        assert got == f, (dtype, op, hex(int(xs[i])), hex(int(ys[i])), got, f)

    # platform models: wherever they claim EXACT the bits are the IEEE result; NAN exactly for NaN results
    nan_ref = np.array([w == dt.canonical_nan for w in want_bits])
    for platform in ("cpu", "a2a3", "a5"):
        if dtype not in inst.support(platform).dtypes:
            continue
        res = evaluate(inst, make_case(name, platform, dtype, *geometry), {"src0": a, "src1": b})
        bits, cls = res.outputs["dst"][0], res.classes["dst"][0]
        exact = cls == EXACT
        assert [int(v) for v in bits[exact]] == [w for w, e in zip(want_bits, exact) if e], platform
        assert np.array_equal(cls == NAN, nan_ref), platform
        if platform == "cpu":  # no subnormal or overflow caveat on the host FPU: all non-NaN are exact
            assert exact[~nan_ref].all(), platform


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@settings(max_examples=100, **SETTINGS)
@given(data=st.data(), seed=st.integers(0, 2**32 - 1), special_rate=st.sampled_from([0.0, 0.2, 0.6]))
def test_float_add_mul_match_an_exact_rational_reference(dtype, data, seed, special_rate):
    # Non-NaN operands drawn by Hypothesis (edge exponents, cancellation, near-ties; shrinkable), followed by a
    # realistic batch from ptofuzz's own value generator (NaNs, infinities, subnormals mixed in).
    pairs = data.draw(PAIR_LISTS[dtype], label="pairs")
    dt = dtypes.get(dtype)
    batch_a = draw_bits(seed, "a", dtype, (32,), special_rate)
    batch_b = draw_bits(seed, "b", dtype, (32,), special_rate)
    xs = [x for x, _ in pairs] + [int(v) for v in batch_a]
    ys = [y for _, y in pairs] + [int(v) for v in batch_b]
    assert all(decode(v, dtype)[1] not in ("qnan", "snan") for v in xs[: len(pairs)] + ys[: len(pairs)])
    for op in ("add", "mul"):
        check_against_reference(op, dt.name, xs, ys)


def less(x, y, dtype):
    """C++ ``x < y`` on the encoded floats: false whenever a NaN is involved; -0 < +0 is false."""
    (sx, kx, mx), (sy, ky, my) = decode(x, dtype), decode(y, dtype)
    if kx in ("qnan", "snan") or ky in ("qnan", "snan"):
        return False
    big = pow2(1 << 10)  # stands in for infinity: larger than any finite value of these formats
    vx = (big if kx == "inf" else mx) * (-1 if sx else 1)
    vy = (big if ky == "inf" else my) * (-1 if sy else 1)
    return vx < vy


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@settings(max_examples=60, **SETTINGS)
@given(n=st.integers(1, 24), seed=st.integers(0, 2**32 - 1), pool=st.booleans())
def test_cpu_max_min_follow_the_page_where_it_speaks_and_leave_the_rest_open(dtype, n, seed, pool):
    """docs/isa/TPARTMAX.md, TPARTMIN.md: max(src0, src1). Where neither operand is a NaN and they are not zeros of
    two signs, the result is the larger (smaller) operand bit for bit, which is also what the simulator's
    std::max(a, b) = a < b ? b : a (std::min: b < a ? b : a) returns; a NaN operand is undefined, mixed zeros some
    zero."""
    if pool:
        a, b = pool_bits(seed, dtype, (1, n)), pool_bits(seed + 1, dtype, (1, n))
    else:
        a, b = draw_bits(seed, "a", dtype, (1, n), 0.5), draw_bits(seed, "b", dtype, (1, n), 0.5)
    geometry = (tile((1, n)), tile((1, n)), tile((1, n)))
    for op in ("TPARTMAX", "TPARTMIN"):
        out = evaluate(registry.get(op), make_case(op, "cpu", dtype, *geometry), {"src0": a, "src1": b})
        for x, y, got, cls in zip(a[0], b[0], out.outputs["dst"][0], out.classes["dst"][0]):
            (sx, kx, mx), (sy, ky, my) = decode(int(x), dtype), decode(int(y), dtype)
            if {kx, ky} & {"qnan", "snan"}:
                assert cls == UNDEFINED, (op, x, y)
            elif kx == ky == "fin" and mx == my == 0 and sx != sy:
                assert cls == ZERO, (op, x, y)
            else:
                want = int(y) if (less(int(x), int(y), dtype) if op == "TPARTMAX" else less(int(y), int(x), dtype)) \
                    else int(x)
                assert (int(got), int(cls)) == (want, EXACT), (op, x, y)


@settings(max_examples=150, **SETTINGS)
@given(data=st.data(), dtype=st.sampled_from(("int32", "int16", "int8", "uint32", "uint16", "uint8")),
       op=st.sampled_from(OPS))
def test_integer_ops_match_python_integers(data, dtype, op):
    # TPART*.asl contracts: integer add/mul wrap modulo the element width; max/min use the signed or unsigned
    # order.
    dt = dtypes.get(dtype)
    lo, hi = dt.int_min, dt.int_max
    xs = data.draw(st.lists(st.tuples(st.integers(lo, hi), st.integers(lo, hi)), min_size=1, max_size=16))
    mask = (1 << dt.bits) - 1
    a = np.array([[x & mask for x, _ in xs]], dtype=dt.bits_dtype)
    b = np.array([[y & mask for _, y in xs]], dtype=dt.bits_dtype)
    fn = {"TPARTADD": lambda x, y: x + y, "TPARTMUL": lambda x, y: x * y, "TPARTMAX": max, "TPARTMIN": min}[op]
    n = len(xs)
    out = evaluate(registry.get(op), make_case(op, "spec", dtype, tile((1, n)), tile((1, n)), tile((1, n))),
                                    {"src0": a, "src1": b})
    assert [int(v) for v in out.outputs["dst"][0]] == [fn(x, y) & mask for x, y in xs]
    assert out.flags == ()
