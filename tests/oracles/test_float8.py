"""The 8-bit floats (FP8 E4M3, FP8 E5M2, HiFloat8): every code decoded against an independent reference, and
conversions to them in every direction against an independent bracketing reference (both in
``tests/smallfloat_reference.py``: ml_dtypes for the OCP formats, a decoder from pto-spec's profile for HiFloat8),
and ml_dtypes' own round-to-nearest-even casts.
"""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
import smallfloat_reference as sfr

from ptofuzz.core import dtypes
from ptofuzz.engine.compare import ulp_distance
from ptofuzz.generators import values
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import ieee

E4M3, E5M2, HIF8 = dtypes.get("e4m3"), dtypes.get("fp8_e5m2"), dtypes.get("h8")
F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")
FORMATS = (E4M3, E5M2, HIF8)
CODES = np.arange(256, dtype=np.uint8)


def test_names_and_spec_codes():
    assert {dtypes.get(s).name for s in ("fp8_e4m3", "e4m3", "float8_e4m3_t")} == {"float8_e4m3"}
    assert {dtypes.get(s).name for s in ("fp8_e5m2", "e5m2", "float8_e5m2_t")} == {"float8_e5m2"}
    assert {dtypes.get(s).name for s in ("h8", "hif8", "hifloat8_t", "HiF8")} == {"hifloat8"}
    assert [(d.spec_name, d.spec_code) for d in FORMATS] == [("E4M3", 7), ("E5M2", 8), ("HiF8", 6)]
    assert [d.canonical_nan for d in FORMATS] == [0x7F, 0x7E, 0x80]
    assert all(d.is_float for d in FORMATS) and [d.is_table for d in FORMATS] == [True, False, True]


# ---- decoding -------------------------------------------------------------------------------------------------

def _reference_values(dt) -> np.ndarray:
    return sfr.values(dt.name)


@pytest.mark.parametrize("dt", FORMATS, ids=lambda d: d.name)
def test_every_code_decodes_to_the_reference(dt):
    ref = _reference_values(dt)
    x = cv.decode(CODES, dt)
    nan, inf = np.isnan(ref), np.isinf(ref)
    assert np.array_equal(x.kind == cv.NAN, nan) and np.array_equal(x.kind == cv.INF, inf)
    assert np.array_equal(ieee.is_nan(CODES, dt), nan) and np.array_equal(ieee.is_inf(CODES, dt), inf)
    fin = ~nan & ~inf
    exact = np.array([(-1 if n else 1) * float(Fraction(int(m)) * Fraction(2) ** int(e))
                      for n, m, e in zip(x.neg, x.mag, x.exp)])
    assert np.array_equal(exact[fin], ref[fin])
    assert np.array_equal(ieee.to_float64(CODES, dt)[fin], ref[fin])
    assert np.array_equal(np.signbit(exact[fin] if dt is not HIF8 else ref[fin]), np.signbit(ref[fin]))
    # converted to float32, float16 and bfloat16 each value is exact (and NaNs are flagged for the model)
    for wide in (F32, F16, BF16):
        bits, status = cv.convert(CODES, dt, wide, cv.RNE)
        assert np.array_equal(ieee.to_float64(bits, wide)[fin], ref[fin])
        assert (status[fin] == cv.EXACT_RESULT).all() and (status[nan] == cv.NAN_SOURCE).all()
    zero = fin & (ref == 0)
    assert np.array_equal(ieee.is_zero(CODES, dt), zero)
    assert list(CODES[zero]) == ([0] if dt is HIF8 else [0, 0x80])  # HiFloat8: one zero, no -0


def test_hand_worked_codes():
    """From the documents: E4M3 max 448 (0x7E), E5M2 max 57344 (0x7B), HiF8 0x18 = 0.5 and 0x0A = 1.25
    (hif8.asl: dot 001, Se 1: 2**-1; dot 0001: 1 + 2/8), HiF8 max 32768 (0x6E), denormal 0x01 = 2**-22."""
    for dt, code, value in ((E4M3, 0x7E, 448.0), (E4M3, 0x01, 2.0 ** -9), (E5M2, 0x7B, 57344.0),
                            (E5M2, 0x01, 2.0 ** -16), (HIF8, 0x18, 0.5), (HIF8, 0x0A, 1.25), (HIF8, 0x6E, 32768.0),
                            (HIF8, 0x01, 2.0 ** -22), (HIF8, 0x07, 2.0 ** -16), (HIF8, 0xFE, -(2.0 ** -15))):
        assert ieee.to_float64(np.array([code], np.uint8), dt)[0] == value, (dt.name, hex(code))
    assert dtypes.format_bits(0x18, HIF8) == "0x18 (0.5)" and dtypes.format_bits(0x80, HIF8) == "0x80 (NaN)"
    assert dtypes.format_bits(0x80, E4M3) == "0x80 (-0.0)" and dtypes.format_bits(0xFF, E4M3) == "0xff (NaN)"
    assert ieee.is_subnormal(np.array([0x01, 0x07, 0x08, 0x00], np.uint8), HIF8).tolist() == [True, True, False,
                                                                                            False]
    assert ieee.min_normal(E4M3) == 2.0 ** -6 and ieee.min_normal(HIF8) == 2.0 ** -15


