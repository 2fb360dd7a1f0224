"""TQUANT: quantization of an FP32/BF16/FP16 tile, on raw bits. This module holds the INT8 (affine) family.

INT8 (``docs/isa/TQUANT.md``): roles ``dst`` (int8 for INT8_SYM, uint8 for INT8_ASYM: the case's ``to``), ``src``
(float32), ``scale`` and ``offset`` (float32 parameter tiles; SYM reads no offset).

``documented`` (cpu and the NPUs), TQUANT.md:33-37 and 88-91: ``q = round(x / scale) + offset`` with the offset
only for ASYM, ``q`` in the destination's range. What the page fixes and what it leaves open:

- ``round``: the page names no mode; type-system.md's rounding row gives ``rne`` as the default: ties to even.
- ``x / scale``: the page's formula is a real quotient, its implementation paragraph (TQUANT.md:37) an FP32
  cast chain from the FP32 quotient. The two readings (round the exact quotient; round its FP32 rounding) agree
  except where the FP32 rounding lands on or crosses a half: there the element is ``undefined``.
- ``scale`` and ``offset`` are "per-tile FP32 scalars/vectors" (TQUANT.md:37, 125-126): a parameter tile of one
  valid row is the tile's scalar, read by every row; otherwise row ``i`` reads row ``i`` (column 0), and a row
  past the parameter tile's valid rows is ``undefined``.
- The range: TQUANT.md:35 bounds ``q`` to [-128, 127] (the int8 destination; uint8's [0, 255] for ASYM, whose
  destination the table at 88-91 makes uint8) and gives no rule for a value beyond it (saturate or wrap): such
  an element is ``undefined``. So is one whose offset is not an integer (the sum is no integer), and one whose
  quotient is not finite (a zero, infinite or NaN scale, an infinite or NaN source).
- On the NPUs (type-system.md: A2/A3 and A5 flush denormals by default) an element whose source, scale or FP32
  quotient is subnormal is ``undefined``.
Outside the valid region: undefined.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import get
from ptofuzz.oracles import ieee, memo

F32 = get("float32")
TO = "to"
INT8 = ("int8", "uint8")  # INT8_SYM, INT8_ASYM destinations
RANGE = {"int8": (-128, 127), "uint8": (0, 255)}


def parameter_rows(case: Case, role: str, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The parameter row each of ``rows`` destination rows reads, and whether the page defines it: a one-row
    parameter tile is the scalar of every row; otherwise row ``i`` reads row ``i`` while it is valid."""
    vr = case.tile(role).valid_rows
    i = np.arange(rows)
    if vr == 1:
        return np.zeros(rows, dtype=np.int64), np.ones(rows, dtype=bool)
    return np.minimum(i, max(vr - 1, 0)), i < vr


def rne_quotient(x: np.ndarray, s: np.ndarray) -> np.ndarray:
    """round-half-even(x / s) of float64 copies of float32 values, exactly (finite ``x``, finite nonzero ``s``,
    ``|x / s| < 2**20``): the float64 quotient's integer, corrected where the exact quotient lies on or past the
    half on either side (``x - (k +- 1/2) * s`` is exact in float64, or at least exact in its sign)."""
    neg = s < 0
    x, s = np.where(neg, -x, x), np.abs(s)
    k = np.rint(x / s)
    hi = x - (k + 0.5) * s
    lo = x - (k - 0.5) * s
    odd = np.floor(k * 0.5) * 2 != k  # a tie goes to the even one of k and its neighbour
    up = (hi > 0) | ((hi == 0) & odd)  # on or past k + 1/2 (then lo > 0)
    down = (lo < 0) | ((lo == 0) & odd)  # on or below k - 1/2 (then hi < 0)
    out: np.ndarray = k + up - down
    return out


CHUNK = 1 << 15  # source elements quantized at a time


