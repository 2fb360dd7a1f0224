"""TPAIRREDUCESUM, the pair-reduction sum: one oracle per documented platform (there is no pto-spec file).

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst`` and ``src``, each tile at its own physical
shape) and the source bits at its physical shape (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape.

Source: pto-isa ``docs/isa/TPairReduceSum.md`` (the page the docs index calls TPAIRREDUCESUM). The iteration
domain is the destination's valid region ``R x C`` (line 21, 62); for each valid row ``i`` and pair index
``k < ceil(C / 2)``: ``dst[i, k] = src[i, 2k] + src[i, 2k + 1]`` (line 17), where an inactive element (outside
the valid region: ``src[i, C]`` when ``C`` is odd) is treated as 0 (lines 11, 19); positions
``ceil(C / 2) .. C - 1`` of each valid row are filled with 0 (lines 11, 19, 63). So:

- each lower-half element is one addition of two adjacent source elements, rounded once: the elementwise add's
  rules (:func:`ptofuzz.oracles.elementwise.documented_element`: what TADD's page leaves open is left open here
  too: a NaN result is some NaN, integer overflow is undefined; on the NPUs also float overflow from finite
  operands and results that flushing subnormals would change);
- with ``C`` odd the last pair is ``src[i, C - 1] + 0``: that element itself, but for ``-0``, whose sum with
  "0" is ``+0`` or ``-0`` by the sign the page does not give (class ``zero``), and a NaN (some NaN);
- the upper half holds ``+0`` bits (exact);
- outside the valid region the page writes nothing it defines ("treated as 0" speaks of reading): undefined.

Runtime checks (page lines 56-60, every implementation): ``src``'s valid shape equals ``dst``'s; a case breaking
it has no defined result ("unsupported"). An empty valid region writes nothing (every element undefined).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, ZERO, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import ieee
from ptofuzz.oracles.elementwise import documented_element

__all__ = ["PAGE", "cpu", "npu", "outside_contract", "pairs", "result"]

PAGE = "docs/isa/TPairReduceSum.md"


def pairs(src: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """The left and right operand of every pair of the valid region ``rows x cols`` (any batch axis first), each
    ``rows x ceil(cols / 2)``; the inactive right operand of an odd last pair is ``+0`` (0 for integers)."""
    half = (cols + 1) // 2
    valid = src[..., :rows, :cols]
    left = valid[..., 0::2]
    right = np.zeros(left.shape, dtype=src.dtype)
    right[..., : cols // 2] = valid[..., 1::2]
    assert left.shape[-1] == half
    return left, right


def result(case: Case, src: np.ndarray, *, npu: bool) -> tuple[np.ndarray, np.ndarray]:
    """The bits and classes over the destination's valid region (``R x C``, any batch axis first)."""
    dt = get(case.dtype)
    rows, cols = case.tile("dst").valid
    half = (cols + 1) // 2
    left, right = pairs(src, rows, cols)
    res, cls, _ = documented_element("add", left, right, dt, npu=npu)
    if cols % 2 and dt.is_float:  # x + "0": the sign of a zero sum of -0 is not given
        last = left[..., half - 1]
        tail = ieee.is_zero(last, dt) & ieee.is_negative(last, dt)
        cls[..., half - 1] = np.where(tail, np.uint8(ZERO), cls[..., half - 1])
    out = np.zeros((*src.shape[:-2], rows, cols), dtype=src.dtype)
    classes = np.full(out.shape, EXACT, dtype=np.uint8)
    out[..., :half] = res
    classes[..., :half] = cls
    return out, classes


def outside_contract(case: Case) -> Outcome | None:
    """"unsupported" when ``src``'s valid shape is not ``dst``'s (the page's runtime check), else None."""
    d, s = case.tile("dst"), case.tile("src")
    if s.valid != d.valid:
        return Outcome.unsupported(
            f"{case.op}: {PAGE} requires src's valid shape to equal dst's (a runtime check); this case's is "
            f"{'x'.join(map(str, s.valid))} against {'x'.join(map(str, d.valid))}")
    return None


def _documented(case: Case, inputs: Mapping[str, np.ndarray], *, npu: bool) -> Outcome:
    bad = outside_contract(case)
    if bad is not None:
        return bad
    d = case.tile("dst")
    rows, cols = d.valid
    src = inputs["src"]
    shape = src.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=src.dtype)
    classes = np.full(shape, UNDEFINED, dtype=np.uint8)
    if rows and cols:
        res, cls = result(case, src, npu=npu)
        out[..., :rows, :cols] = res
        classes[..., :rows, :cols] = cls
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The page's semantics computed on the host (IEEE 754 with gradual underflow; integers: overflow open)."""
    return _documented(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """A2A3 and A5: the page's semantics with the vector unit's open float cases (overflow, subnormals)."""
    return _documented(case, inputs, npu=True)
