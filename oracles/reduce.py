"""TROWMAX / TROWMIN / TCOLMAX / TCOLMIN: one oracle per platform.

A case has roles ``dst`` and ``src`` (one element type). A row reduction writes ``dst[i, 0]`` for each valid
source row ``i``, a column reduction ``dst[0, j]`` for each valid source column ``j``; every other destination
element is not written (undefined). Inputs are the source bits at its physical shape; a leading batch axis is
allowed.

Sources:

* spec: pto-spec 0.58.3 ``ExecuteTileReduction`` (``asl/tile/model/execution/reduction.asl``): the accumulator
  starts at the first element of the row (column) and folds the rest with the typed binary MAX/MIN
  (``TileProfileBinaryWithFlags``: the hardware min/max rules, :func:`ptofuzz.oracles.ieee.spec_max_min`).
  Legality ``TileOperandsLegal_ExecuteTileReduction`` (``asl/tile/model/legality``): non-empty source valid
  region, arithmetic element type, the destination of the source's type, a legal descriptor; a row reduction's
  destination has one column, at least as many rows as the source has valid rows, valid region (source valid
  rows) x 1; a column reduction's has the source's physical columns and valid region 1 x (source valid columns).
  Anything else is Fault_TileLegality.
* cpu and the NPUs: ``docs/isa/T{ROW,COL}{MAX,MIN}.md``: ``dst[i,0] = max_j src[i,j]`` (``min``; columns alike).
  The pages name no NaN rule and no sign for a zero maximum of +0 and -0: a reduction over a NaN is undefined,
  a zero result of mixed-sign zeros is some zero (class ZERO). Row reductions require ``src`` valid rows and
  columns nonzero and ``src`` valid rows = ``dst`` valid rows (runtime checks: outside them nothing is
  documented, so such cases are not modelled); a column reduction requires ``src`` valid columns = ``dst`` valid
  columns and returns early (writes nothing) when the source region is empty. The NPU vector units are not
  documented on subnormals: an element whose result a flush of subnormal inputs to zero would change is
  undefined (a zero either way: class ZERO), as for the NPU TMAX/TMIN models.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, UNDEFINED, ZERO, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee, integer

#: op -> (axis, operation): "row" reduces along columns (one result per row), "col" along rows
OPS = {"TROWMAX": ("row", "max"), "TROWMIN": ("row", "min"), "TCOLMAX": ("col", "max"), "TCOLMIN": ("col", "min")}
#: the element types pto-spec's value reductions take (TileVecArithmeticDataTypeSupported)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")


def _region(case: Case, bits: np.ndarray) -> np.ndarray:
    """The source's valid region with the reduced axis last: (..., outer, inner)."""
    r, c = case.tile("src").valid
    region = bits[..., :r, :c]
    return region if OPS[case.op][0] == "row" else np.swapaxes(region, -1, -2)


def _key(bits: np.ndarray, dt: DType) -> np.ndarray:
    """A monotone unsigned key of the numeric order (NaNs not excluded: callers mask them)."""
    if dt.is_float:
        return ieee.order_key(bits, dt)
    return integer.values(bits, dt)


def reduce_bits(op: str, inner: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """The numeric max/min of each row of ``inner`` (reduced axis last), NaNs left out, as bits: the element
    itself (of two zeros +0 is the larger, -0 the smaller; equal values are the same bits). Returns (bits,
    whether the row held only NaNs)."""
    key = _key(inner, dt)
    nan = ieee.is_nan(inner, dt) if dt.is_float else np.zeros(inner.shape, dtype=bool)
    if op == "max":
        masked = np.where(nan, np.zeros((), key.dtype), key) if dt.is_float else key
        pick = np.argmax(masked, axis=-1)
    else:
        top = np.array(np.iinfo(key.dtype).max if key.dtype.kind in "iu" else np.inf, key.dtype)
        masked = np.where(nan, top, key) if dt.is_float else key
        pick = np.argmin(masked, axis=-1)
    out = np.take_along_axis(inner, pick[..., None], axis=-1)[..., 0]
    all_nan = np.asarray(nan.all(axis=-1))
    return out, all_nan


def spec_fold(op: str, inner: np.ndarray, dt: DType) -> tuple[np.ndarray, bool]:
    """pto-spec's fold of each row (reduced axis last): the hardware min/max of the accumulator and the next
    element from the first on. A NaN is passed over; a row of NaNs only gives its one element (a single
    column: no step) or the canonical NaN. Returns (bits, NV raised: an sNaN in a row of two or more)."""
    out, all_nan = reduce_bits(op, inner, dt)
    if not dt.is_float:
        return out, False
    n = inner.shape[-1]
    if n > 1:
        out = np.where(all_nan, np.array(dt.canonical_nan, out.dtype), out)
    nv = bool(n > 1 and ieee.is_snan(inner, dt).any())
    return out, nv


def _flush(bits: np.ndarray, dt: DType) -> np.ndarray:
    return np.where(ieee.is_subnormal(bits, dt), bits & np.array(dt.sign_mask, bits.dtype), bits)


def documented(op: str, inner: np.ndarray, dt: DType, *, npu: bool) -> tuple[np.ndarray, np.ndarray]:
    """The pages' max/min of each row (reduced axis last) with what they leave open classed: any NaN in the row
    undefined; a zero result over zeros of both signs ZERO; on an NPU, a result that flushing subnormal inputs
    would change undefined (ZERO when both are zeros). Returns (bits, classes)."""
    out, _ = reduce_bits(op, inner, dt)
    cls = np.zeros(out.shape, dtype=np.uint8)
    if not dt.is_float:
        return out, cls
    zero = ieee.is_zero(inner, dt)
    neg = ieee.is_negative(inner, dt)
    mixed = (zero & neg).any(axis=-1) & (zero & ~neg).any(axis=-1) & ieee.is_zero(out, dt)
    cls[mixed] = ZERO
    if npu:
        sub = ieee.is_subnormal(inner, dt).any(axis=-1)
        if sub.any():
            flushed, _ = reduce_bits(op, _flush(inner[sub], dt), dt)
            changed = flushed != out[sub]
            both_zero = ieee.is_zero(flushed, dt) & ieee.is_zero(out[sub], dt)
            sub_cls = cls[sub]
            sub_cls[changed & both_zero] = ZERO
            sub_cls[changed & ~both_zero] = UNDEFINED
            cls[sub] = sub_cls
    cls[ieee.is_nan(inner, dt).any(axis=-1)] = UNDEFINED
    return out, cls


def paint(case: Case, bits: np.ndarray, result: np.ndarray | None, classes: np.ndarray | None) -> Outcome:
    """``dst`` at its physical shape: the results along its first column (row reductions) or first row (column
    reductions), undefined elsewhere."""
    d = case.tile("dst")
    shape = bits.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=bits.dtype)
    cls = np.full(shape, UNDEFINED, dtype=np.uint8)
    if result is not None and classes is not None and result.shape[-1]:
        n = result.shape[-1]
        if OPS[case.op][0] == "row":
            out[..., :n, 0] = result
            cls[..., :n, 0] = classes
        else:
            out[..., 0, :n] = result
            cls[..., 0, :n] = classes
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": cls})