def int8_outcome(case: Case, inputs: Mapping[str, np.ndarray], npu: bool) -> Outcome:
    """The INT8 forms' outcome; a batch (inputs stacked on a leading axis) in cache-sized pieces, whose float64
    temporaries stay in the cache (each element's result is its own)."""
    src = np.asarray(inputs["src"])
    step = max(1, CHUNK // max(src.shape[-1] * src.shape[-2], 1))
    if src.ndim != 3 or len(src) <= step:
        return _int8_outcome(case, inputs, npu)
    parts = [_int8_outcome(case, {k: np.asarray(v)[at:at + step] for k, v in inputs.items()}, npu)
             for at in range(0, len(src), step)]
    return Outcome(OutcomeKind.OK, outputs={"dst": np.concatenate([p.outputs["dst"] for p in parts])},
                   classes={"dst": np.concatenate([p.classes["dst"] for p in parts])})


_MEMO = memo.Memo("tquant_shared")
#: the instruction's shared context: cpu and the NPUs divide the same elements once (only the classing differs)
shared_work = _MEMO.scope


def _quotients(src: np.ndarray, scale: np.ndarray, rows: int, cols: int, prow: np.ndarray
               ) -> tuple[np.ndarray, ...]:
    """(source bits, scale bits, the FP32 quotient, round-half-even of the exact quotient, where it is defined
    and the FP32 quotient rounds to it) of the valid region; inside :func:`shared_work` once per region of
    memory (the results are read only)."""
    def compute() -> tuple[np.ndarray, ...]:
        xb = src[..., :rows, :cols].astype(np.uint32)
        sb = scale[..., prow, :1].astype(np.uint32)
        x32, s32 = xb.view(np.float32), np.broadcast_to(sb.view(np.float32), xb.shape)
        with np.errstate(all="ignore"):
            q32 = x32 / s32  # the FP32 quotient (IEEE, round to nearest even)
            x, s = x32.astype(np.float64), s32.astype(np.float64)
            finite = np.isfinite(x) & np.isfinite(s) & (s != 0) & np.isfinite(q32)
            ok = finite & (np.abs(x) < 2.0 ** 20 * np.abs(np.where(s == 0, 1.0, s)))
            xs, ss = np.where(ok, x, 0.0), np.where(ok, s, 1.0)
            k = rne_quotient(xs, ss)
            ok &= np.rint(np.where(ok, q32, 0).astype(np.float64)) == k
        return xb, sb, q32, k, ok

    return _MEMO.get((src, scale), (rows, cols, prow.tobytes()), compute)


def _int8_outcome(case: Case, inputs: Mapping[str, np.ndarray], npu: bool) -> Outcome:
    to = case.param(TO)
    d = case.tile("dst")
    rows, cols = d.valid
    src = np.asarray(inputs["src"])
    lead = src.shape[:-2]
    prow, defined_row = parameter_rows(case, "scale", rows)
    scale = np.asarray(inputs["scale"])
    xb, sb, q32, k, ok = _quotients(src, scale, rows, cols, prow)
    defined = ok & defined_row[:, None]
    if to == "uint8":
        orow, odef = parameter_rows(case, "offset", rows)
        o = np.broadcast_to(np.asarray(inputs["offset"])[..., orow, :1].astype(np.uint32).view(np.float32)
                            .astype(np.float64), k.shape)
        with np.errstate(all="ignore"):
            integral = np.isfinite(o) & (np.floor(o) == o) & (np.abs(o) < 2.0 ** 20)
        k = k + np.where(integral, o, 0.0)
        defined &= integral & odef[:, None]
    lo, hi = RANGE[to]
    defined &= (k >= lo) & (k <= hi)
    if npu:
        quotient = q32.view(np.uint32)
        tiny = ieee.is_subnormal(xb, F32) | ieee.is_subnormal(np.broadcast_to(sb, xb.shape), F32) | \
            ieee.is_subnormal(quotient, F32)
        defined &= ~tiny
    value = np.where(defined, k, 0).astype(np.int64).astype(np.uint8)
    out = np.zeros((*lead, *d.shape), dtype=np.uint8)
    classes = np.full((*lead, *d.shape), UNDEFINED, dtype=np.uint8)
    out[..., :rows, :cols] = value
    classes[..., :rows, :cols] = np.where(defined, np.uint8(EXACT), np.uint8(UNDEFINED))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def multiplied(case: Case, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """What pto-isa's INT8 goldens and kernels compute instead (not a model: :func:`explain` names it): the
    source times the scale operand in FP32, plus the offset in FP32 (ASYM), rounded half to even, clamped to the
    destination's range; the valid region's bytes."""
    rows, cols = case.tile("dst").valid
    x = np.asarray(inputs["src"])[:rows, :cols].astype(np.uint32).view(np.float32)
    prow, _ = parameter_rows(case, "scale", rows)
    s = np.asarray(inputs["scale"])[prow, :1].astype(np.uint32).view(np.float32)
    with np.errstate(all="ignore"):
        y = x * s
        if case.param(TO) == "uint8":
            orow, _ = parameter_rows(case, "offset", rows)
            y = y + np.asarray(inputs["offset"])[orow, :1].astype(np.uint32).view(np.float32)
        lo, hi = RANGE[case.param(TO)]
        r = np.clip(np.nan_to_num(np.rint(y.astype(np.float64)), nan=0.0), lo, hi)
    out: np.ndarray = r.astype(np.int64).astype(np.uint8)
    return out


def with_unused(case: Case, outcome: Outcome, lead: tuple[int, ...]) -> Outcome:
    """``outcome`` with the roles an INT8 case does not write (the MX forms' codes, exponents, scalings,
    indices): undefined."""
    from ptofuzz.oracles import mx

    types: dict[str, type[np.generic]] = {**mx.ROLE_TYPES, "max_dn": np.uint32}
    for role, dt in types.items():
        if role == "dst":
            continue
        t = case.tile(role)
        outcome.outputs[role] = np.zeros((*lead, *t.shape), dtype=dt)
        outcome.classes[role] = np.full((*lead, *t.shape), UNDEFINED, dtype=np.uint8)
    return outcome


def _quantize(case: Case, inputs: Mapping[str, np.ndarray], npu: bool) -> Outcome:
    from ptofuzz.oracles import hif4, mx

    if case.platform == "a6" or case.param(TO) == hif4.HIF4:
        if case.platform != "a6" or case.param(TO) != hif4.HIF4:
            return Outcome.unsupported(f"TQUANT to {case.param(TO)} on {case.platform}: HiFloat4 (e1m2 codes) is "
                                       "a6's (TQUANT_HIF4.md), and TQUANT.md names no other a6 form")
        return hif4.quantize(case, inputs)
    lead = np.asarray(inputs["src"]).shape[:-2]
    if case.param(TO) in INT8:
        return with_unused(case, int8_outcome(case, inputs, npu), lead)
    if case.param(TO) not in mx.FORMATS or case.platform != "a5":
        return Outcome.unsupported(f"TQUANT to {case.param(TO)}: {case.platform} quantizes to int8 or uint8 "
                                   "(TQUANT.md:163: microscaling on A5 only)")
    return mx.quantize(case, inputs, npu)


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _quantize(case, inputs, npu=False)


def npu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return _quantize(case, inputs, npu=True)
