"""TPARTADD / TPARTMUL / TPARTMAX / TPARTMIN: one oracle per platform.

Each oracle takes a :class:`~ptofuzz.core.case.Case` (roles ``dst``, ``src0``, ``src1``; optional param ``inplace``)
and the source bits at their physical tile shapes (a leading batch axis is allowed), and returns an
:class:`~ptofuzz.core.case.Outcome` whose ``dst`` output has the dst tile's physical shape. Dtype support is checked
by the registry before an oracle runs (see ``ptofuzz/instructions/tpart.py``).

Sources: pto-spec 0.58.3 ``asl/tile/model/execution/complex.asl`` with the legality of
``asl/tile/model/legality/indexed-layout.asl`` and ``allocation-capacity.asl`` (spec); pto-isa
``include/pto/cpu/TPartOp.hpp``, ``include/pto/npu/a2a3/TPartOp.hpp``, ``include/pto/npu/a5/TPartBinOps.hpp`` and
``Int64Reduce.hpp`` with their ``TPart{Add,Mul,Max,Min}.hpp`` (cpu, a2a3, a5).

In-place (``inplace`` = ``src0``/``src1``: the destination is that source tile) changes no result on any
platform: every implementation reads an element (or a whole vector) before writing it at the same offset, and
the spec reads all sources before publishing.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import COMMIT, EXACT, NAN, UNDEFINED, ZERO, Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee, integer

OPS = {"TPARTADD": "add", "TPARTMUL": "mul", "TPARTMAX": "max", "TPARTMIN": "min"}
#: the element types pto-spec's TPART* take (any other is Fault_TileLegality)
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "int16", "int8", "uint32", "uint16", "uint8")

# (result bits, class codes, flag arrays) computed on every element of the aligned operands.
ElementResult = tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]  # result bits, element classes, flags
ElementOp = Callable[[str, np.ndarray, np.ndarray, DType], ElementResult]


def _region(valid: tuple[int, int], rows: int, cols: int) -> np.ndarray:
    r = np.arange(rows)[:, None] < valid[0]
    c = np.arange(cols)[None, :] < valid[1]
    return r & c


def _aligned(bits: np.ndarray, tile: Tile, rows: int, cols: int) -> np.ndarray:
    """The source's elements placed on the destination's (rows, cols) grid; zeros where it has none."""
    out = np.zeros(bits.shape[:-2] + (rows, cols), dtype=bits.dtype)
    r, c = min(rows, tile.rows), min(cols, tile.cols)
    out[..., :r, :c] = bits[..., :r, :c]
    return out


def _partial(case: Case, inputs: Mapping[str, np.ndarray], element_op: ElementOp, *, neither: int | None,
             with_flags: bool) -> Outcome:
    """The common TPART* kernel over the destination valid region.

    Covered by both sources: ``element_op``; by one: a bit copy of that source; by neither: zero bits
    (``neither=EXACT``, the cpu simulator) or undefined (``neither=None``). Outside the destination valid
    region every element is undefined (Null padding / not written). All regions are origin-anchored
    rectangles, so the result is painted: neither, then src1's region, then src0's, then the overlap.
    """
    dt = get(case.dtype)
    d = case.tile("dst")
    R, C = d.valid
    (r0, c0), (r1, c1), (rb, cb) = covered(case)
    a, b = inputs["src0"], inputs["src1"]
    shape = a.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=a.dtype)
    classes = np.full(shape, UNDEFINED, dtype=np.uint8)
    classes[..., :R, :C] = UNDEFINED if neither is None else neither
    out[..., :r1, :c1] = b[..., :r1, :c1]
    classes[..., :r1, :c1] = EXACT
    out[..., :r0, :c0] = a[..., :r0, :c0]
    classes[..., :r0, :c0] = EXACT
    raised: tuple[str, ...] | None = () if with_flags else None
    if rb and cb:
        memo = _SHARED.get()
        key = _memo_key(element_op, case, dt, a, b, rb, cb)
        if memo is None or key not in memo:
            result = element_op(OPS[case.op], a[..., :rb, :cb], b[..., :rb, :cb], dt)
            if memo is not None:
                memo[key] = (result, a, b)  # a and b stay alive, so their ids name them for the memo's life
        else:
            result = memo[key][0]
        res, cls, flags = result  # read only: copied into the outcome below
        out[..., :rb, :cb] = res
        classes[..., :rb, :cb] = cls
        if with_flags:
            raised = tuple(name for name in ieee.FLAG_ORDER if name in flags and bool(np.any(flags[name])))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=raised)


def covered(case: Case) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    """The parts of the destination valid region that src0, src1 and both cover (origin-anchored)."""
    d, t0, t1 = case.tile("dst"), case.tile("src0"), case.tile("src1")
    R, C = d.valid
    r0, c0 = min(t0.valid_rows, R), min(t0.valid_cols, C)
    r1, c1 = min(t1.valid_rows, R), min(t1.valid_cols, C)
    return (r0, c0), (r1, c1), (min(r0, r1), min(c0, c1))


def _memo_key(element_op: ElementOp, case: Case, dt: DType, a: np.ndarray, b: np.ndarray, rb: int, cb: int
              ) -> tuple[Any, ...]:
    return (element_op, case.op, dt.name, id(a), id(b), rb, cb)


_SHARED: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar("tpart_shared", default=None)


@contextlib.contextmanager
def shared_work(batch: Sequence[tuple[Case, Mapping[str, np.ndarray]]] = ()) -> Iterator[None]:
    """Within this context the TPART* oracles share element-operation results on the same inputs (a2a3 and a5
    run the same vector operations): one case evaluated on several platforms pays for them once. Inputs must
    not change inside the context.

    ``batch`` lists (case, inputs) pairs about to be evaluated (2-D inputs, each case on its own platform):
    their element operations run up front as one vectorized call per (platform, op, dtype) over the
    concatenated operand blocks, so that each oracle afterwards only paints. The operations are elementwise,
    so concatenation changes no element's result.
    """
    token = _SHARED.set({})
    try:
        if batch:
            _prime(batch)
        yield
    finally:
        _SHARED.reset(token)


def _prime(batch: Sequence[tuple[Case, Mapping[str, np.ndarray]]]) -> None:
    memo = _SHARED.get()
    assert memo is not None
    items = []
    for case, inputs in batch:
        a, b = inputs["src0"], inputs["src1"]
        if a.ndim != 2 or b.ndim != 2:
            continue  # stacked inputs (fuzz batches): nothing to share
        if platforms.get(case.platform).implementation == "a5" and get(case.dtype).bits == 64:
            continue  # a5's Int64Part path: nothing to share
        rb, cb = covered(case)[2]
        if rb and cb:
            items.append((case, a, b, rb, cb))
    results = _element_op_many([(case, a[:rb, :cb], b[:rb, :cb]) for case, a, b, rb, cb in items])
    for (case, a, b, rb, cb), part in zip(items, results):
        memo[_memo_key(element_op_of(case.platform), case, get(case.dtype), a, b, rb, cb)] = (part, a, b)


def _element_op_many(operands: Sequence[tuple[Case, np.ndarray, np.ndarray]]
                     ) -> list[tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]]:
    """Each ``(case, a, b)``'s element operation (its platform's, its op, its dtype), as one vectorized call
    per (platform, op, dtype) over the concatenated operands (the operations are elementwise); each pair's
    (result, classes, flags) in its operands' shape, in the given order."""
    groups: dict[tuple[str, str, str], list[int]] = {}
    for k, (case, _, _) in enumerate(operands):
        groups.setdefault((case.platform, case.op, case.dtype), []).append(k)
    out: list[Any] = [None] * len(operands)
    for (platform, op, dtype), ks in groups.items():
        res, cls, flags = element_op_of(platform)(OPS[op], np.concatenate([operands[k][1].ravel() for k in ks]),
                                                np.concatenate([operands[k][2].ravel() for k in ks]), get(dtype))
        start = 0
        for k in ks:
            shape = operands[k][1].shape
            end = start + operands[k][1].size
            out[k] = (res[start:end].reshape(shape), cls[start:end].reshape(shape),
                      {name: v[start:end].reshape(shape) for name, v in flags.items()})
            start = end
    return out


