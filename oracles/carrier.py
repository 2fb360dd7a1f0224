"""A scalar operand carried in a file of another element type, as pto-isa's tile-scalar system tests carry it.

Most of pto-isa's TADDS/TSUBS/TMULS/TMAXS/TLRELU tests write the scalar as a 4-byte float32 (``divider.bin``,
``scalar.bin``) whatever the tile's element type; main.cpp reads it into a ``float`` and the kernel converts it
to the element type (C++: ``(half)scalar``, or the implicit float-to-integer conversion of the entry point's
parameter, which truncates toward zero and is undefined out of range). :func:`decode` is that conversion: the
element the instruction receives. :func:`encode` writes an element into the carrier; it is exact only for the
elements :func:`representable` accepts, and :func:`nearest` moves any element to one that is (so that a drawn
scalar survives the file).

NaNs of float16 and bfloat16 are widened bit for bit (payload shifted into the float32 payload, the quiet bit
on the quiet bit), so that a NaN scalar ptofuzz writes reads back as the NaN it drew. What a kernel's own
float-to-half conversion does with a NaN's payload is not documented; the documented models give a NaN operand
of add/sub/mul "some NaN" and of max/min an undefined result, so no golden depends on it.
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.oracles import ieee, integer

#: significant bits of a float32: integers of magnitude below 2**24 are exact, larger ones only when their low
#: bits are zero
FLOAT32_DIGITS = 24


class CarrierError(ValueError):
    """A carrier value the element type cannot take (the kernel's conversion is undefined there)."""


def _check(carrier: DType) -> None:
    if carrier.name != "float32":
        raise TypeError(f"no {carrier.name} carrier: only float32 carries scalars of other types")


def representable(bits: np.ndarray, dt: DType, carrier: DType) -> np.ndarray:
    """Which elements survive the carrier exactly (encode, then decode gives the same bits)."""
    _check(carrier)
    if dt.is_float:
        return np.ones(bits.shape, dtype=bool)
    if dt.bits > 32:
        return np.zeros(bits.shape, dtype=bool)
    v = integer.values(bits, dt).astype(np.int64)
    exact: np.ndarray = v.astype(np.float32).astype(np.float64) == v.astype(np.float64)
    return exact


def nearest(bits: np.ndarray, dt: DType, carrier: DType) -> np.ndarray:
    """Each element moved to the nearest one the carrier holds exactly, toward zero (an integer keeps its top
    24 significant bits; floats of 32 bits or fewer are all held)."""
    _check(carrier)
    if dt.is_float:
        return bits
    if dt.bits > 32:
        raise TypeError(f"a float32 carrier cannot hold {dt.name} scalars")
    v = integer.values(bits, dt).astype(np.int64)
    mag = np.abs(v)
    length = np.zeros(v.shape, dtype=np.int64)
    nonzero = mag > 0
    length[nonzero] = np.floor(np.log2(mag[nonzero].astype(np.float64))).astype(np.int64) + 1
    shift = np.maximum(length - FLOAT32_DIGITS, 0)
    kept = (mag >> shift) << shift
    out: np.ndarray = np.where(v < 0, -kept, kept).astype(np.int64).astype(np.uint64).astype(dt.bits_dtype)
    return out


def encode(bits: np.ndarray, dt: DType, carrier: DType) -> np.ndarray:
    """The carrier's bits holding each element (exact where :func:`representable`; CarrierError elsewhere)."""
    _check(carrier)
    if dt.name == "float32":
        return bits
    if dt.name == "bfloat16":
        return (bits.astype(np.uint32) << 16).astype(np.uint32)
    if dt.name == "float16":
        b = bits.astype(np.uint32)
        nan = ieee.is_nan(bits, dt)
        widened = bits.view(np.float16).astype(np.float32).view(np.uint32)
        nan_bits = ((b & 0x8000) << 16) | 0x7F800000 | ((b & 0x3FF) << 13)
        out: np.ndarray = np.where(nan, nan_bits, widened).astype(np.uint32)
        return out
    if not representable(bits, dt, carrier).all():
        bad = integer.values(bits, dt)[~representable(bits, dt, carrier)].ravel()[0]
        raise CarrierError(f"the {dt.name} scalar {int(bad)} has no exact float32 value (float32 holds integers "
                           f"exactly only below 2**24 or with their low bits zero)")
    return integer.values(bits, dt).astype(np.float32).view(np.uint32)


def decode(bits: np.ndarray, carrier: DType, dt: DType) -> np.ndarray:
    """The element the kernel receives from each carrier value: rounded to nearest even for float16 and
    bfloat16 (a NaN keeps its sign and its top payload bits, a NaN whose kept payload is zero becomes quiet),
    truncated toward zero for integers (CarrierError for a NaN or a value out of the integer type's range)."""
    _check(carrier)
    if dt.name == "float32":
        return bits
    nan = ieee.is_nan(bits, carrier)
    if dt.is_float:
        shift = 13 if dt.name == "float16" else 16
        narrowed = ieee.from_float64(ieee.to_float64(bits, carrier), dt)
        payload = ((bits & 0x7FFFFF) >> shift).astype(dt.bits_dtype)
        payload = np.where(payload == 0, np.array(dt.quiet_bit, dt.bits_dtype), payload)
        nan_bits = ((bits >> 31).astype(dt.bits_dtype) << (dt.bits - 1)) | dt.exp_mask | payload
        out: np.ndarray = np.where(nan, nan_bits.astype(dt.bits_dtype), narrowed).astype(dt.bits_dtype)
        return out
    with np.errstate(invalid="ignore"):
        values = np.trunc(bits.view(np.float32).astype(np.float64))
    bad = nan | (values < dt.int_min) | (values > dt.int_max)
    if bad.any():
        first = bits.view(np.float32)[bad].ravel()[0]
        raise CarrierError(f"float32 {float(first)!r} is no {dt.name} value (the kernel's float-to-integer "
                           f"conversion is undefined there)")
    out = values.astype(np.int64).astype(np.uint64).astype(dt.bits_dtype)
    return out
