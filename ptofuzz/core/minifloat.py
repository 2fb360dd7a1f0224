"""The small floating formats, code by code: FP8 E4M3, FP8 E5M2, HiFloat8, and the 4-bit FP4 E2M1 and E1M2.

Each format has 256 codes (16 for the 4-bit ones), so every property of a code (its exact value, its class, its
place in the numeric order) is computed once into a table from the format's definition, and the helpers look codes
up. The definitions (pto-spec 0.58):

- E4M3 (OCP OFP8 "FN"): ``asl/arch/data-types/formats/e4m3.asl`` and the ``E4M3`` entry of
  ``spec/hardware-conformance-profile.json``: sign bit 7, exponent bits 6:3 (bias 7), fraction bits 2:0;
  exponent 0 is zero or a subnormal ``fraction * 2**-9``; otherwise ``(8 + fraction) * 2**(exponent - 10)``; the
  one NaN pattern S.1111.111 (canonical 0x7F); no infinities; both signs of zero; largest finite 448 (0x7E).
- E5M2 (OCP OFP8, IEEE 754-like): ``e5m2.asl``: sign bit 7, exponent bits 6:2 (bias 15), fraction bits 1:0;
  exponent 31 is an infinity (fraction 0) or a NaN (fraction bit 1 set: quiet; canonical 0x7E); largest finite
  57344 (0x7B).
- HiFloat8: ``hif8.asl`` and the ``HiF8`` entry of the profile: sign bit 7, then a dot field in bits 6:3 that
  says how many exponent bits follow (``0000`` denormal, ``0001`` D0, ``001`` D1, ``01`` D2, ``10`` D3, ``11``
  D4); for D > 0 the exponent is a sign bit and D-1 magnitude bits below an implicit leading 1; the rest is the
  fraction (3 bits up to D2, 2 for D3, 1 for D4). Denormals ``2**(m - 23)`` for m = 1..7; 0x00 the one zero;
  0x80 the NaN; 0x6F and 0xEF the infinities; largest finite 32768 (0x6E).
- FP4 E2M1 (one lane of ``E2M1X2``, ``e2m1x2.asl``): sign bit 3, exponent bits 2:1, fraction bit 0; exponent 0
  is zero or ``0.5``, otherwise ``(2 + fraction) * 2**(exponent - 2)``: 0, 0.5, 1, 1.5, 2, 3, 4, 6. Finite only
  (no infinity, no NaN); both signs of zero. pto-spec declares no subnormals for it: 0.5 is an ordinary value.
- FP4 E1M2 (one lane of ``E1M2X2``, ``e1m2x2.asl``): sign bit 3, exponent bit 2, fraction bits 1:0; exponent 0
  gives ``fraction / 4``, exponent 1 ``(4 + fraction) / 4``: 0, 0.25, ..., 1.75 in steps of 0.25. Finite only.

Rounding to these formats brackets an exact value between two neighbouring representable values (see
``oracles/convert.py``). Above the largest finite value the next point of the top binade's grid stands for
"past the range" (:attr:`Format.beyond`: 480 for E4M3, the value its NaN code would have; 49152 for HiFloat8, its
infinity code's; 8 for E2M1 and 2 for E1M2): a value that rounds to it overflows, as IEEE 754's unbounded-exponent
rule says for binary formats.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

FINITE, INF, NAN = 0, 1, 2
NAMES = ("float8_e4m3", "float8_e5m2", "hifloat8", "float4_e2m1", "float4_e1m2")
#: the formats not laid out as IEEE 754 binary formats (their DType kind is ``table``)
TABLE_FORMATS = ("float8_e4m3", "hifloat8", "float4_e2m1", "float4_e1m2")


class Format(NamedTuple):
    """One format's tables (each indexed by the code: 256 entries, 16 for the 4-bit formats) and constants (a
    NamedTuple: see :class:`ptofuzz.core.case.Tile`)."""

    name: str
    bits: int  # 8 or 4
    sign: int  # the sign bit's mask (0x80 or 0x8)
    neg: np.ndarray  # bool: the sign of the exact value (False for the NaNs' and the zero's own sign-less codes)
    mag: np.ndarray  # uint64: |value| = mag * 2**exp for finite codes
    exp: np.ndarray  # int64
    kind: np.ndarray  # uint8: FINITE, INF, NAN
    value: np.ndarray  # float64, exact (NaN for the NaN codes)
    subnormal: np.ndarray  # bool
    rank: np.ndarray  # int64: numeric order; +0 and -0 share 0; NaNs -1 (and never compared)
    canonical_nan: int | None  # None: no NaN (the finite-only FP4 formats)
    largest: int  # the largest finite positive code
    inf: int | None  # the positive infinity's code (None: no infinity)
    one: int  # the code of 1.0
    min_normal: float
    beyond: float  # the grid point past the largest finite value (see the module docstring)
    beyond_code_odd: bool  # its parity as a code (for ties and round-to-odd)
    up_values: np.ndarray  # float64, ascending: 0 then every positive finite value
    up_codes: np.ndarray  # uint8: their codes


def _e4m3(code: int) -> tuple[int, int, int, int, bool]:
    """(kind, sign, mag, exp, subnormal) of an E4M3 code."""
    sign, field, frac = code >> 7, (code >> 3) & 0xF, code & 7
    if field == 0xF and frac == 7:
        return NAN, 0, 0, 0, False
    if field == 0:
        return FINITE, sign, frac, -9, frac != 0
    return FINITE, sign, 8 + frac, field - 10, False


def _e5m2(code: int) -> tuple[int, int, int, int, bool]:
    sign, field, frac = code >> 7, (code >> 2) & 0x1F, code & 3
    if field == 0x1F:
        return (INF, sign, 0, 0, False) if frac == 0 else (NAN, 0, 0, 0, False)
    if field == 0:
        return FINITE, sign, frac, -16, frac != 0
    return FINITE, sign, 4 + frac, field - 17, False


def _hif8(code: int) -> tuple[int, int, int, int, bool]:
    if code == 0x80:
        return NAN, 0, 0, 0, False
    sign, low = code >> 7, code & 0x7F
    if low == 0x6F:
        return INF, sign, 0, 0, False
    dot = low >> 3
    if dot == 0:  # denormal (or the zero)
        return (FINITE, 0, 0, 0, False) if low == 0 else (FINITE, sign, 1, (low & 7) - 23, True)
    if dot == 1:  # D0: exponent 0, 3 fraction bits
        return FINITE, sign, 8 + (low & 7), -3, False
    if dot >> 1 == 1:  # D1: Se, 3 fraction bits; magnitude 1
        e = -1 if low & 8 else 1
        return FINITE, sign, 8 + (low & 7), e - 3, False
    if dot >> 2 == 1:  # D2: Se (bit 4), one magnitude bit (bit 3), 3 fraction bits
        e = 2 + ((low >> 3) & 1)
        return FINITE, sign, 8 + (low & 7), (-e if low & 0x10 else e) - 3, False
    if dot >> 2 == 2:  # D3: Se, two magnitude bits (3:2), 2 fraction bits
        e = 4 + ((low >> 2) & 3)
        return FINITE, sign, 4 + (low & 3), (-e if low & 0x10 else e) - 2, False
    e = 8 + ((low >> 1) & 7)  # D4: Se, three magnitude bits (3:1), 1 fraction bit
    return FINITE, sign, 2 + (low & 1), (-e if low & 0x10 else e) - 1, False


def _e2m1(code: int) -> tuple[int, int, int, int, bool]:
    sign, field, frac = code >> 3, (code >> 1) & 3, code & 1
    if field == 0:
        return FINITE, sign, frac, -1, False
    return FINITE, sign, 2 + frac, field - 2, False


def _e1m2(code: int) -> tuple[int, int, int, int, bool]:
    sign, field, frac = code >> 3, (code >> 2) & 1, code & 3
    return FINITE, sign, 4 * field + frac, -2, False


_DECODERS = {"float8_e4m3": _e4m3, "float8_e5m2": _e5m2, "hifloat8": _hif8, "float4_e2m1": _e2m1,
             "float4_e1m2": _e1m2}
_CONSTANTS: dict[str, tuple[int | None, float, bool]] = {
    # canonical NaN, the grid point past the largest finite value, its code's parity
    "float8_e4m3": (0x7F, 480.0, True), "float8_e5m2": (0x7E, 65536.0, False), "hifloat8": (0x80, 49152.0, True),
    "float4_e2m1": (None, 8.0, False), "float4_e1m2": (None, 2.0, False)}


@functools.cache
def table(name: str) -> Format:
    """The tables of the format ``name`` (one of :data:`NAMES`)."""
    bits = 4 if name.startswith("float4") else 8
    rows = [_DECODERS[name](code) for code in range(1 << bits)]
    kind = np.array([r[0] for r in rows], dtype=np.uint8)
    neg = np.array([r[1] == 1 for r in rows])
    mag = np.array([r[2] for r in rows], dtype=np.uint64)
    exp = np.array([r[3] for r in rows], dtype=np.int64)
    sub = np.array([r[4] for r in rows])
    value = np.array([float("nan") if k == NAN else (-1.0 if s else 1.0) * (float("inf") if k == INF else
                      m * 2.0 ** e) for k, s, m, e, _ in rows])
    finite_pos = np.flatnonzero((kind == FINITE) & ~neg)
    order = finite_pos[np.argsort(value[finite_pos], kind="stable")]
    up_values, up_codes = value[order], order.astype(np.uint8)
    assert len(np.unique(up_values)) == len(up_values), name  # every positive value has one code
    pos_rank = np.searchsorted(up_values, np.abs(value))  # 0 for the zeros
    top = len(up_values)
    rank = np.where(kind == NAN, -1, np.where(kind == INF, top, pos_rank))
    rank = np.where(neg, -rank, rank).astype(np.int64)
    nan_code, beyond, odd = _CONSTANTS[name]
    infs = np.flatnonzero((kind == INF) & ~neg)
    normals = value[(kind == FINITE) & ~sub & (value > 0)]
    for a in (neg, mag, exp, kind, value, sub, rank, up_values, up_codes):
        a.setflags(write=False)
    return Format(name, bits, 1 << (bits - 1), neg, mag, exp, kind, value, sub, rank, nan_code, int(up_codes[-1]),
                  int(infs[0]) if len(infs) else None, int(np.flatnonzero(value == 1.0)[0]), float(normals.min()),
                  beyond, odd, up_values, up_codes)


def lookup(bits: np.ndarray, column: np.ndarray) -> np.ndarray:
    """``column`` (a table of every code) at each code of ``bits`` (of a 4-bit format: its low nibble)."""
    out: np.ndarray = column[np.asarray(bits).astype(np.intp) & (len(column) - 1)]
    return out