def _exact(shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape, dtype=np.uint8)


# ---------------------------------------------------------------------------------------------------------
# Element operations per platform


def spec_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """pto-spec typed operations: wrap for integers; IEEE RNE + canonical NaN for float add/mul; hardware
    min/max rules for floats. All results exact; status flags per element."""
    if not dt.is_float:
        res = integer.add_mul(op, a, b, dt) if op in ("add", "mul") else integer.max_min(op, a, b, dt)
        return res, _exact(res.shape), {}
    if op in ("add", "mul"):
        res, flags = ieee.add_mul(op, a, b, dt)
        return res, _exact(res.shape), flags
    res, nv = ieee.spec_max_min(op, a, b, dt)
    return res, _exact(res.shape), {ieee.NV: nv}


def cpu_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """pto-isa cpu simulator, as ``docs/isa/TPART*.md`` describe it (the formula, nothing more), computed on the
    host.

    Integers wrap (promoted to int, truncated on store). Float add/mul are IEEE RNE (half and bf16 are
    evaluated in float and rounded once, which is the correctly rounded result); a NaN result is a NaN whose
    sign and payload depend on the host FPU and the compiler's operand order, so only "NaN" is expected.
    max/min: the pages say ``max(src0, src1)`` and no more, so a NaN operand leaves the element undefined and
    mixed zeros give some zero (what the simulator's ``std::max``/``std::min`` happen to return there is not
    the golden); otherwise the larger (smaller) operand, bit for bit.
    """
    if not dt.is_float:
        return spec_element(op, a, b, dt)
    if op in ("add", "mul"):
        res, _, nan = ieee.add_mul_fast(op, a, b, dt)
        return res, nan.astype(np.uint8) * np.uint8(NAN), {}
    res, _ = ieee.spec_max_min(op, a, b, dt)  # placeholder bits where the class is not exact
    zero = ieee.is_zero(a, dt) & ieee.is_zero(b, dt) & (a != b)
    cls = np.where(ieee.is_nan(a, dt) | ieee.is_nan(b, dt), np.uint8(UNDEFINED),
                   np.where(zero, np.uint8(ZERO), np.uint8(EXACT)))
    return res, cls.astype(np.uint8), {}


