"""Conversions on raw bits: any supported element type to any other, in each rounding mode, exactly.

A source element is decoded to its exact value ``(-1)**neg * mag * 2**exp`` (``mag`` an unsigned 64-bit integer),
or to an infinity or a NaN; the value is then rounded **once** to the destination, in the selected direction, and
encoded. Nothing goes through a host float conversion: an sNaN is never quietened on the way, a value is never
rounded twice, and every result is the same on every machine. What the result of an element is when the
documents leave it open (a NaN's payload, an out-of-range value) is not decided here: every element comes back
with a :data:`STATUS` saying what happened, and the instruction's models class such elements.

Rounding directions (pto-spec ADR 0047's names; ``pto::RoundMode`` in pto-isa's ``include/pto/common/type.hpp``):
``RNE`` nearest, ties to even (CAST_RINT); ``RNA`` nearest, ties away from zero (CAST_ROUND); ``RTM`` toward
minus infinity (CAST_FLOOR); ``RTP`` toward plus infinity (CAST_CEIL); ``RTZ`` toward zero (CAST_TRUNC); ``RTO``
round to odd: an inexact result takes the neighbour whose last kept bit is 1 (CAST_ODD); and pto-spec's ``RHB``
nearest, a tie to the numerically greater neighbour (B.DATR RMode 7, no pto::RoundMode). ``CAST_NONE`` is no
direction of its own: each model says which one it means for a pair (:func:`default_direction`).

Floating destinations follow IEEE 754's rules for a finite result: gradual underflow (subnormal results, rounded
in the direction like any other), and on overflow the infinity or the largest finite value the direction selects
(RNE and RNA: infinity; RTZ and RTO: the largest finite; RTP and RTM: infinity on their side, the largest finite on
the other). Integer destinations take the rounded integer; one outside the destination's range is ``OVERFLOW``
and its bits are the rounded integer's low bits (which a model may use or class).

The small floats (:mod:`ptofuzz.core.minifloat`): FP8 E5M2 is an IEEE 754-style binary format and goes the way
of the others. FP8 E4M3, HiFloat8 and the 4-bit FP4 E2M1 and E1M2 are read from their code tables, and a value is
rounded to them by bracketing: it is first rounded to odd at 53 bits (a float64; that keeps its place among, and
its ties between, values of at most 51 significant bits, so the later step rounds once in effect), then placed
between the two neighbouring representable values, and the direction picks one. A tie to even takes the even
code (last bit 0: the fraction's last bit, and HiFloat8's denormals alternate the same way), round to odd the odd
code. Past the largest finite value the top binade's next grid point (E4M3 480, HiFloat8 49152, both odd codes;
E2M1 8, E1M2 2, even codes) is the neighbour: a value rounding to it, or at or past it, overflows (``OVERFLOW``):
HiFloat8 then gives its infinity or its largest finite value as IEEE 754 gives the direction; E4M3 has no
infinity, and where the direction would give one its bits are the NaN code with the value's sign (0x7F/0xFF,
OCP's non-saturating overflow; a model classes it). The FP4 formats have neither: an overflow gives the largest
finite value with the value's sign in every direction. An infinite source to E4M3: the same NaN code, to FP4 the
largest finite value (``INFINITE``). HiFloat8 has one zero (0x00) and no negative zero: a negative value that
rounds to zero gives 0x00, and any NaN source gives 0x80. A NaN source to FP4 gives +0 (``NAN_SOURCE``: the format
has no NaN; a model classes the element).
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core import minifloat
from ptofuzz.core.dtypes import DType
from ptofuzz.core.records import record

RNE, RNA, RTM, RTP, RTZ, RTO = "RNE", "RNA", "RTM", "RTP", "RTZ", "RTO"
DIRECTIONS = (RNE, RNA, RTM, RTP, RTZ, RTO)
#: pto-spec's seventh direction (ADR 0047, B.DATR RMode 7): nearest, an exact halfway case to the numerically
#: greater candidate (a positive tie away from zero, a negative one toward it); no pto::RoundMode names it
RHB = "RHB"
#: pto::RoundMode's ordinals (CAST_NONE 0 .. CAST_ODD 6) and names; CAST_NONE has no direction of its own
ROUND_MODES = ("CAST_NONE", "CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ODD")
MODE_DIRECTION = {"CAST_RINT": RNE, "CAST_ROUND": RNA, "CAST_FLOOR": RTM, "CAST_CEIL": RTP, "CAST_TRUNC": RTZ,
                  "CAST_ODD": RTO}

# what happened to an element (uint8 codes)
EXACT_RESULT, INEXACT, OVERFLOW, INFINITE, NAN_SOURCE = 0, 1, 2, 3, 4
STATUS = {EXACT_RESULT: "exact", INEXACT: "inexact", OVERFLOW: "overflow", INFINITE: "infinite",
          NAN_SOURCE: "nan"}

FINITE, INF, NAN = 0, 1, 2
_U64 = np.uint64


def default_direction(src: DType, dst: DType) -> str:
    """pto-spec's meaning of CAST_NONE (ADR 0047): toward zero from a float to an integer, else to nearest even."""
    return RTZ if src.is_float and not dst.is_float else RNE


