"""The tile-scalar arithmetic instructions (TADDS, TSUBS, TMULS, TMAXS, TMINS, TLRELU): one oracle per semantics.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst``, ``src0`` and ``scalar``, a 1x1 tile of the
element type) and the input bits at their physical shapes (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. The scalar is broadcast
over the destination's valid region; element ``(i, j)`` of the source is read at its own row stride; outside the
valid region nothing is written (undefined). The element operations are the tile-tile family's
(:mod:`ptofuzz.oracles.elementwise`) with the scalar as the second operand.

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/tile-scalar-and-immediate/arithmetic/T{ADDS,SUBS,MULS,MAXS,MINS}.asl``,
  ``ExecuteTileScalar`` in ``asl/tile/model/execution/elementwise.asl``: the scalar is a raw element bit pattern
  (no conversion), the element operation is the tile-tile one (integers wrap, IEEE RNE with the canonical NaN and
  status flags, the hardware max/min rules); the source must match the destination in physical shape and valid
  shape and be a legal descriptor, else Fault_TileLegality (``TileOperandsLegal_ExecuteTileScalar``). pto-spec
  has no TLRELU (``spec/catalog/tile-operations.json`` lists it among the deleted names).
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/T{ADDS,SUBS,MULS,MAXS,MINS,LRELU}.md``, whose only
  statement is the formula over the valid region (``src + scalar`` ... ``max(src, scalar)``, and
  ``(src > 0) ? src : src * slope``), classed as the tile-tile pages are: a NaN result is some NaN, integer
  overflow undefined, max/min with a NaN operand undefined, mixed zeros some zero; on the NPUs also float
  overflow and subnormal effects. TLRELU: the comparison picks ``src`` exactly (a NaN is not > 0, so it takes
  the product, some NaN); a positive subnormal ``src`` is undefined on the NPUs (a unit that flushes it compares
  zero and takes ``0 * slope``). The pages' runtime requirement (src0's valid rows and columns equal dst's; on
  A5 only the columns for TADDS, TMULS, TMINS) is checked: a case that breaks it is unsupported (PTO_ASSERT).
- tmins/a2a3: pto-isa's test of that name calls TMIN on two tiles (``tmins_kernel.cpp``). Its cases carry the
  param ``kernel=TMIN`` and a whole second tile in the scalar's place; they are evaluated as TMIN
  (:func:`ptofuzz.oracles.elementwise.npu`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import elementwise, ieee, integer, tpart

OPS = {"TADDS": "add", "TSUBS": "sub", "TMULS": "mul", "TMAXS": "max", "TMINS": "min", "TLRELU": "lrelu"}
SYMBOL = {"add": "+", "sub": "-", "mul": "*"}
#: the element types pto-spec's tile-scalar arithmetic takes (TileBinaryDataTypeSupported, as the tile-tile ones)
SPEC_DTYPES = elementwise.SPEC_DTYPES
KERNEL = "kernel"  # the case param naming the instruction a test's kernel really runs (tmins/a2a3: TMIN)

ElementResult = elementwise.ElementResult


def operands(case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The source over the destination's valid region and the scalar broadcast to it (or, for a TMIN kernel's
    case, the second tile over the same region)."""
    rows, cols = case.tile("dst").valid
    a = inputs["src0"][..., :rows, :cols]
    s = inputs["scalar"]
    if case.param(KERNEL) == "TMIN":
        return a, s[..., :rows, :cols]
    return a, np.ascontiguousarray(np.broadcast_to(s[..., :1, :1], a.shape))


def _positive(a: np.ndarray, dt: DType) -> np.ndarray:
    """``a > 0``: a float neither NaN, zero nor negative; an integer above zero."""
    if dt.is_float:
        out: np.ndarray = ~ieee.is_nan(a, dt) & ~ieee.is_zero(a, dt) & ~ieee.is_negative(a, dt)
        return out
    return integer.values(a, dt) > 0