def _flush(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Subnormals replaced by a zero of the same sign (what a flush-to-zero unit would see)."""
    return np.where(ieee.is_subnormal(bits, dt), bits & np.array(dt.sign_mask, bits.dtype), bits)


def _npu_add_mul_undefined(op: str, a: np.ndarray, b: np.ndarray, res: np.ndarray, exact: np.ndarray,
                           nan: np.ndarray, dt: DType) -> np.ndarray:
    """Which NPU float add/mul results are undefined: tiny before rounding, overflow from finite operands, or
    changed by flushing subnormal operands to zero (never a NaN result: that is class NAN)."""
    magnitude = np.abs(exact)
    # a float32 product of tiny bfloat16s may underflow to 0; the exact one is nonzero iff both factors are
    nonzero = (magnitude > 0) if op == "add" else ~ieee.is_zero(a, dt) & ~ieee.is_zero(b, dt)
    undefined = nonzero & (magnitude < ieee.min_normal(dt))  # tiny before rounding
    # overflow: an infinite result of finite operands (judged on the rounded result: a float16 sum can be
    # finite in float32 and still round to inf)
    undefined |= ieee.is_inf(res, dt) & ~ieee.is_inf(a, dt) & ~ieee.is_inf(b, dt)
    sub = ieee.is_subnormal(a, dt) | ieee.is_subnormal(b, dt)
    if sub.any():  # flushing subnormal operands would change the result
        flushed = ieee.add_mul_fast(op, _flush(a[sub], dt), _flush(b[sub], dt), dt)[0]
        undefined[sub] |= flushed != res[sub]
    return undefined & ~nan


def npu_element(op: str, a: np.ndarray, b: np.ndarray, dt: DType) -> ElementResult:
    """a2a3 / a5 vector units (vadd/vmul/vmax/vmin), as far as pto-isa documents them.

    Known: float add/mul round to nearest even; a NaN result is some NaN; max/min of mixed-sign zeros is some
    zero. Not documented, so undefined where it matters: integer overflow of add/mul (wrap or saturate),
    float overflow from finite operands (inf or saturation), subnormals (an element is undefined when flushing
    subnormal operands to zero would change its result, or when the result is tiny before rounding), max/min
    with a NaN operand. The placeholder bits under those classes are the IEEE result.
    """
    if not dt.is_float:
        res = integer.add_mul(op, a, b, dt) if op in ("add", "mul") else integer.max_min(op, a, b, dt)
        cls = _exact(res.shape)
        if op in ("add", "mul") and dt.bits <= 32:
            cls = np.where(integer.overflows(op, a, b, dt), np.uint8(UNDEFINED), cls).astype(np.uint8)
        return res, cls, {}
    if op in ("add", "mul"):
        res, exact, nan = ieee.add_mul_fast(op, a, b, dt)
        # Only elements with a zero, subnormal, non-finite or tiny-or-huge operand or result can be undefined:
        # screen for them cheaply, then classify just those.
        magnitude = np.abs(exact)
        suspect = ~(magnitude >= ieee.min_normal(dt)) | ((res & dt.exp_mask) == dt.exp_mask)
        suspect |= ((a & dt.exp_mask) == 0) | ((b & dt.exp_mask) == 0)
        cls = nan.view(np.uint8)  # EXACT 0, NAN 1: the NaN mask is already the class array
        where = np.nonzero(suspect)
        if where[0].size:
            cls[where] = np.where(_npu_add_mul_undefined(op, a[where], b[where], res[where], exact[where],
                                                         nan[where], dt), np.uint8(UNDEFINED), cls[where])
        return res, cls, {}
    subnormal = ieee.is_subnormal(a, dt) | ieee.is_subnormal(b, dt)
    where = np.nonzero(subnormal)  # usually few: only those elements are recomputed with flushed operands
    res, _ = ieee.spec_max_min(op, a, b, dt)
    flushed = res.copy()
    if where[0].size:
        flushed[where] = ieee.spec_max_min(op, _flush(a[where], dt), _flush(b[where], dt), dt)[0]
    zero_result = ieee.is_zero(res, dt) & ieee.is_zero(flushed, dt)
    cls = np.where(zero_result & ((res != flushed) | (ieee.is_zero(a, dt) & ieee.is_zero(b, dt) & (a != b))),
                   np.uint8(ZERO), np.uint8(EXACT))
    undefined = ieee.is_nan(a, dt) | ieee.is_nan(b, dt) | ((flushed != res) & ~zero_result)
    return res, np.where(undefined, np.uint8(UNDEFINED), cls).astype(np.uint8), {}


# ---------------------------------------------------------------------------------------------------------
# Oracles


def _fits(inner: tuple[int, int], outer: tuple[int, int]) -> bool:
    return inner[0] <= outer[0] and inner[1] <= outer[1]


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-spec 0.58.3 ``ExecuteTilePartial`` (``asl/tile/model/execution/complex.asl``; coverage
    ``TilePartialCoverageLegal`` in ``asl/tile/model/legality/allocation-capacity.asl``).

    Legal only with a non-empty destination valid region, non-empty sources that each fit inside it, at least
    one source covering it whole, and sources that are legal descriptors (power-of-two columns, 128 B * 2**k);
    anything else is Fault_TileLegality (trap 5) before any effect. Then the destination is allocated: one that
    is no legal descriptor is Fault_TileAllocation (also trap 5). Both are raised when the block commits.
    """
    fault = spec_legality(case)
    if fault is not None:
        return fault
    bad_dst = descriptors.problem(case.tile("dst"), get(case.dtype), max_bytes=descriptors.LOCAL_MAX)
    if bad_dst:
        return Outcome.faulted("Fault_TileAllocation", 5, f"destination: {bad_dst}", COMMIT)
    return _partial(case, inputs, spec_element, neither=None, with_flags=True)


def spec_legality(case: Case) -> Outcome | None:
    """The partial schema (``asl/block/model/dispatch/partial-schema.asl``): the Fault_TileLegality a TPART*
    case raises at commit before its destination is allocated, or None (only the destination's valid region
    is read)."""
    dt = get(case.dtype)
    d, s0, s1 = case.tile("dst").valid, case.tile("src0").valid, case.tile("src1").valid
    if 0 in d:
        return Outcome.faulted("Fault_TileLegality", 5, f"destination valid region {d[0]}x{d[1]} is empty", COMMIT)
    for role, s in (("src0", s0), ("src1", s1)):
        if 0 in s:
            return Outcome.faulted("Fault_TileLegality", 5, f"{role} valid region {s[0]}x{s[1]} is empty", COMMIT)
        if not _fits(s, d):
            return Outcome.faulted("Fault_TileLegality", 5,
                                   f"{role} valid region {s[0]}x{s[1]} exceeds the destination {d[0]}x{d[1]}",
                                   COMMIT)
    if s0 != d and s1 != d:
        return Outcome.faulted("Fault_TileLegality", 5,
                               f"neither source covers the destination {d[0]}x{d[1]} "
                               f"(src0 {s0[0]}x{s0[1]}, src1 {s1[0]}x{s1[1]})", COMMIT)
    for role in ("src0", "src1"):
        bad = descriptors.problem(case.tile(role), dt, max_bytes=descriptors.SHARED_MAX)
        if bad:
            return Outcome.faulted("Fault_TileLegality", 5, f"{role}: {bad}", COMMIT)
    return None


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-isa cpu simulator (TPartOp.hpp): no geometry check at all; neither source valid writes 0."""
    return _partial(case, inputs, cpu_element, neither=EXACT, with_flags=False)


def _one_is_dst(case: Case) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]] | None:
    d, s0, s1 = case.tile("dst").valid, case.tile("src0").valid, case.tile("src1").valid
    if s0 == d:
        return d, s0, s1
    if s1 == d:
        return d, s1, s0
    return None


def a2a3(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-isa a2a3 (npu/a2a3/TPartOp.hpp).

    An empty destination returns early (nothing written). Otherwise one source must equal the destination and
    the other satisfy ``(r==R && c==C) || (r<R && c==C) || (r<=R && c<C)``; anything else is a PTO_ASSERT
    (undefined in release builds), so it is reported unsupported.
    """
    d = case.tile("dst").valid
    if 0 in d:
        return _partial(case, inputs, npu_element, neither=None, with_flags=False)
    pair = _one_is_dst(case)
    if pair is not None:
        (R, C), _, (r, c) = pair
        if (r == R and c == C) or (r < R and c == C) or (r <= R and c < C):
            return _partial(case, inputs, npu_element, neither=None, with_flags=False)
    s0, s1 = case.tile("src0").valid, case.tile("src1").valid
    return Outcome.unsupported(
        f"a2a3 asserts one source equals dst {d[0]}x{d[1]} and the other fits inside it "
        f"(src0 {s0[0]}x{s0[1]}, src1 {s1[0]}x{s1[1]})")


def a5(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-isa a5 (npu/a5/TPartBinOps.hpp, Int64Reduce.hpp for 64-bit integers).

    An empty destination returns early. Otherwise ``(src0==dst || src1==dst) && max(r0,r1)==R &&
    max(c0,c1)==C`` or a PTO_ASSERT (unsupported). Covered by both: op; else a copy of the big source.
    """
    if get(case.dtype).bits == 64:
        return a5_int64(case, inputs)
    d = case.tile("dst").valid
    if 0 in d:
        return _partial(case, inputs, npu_element, neither=None, with_flags=False)
    s0, s1 = case.tile("src0").valid, case.tile("src1").valid
    if (s0 == d or s1 == d) and max(s0[0], s1[0]) == d[0] and max(s0[1], s1[1]) == d[1]:
        return _partial(case, inputs, npu_element, neither=None, with_flags=False)
    return Outcome.unsupported(
        f"a5 asserts (src0==dst || src1==dst) && max(rows)==R && max(cols)==C for dst {d[0]}x{d[1]} "
        f"(src0 {s0[0]}x{s0[1]}, src1 {s1[0]}x{s1[1]})")


A5_INT64_MAX_COLS = 64  # one 256-byte vector per row (plt_b32 over 2x32-bit halves), no column loop


def a5_int64(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """a5 ``Int64Part`` for int64/uint64: no geometry assert, one vector op per row.

    Rows in both sources: op on the column overlap, the column tail from the wider source. Rows in only one:
    copied from the taller source. Anything else (beyond the providing source's valid columns, rows beyond
    both sources, columns past 64) is not written or stale: undefined. Integer add wraps (carry chain).
    """
    dt = get(case.dtype)
    d, t0, t1 = case.tile("dst"), case.tile("src0"), case.tile("src1")
    R, C = d.rows, d.cols
    a, b = _aligned(inputs["src0"], t0, R, C), _aligned(inputs["src1"], t1, R, C)
    op = OPS[case.op]
    res = integer.add_mul(op, a, b, dt) if op in ("add", "mul") else integer.max_min(op, a, b, dt)
    rows = np.arange(R)[:, None]
    cols = np.arange(C)[None, :]
    (r0, c0), (r1, c1) = t0.valid, t1.valid
    wide = a if c0 >= c1 else b
    tall, tall_cols = (a, c0) if r0 >= r1 else (b, c1)
    both_rows = rows < min(r0, r1)
    tall_rows = ~both_rows & (rows < max(r0, r1))
    m_op = both_rows & (cols < min(c0, c1))
    m_wide = both_rows & ~m_op & (cols < max(c0, c1))
    m_tall = tall_rows & (cols < tall_cols)
    out = np.where(m_op, res, np.where(m_wide, wide, np.where(m_tall, tall, np.zeros((), a.dtype))))
    defined = (m_op | m_wide | m_tall) & _region(d.valid, R, C) & (cols < A5_INT64_MAX_COLS)
    classes = np.where(defined, np.uint8(EXACT), np.uint8(UNDEFINED)).astype(np.uint8)
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


ORACLES = {"spec": spec, "cpu": cpu, "a2a3": a2a3, "a5": a5}  # by implementation (platforms.Platform)
ELEMENT_OPS: dict[str, ElementOp] = {"spec": spec_element, "cpu": cpu_element, "a2a3": npu_element, "a5": npu_element}


def element_op_of(platform: str) -> ElementOp:
    """The elementwise operation of the implementation ``platform`` runs (platforms sharing headers share it)."""
    return ELEMENT_OPS[platforms.get(platform).implementation]


def repatch(patches: Sequence[tuple[Case, dict[str, np.ndarray], Outcome, np.ndarray, np.ndarray]]) -> list[Outcome]:
    """Each ``(case, inputs, outcome, rows, cols)``'s outcome recomputed at the elements (rows, cols) that both
    sources cover, after their inputs changed there (the operation is elementwise, so nothing else moves); one
    element-operation call per (platform, op, dtype) for all of them. Not for a5's 64-bit Int64Part path."""
    operands = [(case, inputs["src0"][rows, cols], inputs["src1"][rows, cols])
                for case, inputs, _, rows, cols in patches]
    results = []
    for (_, _, outcome, rows, cols), (res, cls, _) in zip(patches, _element_op_many(operands)):
        out, classes = outcome.outputs["dst"].copy(), outcome.classes["dst"].copy()
        out[rows, cols] = res
        classes[rows, cols] = cls
        results.append(Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=outcome.flags))
    return results
