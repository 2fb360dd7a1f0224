"""Integer element operations on raw bits (two's complement, wrap modulo the element width)."""

from __future__ import annotations

import numpy as np

from ptofuzz.core.dtypes import DType


def values(bits: np.ndarray, dt: DType) -> np.ndarray:
    return bits.view(f"<i{dt.itemsize}") if dt.kind == "int" else bits


def add_mul(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """``a+b`` / ``a-b`` / ``a*b`` modulo 2**bits; unsigned arithmetic on the bits equals two's complement
    arithmetic."""
    with np.errstate(over="ignore"):
        out: np.ndarray = a + b if op == "add" else a - b if op == "sub" else a * b
    return out


def overflows(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """Where the mathematical ``a op b`` (add, sub, mul) does not fit the element type (any width up to 64
    bits)."""
    if dt.bits < 64:
        wide = np.int64 if dt.kind == "int" else np.uint64
        va, vb = values(a, dt).astype(wide), values(b, dt).astype(wide)
        if op == "sub" and dt.kind != "int":
            below: np.ndarray = vb > va  # would be negative
            return below
        # fits: |x| < 2**33 (add, sub) or < 2**64 (mul, unsigned)
        exact = va + vb if op == "add" else va - vb if op == "sub" else va * vb
        out: np.ndarray = (exact < dt.int_min) | (exact > dt.int_max)
        return out
    r = add_mul(op, a, b, dt)
    sa, sb, sr = (values(x, dt) for x in (a, b, r))
    flags: np.ndarray
    with np.errstate(all="ignore"):
        if op == "mul":  # the wrapped product divided back: exact iff it fits (and not -1 * INT_MIN)
            nonzero = sa != 0
            flags = np.where(nonzero, sr // np.where(nonzero, sa, 1), sb) != sb
            if dt.kind == "int":
                flags |= (sa == -1) & (sb == dt.int_min) | (sb == -1) & (sa == dt.int_min)
            return flags
    if dt.kind == "int":
        flags = ((sa ^ sr) & (sb ^ sr)) < 0 if op == "add" else ((sa ^ sb) & (sa ^ sr)) < 0
    else:
        flags = (r < a) if op == "add" else (a < b)
    return flags


def max_min(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    va, vb = values(a, dt), values(b, dt)
    pick_a = va >= vb if op == "max" else va <= vb
    return np.where(pick_a, a, b)