@record
class Exact:
    """Decoded elements: ``(-1)**neg * mag * 2**exp`` where ``kind`` is FINITE, else an infinity or a NaN."""

    neg: np.ndarray  # bool
    mag: np.ndarray  # uint64
    exp: np.ndarray  # int64
    kind: np.ndarray  # uint8: FINITE, INF, NAN


def decode(bits: np.ndarray, dt: DType) -> Exact:
    """The exact value of each element of ``bits`` (raw bits of ``dt``)."""
    if dt.is_table:
        f = minifloat.table(dt.name)
        return Exact(*(minifloat.lookup(bits, col) for col in (f.neg, f.mag, f.exp, f.kind)))
    raw = np.asarray(bits).astype(np.uint64)
    if dt.bits < 8:  # a 4-bit element: its low nibble
        raw &= _U64((1 << dt.bits) - 1)
    if not dt.is_float:
        if dt.kind == "int" and dt.bits < 64:
            signed = raw.astype(np.int64)
            signed = np.where(raw >> _U64(dt.bits - 1) == 1, signed - (1 << dt.bits), signed)
            neg = signed < 0
            mag = np.where(neg, (-(signed + 1)).astype(np.uint64) + _U64(1), signed.astype(np.uint64))
        elif dt.kind == "int":  # int64: two's complement on 64 bits
            neg = raw >> _U64(63) == 1
            mag = np.where(neg, ~raw + _U64(1), raw)
        else:
            neg = np.zeros(raw.shape, dtype=bool)
            mag = raw
        zeros = np.zeros(raw.shape, dtype=np.int64)
        return Exact(neg, mag.astype(np.uint64), zeros, np.zeros(raw.shape, dtype=np.uint8))
    man, bias = dt.man_bits, (1 << (dt.exp_bits - 1)) - 1
    top = (1 << dt.exp_bits) - 1
    neg = raw >> _U64(dt.bits - 1) == 1
    field = ((raw >> _U64(man)) & _U64(top)).astype(np.int64)
    frac = raw & _U64(dt.man_mask)
    normal = (field > 0) & (field < top)
    mag = np.where(normal, frac | _U64(1 << man), frac)
    exp = np.where(normal, field - bias - man, 1 - bias - man).astype(np.int64)
    kind = np.where(field < top, FINITE, np.where(frac == 0, INF, NAN)).astype(np.uint8)
    return Exact(neg, mag, exp, kind)


def bit_length(mag: np.ndarray) -> np.ndarray:
    """The number of significant bits of each uint64 (0 for 0), exactly."""
    mag = np.asarray(mag, dtype=np.uint64)
    _, e = np.frexp(mag.astype(np.float64))  # may be one too high where the float64 rounded up to 2**k
    e = np.minimum(e.astype(np.int64), 64)
    over = (e > 0) & ((mag >> np.clip(e - 1, 0, 63).astype(np.uint64)) == 0)
    out: np.ndarray = np.where(over, e - 1, e)
    return out


