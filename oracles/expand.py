"""The broadcast copies TROWEXPAND and TCOLEXPAND: one oracle per semantics.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst`` and ``src``, each tile at its own physical
shape) and the source bits at its physical shape (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. The iteration domain is the
destination's valid region ``R x C``; TROWEXPAND writes ``dst[i, j] = src[i, 0]``, TCOLEXPAND
``dst[i, j] = src[0, j]``. Both are copies: the element's bits, whatever they encode (a NaN keeps its payload, an
integer its sign: no widening, no conversion). Outside the valid region nothing is written: undefined.

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/reduce-and-expand/{row,column}-expansion/T{ROW,COL}EXPAND.asl`` (the
  contract: "copy BroadcastTile[r,0] / [0,c] bit-for-bit ... no conversion, rounding, saturation,
  canonicalization, or numeric-status update"), ``asl/tile/model/execution/expansion.asl`` (``ExecuteTileExpand``)
  and ``asl/tile/model/legality/reduction-and-expansion.asl`` (``TileOperandsLegal_ExecuteTileExpand``): the
  element types of ``TileVecArithmeticDataTypeSupported``, both tiles legal descriptors, a nonzero destination valid
  region; TROWEXPAND's source one physical column with the destination's valid rows and one valid column,
  TCOLEXPAND's source one valid row with the destination's valid columns and physical columns. Anything else is
  Fault_TileLegality (trap 5) before any effect. No status flag is raised; outside the valid region the omitted
  B.DATR's Null padding (undefined).
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/TROWEXPAND.md`` and ``TCOLEXPAND.md``, whose statement is
  the element formula over the destination's valid region. TROWEXPAND's page adds the runtime checks: A2A3 returns
  early when a valid dimension of either tile is zero; A5 (and the kirin parts, which run its headers) asserts the
  source's valid rows equal the destination's and its valid region is not empty. TCOLEXPAND's page iterates over the
  destination's valid region. A source whose valid region does not hold what the formula reads (TROWEXPAND: fewer
  valid rows than the destination, or none of its columns; TCOLEXPAND: fewer valid columns, or no row) has no
  defined result: "unsupported". The formula reads the source's first column (row), so its other valid columns
  (rows) do not matter.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, EXACT, Case, Outcome
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import descriptors
from ptofuzz.oracles.elementwise import SPEC_DTYPES, paint

__all__ = ["AXIS", "SPEC_DTYPES", "cpu", "npu", "spec", "spec_legality"]

AXIS = {"TROWEXPAND": "row", "TCOLEXPAND": "col"}


def broadcast(case: Case, src: np.ndarray) -> np.ndarray:
    """The copied bits over the destination's valid region (``src``: the source tile, any batch axis first)."""
    rows, cols = case.tile("dst").valid
    lead = src.shape[:-2]
    part = src[..., :rows, :1] if AXIS[case.op] == "row" else src[..., :1, :cols]
    out: np.ndarray = np.broadcast_to(part, (*lead, rows, cols)).copy()
    return out


def _result(case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    res = broadcast(case, inputs["src"])
    return res, np.full(res.shape, EXACT, dtype=np.uint8), {}


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules for the expansion (module docstring),
    else None."""
    dt = get(case.dtype)
    d, s = case.tile("dst"), case.tile("src")
    why = ""
    if 0 in d.valid:
        why = "an empty destination valid region (LB0 must be nonzero; LB1 defaults to 1)"
    else:
        for role, t in (("dst", d), ("src", s)):
            problem = descriptors.problem(t, dt, max_bytes=descriptors.LOCAL_MAX)
            if problem:
                why = f"{role}: {problem}"
                break
    if not why:
        if AXIS[case.op] == "row":
            if s.cols != 1:
                why = f"the broadcast source has {s.cols} physical columns; it must have one"
            elif s.valid != (d.valid_rows, 1):
                why = (f"the broadcast source's valid shape {s.valid_rows}x{s.valid_cols} is not the destination's "
                       f"valid rows by one column ({d.valid_rows}x1)")
        elif s.cols != d.cols:
            why = f"the broadcast source has {s.cols} physical columns; the destination {d.cols}"
        elif s.valid != (1, d.valid_cols):
            why = (f"the broadcast source's valid shape {s.valid_rows}x{s.valid_cols} is not one row by the "
                   f"destination's valid columns (1x{d.valid_cols})")
    if not why:
        return None
    return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    return paint(case, inputs, _result(case, inputs), with_flags=True, source="src")


def outside_contract(case: Case) -> Outcome | None:
    """"unsupported" when the source's valid region does not hold what the formula reads (module docstring; A5
    asserts it for TROWEXPAND), else None. A2A3 returns early when a valid dimension of either tile is zero, and an
    empty destination reads nothing: both have a defined (empty) result."""
    d, s = case.tile("dst"), case.tile("src")
    rows, cols = d.valid
    if (case.platform == "a2a3" and (0 in d.valid or 0 in s.valid)) or (0 in d.valid and case.platform == "cpu"):
        return None
    doc = f"docs/isa/{case.op}.md"
    a5 = case.platform not in ("cpu", "a2a3")  # A5's headers assert the source's extent equals dst's
    if AXIS[case.op] == "row":
        if s.valid_rows < rows or (a5 and s.valid_rows != rows) or s.valid_cols == 0:
            return Outcome.unsupported(
                f"{case.op}: {doc} reads src[i, 0] for every valid row of dst ({rows}); this source's valid "
                f"region is {s.valid_rows}x{s.valid_cols} (A5 asserts srcValidRow == dstValidRow and a nonempty "
                "source)")
    elif s.valid_cols < cols or (a5 and s.valid_cols != cols) or (s.valid_rows == 0 and rows > 0):
        return Outcome.unsupported(
            f"{case.op}: {doc} reads src[0, j] for every valid column of dst ({cols}); this source's valid "
            f"region is {s.valid_rows}x{s.valid_cols} (A5 asserts srcValidCol == dstValidCol)")
    return None


def _documented(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    bad = outside_contract(case)
    if bad is not None:
        return bad
    empty = 0 in case.tile("dst").valid or 0 in case.tile("src").valid
    return paint(case, inputs, None if empty else _result(case, inputs), with_flags=False, source="src")


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented(case, inputs)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """A2A3 and the A5-like platforms (``case.platform`` decides which runtime checks apply)."""
    return _documented(case, inputs)
