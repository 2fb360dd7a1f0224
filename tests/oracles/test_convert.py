"""The conversion core on raw bits (``oracles/convert.py``): hand-worked values from the documents, then every
float16 and bfloat16 bit pattern to every destination in every direction, and random float32 and integer
patterns, against an independent reference written here.

The reference never shifts mantissas. A floating destination: numpy's correctly rounded float64 -> float16 /
float32 conversion (ml_dtypes' for bfloat16; every source value here is exact in float32, so that conversion
rounds once) gives the nearest-even neighbour; its two neighbours come from stepping the destination's bits, and
each direction picks between the two destination values that bracket the exact value by comparing float64 values
(exact: every value and midpoint involved has far fewer than 53 significant bits). An integer destination:
numpy's floor, ceil, trunc and rint of the exact float64 value, ties away and round-to-odd built from them.
Integer sources: Python's integers and ``fractions.Fraction``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import smallfloat_reference as sfr

from ptofuzz.core import dtypes
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import ieee

F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")
INTS = tuple(dtypes.get(n) for n in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"))


def conv(value_bits, src, dst, direction):
    bits, status = cv.convert(np.array(value_bits, dtype=src.bits_dtype), src, dst, direction)
    return bits.tolist(), status.tolist()


def f32(x: float) -> int:
    return int(np.array([x], dtype=np.float32).view(np.uint32)[0])


# ---- hand-worked: pto-spec ADR 0047's examples and pto-isa's ---------------------------------------------------

@pytest.mark.parametrize(("x", "direction", "want"), [
    (2.5, cv.RNA, 3), (-2.5, cv.RNA, -3), (2.5, cv.RNE, 2), (3.5, cv.RNE, 4), (-2.5, cv.RNE, -2),
    (2.2, cv.RTO, 3), (2.7, cv.RTO, 3), (2.5, cv.RTO, 3), (3.0, cv.RTO, 3), (4.0, cv.RTO, 4), (-2.2, cv.RTO, -3),
    (2.7, cv.RTZ, 2), (-2.7, cv.RTZ, -2), (-2.2, cv.RTM, -3), (2.2, cv.RTP, 3), (-0.5, cv.RTZ, 0),
])
def test_float_to_int32_directions_hand_worked(x, direction, want):
    (bits,), (status,) = conv([f32(x)], F32, dtypes.get("int32"), direction)
    assert np.array([bits], dtype=np.uint32).view(np.int32)[0] == want
    assert status == (cv.EXACT_RESULT if float(x).is_integer() else cv.INEXACT)


def test_float32_to_float16_ties_subnormals_and_overflow_hand_worked():
    # 1 + 2**-11 is halfway between 1 and 1 + 2**-10: to even (1.0, 0x3C00), away (0x3C01), to odd (0x3C01)
    tie = 0x3F801000
    assert conv([tie], F32, F16, cv.RNE)[0] == [0x3C00]
    assert conv([tie], F32, F16, cv.RNA)[0] == [0x3C01]
    assert conv([tie], F32, F16, cv.RTO)[0] == [0x3C01]
    # 65519 rounds to 65504 and 65520 to +inf (to nearest); toward zero 65520 rounds to 65504 (no overflow in
    # IEEE 754's sense: the rounded value fits), 70000 overflows to the largest finite; toward -inf a negative
    # overflow is -inf and a positive one the largest finite
    assert conv([f32(65519.0), f32(65520.0)], F32, F16, cv.RNE) == ([0x7BFF, 0x7C00], [cv.INEXACT, cv.OVERFLOW])
    assert conv([f32(65520.0), f32(70000.0)], F32, F16, cv.RTZ) == ([0x7BFF, 0x7BFF], [cv.INEXACT, cv.OVERFLOW])
    assert conv([f32(-1e6), f32(1e6)], F32, F16, cv.RTM)[0] == [0xFC00, 0x7BFF]
    assert conv([f32(65505.0)], F32, F16, cv.RTP) == ([0x7C00], [cv.OVERFLOW])  # up past 65504: +inf
    # 2**-25 is half the smallest float16 subnormal: to even it is +0, up it is the subnormal 0x0001
    assert conv([0x33000000], F32, F16, cv.RNE) == ([0x0000], [cv.INEXACT])
    assert conv([0x33000000], F32, F16, cv.RTP) == ([0x0001], [cv.INEXACT])
    assert conv([0xB3000000], F32, F16, cv.RTM) == ([0x8001], [cv.INEXACT])
    # -0 stays -0; an sNaN's result is a NaN, flagged for the model to class, never an infinity
    assert conv([0x80000000], F32, F16, cv.RNE) == ([0x8000], [cv.EXACT_RESULT])
    bits, status = conv([0x7F800001, 0xFF800000], F32, F16, cv.RNE)
    assert ieee.is_nan(np.array(bits[:1], dtype=np.uint16), F16)[0] and status == [cv.NAN_SOURCE, cv.INFINITE]
    assert bits[1] == 0xFC00


def test_int64_to_float32_rounds_once():
    """2**60 + 2**36 + 1 is just above the tie between 2**60 and its next float32: rounded once it goes up
    (0x5D800001); through a double first (2**60 + 2**36, the tie) it would go to even (0x5D800000)."""
    v = (1 << 60) + (1 << 36) + 1
    assert conv([v], dtypes.get("int64"), F32, cv.RNE) == ([0x5D800001], [cv.INEXACT])
    assert conv([v - 1], dtypes.get("int64"), F32, cv.RNE) == ([0x5D800000], [cv.INEXACT])
    assert conv([(1 << 64) - 1], dtypes.get("uint64"), F32, cv.RTZ) == ([0x5F7FFFFF], [cv.INEXACT])
    assert conv([(1 << 64) - 1], dtypes.get("int64"), F32, cv.RNE) == ([0xBF800000], [cv.EXACT_RESULT])  # -1


def test_integer_range_edges():
    i8, u8 = dtypes.get("int8"), dtypes.get("uint8")
    assert conv([f32(127.4), f32(127.5), f32(-128.5)], F32, i8, cv.RNE) == (
        [127, 128, 128], [cv.INEXACT, cv.OVERFLOW, cv.INEXACT])  # 127.5 -> 128 does not fit; -128.5 -> -128 does
    assert conv([f32(-0.4), f32(-0.6)], F32, u8, cv.RNE)[1] == [cv.INEXACT, cv.OVERFLOW]  # -0 fits, -1 does not
    assert conv([f32(300.0)], F32, u8, cv.RTZ) == ([44], [cv.OVERFLOW])  # the low bits, flagged
    assert conv([0x7F800000, 0x7FC00000], F32, u8, cv.RTZ)[1] == [cv.INFINITE, cv.NAN_SOURCE]
    assert conv([f32(2.0**63)], F32, dtypes.get("int64"), cv.RNE)[1] == [cv.OVERFLOW]
    assert conv([f32(-(2.0**63))], F32, dtypes.get("int64"), cv.RNE) == ([1 << 63], [cv.EXACT_RESULT])
    assert conv([f32(2.0**64)], F32, dtypes.get("uint64"), cv.RNE)[1] == [cv.OVERFLOW]
    assert conv([f32(3.0e38)], F32, dtypes.get("uint64"), cv.RNE)[1] == [cv.OVERFLOW]


def test_integer_to_integer_is_exact_and_flags_what_does_not_fit():
    s32, s16, u16 = dtypes.get("int32"), dtypes.get("int16"), dtypes.get("uint16")
    assert conv([70000], s32, s16, cv.RNE) == ([4464], [cv.OVERFLOW])  # low 16 bits: 70000 mod 65536
    assert conv([0xFFFFFFFF], s32, u16, cv.RNE) == ([0xFFFF], [cv.OVERFLOW])  # -1
    assert conv([0xFFFF8000], s32, s16, cv.RNE) == ([0x8000], [cv.EXACT_RESULT])  # -32768


def test_bit_length_is_exact_where_float64_rounds_up():
    mags = np.array([0, 1, 2, 3, (1 << 53) + 1, (1 << 54) - 1, (1 << 63), (1 << 64) - 1], dtype=np.uint64)
    assert cv.bit_length(mags).tolist() == [0, 1, 2, 2, 54, 54, 64, 64]


# ---- the independent reference --------------------------------------------------------------------------------

def _values(bits: np.ndarray, dt) -> np.ndarray:
    return ieee.to_float64(bits, dt)


def _nearest_even(x: np.ndarray, dt) -> np.ndarray:
    if dt.name == "bfloat16":
        import ml_dtypes

        return x.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
    return x.astype(np.float16 if dt.name == "float16" else np.float32).view(dt.bits_dtype)


def _step(bits: np.ndarray, dt, up: bool) -> np.ndarray:
    """The next destination value toward +inf (``up``) or -inf, as bits (finite, non-NaN inputs)."""
    b = bits.astype(np.int64)
    neg = (b & dt.sign_mask) != 0
    mag = b & dt.abs_mask
    toward_bigger_mag = neg != up
    out = np.where(toward_bigger_mag, b + 1, b - 1)
    out = np.where(mag == 0, np.where(up, 1, dt.sign_mask | 1), out)  # from either zero
    return out.astype(np.uint64).astype(dt.bits_dtype)


def reference_float(x: np.ndarray, dst, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """The destination bits of finite float64 values ``x`` (exact values of the sources) in ``direction``, and
    where they overflow."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _reference_float(x, dst, direction)