def shift_round(mag: np.ndarray, shift: np.ndarray, neg: np.ndarray, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """``mag / 2**shift`` rounded to an integer in ``direction`` (the sign ``neg`` decides RTP and RTM), and
    whether it was inexact; ``shift`` >= 0, any size."""
    mag = np.asarray(mag, dtype=np.uint64)
    s = np.asarray(shift, dtype=np.int64)
    inside = s <= 63
    sc = np.clip(s, 0, 63).astype(np.uint64)
    q0 = np.where(inside, mag >> sc, _U64(0))
    rem = np.where(inside, mag & ((_U64(1) << sc) - _U64(1)), mag)  # s >= 64: every bit is dropped
    inexact = rem != 0
    half = np.where((s >= 1) & inside, _U64(1) << np.clip(s - 1, 0, 62).astype(np.uint64), _U64(0))
    above = np.where(s == 64, mag > (_U64(1) << _U64(63)), np.where(inside, rem > half, False)) & (s >= 1)
    tie = np.where(s == 64, mag == (_U64(1) << _U64(63)), np.where(inside, (rem == half) & inexact, False))
    if direction == RNE:
        up = above | (tie & ((q0 & _U64(1)) == 1))
    elif direction == RNA:
        up = above | tie
    elif direction == RHB:
        up = above | (tie & ~neg)
    elif direction == RTZ:
        up = np.zeros(mag.shape, dtype=bool)
    elif direction == RTP:
        up = inexact & ~neg
    elif direction == RTM:
        up = inexact & neg
    elif direction == RTO:
        return q0 | inexact.astype(np.uint64), inexact
    else:
        raise ValueError(f"unknown rounding direction {direction!r}")
    return q0 + up.astype(np.uint64), inexact


def to_integer(x: Exact, dst: DType, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Each finite value rounded to an integer in ``direction``: the low ``dst.bits`` bits of that integer (two's
    complement) and a status: EXACT_RESULT or INEXACT where it fits ``dst``, OVERFLOW where it does not (also when
    it does not fit 64 bits), INFINITE and NAN_SOURCE for the non-finite (bits 0)."""
    exp = x.exp
    left = np.clip(exp, 0, 64).astype(np.uint64)
    huge = (exp >= 64) | ((exp > 0) & (x.mag != 0) & (bit_length(x.mag) + np.maximum(exp, 0) > 64))
    lifted = np.where(huge | (exp <= 0), x.mag, x.mag << np.minimum(left, _U64(63)))
    rounded, inexact = shift_round(x.mag, np.maximum(-exp, 0), x.neg, direction)
    q = np.where(exp > 0, lifted, rounded)
    inexact = inexact & (exp < 0)
    if dst.kind == "int":
        limit_pos, limit_neg = _U64((1 << (dst.bits - 1)) - 1), _U64(1 << (dst.bits - 1))
        fits = np.where(x.neg, q <= limit_neg, q <= limit_pos)
    else:
        fits = np.where(x.neg, q == 0, q <= _U64((1 << dst.bits) - 1) if dst.bits < 64 else True)
    fits &= ~huge
    twos = np.where(x.neg, ~q + _U64(1), q)
    width = _U64((1 << dst.bits) - 1) if dst.bits < 64 else _U64(0xFFFFFFFFFFFFFFFF)
    out = (twos & width).astype(dst.bits_dtype)
    status = np.where(fits, np.where(inexact, INEXACT, EXACT_RESULT), OVERFLOW).astype(np.uint8)
    status = np.where(x.kind == INF, INFINITE, np.where(x.kind == NAN, NAN_SOURCE, status)).astype(np.uint8)
    out = np.where(x.kind == FINITE, out, np.zeros((), dtype=out.dtype)).astype(dst.bits_dtype)
    return out, status


def largest_finite(dt: DType) -> int:
    if dt.is_table:
        return minifloat.table(dt.name).largest
    return (((1 << dt.exp_bits) - 2) << dt.man_bits) | dt.man_mask


def to_float(x: Exact, dst: DType, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Each value rounded once to ``dst`` (an IEEE-style binary format) in ``direction``: its bits and a status
    (EXACT_RESULT, INEXACT, OVERFLOW: the value rounded with an unbounded exponent is past the largest finite
    one, and the result is the infinity or the largest finite value IEEE 754 gives the direction; INFINITE;
    NAN_SOURCE: ``dst``'s canonical quiet NaN with the source's sign, for a model to class)."""
    if dst.is_table:
        return _to_table(x, dst, direction)
    p, bias = dst.man_bits, (1 << (dst.exp_bits - 1)) - 1
    emin = 1 - bias
    top = (1 << dst.exp_bits) - 1
    zero = x.mag == 0
    big_e = bit_length(x.mag) - 1 + x.exp  # value in [2**E, 2**(E+1))
    q_exp = np.maximum(big_e, emin) - p  # the exponent of the last kept bit
    shift = q_exp - x.exp
    rounded, inexact = shift_round(x.mag, np.maximum(shift, 0), x.neg, direction)
    m = np.where(shift > 0, rounded, x.mag << np.clip(-shift, 0, 63).astype(np.uint64))
    inexact = inexact & (shift > 0)
    carry = m >> _U64(p + 1) != 0  # rounded up to 2**(p+1): one more exponent, still exact
    m = np.where(carry, m >> _U64(1), m)
    q_exp = q_exp + carry
    field = np.where(m >> _U64(p) != 0, q_exp + p + bias, 0)
    over = (field >= top) & ~zero
    frac = m & _U64(dst.man_mask)
    sign = np.where(x.neg, _U64(dst.sign_mask), _U64(0))
    finite = sign | (np.clip(field, 0, top).astype(np.uint64) << _U64(p)) | frac
    finite = np.where(zero, sign, finite)
    inf = _U64(dst.exp_mask)
    to_inf = {RNE: True, RNA: True, RHB: True, RTZ: False, RTO: False}.get(direction)
    if to_inf is None:  # RTP: +inf above, -max below; RTM the other way
        to_inf_arr = ~x.neg if direction == RTP else x.neg
    else:
        to_inf_arr = np.full(x.neg.shape, to_inf)
    overflowed = sign | np.where(to_inf_arr, inf, _U64(largest_finite(dst)))
    out = np.where(over, overflowed, finite)
    # non-finite sources: an infinity stays one; a NaN becomes the canonical quiet NaN with its sign (flagged)
    status = np.where(over, OVERFLOW, np.where(inexact, INEXACT, EXACT_RESULT)).astype(np.uint8)
    out = np.where(x.kind == INF, sign | inf, out)
    status = np.where(x.kind == INF, INFINITE, status).astype(np.uint8)
    status = np.where(x.kind == NAN, NAN_SOURCE, status).astype(np.uint8)
    out = np.where(x.kind == NAN, sign | _U64(dst.canonical_nan), out)
    return out.astype(dst.bits_dtype), status


def _to_table(x: Exact, dst: DType, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`to_float` for FP8 E4M3 and HiFloat8 (the module docstring says how)."""
    f = minifloat.table(dst.name)
    # round to odd at 53 bits: exact in float64, inexact only where x is, and never on a tie of the formats
    shift = np.maximum(bit_length(x.mag) - 53, 0)
    m53, sticky = shift_round(x.mag, shift, x.neg, RTO)
    with np.errstate(over="ignore"):
        y = np.ldexp(m53.astype(np.float64), np.clip(x.exp + shift, -2000, 2000).astype(np.int64))
    y = np.where(x.kind == FINITE, y, 0.0)
    ups, codes = f.up_values, f.up_codes
    top = len(ups) - 1
    i = np.clip(np.searchsorted(ups, y, side="right") - 1, 0, top)
    lo = ups[i]
    hi = np.where(i < top, ups[np.minimum(i + 1, top)], f.beyond)
    lo_code = codes[i]
    inexact = (y != lo) | sticky
    mid = (lo + hi) / 2  # exact: two values of a few bits
    if direction == RNE:
        up = (y > mid) | ((y == mid) & ((lo_code & 1) == 1))
    elif direction == RNA:
        up = y >= mid
    elif direction == RHB:
        up = (y > mid) | ((y == mid) & ~x.neg)
    elif direction == RTZ:
        up = np.zeros(y.shape, dtype=bool)
    elif direction == RTP:
        up = ~x.neg
    elif direction == RTM:
        up = x.neg.copy()
    elif direction == RTO:
        up = (lo_code & 1) == 0
    else:
        raise ValueError(f"unknown rounding direction {direction!r}")
    up = up & inexact
    over = (y >= f.beyond) | ((i == top) & up)
    code = np.where(up, codes[np.minimum(i + 1, top)], lo_code).astype(np.uint64)
    zero = code == 0
    sign = np.where(x.neg & ~(zero & (dst.name == "hifloat8")), _U64(f.sign), _U64(0))  # HiFloat8: no -0
    out = sign | code
    to_inf = {RNE: True, RNA: True, RHB: True, RTZ: False, RTO: False}.get(direction)
    to_inf_arr = (~x.neg if direction == RTP else x.neg) if to_inf is None else np.full(x.neg.shape, to_inf)
    # the code where IEEE 754 would give an infinity: E4M3 its NaN, the finite-only FP4 their largest value
    inf = _U64(f.inf if f.inf is not None else f.canonical_nan if f.canonical_nan is not None else f.largest)
    sign_over = np.where(x.neg, _U64(f.sign), _U64(0))
    out = np.where(over, sign_over | np.where(to_inf_arr, inf, _U64(f.largest)), out)
    status = np.where(over, OVERFLOW, np.where(inexact, INEXACT, EXACT_RESULT)).astype(np.uint8)
    out = np.where(x.kind == INF, sign_over | inf, out)
    status = np.where(x.kind == INF, INFINITE, status).astype(np.uint8)
    if f.canonical_nan is None:  # FP4: no NaN code
        nan_bits: np.ndarray | np.uint64 = _U64(0)
    elif dst.name == "hifloat8":  # one NaN code, no sign
        nan_bits = _U64(f.canonical_nan)
    else:
        nan_bits = sign_over | _U64(f.canonical_nan)
    out = np.where(x.kind == NAN, nan_bits, out)
    status = np.where(x.kind == NAN, NAN_SOURCE, status).astype(np.uint8)
    return out.astype(dst.bits_dtype), status


def convert(bits: np.ndarray, src: DType, dst: DType, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """``bits`` of ``src`` converted to ``dst`` in ``direction``: (destination bits, status per element). A NaN
    becomes ``dst``'s canonical quiet NaN with the source's sign (its status NAN_SOURCE says a model must class
    it)."""
    x = decode(bits, src)
    return to_float(x, dst, direction) if dst.is_float else to_integer(x, dst, direction)
