"""Integer element operations on raw bits (two's complement, wrap modulo the element width)."""

from __future__ import annotations

import numpy as np

from ptofuzz.core.dtypes import DType


def values(bits: np.ndarray, dt: DType) -> np.ndarray:
    return bits.view(f"<i{dt.itemsize}") if dt.kind == "int" else bits


def add_mul(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """``a+b`` / ``a*b`` modulo 2**bits; unsigned arithmetic on the bits equals two's complement arithmetic."""
    with np.errstate(over="ignore"):
        return a + b if op == "add" else a * b


def overflows(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    """Where the mathematical result does not fit the element type (types up to 32 bits)."""
    wide = np.int64 if dt.kind == "int" else np.uint64
    va, vb = values(a, dt).astype(wide), values(b, dt).astype(wide)
    exact = va + vb if op == "add" else va * vb  # fits: |x| < 2**33 (add) or < 2**64 (mul, unsigned)
    return (exact < dt.int_min) | (exact > dt.int_max)


def max_min(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> np.ndarray:
    va, vb = values(a, dt), values(b, dt)
    pick_a = va >= vb if op == "max" else va <= vb
    return np.where(pick_a, a, b)