def _reference_float(x: np.ndarray, dst, direction: str) -> tuple[np.ndarray, np.ndarray]:
    r = _nearest_even(x, dst)
    rv = _values(r, dst)
    big = float(_values(np.array([cv.largest_finite(dst)], dtype=dst.bits_dtype), dst)[0])
    lo = np.where(rv <= x, r, _step(r, dst, up=False))
    hi = np.where(rv >= x, r, _step(r, dst, up=True))
    lov, hiv = _values(lo, dst), _values(hi, dst)
    exact = rv == x
    neg = x < 0
    if direction == cv.RNE:
        out = r
    elif direction == cv.RNA:
        dl, dh = x - lov, hiv - x
        out = np.where(dl < dh, lo, np.where(dh < dl, hi, np.where(neg, lo, hi)))
    elif direction == cv.RTM:
        out = lo
    elif direction == cv.RTP:
        out = hi
    elif direction == cv.RTZ:
        out = np.where(neg, hi, lo)
    else:
        out = np.where((lo & 1) == 1, lo, hi)
    out = np.where(exact, r, out)
    # IEEE 754's overflow: the value rounded with an unbounded exponent is past the largest finite one; the
    # result is the infinity or the largest finite value the direction gives
    inf = np.array(dst.exp_mask, dtype=dst.bits_dtype)
    mx = np.array(cv.largest_finite(dst), dtype=dst.bits_dtype)
    sign = np.where(neg, np.array(dst.sign_mask, dtype=dst.bits_dtype), np.zeros((), dtype=dst.bits_dtype))
    ulp = big - float(_values(_step(mx[None], dst, up=False), dst)[0])
    a = np.abs(x)
    up_side = {cv.RTP: ~neg, cv.RTM: neg}.get(direction)
    if direction in (cv.RNE, cv.RNA):
        ovf, to_inf = a >= big + ulp / 2, np.ones_like(neg)
    elif up_side is None:  # RTZ, RTO
        ovf, to_inf = a >= big + ulp, np.zeros_like(neg)
    else:
        ovf, to_inf = np.where(up_side, a > big, a >= big + ulp), up_side
    out = np.where(ovf, sign | np.where(to_inf, inf, mx), out)
    return out.astype(dst.bits_dtype), ovf


