"""The bitwise instructions, tile-tile (TAND, TOR, TXOR, TSHL, TSHR) and tile-scalar (TANDS, TORS, TXORS, TSHLS,
TSHRS): one oracle per semantics.

Tile-tile oracles take a :class:`~ptofuzz.core.case.Case` with roles ``dst``, ``src0`` and ``src1`` (the shift
count for TSHL/TSHR); tile-scalar ones roles ``dst``, ``src0`` and ``scalar`` (a 1x1 tile of the element type,
broadcast). Inputs are raw bits at their tiles' physical shapes (a leading batch axis is allowed); the outcome's
``dst`` has the destination's physical shape, the result over the destination's valid region, every source
element ``(i, j)`` read at its own row stride, nothing written outside (undefined).

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/elementwise-tile-tile/logical/T{AND,OR,XOR,SHL,SHR}.asl`` and
  ``asl/tile/tile-scalar-and-immediate/logical/T{ANDS,ORS,XORS,SHLS,SHRS}.asl``, executed by
  ``TileIntegerBinaryValue`` in ``asl/tile/model/execution/elementwise.asl``: AND, OR, XOR of the element bits;
  a shift count is the unsigned low log2(W) bits of the count operand (``TileIntegerShiftAmount``: 3, 4, 5, 6 bits
  for 8, 16, 32, 64-bit elements; a count of W acts as 0, -1 as W-1); ``<<`` keeps the low W bits, ``>>`` is
  arithmetic for signed and logical for unsigned elements. Types: the eight integer types 8..64 bits
  (``TileVecScalarIntegerDataTypeSupported``); floats fault. The scalar is the raw element bits. Legality: the
  tile-tile rules (one physical and valid shape, a non-empty valid region, legal descriptors), else
  Fault_TileLegality before any effect.
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/<OP>.md``, whose statement is the C++ formula
  ``src0 & src1``, ``|``, ``^``, ``src0 << src1``, ``src0 >> src1`` (the scalar in place of ``src1``) over dst's
  valid region, for the integer types each page lists. pto-isa builds as C++20, where a shift by a count in
  [0, W) is defined: ``<<`` keeps the low W bits of ``src0 * 2**count`` (a negative ``src0`` too), ``>>`` of a
  signed value rounds toward minus infinity (arithmetic), of an unsigned one is logical. A count outside [0, W)
  (W the element width; a negative one) is left open by every page (TSHLS/TSHRS add "Scalar only supports zero
  and positive values"), so those elements are ``undefined``, never numpy's zero or sign fill; the placeholder
  bits are pto-spec's. AND, OR and XOR are exact. A case whose source valid shape differs from the destination's
  breaks the pages' runtime check: "unsupported" (A5 TANDS/TORS run TEXPANDS then TAND/TOR, whose pages ask for
  it; A2A3 TXORS decomposes through AND and OR the same way).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import elementwise, integer, tilescalar

TILE_TILE = {"TAND": "and", "TOR": "or", "TXOR": "xor", "TSHL": "shl", "TSHR": "shr"}
TILE_SCALAR = {"TANDS": "and", "TORS": "or", "TXORS": "xor", "TSHLS": "shl", "TSHRS": "shr"}
OPS = {**TILE_TILE, **TILE_SCALAR}
SYMBOL = {"and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>"}
SHIFTS = ("shl", "shr")
#: the element types pto-spec's bitwise operations take (TileVecScalarIntegerDataTypeSupported)
SPEC_DTYPES = ("int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")

ElementResult = elementwise.ElementResult


def spec_count(b: np.ndarray, dt: DType) -> np.ndarray:
    """pto-spec's shift amount: the unsigned low log2(W) bits of the count's bits."""
    out: np.ndarray = b & np.array(dt.bits - 1, b.dtype)
    return out


def in_range(b: np.ndarray, dt: DType) -> np.ndarray:
    """Where a count is one the pages define: 0 <= count < W (the count read as the element type)."""
    v = integer.values(b, dt)
    ok: np.ndarray = (v >= 0) & (v < dt.bits)
    return ok


def shifted(op: str, a: np.ndarray, count: np.ndarray, dt: DType) -> np.ndarray:
    """``a << count`` (low W bits) or ``a >> count`` (arithmetic when signed), for counts in [0, W)."""
    c = count.astype(a.dtype, copy=False)
    if op == "shl":
        out: np.ndarray = a << c
        return out
    shifted_: np.ndarray = integer.values(a, dt) >> c.view(integer.values(a, dt).dtype)
    return shifted_.view(a.dtype)


def spec_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """pto-spec's typed operation on every element (all exact)."""
    if op in SHIFTS:
        res = shifted(op, a, spec_count(b, dt), dt)
    else:
        res = a & b if op == "and" else a | b if op == "or" else a ^ b
    return res, np.zeros(res.shape, np.uint8), {}


def documented_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """The pages' formula on every element; a shift count outside [0, W) undefined (pto-spec's bits there)."""
    res, cls, flags = spec_element(op, a, b, dt)
    if op in SHIFTS:
        cls = np.where(in_range(b, dt), np.uint8(EXACT), np.uint8(UNDEFINED)).astype(np.uint8)
    return res, cls, flags


# ---- tile-tile ------------------------------------------------------------------------------------------

def _operands(case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if case.op in TILE_SCALAR:
        return tilescalar.operands(case, inputs)
    rows, cols = case.tile("dst").valid
    return inputs["src0"][..., :rows, :cols], inputs["src1"][..., :rows, :cols]


def _sources(case: Case) -> tuple[str, ...]:
    return ("src0",) if case.op in TILE_SCALAR else ("src0", "src1")


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules (the elementwise ones; the scalar is a
    GPR: any bits), else None."""
    return elementwise.spec_legality(case, _sources(case))


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    a, b = _operands(case, inputs)
    return elementwise.paint(case, inputs, spec_element(OPS[case.op], a, b, get(case.dtype)), True)


def documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """The cpu simulator's and the NPUs' model (the pages say the same for all of them)."""
    bad = elementwise.outside_contract(case, _sources(case))
    if bad is not None:
        return bad
    a, b = _operands(case, inputs)
    return elementwise.paint(case, inputs, documented_element(OPS[case.op], a, b, get(case.dtype)), False)
