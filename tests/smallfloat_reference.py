"""Independent references for the small floats (FP8 E4M3, FP8 E5M2, HiFloat8, FP4 E2M1, FP4 E1M2), shared by the
conversion tests: each code's value from outside ptofuzz, and rounding to a format by bracketing in that value list.

Values: ml_dtypes' ``float8_e4m3fn`` and ``float8_e5m2`` for the two OCP 8-bit formats; for HiFloat8 a decoder
written here from pto-spec's hardware conformance profile's words (``spec/hardware-conformance-profile.json``, the
HiF8 entry: a dot prefix; for D > 0 an exponent sign then D-1 magnitude bits below an implicit 1, the rest
mantissa; denormals ``2**(M-23)``; 0x80 NaN, 0x6F/0xEF infinities), on bit strings and exact fractions; for the
FP4 formats the profile's lane tables (E2M1X2, E1M2X2: each of the 16 lane codes with its value), restated as
numbers.

Encoding: a finite float64 value is placed between the two neighbouring values of the format's sorted positive
values (past the largest: the next grid point of the top binade, whose code parity decides a tie to even) and the
direction picks one. Past the range: the infinity (E5M2, HiFloat8), the NaN code (E4M3, which has no infinity)
or the largest finite value (the finite-only FP4 formats), as IEEE 754 gives the direction; the sign bit added
to every result but HiFloat8's zero (it has no -0).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import ml_dtypes
import numpy as np

RNE, RNA, RTM, RTP, RTZ, RTO = "RNE", "RNA", "RTM", "RTP", "RTZ", "RTO"
OK, INEXACT, OVERFLOW = 0, 1, 2  # the conversion core's EXACT_RESULT, INEXACT, OVERFLOW codes

_DOTS = (("0000", None, 3), ("0001", 0, 3), ("001", 1, 3), ("01", 2, 3), ("10", 3, 2), ("11", 4, 1))
_FP4 = {"float4_e2m1": [0, 0.5, 1, 1.5, 2, 3, 4, 6], "float4_e1m2": [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75]}
# the grid point past the largest finite value, whether its code would be odd, the code IEEE 754's infinity
# stands on, the sign bit
_FORMAT = {"float8_e4m3": (480.0, True, 0x7F, 0x80), "float8_e5m2": (65536.0, False, 0x7C, 0x80),
           "hifloat8": (49152.0, True, 0x6F, 0x80), "float4_e2m1": (8.0, False, 0x7, 0x8),
           "float4_e1m2": (2.0, False, 0x7, 0x8)}


def hif8_value(code: int) -> Fraction | str:
    """A HiFloat8 code's value from the profile's words: 'nan', '+inf', '-inf' or an exact Fraction."""
    special = {0x80: "nan", 0x6F: "+inf", 0xEF: "-inf"}
    if code in special:
        return special[code]
    text = format(code, "08b")
    sign, rest = (-1 if text[0] == "1" else 1), text[1:]
    prefix, d, mbits = next(p for p in _DOTS if rest.startswith(p[0]))
    rest = rest[len(prefix):]
    if d is None:  # denormal: the 3 remaining bits M give 2**(M-23); M = 0 is the zero
        m = int(rest, 2)
        return Fraction(0) if m == 0 else sign * Fraction(2) ** (m - 23)
    if d == 0:
        e = 0
    else:
        se, magnitude = rest[0], rest[1:d]
        e = int("1" + magnitude, 2) * (-1 if se == "1" else 1)
        rest = rest[d:]
    assert len(rest) == mbits
    return sign * Fraction(2) ** e * (1 + Fraction(int(rest, 2), 2 ** mbits))


@functools.cache
def values(name: str) -> np.ndarray:
    """Each code's value (float64; NaN for the NaN codes), indexed by the code."""
    if name in _FP4:
        pos = np.array(_FP4[name], dtype=np.float64)
        out = np.concatenate([pos, -pos])
    elif name == "hifloat8":
        refs = [hif8_value(c) for c in range(256)]
        out = np.array([{"nan": np.nan, "+inf": np.inf, "-inf": -np.inf}[r] if isinstance(r, str) else float(r)
                        for r in refs])
    else:
        kind = ml_dtypes.float8_e4m3fn if name == "float8_e4m3" else ml_dtypes.float8_e5m2
        out = np.arange(256, dtype=np.uint8).view(kind).astype(np.float64)
    out.setflags(write=False)
    return out


def encode(x: np.ndarray, name: str, direction: str) -> tuple[np.ndarray, np.ndarray]:
    """Finite float64 ``x`` to the format ``name`` in ``direction``: (codes, status) by bracketing."""
    ref = values(name)
    codes_all = np.arange(len(ref))
    pos = np.flatnonzero(np.isfinite(ref) & ((ref > 0) | (codes_all == 0)))
    order = pos[np.argsort(ref[pos])]
    vals, codes = ref[order], order
    beyond, beyond_odd, inf, sign_bit = _FORMAT[name]
    a = np.abs(x)
    neg = np.signbit(x)
    j = np.searchsorted(vals, a, side="right") - 1
    lo, lo_code = vals[j], codes[j]
    last = j == len(vals) - 1
    hi = np.where(last, beyond, vals[np.minimum(j + 1, len(vals) - 1)])
    hi_code = np.where(last, -1, codes[np.minimum(j + 1, len(vals) - 1)])
    hi_parity = np.where(last, int(beyond_odd), hi_code & 1)
    exact = a == lo
    dl, dh = a - lo, hi - a
    pick_hi = {RNE: (dh < dl) | ((dh == dl) & (hi_parity == 0)), RNA: dh <= dl, RTZ: np.zeros_like(exact),
               RTP: ~neg, RTM: neg, RTO: (lo_code & 1) == 0}[direction] & ~exact
    over = (a >= beyond) | (last & pick_hi)
    code = np.where(pick_hi, hi_code, lo_code)
    signed = np.where(neg & ((code != 0) | (name != "hifloat8")), code | sign_bit, code)
    to_inf = {RNE: np.ones_like(neg), RNA: np.ones_like(neg), RTZ: np.zeros_like(neg), RTO: np.zeros_like(neg),
              RTP: ~neg, RTM: neg}[direction]
    overflowed = np.where(neg, sign_bit, 0) | np.where(to_inf, inf, codes[-1])
    status = np.where(over, OVERFLOW, np.where(exact, OK, INEXACT))
    return np.where(over, overflowed, signed).astype(np.uint8), status.astype(np.uint8)