def reference_int(x: np.ndarray, direction: str) -> np.ndarray:
    """Finite float64 ``x`` rounded to integral float64 values in ``direction``."""
    t = np.trunc(x)
    if direction == cv.RNE:
        return np.rint(x)
    if direction == cv.RNA:
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    if direction == cv.RTM:
        return np.floor(x)
    if direction == cv.RTP:
        return np.ceil(x)
    if direction == cv.RTZ:
        return t
    odd = np.abs(t) % 2 == 1
    return np.where((t == x) | odd, t, t + np.sign(x))


def check_float_source(bits: np.ndarray, src, dst, direction: str) -> None:
    got, status = cv.convert(bits, src, dst, direction)
    x = _values(bits, src)
    nan, inf = np.isnan(x), np.isinf(x)
    fin = ~nan & ~inf
    assert (status[nan] == cv.NAN_SOURCE).all() and (status[inf] == cv.INFINITE).all()
    if dst.is_float:
        assert ieee.is_nan(got[nan], dst).all()
        assert np.array_equal(got[inf], np.where(x[inf] < 0, dst.sign_mask | dst.exp_mask, dst.exp_mask)
                              .astype(dst.bits_dtype))
        want, ovf = reference_float(x[fin], dst, direction)
        bad = np.flatnonzero(got[fin] != want)
        assert not len(bad), (src.name, dst.name, direction, [hex(int(v)) for v in bits[fin][bad[:5]]],
                              [hex(int(v)) for v in got[fin][bad[:5]]], [hex(int(v)) for v in want[bad[:5]]])
        flag = np.where(ovf, cv.OVERFLOW, np.where(_values(want, dst) == x[fin], cv.EXACT_RESULT, cv.INEXACT))
        assert np.array_equal(status[fin], flag), (src.name, dst.name, direction)
        return
    q = reference_int(x[fin], direction)
    lo, hi = (float(dst.int_min), float(dst.int_max) + 1)  # hi exclusive: 2**63 and 2**64 are exact
    fits = (q >= lo) & (q < hi)
    want_status = np.where(fits, np.where(q == x[fin], cv.EXACT_RESULT, cv.INEXACT), cv.OVERFLOW)
    assert np.array_equal(status[fin], want_status), (src.name, dst.name, direction)
    inside = q[fits]
    want_bits = np.where(inside < 0, inside + 2.0 ** dst.bits, inside)  # two's complement, exact in float64
    assert np.array_equal(got[fin][fits].astype(np.float64), want_bits), (src.name, dst.name, direction)


