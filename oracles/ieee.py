"""Bit-exact IEEE 754 helpers on raw element bits (float32, float16, bfloat16; the 8-bit floats' classes too).

The class tests (NaN, infinity, zero, subnormal), :func:`to_float64`, :func:`min_normal` and :func:`order_key`
also take the 8-bit floats: FP8 E5M2 is laid out as IEEE 754 says; FP8 E4M3 and HiFloat8 (kind ``float8``) are
looked up in :mod:`ptofuzz.core.minifloat`'s tables (E4M3's one NaN pattern and no infinities, HiFloat8's NaN 0x80,
infinities 0x6F/0xEF and single zero).

Everything takes and returns unsigned-integer arrays holding the element bits. Values are widened to float64
only where arithmetic needs them; NaN results never come from those widened values (widening quiets sNaNs), they
are decided from the input bits.

Why float64 is enough: the exact sum or product of two float32/float16/bfloat16 values rounded once to float64
and then once to the element type equals the correctly rounded result, because 53 >= 2*24 + 2 (the classic
double-rounding bound); products of two such values are even exact in float64. The exact error of a sum is
recovered with TwoSum, which gives the inexact flag.
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core import minifloat
from ptofuzz.core.dtypes import DType

# Status flag names, in pto-spec's order (bit 0 .. bit 4 of the sticky field).
NV, DZ, OF, UF, NX = "NV", "DZ", "OF", "UF", "NX"
FLAG_ORDER = (NV, DZ, OF, UF, NX)


def _kind(bits: np.ndarray, dt: DType) -> np.ndarray:
    return minifloat.lookup(bits, minifloat.table(dt.name).kind)


def is_nan(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_table:
        return _kind(bits, dt) == minifloat.NAN
    return (bits & dt.abs_mask) > dt.exp_mask


def is_snan(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_table:  # E4M3 and HiFloat8 have no signaling NaN, the FP4 formats no NaN
        return np.zeros(np.shape(bits), dtype=bool)
    magnitude = bits & dt.abs_mask
    return (magnitude > dt.exp_mask) & (magnitude < (dt.exp_mask | dt.quiet_bit))


def is_inf(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_table:
        return _kind(bits, dt) == minifloat.INF
    return (bits & dt.abs_mask) == dt.exp_mask


def is_zero(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_table:
        f = minifloat.table(dt.name)
        return minifloat.lookup(bits, (f.kind == minifloat.FINITE) & (f.mag == 0))
    return (bits & dt.abs_mask) == 0


def is_subnormal(bits: np.ndarray, dt: DType) -> np.ndarray:
    if dt.is_table:
        return minifloat.lookup(bits, minifloat.table(dt.name).subnormal)
    # magnitude - 1 wraps around for zero, so one comparison finds 1 <= magnitude <= man_mask
    return ((bits & dt.abs_mask) - np.array(1, bits.dtype)) < dt.man_mask


def is_zero_or_subnormal(bits: np.ndarray, dt: DType) -> np.ndarray:
    """``is_zero | is_subnormal`` in one test: the exponent field is all zeros."""
    if dt.is_table:
        return is_zero(bits, dt) | is_subnormal(bits, dt)
    return (bits & dt.exp_mask) == 0


def is_negative(bits: np.ndarray, dt: DType) -> np.ndarray:
    return (bits & dt.sign_mask) != 0


def to_float64(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Exact widening of the encoded values (NaNs come out quiet: never use them for NaN results)."""
    if dt.name == "float32":
        f = bits.view(np.float32)
    elif dt.name == "float16":
        f = bits.view(np.float16)
    elif dt.name == "bfloat16":
        f = (bits.astype(np.uint32) << 16).view(np.float32)
    elif dt.name in minifloat.NAMES:
        out: np.ndarray = minifloat.lookup(bits, minifloat.table(dt.name).value)
        return out
    else:  # pragma: no cover - guarded by callers
        raise TypeError(f"{dt.name} is not a float type")
    with np.errstate(invalid="ignore"):
        return f.astype(np.float64)


