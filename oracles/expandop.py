"""The arithmetic expansions TROWEXPAND{ADD,SUB,MUL,MAX,MIN} and TCOLEXPAND{ADD,SUB,MUL,MAX,MIN}: one oracle per
semantics.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst``, ``src0``, ``src1``, each tile at its own
physical shape) and the source bits at those shapes (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` has the destination's physical shape. The iteration domain is the
destination's valid region ``R x C``; every element is ``full op b`` in operand order, where ``full`` is the
full-shape operand's element ``(i, j)`` and ``b`` the broadcast operand's value for it, and ``op`` the elementwise
family's typed operation (:mod:`ptofuzz.oracles.elementwise`: ``TADD``'s ``+`` ... ``TMIN``'s ``min``, with that
family's per-platform rules for NaNs, signed zeros, integer overflow and subnormals). Outside the valid region
nothing is written: undefined.

Sources:
- ``spec``: pto-spec 0.58 ``asl/tile/reduce-and-expand/{row,column}-expansion/T{ROW,COL}EXPAND{ADD,...}.asl``
  ("exactly the corresponding TADD typed operation": integer width, rounding, exceptional values, signed zeros and
  numeric status), ``asl/tile/model/execution/expansion.asl`` and
  ``asl/tile/model/legality/reduction-and-expansion.asl`` (``TileOperandsLegal_ExecuteTileExpand``): ``src0`` is the
  full-shape source (the destination's physical and valid shape), ``src1`` the broadcast source; TROWEXPAND*'s
  ``src1`` one physical column, the destination's valid rows by one valid column (``b = src1[i, 0]``); TCOLEXPAND*'s
  ``src1`` one valid row of the destination's valid columns at its physical columns (``b = src1[0, j]``). The
  element types of ``TileVecArithmeticDataTypeSupported``, every tile a legal descriptor, a nonzero valid region;
  anything else is Fault_TileLegality (trap 5) before any effect.
- ``documented`` (cpu and the NPUs): pto-isa ``docs/isa/TROWEXPAND{ADD,SUB,MUL,MAX,MIN}.md``: the operand whose
  valid shape is the destination's is the full-shape one, the other the expanded operand (``src1`` when ``src0``
  matches, else ``src0``: the role swap), whose valid rows are the destination's and whose valid columns say the
  mode: one (Mode 1, a ColMajor scalar a row: ``b = s_i``) or ``32 / sizeof(T)`` (Mode 2, a RowMajor 32-byte block
  a row: ``b = b_i[j mod (32 / sizeof(T))]``). Both modes read ``expanded[i, j mod k]`` with ``k`` its valid
  columns; a one-column tile holds the same bytes in either layout. The result keeps the operand order: with the
  swap, ``dst = b op src1`` (TROWEXPANDSUB: ``b - src1``). When both sources have the destination's valid shape
  (``C`` is 1 or ``32 / sizeof(T)``) either reading gives the same element. ``docs/isa/TCOLEXPAND{ADD,...}.md``:
  ``dst[i, j] = src0[i, j] op src1[0, j]``, ``src1`` one scalar a column ("its valid shape must cover C values"),
  ``src0`` the destination's valid shape. Any other geometry has no documented result: "unsupported". An empty
  destination valid region writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, Case, Outcome, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import descriptors, expand
from ptofuzz.oracles.elementwise import SPEC_DTYPES, documented_element, paint, spec_element

__all__ = ["AXIS", "OPS", "SPEC_DTYPES", "cpu", "expanded_role", "npu", "spec", "spec_legality"]

_WORDS = {"ADD": "add", "SUB": "sub", "MUL": "mul", "MAX": "max", "MIN": "min"}
#: mnemonic -> the elementwise operation it applies
OPS = {f"T{axis}EXPAND{w}": op for axis in ("ROW", "COL") for w, op in _WORDS.items()}
#: mnemonic -> its broadcast axis
AXIS = {name: "row" if name.startswith("TROW") else "col" for name in OPS}


def block(dtype: str) -> int:
    """Elements of one 32-byte block: Mode 2's expanded valid columns."""
    return max(1, 32 // get(dtype).itemsize)


def expanded_role(case: Case) -> str | None:
    """The documented expanded operand of ``case`` (module docstring), None when no reading is documented."""
    d, s0, s1 = (case.tile(r) for r in ("dst", "src0", "src1"))
    rows, cols = d.valid
    if AXIS[case.op] == "col":
        covers = s1.valid_rows >= 1 and s1.valid_cols >= cols
        return "src1" if s0.valid == d.valid and covers else None
    modes = (1, block(case.dtype))

    def expands(t: Tile) -> bool:
        return t.valid_rows == rows and t.valid_cols in modes

    if s0.valid == d.valid and expands(s1):
        return "src1"
    if s1.valid == d.valid and expands(s0):
        return "src0"
    return None


def operands(case: Case, inputs: Mapping[str, np.ndarray], expanded: str) -> tuple[np.ndarray, np.ndarray]:
    """``(a, b)`` over the destination's valid region, in operand order: the full-shape operand's elements and the
    broadcast values beside them."""
    rows, cols = case.tile("dst").valid
    if AXIS[case.op] == "col":
        a = inputs["src0"][..., :rows, :cols]
        b = np.broadcast_to(inputs["src1"][..., :1, :cols], a.shape)
        return a, b
    full = "src1" if expanded == "src0" else "src0"
    k = case.tile(expanded).valid_cols
    f = inputs[full][..., :rows, :cols]
    e = inputs[expanded][..., :rows, np.arange(cols) % k]
    return (e, f) if expanded == "src0" else (f, e)


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) when the tiles break pto-spec's rules (module docstring), else None: the
    broadcast source's rules are TROWEXPAND's and TCOLEXPAND's (:func:`ptofuzz.oracles.expand.spec_legality`), and
    the full-shape source must be a legal descriptor of the destination's physical and valid shape."""
    copy = "TROWEXPAND" if AXIS[case.op] == "row" else "TCOLEXPAND"
    d, s0 = case.tile("dst"), case.tile("src0")
    fault = expand.spec_legality(Case(copy, "spec", case.dtype, (("dst", d), ("src", case.tile("src1")))))
    if fault is not None:
        reason = fault.fault.reason if fault.fault is not None else ""
        return Outcome.faulted("Fault_TileLegality", 5, reason.replace(copy, case.op, 1).replace("src:", "src1:"),
                               COMMIT)
    why = ""
    problem = descriptors.problem(s0, get(case.dtype), max_bytes=descriptors.LOCAL_MAX)
    if problem:
        why = f"src0: {problem}"
    elif s0.shape != d.shape:
        why = f"the full-shape source's physical shape {s0.rows}x{s0.cols} is not the destination's {d.rows}x{d.cols}"
    elif s0.valid != d.valid:
        why = (f"the full-shape source's valid shape {s0.valid_rows}x{s0.valid_cols} is not the destination's "
               f"{d.valid_rows}x{d.valid_cols}")
    if not why:
        return None
    return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    fault = spec_legality(case)
    if fault is not None:
        return fault
    a, b = operands(case, inputs, "src1")
    return paint(case, inputs, spec_element(OPS[case.op], a, b, get(case.dtype)), with_flags=True)