DESTS_16 = (F32, F16, BF16, *INTS)


@pytest.mark.parametrize("src", (F16, BF16), ids=("float16", "bfloat16"))
@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_every_16_bit_pattern_to_every_destination(src, direction):
    """All 65,536 patterns of float16 and of bfloat16, to float32, float16, bfloat16 and every integer type."""
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for dst in DESTS_16:
        check_float_source(bits, src, dst, direction)


def _random_f32(n: int, seed: int) -> np.ndarray:
    """Random float32 patterns, a third of them near the float16/bfloat16/integer edges (exponents -30..70)."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    near = rng.random(n) < 0.35
    exp = rng.integers(127 - 30, 127 + 70, n).astype(np.uint32)
    return np.where(near, (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23)), bits).astype(np.uint32)


@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_random_float32_patterns(direction):
    bits = _random_f32(200_000, 1)
    for dst in (F16, BF16, F32, *INTS):
        check_float_source(bits, F32, dst, direction)


SMALL = tuple(dtypes.get(n) for n in ("float8_e4m3", "float8_e5m2", "hifloat8", "float4_e2m1", "float4_e1m2"))


def check_small_float(bits: np.ndarray, dst, direction: str) -> None:
    """float32 ``bits`` to a small float against the bracketing reference of ``tests/smallfloat_reference.py``."""
    got, status = cv.convert(bits, F32, dst, direction)
    x = _values(bits, F32)
    fin = np.isfinite(x)
    assert (status[np.isnan(x)] == cv.NAN_SOURCE).all() and (status[np.isinf(x)] == cv.INFINITE).all()
    want, want_status = sfr.encode(x[fin], dst.name, direction)
    bad = np.flatnonzero((got[fin] != want) | (status[fin] != want_status))
    assert not len(bad), (dst.name, direction, [hex(int(v)) for v in bits[fin][bad[:5]]],
                          [hex(int(v)) for v in got[fin][bad[:5]]], [hex(int(v)) for v in want[bad[:5]]])


@pytest.mark.slow
@pytest.mark.nightly
@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_ten_million_float32_patterns_per_pair(direction):
    """Ten chunks of a million (the same ten million patterns for every destination; chunks keep the
    temporaries in cache instead of paging ten-million-element arrays). The 8- and 4-bit floats take a third
    of their patterns near their own range (exponents -25..16), where their rounding happens."""
    for chunk in range(10):
        bits = _random_f32(1_000_000, 2 + chunk)
        for dst in (F16, BF16, *INTS):
            check_float_source(bits, F32, dst, direction)
        near = np.random.default_rng(100 + chunk)
        exp = near.integers(127 - 25, 127 + 16, len(bits)).astype(np.uint32)
        small = np.where(near.random(len(bits)) < 0.35, (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23)),
                         bits).astype(np.uint32)
        for dst in SMALL:
            check_small_float(small, dst, direction)


def _exact_reference(v: int, dst, direction: str) -> int:
    """An integer converted to a float destination with Python's exact rationals (slow; a few thousand)."""
    if v == 0:
        return 0
    neg, a = v < 0, Fraction(abs(v))
    p, bias = dst.man_bits, (1 << (dst.exp_bits - 1)) - 1
    e = a.numerator.bit_length() - 1
    q = Fraction(2) ** (max(e, 1 - bias) - p)
    m, r = divmod(a, q)
    m = int(m)
    half = r * 2
    up = {cv.RNE: half > q or (half == q and m % 2 == 1), cv.RNA: half >= q and r != 0, cv.RTZ: False,
          cv.RTP: r != 0 and not neg, cv.RTM: r != 0 and neg, cv.RTO: False}[direction]
    if direction == cv.RTO and r != 0:
        m |= 1
    m += int(up)
    value = m * q
    e2 = value.numerator.bit_length() - value.denominator.bit_length()
    sign = dst.sign_mask if neg else 0
    if m and e2 > bias:
        to_inf = direction in (cv.RNE, cv.RNA) or (direction == cv.RTP and not neg) or (direction == cv.RTM and neg)
        return sign | (dst.exp_mask if to_inf else cv.largest_finite(dst))
    bits = int(ieee.from_float64(np.array([float(value)]), dst)[0])  # value has <= p+1 bits: exact in float64
    return sign | bits