def from_float64(values: np.ndarray, dt: DType) -> np.ndarray:
    """Round float64 values to the element type, round-to-nearest-even, and return the bits."""
    with np.errstate(all="ignore"):
        if dt.name == "float16":
            return values.astype(np.float16).view(np.uint16)
        f32 = values.astype(np.float32).view(np.uint32)
    if dt.name == "float32":
        return f32
    # bfloat16: RNE on the float32 bits (ties to even on bit 16); overflow carries into the exponent -> inf.
    # The float32 step is innocuous double rounding: 24 >= 2*8 + 2, and in the subnormal range the exact
    # results of add/mul of bfloat16 operands need no float32 rounding that could land on a bf16 midpoint.
    nan = (f32 & 0x7FFFFFFF) > 0x7F800000
    rounded = ((f32 + 0x7FFF + ((f32 >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(nan, np.uint16(0x7FC0), rounded)


def min_normal(dt: DType) -> float:
    if dt.is_table:
        return minifloat.table(dt.name).min_normal
    return float(2.0 ** (2 - (1 << (dt.exp_bits - 1))))


def add_mul_fast(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """IEEE 754 ``a+b`` / ``a*b`` rounded to nearest even, without status flags.

    Returns (result bits with every NaN result canonical, the float32 result before the final rounding, the
    NaN mask). Computed in float32: exact for float32 itself; for float16/bfloat16 the float32 result is the
    exact one or a single rounding of it that is innocuous (24 >= 2*11 + 2), so rounding it again is correct.
    A NaN operand always gives a NaN result, so the NaN mask comes from the float32 result alone.
    """
    if dt.name == "float32":
        fa, fb = a.view(np.float32), b.view(np.float32)
    elif dt.name == "float16":
        fa, fb = a.view(np.float16).astype(np.float32), b.view(np.float16).astype(np.float32)
    else:
        fa, fb = (a.astype(np.uint32) << 16).view(np.float32), (b.astype(np.uint32) << 16).view(np.float32)
    with np.errstate(all="ignore"):
        s = fa + fb if op == "add" else fa * fb
        if dt.name == "float32":
            r = s.view(np.uint32).copy()
        elif dt.name == "float16":
            r = s.astype(np.float16).view(np.uint16)
        else:
            r = from_float64(s, dt)
    nan = np.isnan(s)
    r[nan] = dt.canonical_nan
    return r, s, nan


def add_mul(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """IEEE 754 ``a+b`` or ``a*b`` rounded to nearest even, with per-element status flags.

    Returns the result bits, with every NaN result replaced by the canonical qNaN, and a dict of boolean flag
    arrays (NV, OF, UF, NX; DZ never arises). Underflow uses tininess before rounding.
    """
    va, vb = to_float64(a, dt), to_float64(b, dt)
    with np.errstate(all="ignore"):
        if op == "add":
            s = va + vb
            bb = s - va  # TwoSum: err is the exact rounding error of s
            err = (va - (s - bb)) + (vb - bb)
        else:
            s = va * vb  # exact: both factors have <= 24 significant bits
            err = np.zeros_like(s)
        r = from_float64(s, dt)
        vr = to_float64(r, dt)
    nan_in = is_nan(a, dt) | is_nan(b, dt)
    nan_out = is_nan(r, dt) | nan_in
    finite_in = np.isfinite(va) & np.isfinite(vb)
    invalid = nan_out & ~nan_in  # inf-inf, 0*inf
    overflow = finite_in & is_inf(r, dt)
    inexact = finite_in & ~nan_out & ((vr != s) | (err != 0))
    flags = {
        NV: invalid | is_snan(a, dt) | is_snan(b, dt),
        OF: overflow,
        UF: inexact & (np.abs(s) < min_normal(dt)),
        NX: inexact | overflow,
    }
    out = np.where(nan_out, np.array(dt.canonical_nan, r.dtype), r)
    return out, flags


def order_key(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Monotone unsigned key of the numeric order (-inf < ... < -0 < +0 < ... < +inf); NaNs excluded."""
    if dt.is_table:  # the place in the value order, laid out as the others' keys: +0 at the sign bit, -0 below
        rank = np.abs(minifloat.lookup(bits, minifloat.table(dt.name).rank))
        top = dt.sign_mask
        key: np.ndarray = np.where(is_negative(bits, dt), top - 1 - rank, top + rank).astype(np.asarray(bits).dtype)
        return key
    neg = is_negative(bits, dt)
    return np.where(neg, ~bits, bits | np.array(dt.sign_mask, bits.dtype))


def spec_max_min(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """pto-spec hardware min/max (HardwareNumericMinMaxSpecial): returns (bits, NV flags).

    One NaN operand: the other operand, bit for bit. Both NaN: canonical NaN. Mixed zeros: max +0, min -0.
    Otherwise the numeric order. Any sNaN operand sets NV.
    """
    na, nb = is_nan(a, dt), is_nan(b, dt)
    ka, kb = order_key(a, dt), order_key(b, dt)
    pick_a = ka >= kb if op == "max" else ka <= kb
    out = np.where(pick_a, a, b)
    zeros = is_zero(a, dt) & is_zero(b, dt)
    signed_zero = np.array(0 if op == "max" else dt.sign_mask, a.dtype)
    out = np.where(zeros & (a != b), signed_zero, out)
    out = np.where(na, b, np.where(nb, a, out))
    out = np.where(na & nb, np.array(dt.canonical_nan, a.dtype), out)
    return out, is_snan(a, dt) | is_snan(b, dt)