def outside_contract(case: Case) -> Outcome | None:
    """"unsupported" when no documented reading fits the geometry (module docstring), else None."""
    if 0 in case.tile("dst").valid or expanded_role(case) is not None:
        return None
    d, s0, s1 = (case.tile(r) for r in ("dst", "src0", "src1"))
    doc = f"docs/isa/{case.op}.md"
    if AXIS[case.op] == "col":
        want = (f"src0 of dst's valid shape {d.valid_rows}x{d.valid_cols} and src1 covering its {d.valid_cols} "
                "columns")
    else:
        want = (f"one source of dst's valid shape {d.valid_rows}x{d.valid_cols}, the other {d.valid_rows} valid "
                f"rows by 1 or {block(case.dtype)} (32 bytes) valid columns")
    return Outcome.unsupported(f"{case.op}: {doc} takes {want}; this case has src0 {s0.valid_rows}x{s0.valid_cols}, "
                               f"src1 {s1.valid_rows}x{s1.valid_cols}")


def _documented(case: Case, inputs: Mapping[str, np.ndarray], *, npu: bool) -> Outcome:
    bad = outside_contract(case)
    if bad is not None:
        return bad
    role = expanded_role(case)
    if role is None or 0 in case.tile("dst").valid:  # an empty destination: nothing is read or written
        return paint(case, inputs, None, with_flags=False)
    a, b = operands(case, inputs, role)
    return paint(case, inputs, documented_element(OPS[case.op], a, b, get(case.dtype), npu=npu), with_flags=False)


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """A2A3 and the A5-like platforms: the vector units' rules for floats (the elementwise family's)."""
    return _documented(case, inputs, npu=True)