def test_order_and_ulp_follow_values_not_codes():
    for dt in FORMATS:
        ref = _reference_values(dt)
        fin = np.flatnonzero(~np.isnan(ref))
        key = ieee.order_key(CODES[fin], dt).astype(np.int64)
        v = ref[fin]
        # the key orders as the values do (the zeros: -0 below +0 where both exist)
        for i in range(len(fin)):
            assert ((key < key[i]) == ((v < v[i]) | ((v == v[i]) & (key < key[i])))).all()
        # the sort keys (8 bits, as the other formats' keys are their width): values ascending, NaNs last
        from ptofuzz.oracles.sort import sort_keys

        sk = sort_keys(CODES, dt, descending=False)
        assert int(sk[fin].max()) < 256 and sk[np.isnan(ref)].min() == 256
        order = np.argsort(sk[fin], kind="stable")
        assert (np.diff(ref[fin][order]) >= 0).all()
    # HiFloat8 0x0F (1.875) and 0x10 (2.0) are neighbours; 0x1F (0.9375) and 0x08 (1.0) too
    a, b = np.array([0x0F, 0x1F, 0x01], np.uint8), np.array([0x10, 0x08, 0x81], np.uint8)
    assert ulp_distance(a, b, HIF8).tolist() == [1, 1, 2]


def test_drawn_values_are_of_each_class():
    from ptofuzz.generators.stream import Stream

    for dt in FORMATS:
        bits = values.draw(Stream(7), dt, (64, 64), values.ValueMix(0.3))
        ref = _reference_values(dt)[bits.astype(np.intp)]
        assert np.isnan(ref).any() and (ref == 0).any() and (np.abs(ref) == np.nanmax(np.abs(ref[np.isfinite(
            ref)]))).any()
        assert np.isinf(ref).any() == (dt is not E4M3)
        plain = values.plain(Stream(1), dt, 1000)
        pv = np.abs(_reference_values(dt)[plain.astype(np.intp)])
        assert ((pv >= 2.0 ** -5) & (pv < 8)).all()
    assert dtypes.get("e4m3").one == 0x38 and HIF8.one == 0x08


# ---- encoding -------------------------------------------------------------------------------------------------

def reference_encode(x: np.ndarray, dt, direction: str) -> tuple[np.ndarray, np.ndarray]:
    return sfr.encode(x, dt.name, direction)


def check_encoding(bits: np.ndarray, src, dt, direction: str) -> None:
    got, status = cv.convert(bits, src, dt, direction)
    x = ieee.to_float64(bits, src)
    nan, inf = np.isnan(x), np.isinf(x)
    fin = ~nan & ~inf
    assert (status[nan] == cv.NAN_SOURCE).all() and (status[inf] == cv.INFINITE).all()
    assert ieee.is_nan(got[nan], dt).all()
    want_inf = {E4M3.name: 0x7F, E5M2.name: 0x7C, HIF8.name: 0x6F}[dt.name]
    assert np.array_equal(got[inf], np.where(x[inf] < 0, 0x80 | want_inf, want_inf).astype(np.uint8))
    want, want_status = reference_encode(x[fin], dt, direction)
    bad = np.flatnonzero((got[fin] != want) | (status[fin] != want_status))
    assert not len(bad), (src.name, dt.name, direction, [hex(int(v)) for v in bits[fin][bad[:5]]],
                          [hex(int(v)) for v in got[fin][bad[:5]]], [hex(int(v)) for v in want[bad[:5]]],
                          status[fin][bad[:5]].tolist(), want_status[bad[:5]].tolist())
    if direction == cv.RNE and dt is not HIF8:  # ml_dtypes' own cast (its E4M3 overflow is the NaN code too)
        kind = ml_dtypes.float8_e4m3fn if dt is E4M3 else ml_dtypes.float8_e5m2
        with np.errstate(all="ignore"):
            ml = x[fin].astype(np.float32).astype(kind).view(np.uint8)
        assert np.array_equal(got[fin], ml), (src.name, dt.name)


@pytest.mark.parametrize("src", (F16, BF16), ids=("float16", "bfloat16"))
@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_every_16_bit_pattern_to_each_8_bit_float(src, direction):
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for dt in FORMATS:
        check_encoding(bits, src, dt, direction)


@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_random_float32_patterns_to_each_8_bit_float(direction):
    rng = np.random.default_rng(11)
    n = 200_000
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    near = rng.random(n) < 0.6  # most near the formats' range: exponents -30..20
    exp = rng.integers(127 - 30, 127 + 20, n).astype(np.uint32)
    bits = np.where(near, (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23)), bits).astype(np.uint32)
    for dt in FORMATS:
        check_encoding(bits, F32, dt, direction)