def destination_problem(axis: str, d: Tile, s: Tile) -> str:
    """pto-spec's destination rule of a row (``axis`` "row") or column reduction, or '': one column of at least
    the source's valid rows, valid ``rows x 1``; one row of the source's columns, valid ``1 x cols``."""
    if axis == "row":
        if d.cols != 1 or d.rows < s.valid_rows or d.valid != (s.valid_rows, 1):
            return (f"a row reduction's destination is one column of at least the source's valid rows with valid "
                    f"region {s.valid_rows}x1 (dst {d.rows}x{d.cols}, valid {d.valid_rows}x{d.valid_cols})")
    elif d.cols != s.cols or d.valid != (1, s.valid_cols):
        return (f"a column reduction's destination has the source's {s.cols} columns and valid region "
                f"1x{s.valid_cols} (dst {d.rows}x{d.cols}, valid {d.valid_rows}x{d.valid_cols})")
    return ""


def spec_problem(case: Case) -> str:
    """Why pto-spec rejects the case's tiles (TileOperandsLegal_ExecuteTileReduction), or ''."""
    dt = get(case.dtype)
    d, s = case.tile("dst"), case.tile("src")
    for role, tile, limit in (("dst", d, descriptors.LOCAL_MAX), ("src", s, descriptors.SHARED_MAX)):
        problem = descriptors.problem(tile, dt, max_bytes=limit)
        if problem:
            return f"{role}: {problem}"
    if 0 in s.valid:
        return "an empty source valid region"
    return destination_problem(OPS[case.op][0], d, s)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    why = spec_problem(case)
    if why:
        return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)
    dt = get(case.dtype)
    bits = inputs["src"]
    out, nv = spec_fold(OPS[case.op][1], _region(case, bits), dt)
    outcome = paint(case, bits, out, np.zeros(out.shape, dtype=np.uint8))
    outcome.flags = (ieee.NV,) if nv else ()
    return outcome


def outside_contract(case: Case) -> str:
    """Why the pages define no result for the case's geometry (their runtime checks), or ''."""
    d, s = case.tile("dst"), case.tile("src")
    if OPS[case.op][0] == "row":
        if 0 in s.valid:
            return f"docs/isa/{case.op}.md requires src valid rows and columns nonzero (src {s.valid_rows}x" \
                   f"{s.valid_cols})"
        if d.valid_rows != s.valid_rows or d.cols < 1:
            return f"docs/isa/{case.op}.md requires src valid rows = dst valid rows ({s.valid_rows} against " \
                   f"{d.valid_rows})"
    elif d.valid_cols != s.valid_cols and 0 not in s.valid:
        return f"docs/isa/{case.op}.md requires src valid columns = dst valid columns ({s.valid_cols} against " \
               f"{d.valid_cols})"
    return ""


def _documented_oracle(case: Case, inputs: Mapping[str, np.ndarray], *, npu: bool) -> Outcome:
    why = outside_contract(case)
    if why:
        return Outcome.unsupported(f"{case.op}: {why}")
    bits = inputs["src"]
    if 0 in case.tile("src").valid:  # a column reduction of an empty region returns early
        return paint(case, bits, None, None)
    out, cls = documented(OPS[case.op][1], _region(case, bits), get(case.dtype), npu=npu)
    return paint(case, bits, out, cls)


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented_oracle(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented_oracle(case, inputs, npu=True)


ORACLES = {"spec": spec, "cpu": cpu, "a2a3": npu, "a5": npu}  # by implementation (platforms.Platform)