def lrelu_element(a: np.ndarray, s: np.ndarray, dt: DType, *, npu: bool) -> ElementResult:
    """``(a > 0) ? a : a * s`` with what the page leaves open classed (see the module docstring)."""
    positive = _positive(a, dt)
    if dt.is_float:
        res, cls, _ = (tpart.npu_element if npu else tpart.cpu_element)("mul", a, s, dt)
    else:
        res = integer.add_mul("mul", a, s, dt)
        cls = np.where(integer.overflows("mul", a, s, dt), np.uint8(UNDEFINED), np.uint8(EXACT)).astype(np.uint8)
    out = np.where(positive, a, res)
    cls = np.where(positive, np.uint8(EXACT), cls)
    if npu and dt.is_float:  # a flushing unit sees a positive subnormal as zero and takes the product
        cls = np.where(positive & ieee.is_subnormal(a, dt), np.uint8(UNDEFINED), cls)
    return out, cls.astype(np.uint8), {}


def documented_element(op: str, a: np.ndarray, s: np.ndarray, dt: DType, *, npu: bool) -> ElementResult:
    if op == "lrelu":
        return lrelu_element(a, s, dt, npu=npu)
    return elementwise.documented_element(op, a, s, dt, npu=npu)


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules for these operations (the tile-tile
    rules with one source), else None (the scalar is a GPR: any bits)."""
    return elementwise.spec_legality(case, ("src0",))


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    a, s = operands(case, inputs)
    return elementwise.paint(case, inputs, elementwise.spec_element(OPS[case.op], a, s, get(case.dtype)),
                             with_flags=True)


#: the ops whose A5 page asks only ``src0.GetValidCol() == dst.GetValidCol()`` at runtime (the others, and every
#: A2A3 page, ask rows too)
A5_COLUMNS_ONLY = ("TADDS", "TMULS", "TMINS")


def runtime_check(case: Case) -> Outcome | None:
    """The pages' runtime requirement on the valid regions, unsupported when broken (a PTO_ASSERT): src0's valid
    rows and columns equal dst's (A2A3, the Common constraints, the cpu simulator), only its columns on A5 for
    :data:`A5_COLUMNS_ONLY`."""
    d, s = case.tile("dst").valid, case.tile("src0").valid
    columns_only = case.op in A5_COLUMNS_ONLY and platforms.get(case.platform).implementation == "a5"
    if s[1] == d[1] and (columns_only or s[0] == d[0]):
        return None
    want = "GetValidCol()" if columns_only else "GetValidRow() and GetValidCol()"
    return Outcome.unsupported(f"docs/isa/{case.op}.md: src0's {want} must equal dst's (dst {d[0]}x{d[1]}, src0 "
                               f"{s[0]}x{s[1]})")


def _documented(case: Case, inputs: Mapping[str, np.ndarray], *, npu: bool) -> Outcome:
    broken = runtime_check(case)
    if broken is not None:
        return broken
    rows = case.tile("dst").valid_rows
    src = inputs["src0"]
    beyond = max(rows - src.shape[-2], 0)  # dst rows past src0's tile (A5: only the columns must match)
    if beyond:
        src = np.concatenate([src, np.zeros(src.shape[:-2] + (beyond, src.shape[-1]), src.dtype)], axis=-2)
    a, s = operands(case, {**inputs, "src0": src})
    out = elementwise.paint(case, {**inputs, "src0": src},
                            documented_element(OPS[case.op], a, s, get(case.dtype), npu=npu), with_flags=False)
    if beyond:
        out.classes["dst"][..., rows - beyond:rows, :] = UNDEFINED  # read outside src0's tile
    return out


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    if case.param(KERNEL) == "TMIN":  # tmins/a2a3's kernel: TMIN(dst, src0, src1), pto-isa docs/isa/TMIN.md
        tiles = tuple(("src1" if r == "scalar" else r, t) for r, t in case.tiles)
        tmin = case.replace(op="TMIN", tiles=tiles, params=())
        return elementwise.npu(tmin, {"src0": inputs["src0"], "src1": inputs["scalar"]})
    return _documented(case, inputs, npu=True)