@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_integers_to_and_from_8_bit_floats(direction):
    s16 = dtypes.get("int16")
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    x = bits.view(np.int16).astype(np.float64)
    for dt in FORMATS:
        got, status = cv.convert(bits, s16, dt, direction)
        want, want_status = reference_encode(x, dt, direction)
        assert np.array_equal(got, want) and np.array_equal(status, want_status), (dt.name, direction)
        # and back: every finite code to int32, rounded in the direction
        ref = _reference_values(dt)
        fin = np.isfinite(ref)
        out, st = cv.convert(CODES, dt, dtypes.get("int32"), direction)
        r = {cv.RNE: np.rint, cv.RTZ: np.trunc, cv.RTP: np.ceil, cv.RTM: np.floor,
             cv.RNA: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
             cv.RTO: lambda v: np.where((np.trunc(v) == v) | (np.abs(np.trunc(v)) % 2 == 1), np.trunc(v),
                                        np.trunc(v) + np.sign(v))}[direction](ref[fin])
        assert np.array_equal(out[fin].view(np.int32).astype(np.float64), r), (dt.name, direction)
        assert np.array_equal(st[fin] == cv.EXACT_RESULT, r == ref[fin])


def _f32(*xs: float) -> np.ndarray:
    return np.array(xs, dtype=np.float32).view(np.uint32)


def _conv(xs, dt, direction):
    bits, status = cv.convert(_f32(*xs), F32, dt, direction)
    return [int(b) for b in bits], status.tolist()


def test_hand_worked_encodings():
    I, X, O = cv.EXACT_RESULT, cv.INEXACT, cv.OVERFLOW  # noqa: E741
    # E4M3: 448 the largest; 464 the tie with 480 (the NaN code's place, odd): to even 448; past it overflows,
    # to the NaN code with the sign (no infinity); toward zero the largest finite
    assert _conv([448, 464, 465, -500], E4M3, cv.RNE) == ([0x7E, 0x7E, 0x7F, 0xFF], [I, X, O, O])
    assert _conv([464, 1e9], E4M3, cv.RNA) == ([0x7F, 0x7F], [O, O])
    assert _conv([470, 1e9, -1e9], E4M3, cv.RTZ) == ([0x7E, 0x7E, 0xFE], [X, O, O])
    # 0.001 is between 0 and the smallest subnormal 2**-9 (0.00195...), above half of it: to nearest 2**-9
    assert _conv([0.001, -0.001, 0.0009], E4M3, cv.RNE) == ([0x01, 0x81, 0x00], [X, X, X])
    assert _conv([0.0009], E4M3, cv.RTP) == ([0x01], [X])
    # 1.0625 is halfway between 1 (0x38) and 1.125 (0x39): even 0x38, away 0x39, odd 0x39
    assert [_conv([1.0625], E4M3, d)[0][0] for d in (cv.RNE, cv.RNA, cv.RTO)] == [0x38, 0x39, 0x39]
    # E5M2: 57344 the largest; 61440 the tie with 65536: to even 65536 = +inf (IEEE 754)
    assert _conv([57344, 61440, 61439], E5M2, cv.RNE) == ([0x7B, 0x7C, 0x7B], [I, O, X])
    assert _conv([1e6], E5M2, cv.RTZ) == ([0x7B], [O])
    # HiFloat8: 0.5 = 0x18, 1.25 = 0x0A; 40960 the tie between 32768 (0x6E, even) and 49152 (the infinity's
    # place, odd): to even 32768, away +inf
    assert _conv([0.5, 1.25, -1.25], HIF8, cv.RNE) == ([0x18, 0x0A, 0x8A], [I, I, I])
    assert _conv([40960, 40961], HIF8, cv.RNE) == ([0x6E, 0x6F], [X, O])
    assert _conv([40960, -1e9], HIF8, cv.RNA) == ([0x6F, 0xEF], [O, O])
    assert _conv([1e9, -1e9], HIF8, cv.RTM) == ([0x6E, 0xEF], [O, O])
    # between denormals 2**-22 (0x01) and 2**-21 (0x02): the tie 1.5 * 2**-22 to even 0x02, away 0x02, odd 0x01
    t = 1.5 * 2.0 ** -22
    assert [_conv([t], HIF8, d)[0][0] for d in (cv.RNE, cv.RNA, cv.RTO, cv.RTZ)] == [0x02, 0x02, 0x01, 0x01]
    # no negative zero: -0.0 and a negative value rounding to zero give 0x00; any NaN 0x80; -inf 0xEF
    assert _conv([-0.0, -1e-30], HIF8, cv.RNE) == ([0x00, 0x00], [I, X])
    assert _conv([float("nan"), float("-inf")], HIF8, cv.RNE)[0] == [0x80, 0xEF]
    assert _conv([-0.0], E4M3, cv.RNE)[0] == [0x80]
    nan_bits, status = cv.convert(np.array([0xFFC00001, 0x7F800000], np.uint32), F32, E4M3, cv.RNE)
    assert nan_bits.tolist() == [0xFF, 0x7F] and status.tolist() == [cv.NAN_SOURCE, cv.INFINITE]