@pytest.mark.parametrize("src_name", ("int32", "uint32", "int64", "uint64", "int16"))
@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_integers_to_floats_against_exact_rationals(src_name, direction):
    src = dtypes.get(src_name)
    rng = np.random.default_rng(3)
    width = src.bits
    raw = rng.integers(0, 1 << min(width, 63), 1500, dtype=np.uint64)
    if width == 64:
        raw = raw | (rng.integers(0, 2, 1500, dtype=np.uint64) << np.uint64(63))
    shifts = rng.integers(0, width, 1500).astype(np.uint64)
    raw = np.where(rng.random(1500) < 0.5, raw >> shifts, raw)  # small magnitudes too
    edges = [0, 1, (1 << width) - 1, 1 << (width - 1), (1 << (width - 1)) - 1, 65519, 65520, 16777217]
    raw = np.concatenate([raw, np.array([e & ((1 << width) - 1) for e in edges], dtype=np.uint64)])
    bits = raw.astype(src.bits_dtype)
    for dst in (F32, F16, BF16):
        got, _ = cv.convert(bits, src, dst, direction)
        for b, g in zip(bits.tolist(), got.tolist()):
            v = b - (1 << width) if src.kind == "int" and b >> (width - 1) else b
            assert g == _exact_reference(v, dst, direction), (src_name, dst.name, direction, v, hex(g))


