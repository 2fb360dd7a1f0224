"""TROWARGMAX / TROWARGMIN / TCOLARGMAX / TCOLARGMIN: one oracle per platform.

A case has roles ``dst_idx`` (the indices, of the dtype in the case's ``idx`` param), ``src`` (the case's dtype)
and ``dst`` (the values, of the source's type: written only by the value + index form, case param ``val`` 1). A
row reduction writes ``dst_idx[i, 0]`` (and ``dst[i, 0]``) for each valid source row ``i``, a column reduction
``dst_idx[0, j]`` for each valid source column ``j``; every other destination element is not written (undefined).
Inputs are the source bits at its physical shape; a leading batch axis is allowed.

Sources:

* spec: pto-spec 0.58.3 ``ExecuteTileReduction`` (``asl/tile/model/execution/reduction.asl``), the ARGMAX/ARGMIN
  operations: the accumulator starts at the row's (column's) first element with index 0 and folds the rest with
  the typed binary MAX/MIN (``TileReductionStepWithFlags``: the hardware min/max rules,
  :func:`ptofuzz.oracles.ieee.spec_max_min`); an element is *selected* (its index kept) when the result equals it
  bit for bit and differs from the accumulator. So the index is that of the first element holding the extreme
  (equal bits never replace it; of +0 and -0, max selects +0, min -0, as the order key ranks them), NaNs are
  passed over; a row of NaNs only keeps index 0 unless its second element is the canonical NaN and its first is
  not (MAX(NaN, NaN) is the canonical NaN: selected once, then equal to the accumulator). The destination holds
  the index only (no value output), as a 32-bit integer. Legality ``TileOperandsLegal_ExecuteTileReduction``:
  non-empty source valid region, element type ``TileArgReductionSourceDataTypeSupported`` (A9: the 8-, 16- and
  32-bit integers, FP16, BF16, FP32), destination S32 or U32, legal descriptors; a row reduction's destination
  one column of at least the source's valid rows with valid region (valid rows) x 1, a column reduction's the
  source's physical columns with valid region 1 x (valid columns). Anything else is Fault_TileLegality; an sNaN
  in a row of two or more raises NV.
* cpu and the NPUs: ``docs/isa/T{ROW,COL}ARG{MAX,MIN}.md``: ``dst = argmax_j src[i,j]`` (``dstVal`` = the max in
  the value + index form; columns alike). The pages name no rule for ties, NaNs or signed zeros: where the
  extreme value is held by more than one element (numerically equal, +0 and -0 included) the index is
  undefined; a NaN in the row makes index and value undefined; the value of a zero extreme over both signs is
  some zero (class ZERO). Runtime checks: source valid rows and columns nonzero; a row reduction's destination
  valid rows equal the source's; a column reduction's destination one valid row of the source's valid columns.
  Outside them nothing is documented (not modelled). The NPU vector units are not documented on subnormals: an
  element whose index or value a flush of subnormal inputs to zero would change is undefined (a value that is
  zero either way: ZERO).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import COMMIT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee, integer
from ptofuzz.oracles import reduce as values

#: op -> (axis, operation): "row" reduces along columns (one result per row), "col" along rows
OPS = {"TROWARGMAX": ("row", "max"), "TROWARGMIN": ("row", "min"), "TCOLARGMAX": ("col", "max"),
       "TCOLARGMIN": ("col", "min")}
#: the element types pto-spec's arg reductions take (TileArgReductionSourceDataTypeSupported: A9)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")
SPEC_INDEX = ("int32", "uint32")
ROLES = ("dst_idx", "src", "dst")


def _region(case: Case, bits: np.ndarray) -> np.ndarray:
    """The source's valid region with the reduced axis last: (..., outer, inner)."""
    r, c = case.tile("src").valid
    region = bits[..., :r, :c]
    return region if OPS[case.op][0] == "row" else np.swapaxes(region, -1, -2)


def first_extreme(op: str, inner: np.ndarray, dt: DType) -> np.ndarray:
    """The index of the first element holding the extreme of each row (reduced axis last) in the order key (+0
    above -0), NaNs left out (a row of NaNs only: 0)."""
    out, _ = values.reduce_bits(op, inner, dt)
    hit = inner == out[..., None]
    if dt.is_float:
        hit &= ~ieee.is_nan(inner, dt)
    index: np.ndarray = np.argmax(hit, axis=-1)
    return index


def spec_index(op: str, inner: np.ndarray, dt: DType) -> tuple[np.ndarray, bool]:
    """pto-spec's selected index of each row (reduced axis last) and whether NV is raised (an sNaN in a row of
    two or more). See the module docstring for the closed form of the fold."""
    index = first_extreme(op, inner, dt)
    n = inner.shape[-1]
    if not dt.is_float or n < 2:
        return index, False
    nan = ieee.is_nan(inner, dt)
    all_nan = nan.all(axis=-1)
    canonical = np.array(dt.canonical_nan, inner.dtype)
    second = (inner[..., 1] == canonical) & (inner[..., 0] != canonical)
    index = np.where(all_nan, np.where(second, 1, 0), index)
    return index, bool(ieee.is_snan(inner, dt).any())


def _numbers(bits: np.ndarray, dt: DType) -> np.ndarray:
    return ieee.to_float64(bits, dt) if dt.is_float else integer.values(bits, dt).astype(np.float64)


