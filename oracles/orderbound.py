"""How far apart two evaluation orders of one floating-point sum can land, in ULPs of the result: the bound that
a BOUNDED element states where a platform's order is not determinable from its sources.

A sum of ``n`` terms evaluated in any order, rounding to nearest in a type of unit roundoff ``u = 2^-(p)`` (``p``
the significand's bits, the hidden one included) after every addition, is within ``gamma(n-1) * sum |x_i|`` of
the exact sum, ``gamma(k) = k*u / (1 - k*u)`` (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
section 4.2, eq. 4.4; no underflow assumed, which the callers leave to classes of their own). Two orders are
therefore within ``E = 2 * gamma(n-1) * sum |x_i|`` of each other. In ULPs of the destination type around the
golden ``g``: ``ceil(E / s)``, ``s`` the spacing of the destination's values at the smallest magnitude in
``[|g| - E, |g| + E]`` (the subnormal spacing when the interval reaches zero), plus one when the sum is carried
in a wider accumulator and rounded to the destination once at the end (two orders' accumulators can round to
neighbouring destination values).
"""

from __future__ import annotations

import numpy as np

from ptofuzz.core.dtypes import DType
from ptofuzz.oracles import ieee

MAX_BOUND = (1 << 32) - 1


def order_bound(golden: np.ndarray, abs_sum: np.ndarray, terms: np.ndarray | int, acc: DType, out: DType,
                slack: float = 0.0) -> np.ndarray:
    """The ULP bound (uint32, ``golden``'s shape) between ``golden`` (bits of ``out``: one order's sum) and the sum
    of the same terms in any other order; ``abs_sum``: the sum of the terms' magnitudes (float64, computed so that
    it is not below the true one: a float64 sum of fewer than 2^20 float32 magnitudes is raised by a relative
    2^-30 here); ``terms``: how many terms each sum has; ``acc``: the type every addition rounds to; ``slack``:
    an absolute amount either order may add on top (a platform that flushes subnormal partial sums to zero: the
    terms' count times the smallest normal)."""
    k = np.maximum(np.asarray(terms, dtype=np.float64) - 1, 0)
    ku = k * 2.0 ** -(acc.man_bits + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        spread = 2 * ku / (1 - ku) * (np.asarray(abs_sum, dtype=np.float64) * (1 + 2.0 ** -30)) + 2 * slack
        g = np.abs(ieee.to_float64(golden, out))
        tiny = ieee.min_normal(out) * 2.0 ** -out.man_bits  # the subnormal spacing
        low = np.maximum(g - spread, tiny)
        spacing = np.maximum(np.exp2(np.floor(np.log2(low)) - out.man_bits), tiny)
        ulps = np.ceil(spread / spacing) + (1 if acc.name != out.name else 0)
    ulps = np.where(np.isfinite(ulps), ulps, MAX_BOUND)
    return np.minimum(ulps, MAX_BOUND).astype(np.uint32)


def product_bound(golden: np.ndarray, terms: np.ndarray | int, acc: DType, out: DType) -> np.ndarray:
    """The ULP bound (uint32, ``golden``'s shape) between ``golden`` (bits of ``out``: one order's product of
    ``terms`` factors) and the product of the same factors in any other order, no partial product overflowing or
    leaving the normal range (the callers class those elements apart).

    Each of the ``k = terms - 1`` multiplications rounds with a relative error of at most ``u = 2^-p`` (``p`` the
    significand's bits of ``acc``), so an order's product is ``x * prod(1 + d_i)``, ``|d_i| <= u``: within
    ``[(1 - u)^k, (1 + u)^k] * x`` of the exact product ``x`` (a relative bound, unlike a sum's, which scales
    with the terms' magnitudes: no cancellation). Two orders are then within ``E = |x| * ((1 + u)^k -
    (1 - u)^k)`` (about ``2 k u |x|``) of each other, with ``|x| <= |golden| / (1 - u)^k``; in ULPs of ``out``:
    ``ceil(E / s)``, ``s`` the spacing at the smallest magnitude in ``[|golden| - E, |golden| + E]``, plus one
    when ``acc`` is wider than ``out`` (one rounding at the end). About ``2 * (terms - 1)`` ULPs, up to
    ``4 * (terms - 1)`` just above a power of two (the spacing halves below it)."""
    k = np.maximum(np.asarray(terms, dtype=np.float64) - 1, 0)
    lu = np.log1p(2.0 ** -(acc.man_bits + 1))
    ld = np.log1p(-(2.0 ** -(acc.man_bits + 1)))
    with np.errstate(over="ignore", invalid="ignore"):
        g = np.abs(ieee.to_float64(golden, out))
        x = g * np.exp(-k * ld)
        spread = x * (np.exp(k * lu) - np.exp(k * ld))
        tiny = ieee.min_normal(out) * 2.0 ** -out.man_bits
        low = np.maximum(g - spread, tiny)
        spacing = np.maximum(np.exp2(np.floor(np.log2(low)) - out.man_bits), tiny)
        ulps = np.ceil(spread / spacing) + (1 if acc.name != out.name else 0)
    ulps = np.where(np.isfinite(ulps), ulps, MAX_BOUND)
    return np.minimum(ulps, MAX_BOUND).astype(np.uint32)