# ---- pto-spec's RHB (B.DATR RMode 7): nearest, a tie to the numerically greater neighbour ------------------------

def _values_of(bits: np.ndarray, dt) -> np.ndarray:
    """Finite destination bits as float64 (exact: every format here has at most 64-bit integers or few bits)."""
    x = cv.decode(bits, dt)
    v = np.ldexp(x.mag.astype(np.float64), x.exp.astype(np.int64))
    return np.where(x.neg, -v, v)


@pytest.mark.parametrize("dst_name", ["float16", "bfloat16", "int32", "int8", "uint8", "float8_e4m3",
                                      "float8_e5m2", "hifloat8"])
def test_rhb_picks_the_nearer_directed_neighbour_and_the_greater_on_a_tie(dst_name):
    """Against the two directed results (RTM below, RTP above): the nearer, the greater (RTP's) on an exact tie;
    an exact value is itself. Random float32 patterns and a tie-rich set (m * 2**s: small m, many scales)."""
    dst = dtypes.get(dst_name)
    m = np.arange(-4096, 4097, dtype=np.float64)
    ties = np.concatenate([m * 2.0 ** s for s in range(-24, 12)]).astype(np.float32).view(np.uint32)
    bits = np.concatenate([_random_f32(40_000, 7), ties])
    lo, lo_status = cv.convert(bits, F32, dst, cv.RTM)
    hi, hi_status = cv.convert(bits, F32, dst, cv.RTP)
    got, status = cv.convert(bits, F32, dst, cv.RHB)
    inside = np.isin(lo_status, (cv.EXACT_RESULT, cv.INEXACT)) & np.isin(hi_status, (cv.EXACT_RESULT, cv.INEXACT))
    with np.errstate(all="ignore"):  # signalling NaNs among the patterns (outside ``inside``)
        x = bits.view(np.float32).astype(np.float64)
        below, above = x - _values_of(lo, dst), _values_of(hi, dst) - x
    want = np.where(below < above, lo, hi)
    assert np.array_equal(got[inside], want[inside])
    assert np.array_equal(status[inside], np.where(lo == hi, cv.EXACT_RESULT, cv.INEXACT)[inside])
    tie = inside & (lo != hi) & (below == above)
    assert (tie & (x > 0)).sum() > 100 and (tie & (x < 0)).sum() > (100 if dst.kind != "uint" else -1)
    # where it is no tie, RHB is every other nearest mode
    rne, _ = cv.convert(bits, F32, dst, cv.RNE)
    assert np.array_equal(got[inside & ~tie], rne[inside & ~tie])


@pytest.mark.parametrize(("x", "dst_name", "want"), [
    (2.5, "int32", 3), (-2.5, "int32", (1 << 32) - 2),  # ties: up to 3, and up to -2
    (1 + 2.0 ** -11, "float16", 0x3C01), (-(1 + 2.0 ** -11), "float16", 0xBC00),
    (1 + 2.0 ** -4, "float8_e4m3", 0x39), (-(1 + 2.0 ** -4), "float8_e4m3", 0xB8),
    # past the range: the tie above 65504 rounds to 65536, infinity; the negative tie rounds to -65504 instead
    (65520.0, "float16", 0x7C00), (-65520.0, "float16", 0xFBFF),
])
def test_rhb_hand_worked(x, dst_name, want):
    bits, _ = conv([f32(x)], F32, dtypes.get(dst_name), cv.RHB)
    assert bits == [want]
