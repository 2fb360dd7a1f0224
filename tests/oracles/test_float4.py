"""The 4-bit types (FP4 E2M1, FP4 E1M2, int4): every code decoded against independent references, conversions to
them in every direction against an independent bracketing reference, and the two-to-a-byte packing.

References (``tests/smallfloat_reference.py``): the lane tables of pto-spec's hardware conformance profile (the
E2M1X2 and E1M2X2 entries list each of the 16 lane codes with its value), restated as numbers, and bracketing in
them (past the largest: the next grid point, 8 for E2M1 and 2 for E1M2, whose code would be even); ml_dtypes'
``float4_e2m1fn`` and ``int4`` as a second reader; integers round with numpy's own rint, floor, ceil and trunc.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import smallfloat_reference as sfr

from ptofuzz.core import dtypes, nibbles
from ptofuzz.generators import values
from ptofuzz.generators.stream import Stream
from ptofuzz.oracles import convert as cv
from ptofuzz.oracles import ieee

E2M1, E1M2, S4 = dtypes.get("fp4_e2m1x2"), dtypes.get("e1m2"), dtypes.get("int4b_t")
F32, F16, BF16 = dtypes.get("float32"), dtypes.get("float16"), dtypes.get("bfloat16")
CODES = np.arange(16, dtype=np.uint8)


def _reference(dt) -> np.ndarray:
    return sfr.values(dt.name)


def test_names_codes_and_carriers():
    assert [dtypes.get(s).name for s in ("e2m1", "fp4_e2m1", "float4_e2m1x2_t")] == ["float4_e2m1"] * 3
    assert [dtypes.get(s).name for s in ("e1m2x2", "fp4_e1m2", "float4_e1m2x2_t")] == ["float4_e1m2"] * 3
    assert [dtypes.get(s).name for s in ("s4", "int4", "int4b_t")] == ["int4"] * 3
    assert [(d.spec_name, d.spec_code) for d in (E2M1, E1M2, S4)] == [("E2M1X2", 11), ("E1M2X2", 12), ("S4X2", 20)]
    assert [(d.bits, d.itemsize, d.bits_dtype, d.sign_mask, d.bit_mask) for d in (E2M1, S4)] == [
        (4, 1, "<u1", 0x8, 0xF)] * 2
    assert E2M1.is_table and E2M1.is_float and not S4.is_float and (S4.int_min, S4.int_max) == (-8, 7)
    assert (E2M1.one, E1M2.one) == (0x2, 0x4)
    with pytest.raises(TypeError, match="no NaN"):
        _ = E2M1.canonical_nan


@pytest.mark.parametrize("dt", (E2M1, E1M2), ids=("e2m1", "e1m2"))
def test_every_code_decodes_to_the_profile(dt):
    x = ieee.to_float64(CODES, dt)
    assert np.array_equal(x, _reference(dt)) and np.array_equal(np.signbit(x), CODES >= 8)
    assert not ieee.is_nan(CODES, dt).any() and not ieee.is_inf(CODES, dt).any()
    assert not ieee.is_subnormal(CODES, dt).any()  # the profile declares none: 0.5 (E2M1) is an ordinary value
    assert ieee.is_zero(CODES, dt).tolist() == [c in (0, 8) for c in range(16)]
    # the same codes with garbage in the high nibble read as their low nibble
    assert np.array_equal(ieee.to_float64(CODES | np.uint8(0xA0), dt), x)
    if dt is E2M1:
        assert np.array_equal(CODES.view(ml_dtypes.float4_e2m1fn).astype(np.float64), x)
    key = ieee.order_key(CODES, dt).astype(np.int64)
    order = np.argsort(key[np.argsort(x, kind="stable")], kind="stable")
    assert np.array_equal(np.sort(key), key[np.argsort(x, kind="stable")][order])  # the key follows the value
    assert key[8] < key[0]  # -0 below +0


def test_int4_decodes_two_complement_nibbles():
    got, status = cv.convert(CODES, S4, dtypes.get("int32"), cv.RNE)
    assert got.view(np.int32).tolist() == [*range(8), *range(-8, 0)] and not status.any()
    assert np.array_equal(got.view(np.int32), CODES.view(ml_dtypes.int4).astype(np.int32))
    assert dtypes.format_bits(0x8, S4) == "0x08 (-8)" and dtypes.format_bits(0xF, E2M1) == "0x0f (-6.0)"
    assert dtypes.format_bits(0x8, E1M2) == "0x08 (-0.0)"


# ---- encoding -------------------------------------------------------------------------------------------------

def reference_encode(x: np.ndarray, dt, direction: str) -> tuple[np.ndarray, np.ndarray]:
    return sfr.encode(x, dt.name, direction)


def check_encoding(bits: np.ndarray, src, dt, direction: str) -> None:
    got, status = cv.convert(bits, src, dt, direction)
    assert (got < 16).all()
    x = ieee.to_float64(bits, src)
    nan, inf = np.isnan(x), np.isinf(x)
    fin = ~nan & ~inf
    assert (status[nan] == cv.NAN_SOURCE).all() and (got[nan] == 0).all()  # no NaN code: +0, classed by a model
    assert (status[inf] == cv.INFINITE).all() and np.array_equal(got[inf], np.where(x[inf] < 0, 0xF, 0x7))
    want, want_status = reference_encode(x[fin], dt, direction)
    bad = np.flatnonzero((got[fin] != want) | (status[fin] != want_status))
    assert not len(bad), (src.name, dt.name, direction, [hex(int(v)) for v in bits[fin][bad[:5]]],
                          [hex(int(v)) for v in got[fin][bad[:5]]], [hex(int(v)) for v in want[bad[:5]]])
    if direction == cv.RNE and dt is E2M1:  # ml_dtypes' own cast where nothing overflows
        ok = fin.copy()
        ok[fin] = want_status != cv.OVERFLOW
        ml = x[ok].astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
        assert np.array_equal(got[ok], ml)


@pytest.mark.parametrize("src", (F16, BF16), ids=("float16", "bfloat16"))
@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_every_16_bit_pattern_to_each_4_bit_float(src, direction):
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    for dt in (E2M1, E1M2):
        check_encoding(bits, src, dt, direction)


@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_random_float32_patterns_to_each_4_bit_float(direction):
    rng = np.random.default_rng(13)
    n = 100_000
    bits = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    near = rng.random(n) < 0.8  # most near the formats' range: exponents -6..4
    exp = rng.integers(127 - 6, 127 + 4, n).astype(np.uint32)
    bits = np.where(near, (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23)), bits).astype(np.uint32)
    for dt in (E2M1, E1M2):
        check_encoding(bits, F32, dt, direction)


_ROUND = {cv.RNE: np.rint, cv.RTZ: np.trunc, cv.RTP: np.ceil, cv.RTM: np.floor,
          cv.RNA: lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
          cv.RTO: lambda v: np.where((np.trunc(v) == v) | (np.abs(np.trunc(v)) % 2 == 1), np.trunc(v),
                                     np.trunc(v) + np.sign(v))}


@pytest.mark.parametrize("direction", cv.DIRECTIONS)
def test_every_float16_pattern_to_int4(direction):
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    got, status = cv.convert(bits, F16, S4, direction)
    x = ieee.to_float64(bits, F16)
    fin = np.isfinite(x)
    r = _ROUND[direction](x[fin])
    fits = (r >= -8) & (r <= 7)
    assert np.array_equal(status[fin], np.where(fits, np.where(r == x[fin], cv.EXACT_RESULT, cv.INEXACT),
                                                cv.OVERFLOW))
    small = fin.copy()
    small[fin] = np.abs(r) < 2 ** 40
    want = (_ROUND[direction](x[small]).astype(np.int64) & 0xF).astype(np.uint8)  # the low nibble, any range
    assert np.array_equal(got[small], want) and (got < 16).all()
    # and every int4 to each 4-bit float: exact where the value is on the grid, else rounded
    for dt in (E2M1, E1M2):
        out, st = cv.convert(CODES, S4, dt, direction)
        want_codes, want_status = reference_encode(CODES.view(ml_dtypes.int4).astype(np.float64), dt, direction)
        assert np.array_equal(out, want_codes) and np.array_equal(st, want_status)


def _conv(xs, dt, direction):
    bits, status = cv.convert(np.array(xs, dtype=np.float32).view(np.uint32), F32, dt, direction)
    return [int(b) for b in bits], status.tolist()


def test_hand_worked_encodings():
    I, X, O = cv.EXACT_RESULT, cv.INEXACT, cv.OVERFLOW  # noqa: E741
    # E2M1 (0, 0.5, 1, 1.5, 2, 3, 4, 6): each halfway point to the even code; 5 between 4 (0x6) and 6 (0x7)
    assert _conv([0.25, 0.75, 1.25, 2.5, 3.5, 5], E2M1, cv.RNE) == ([0x0, 0x2, 0x2, 0x4, 0x6, 0x6], [X] * 6)
    assert _conv([0.25, 5, -5], E2M1, cv.RNA) == ([0x1, 0x7, 0xF], [X] * 3)
    # 7 is halfway between 6 (0x7, odd) and 8 (past the range, even): to nearest even overflows, to the largest
    assert _conv([6, 7, 6.9, -100], E2M1, cv.RNE) == ([0x7, 0x7, 0x7, 0xF], [I, O, X, O])
    assert _conv([7.9, 8, 1e30], E2M1, cv.RTZ) == ([0x7, 0x7, 0x7], [X, O, O])
    assert _conv([5.5, -5.5], E2M1, cv.RTO) == ([0x7, 0xF], [X, X])  # 4 (0x6) and 6 (0x7): the odd one
    assert _conv([-0.0, -0.2], E2M1, cv.RNE) == ([0x8, 0x8], [I, X])
    # E1M2 (steps of 0.25 up to 1.75): 1.875 halfway to 2 (past the range) overflows to nearest
    assert _conv([0.125, 0.375, 1.875, 1.8], E1M2, cv.RNE) == ([0x0, 0x2, 0x7, 0x7], [X, X, O, X])
    assert _conv([3.5, -4], E1M2, cv.RTM) == ([0x7, 0xF], [O, O])
    # non-finite sources: no infinity or NaN code
    nan_bits, status = cv.convert(np.array([0x7FC00001, 0xFF800000, 0x7F800000], np.uint32), F32, E2M1, cv.RNE)
    assert nan_bits.tolist() == [0x0, 0xF, 0x7] and status.tolist() == [cv.NAN_SOURCE, cv.INFINITE, cv.INFINITE]
    # int4: 7.5 rounds to 8 (past the range: its low nibble, flagged); -8.4 to -8
    got, status = cv.convert(np.array([7.5, -8.4, 9, -0.5], np.float32).view(np.uint32), F32, S4, cv.RNE)
    assert got.tolist() == [0x8, 0x8, 0x9, 0x0] and status.tolist() == [O, X, O, X]


# ---- packing and drawing ----------------------------------------------------------------------------------------

def test_pack_puts_the_even_element_in_the_low_nibble():
    assert nibbles.pack(np.array([[1, 2, 3], [0xF, 0x8, 0x7]], np.uint8)).tolist() == [[0x21, 0x03], [0x8F, 0x07]]
    assert nibbles.unpack(np.array([[0x21, 0x03]], np.uint8)).tolist() == [[1, 2, 3, 0]]
    assert nibbles.unpack(np.array([[0x21, 0x03]], np.uint8), 3).tolist() == [[1, 2, 3]]
    codes = np.random.default_rng(3).integers(0, 16, (5, 64), dtype=np.uint8)
    assert np.array_equal(nibbles.unpack(nibbles.pack(codes)), codes)
    assert nibbles.pack(codes | np.uint8(0xF0)).tolist() == nibbles.pack(codes).tolist()  # high nibbles ignored
    with pytest.raises(ValueError, match="do not fit"):
        nibbles.unpack(np.zeros((1, 2), np.uint8), 5)


@pytest.mark.parametrize("dt", (E2M1, E1M2, S4), ids=("e2m1", "e1m2", "int4"))
def test_drawn_codes_stay_in_the_nibble_and_reach_every_kind(dt):
    bits = values.draw(Stream(7), dt, (64, 64), values.ValueMix(0.3))
    assert bits.dtype == np.uint8 and (bits < 16).all()
    assert (np.bincount(bits.ravel(), minlength=16) > 0).all()  # every code, the zeros and extremes among them
    plain = values.plain(Stream(1), dt, 1000)
    assert (plain < 16).all()
    if dt.is_float:
        pv = np.abs(ieee.to_float64(plain, dt))
        assert ((pv >= 2.0 ** -5) & (pv < 8)).all()
    else:
        assert set(plain.tolist()) == set(range(16))  # [-8, 7]