def documented_index(op: str, inner: np.ndarray, dt: DType, *, npu: bool) -> tuple[np.ndarray, np.ndarray]:
    """The pages' argmax/argmin of each row (reduced axis last) with what they leave open classed undefined: a
    tie for the extreme (numerically equal elements, zeros of either sign), a NaN in the row, and on an NPU an
    index a flush of subnormal inputs would change or make a tie. Returns (index, classes)."""
    index = first_extreme(op, inner, dt)
    cls = np.zeros(index.shape, dtype=np.uint8)

    def ties(bits: np.ndarray) -> np.ndarray:
        num = _numbers(bits, dt)
        best = np.take_along_axis(num, first_extreme(op, bits, dt)[..., None], axis=-1)
        tied: np.ndarray = (num == best).sum(axis=-1) > 1
        return tied

    cls[ties(inner)] = UNDEFINED
    if dt.is_float:
        if npu:
            sub = ieee.is_subnormal(inner, dt).any(axis=-1)
            if sub.any():
                flushed = values._flush(inner[sub], dt)
                moved = (first_extreme(op, flushed, dt) != index[sub]) | ties(flushed)
                sub_cls = cls[sub]
                sub_cls[moved] = UNDEFINED
                cls[sub] = sub_cls
        cls[ieee.is_nan(inner, dt).any(axis=-1)] = UNDEFINED
    return index, cls


def paint(case: Case, bits: np.ndarray, index: np.ndarray | None, index_cls: np.ndarray | None,
          val: np.ndarray | None, val_cls: np.ndarray | None) -> Outcome:
    """``dst_idx`` and ``dst`` at their physical shapes: the results along the first column (row reductions) or
    first row (column reductions), undefined elsewhere (``dst`` wholly when ``val`` is None)."""
    lead = bits.shape[:-2]
    row = OPS[case.op][0] == "row"
    outputs, classes = {}, {}
    idx_dt = get(case.param("idx") or "int32")
    for role, dtype, result, rcls in (("dst_idx", np.dtype(idx_dt.bits_dtype), index, index_cls),
                                      ("dst", bits.dtype, val, val_cls)):
        t = case.tile(role)
        out = np.zeros(lead + t.shape, dtype=dtype)
        cls = np.full(lead + t.shape, UNDEFINED, dtype=np.uint8)
        if result is not None and rcls is not None and result.shape[-1]:
            n = result.shape[-1]
            if row:
                out[..., :n, 0] = result.astype(dtype)
                cls[..., :n, 0] = rcls
            else:
                out[..., 0, :n] = result.astype(dtype)
                cls[..., 0, :n] = rcls
        outputs[role], classes[role] = out, cls
    return Outcome(OutcomeKind.OK, outputs=outputs, classes=classes)


def spec_problem(case: Case) -> str:
    """Why pto-spec rejects the case's tiles (TileOperandsLegal_ExecuteTileReduction, ARG*), or ''."""
    dt = get(case.dtype)
    idx = get(case.param("idx") or "int32")
    d, s = case.tile("dst_idx"), case.tile("src")
    if idx.name not in SPEC_INDEX:
        return f"the destination is S32 or U32, not {idx.name}"
    for role, tile, kind, limit in (("dst_idx", d, idx, descriptors.LOCAL_MAX), ("src", s, dt, descriptors.SHARED_MAX)):
        problem = descriptors.problem(tile, kind, max_bytes=limit)
        if problem:
            return f"{role}: {problem}"
    if 0 in s.valid:
        return "an empty source valid region"
    if case.param("val"):
        return "pto-spec's arg reductions write one destination, the indices (no value output)"
    return values.destination_problem(OPS[case.op][0], d, s)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    why = spec_problem(case)
    if why:
        return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)
    bits = inputs["src"]
    index, nv = spec_index(OPS[case.op][1], _region(case, bits), get(case.dtype))
    outcome = paint(case, bits, index, np.zeros(index.shape, dtype=np.uint8), None, None)
    outcome.flags = (ieee.NV,) if nv else ()
    return outcome


def outside_contract(case: Case) -> str:
    """Why the pages define no result for the case's geometry (their runtime checks), or ''."""
    d, s, v = case.tile("dst_idx"), case.tile("src"), case.tile("dst")
    page = f"docs/isa/{case.op}.md"
    if 0 in s.valid:
        return f"{page} requires src valid rows and columns nonzero (src {s.valid_rows}x{s.valid_cols})"
    outs = (d, v) if case.param("val") else (d,)
    if OPS[case.op][0] == "row":
        if any(t.valid_rows != s.valid_rows for t in outs):
            return f"{page} requires dst (dstIdx) valid rows = src valid rows ({s.valid_rows})"
    elif any(t.valid != (1, s.valid_cols) for t in outs):
        return f"{page} requires dst (dstIdx) of one valid row of src's {s.valid_cols} valid columns"
    return ""


def _documented_oracle(case: Case, inputs: Mapping[str, np.ndarray], *, npu: bool) -> Outcome:
    why = outside_contract(case)
    if why:
        return Outcome.unsupported(f"{case.op}: {why}")
    bits = inputs["src"]
    dt = get(case.dtype)
    op = OPS[case.op][1]
    inner = _region(case, bits)
    index, icls = documented_index(op, inner, dt, npu=npu)
    val, vcls = values.documented(op, inner, dt, npu=npu) if case.param("val") else (None, None)
    return paint(case, bits, index, icls, val, vcls)


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented_oracle(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _documented_oracle(case, inputs, npu=True)


ORACLES = {"spec": spec, "cpu": cpu, "a2a3": npu, "a5": npu}  # by implementation (platforms.Platform)
