"""The ordered reductions (TROWSUM, TCOLSUM): an explicit evaluation order per platform, so that a golden is
bit-exact where the sources fix the order, and says so where they do not.

A float sum depends on the order of its additions ((a + b) + c != a + (b + c)). Each platform's order is a
function below, taking the values to reduce as float64 carriers of the element type's values with the reduced
axis last (``v[..., n, k]``: ``n`` independent sums of ``k`` terms, TROWSUM's rows or TCOLSUM's columns) and
returning the ``n`` sums, rounded to the accumulator type after every addition (:func:`rounder`). float64 holds
every float32/float16/bfloat16 value exactly and one sum of two of them rounds innocuously on the way down
(53 >= 2*24 + 2), so each step is the IEEE addition of the type, round to nearest even.

The orders (sources: pto-spec 0.58 ``asl/tile/reduce-and-expand/{row,column}-reduction/T{ROW,COL}SUM.asl``;
pto-isa 3186c381 headers as cited):

- ``spec``: "a typed increasing-column (row) left fold from zero using TADD; tree reassociation is not
  permitted": ``((+0 + x0) + x1) + ...`` in the element type (:func:`fold_from_zero`). A NaN result is the
  canonical NaN; integers wrap.
- ``cpu`` TROWSUM: ``include/pto/cpu/TRowSum.hpp:21-27`` adds in increasing column order into a ``TypeSum``
  accumulator started at 0, which ``include/pto/cpu/tile_offsets.hpp:25-27`` makes float for half and bfloat16
  (the element type otherwise), and casts once at the end (``TRowSum.hpp:34``): :func:`fold_widened`.
- ``cpu`` TCOLSUM: ``include/pto/cpu/TColSum.hpp:21-27`` adds in increasing row order into an element-type
  accumulator started at 0: :func:`fold_from_zero`. docs/isa/TCOLSUM.md: ``isBinary`` true selects binary-tree
  accumulation, of a shape the page does not give; the model pins a sum only where every tree gives it
  (:func:`order_free`), else undefined. ``TColSum.hpp:60-64`` ignoring the flag is the defect
  ``cpusim-tcolsum-binary-ignored``; among the pinned sums it shows as the sign of a zero: two or more -0 terms
  are -0 in any tree of additions, +0 in the header's fold from +0.
- a2a3 TCOLSUM (``include/pto/npu/a2a3/TColSum.hpp``): sequential (``isBinary`` false, the two-operand form):
  the first row copied (line 66/149), then ``dst += src[i]`` for i = 1.. (``SequentialSum``, lines 36-46):
  :func:`fold_from_first`. Binary: adjacent row pairs into tmp, an odd last row added to tmp row 0, then tmp
  halved the same way while more than one row remains (``BinarySum`` lines 19-33, loop 69-75):
  :func:`tree_a2a3`.
- a5 TCOLSUM (``include/pto/npu/a5/TColReduceOps.hpp:44-86``, the default ``VFIMPL`` path): the first row,
  then ``acc + (src[2j+1] + src[2j+2])`` per pair of rows, then an odd last row: :func:`fold_pairs` -- not a
  row-by-row sequence, although docs/isa/TCOLSUM.md calls it sequential. Binary (``a5/TColSum.hpp:33-108``):
  pairs into tmp, an odd last row added to the LAST pair, halving likewise (:func:`tree_a5`): another tree
  than a2a3's. kirin9030 and kirinDev0000 build a5's headers.
- NPU TROWSUM floats: each 256-byte repeat is summed by ``vcadd``, whose order is "a tree-reduction strategy
  implemented by the hardware" (docs/isa/vector/ops/reduction-ops/vcadd.md), given by no source. a5
  (``a5/TRowReduce.hpp:254-268``) then adds the repeats' sums in order into an accumulator started at zero;
  a2a3 (``a2a3/TRowReduceOps.hpp:272-331``) first folds the repeats lane by lane (``vadd``) and ends with one
  ``vcadd``. So a sum is determined only where the hardware's tree cannot matter: :func:`order_free` finds
  the repeats (a5) or rows (a2a3) whose every partial sum is exact in any order (all terms multiples of one
  power of two 2^q and their absolute sum below 2^(q+p), p the precision); those sums are exact and the
  model folds them as the header does; every other sum is ``undefined`` (ptofuzz has no per-element ULP class;
  an order model that guessed the tree would be copying one implementation).

Integer sums do not depend on the order (wrapping addition is associative); a sum that does not fit the type is
undefined outside pto-spec, as TADD's overflow is. The NPUs add their vector units' open subnormal handling: a
sum is undefined when a term or a partial sum is subnormal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ptofuzz.core.case import BOUNDED, COMMIT, EXACT, NAN, UNDEFINED, ZERO, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get, value_dtype
from ptofuzz.oracles import descriptors, ieee
from ptofuzz.oracles.orderbound import order_bound

Order = Callable[[np.ndarray, Callable[[np.ndarray], np.ndarray]], np.ndarray]
PRECISION = {"float32": 24, "float16": 11, "bfloat16": 8}
MAX_FINITE = {"float32": float(np.finfo(np.float32).max), "float16": 65504.0, "bfloat16": 3.3895313892515355e38}
#: elements one 256-byte vector repeat holds (a5's CCE_VL / sizeof(T); a2a3's REPEAT_BYTE / sizeof(T))
REPEAT_BYTES = 256


def rounder(dt: DType) -> Callable[[np.ndarray], np.ndarray]:
    """float64 values rounded to ``dt`` (round to nearest even), as float64 again."""
    def rnd(v: np.ndarray) -> np.ndarray:
        return ieee.to_float64(ieee.from_float64(v, dt), dt)
    return rnd


def round32(v: np.ndarray) -> np.ndarray:
    """float64 values rounded to float32 (the cpu simulator's half/bfloat16 row accumulator)."""
    with np.errstate(all="ignore"):
        out: np.ndarray = v.astype(np.float32).astype(np.float64)
    return out


def _add(a: np.ndarray, b: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    with np.errstate(all="ignore"):
        return rnd(a + b)


# ---- the orders: v[..., n, k] -> sums[..., n], each addition rounded by rnd ---------------------------------

def fold_from_zero(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``((+0 + v0) + v1) + ...``: pto-spec's fold; the cpu simulator's TCOLSUM."""
    acc = np.zeros(v.shape[:-1])
    for j in range(v.shape[-1]):
        acc = _add(acc, v[..., j], rnd)
    return acc


def fold_from_first(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``(v0 + v1) + v2 ...`` with v0 itself (not +0 + v0) as the start: a2a3's sequential TCOLSUM."""
    acc: np.ndarray = v[..., 0].copy()
    for j in range(1, v.shape[-1]):
        acc = _add(acc, v[..., j], rnd)
    return acc


def fold_pairs(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``v0 + (v1 + v2) + (v3 + v4) + ... [+ v_last]``: a5's default column fold."""
    k = v.shape[-1]
    acc: np.ndarray = v[..., 0].copy()
    for j in range((k - 1) // 2):
        acc = _add(acc, _add(v[..., 2 * j + 1], v[..., 2 * j + 2], rnd), rnd)
    if (k - 1) % 2:
        acc = _add(acc, v[..., k - 1], rnd)
    return acc


def tree_a2a3(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """a2a3's binary TCOLSUM: pairs, an odd last term added to the first pair, halved until one remains; one
    term is copied."""
    k = v.shape[-1]
    if k == 1:
        first: np.ndarray = v[..., 0].copy()
        return first
    t = [_add(v[..., 2 * i], v[..., 2 * i + 1], rnd) for i in range(k // 2)]
    if k % 2:
        t[0] = _add(t[0], v[..., k - 1], rnd)
    cnt = k // 2
    while cnt > 1:
        nxt = [_add(t[2 * i], t[2 * i + 1], rnd) for i in range(cnt // 2)]
        if cnt % 2:
            nxt[0] = _add(nxt[0], t[cnt - 1], rnd)
        t, cnt = nxt, cnt // 2
    return t[0]


def tree_a5(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """a5's binary TCOLSUM: pairs, an odd last term added to the last pair (to +0 when there is no pair),
    halved the same way (``floor(log2(pairs))`` rounds)."""
    k = v.shape[-1]
    n = k // 2
    if n == 0:
        return _add(v[..., 0], np.zeros(v.shape[:-1]), rnd)
    t = [_add(v[..., 2 * i], v[..., 2 * i + 1], rnd) for i in range(n)]
    if k % 2:
        t[n - 1] = _add(v[..., k - 1], t[n - 1], rnd)
    while n > 1:
        remain, n = n % 2, n // 2
        nxt = [_add(t[2 * i], t[2 * i + 1], rnd) for i in range(n)]
        if remain:
            nxt[n - 1] = _add(t[2 * n], nxt[n - 1], rnd)
        t = nxt
    return t[0]


ORDERS: dict[str, Order] = {"fold-from-zero": fold_from_zero, "fold-from-first": fold_from_first,
                            "fold-pairs": fold_pairs, "tree-a2a3": tree_a2a3, "tree-a5": tree_a5}


def fold_widened(v: np.ndarray, rnd: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """The cpu simulator's TROWSUM of half/bfloat16: a float32 fold from zero, one rounding to the type."""
    return rnd(fold_from_zero(v, round32))


# ---- where an order cannot matter ------------------------------------------------------------------------

def _low_exponent(v: np.ndarray) -> np.ndarray:
    """The exponent q of each value's lowest set bit (v = m * 2^q, m odd); +inf for zeros and non-finite."""
    finite = np.isfinite(v) & (v != 0)
    m, e = np.frexp(np.where(finite, v, 1.0))
    mant = np.abs(m * 2.0 ** 53).astype(np.int64)
    low = mant & -mant
    _, lz = np.frexp(low.astype(np.float64))
    q = (e - 53 + lz - 1).astype(np.float64)
    return np.where(finite, q, np.inf)


def order_free(v: np.ndarray, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """For sums over the last axis: (whether every order of the additions gives the same value, that value).

    Finite terms: all are multiples of 2^q (q the lowest bit of any of them), so is every partial sum, whose
    magnitude is at most S = sum |x|; below 2^(q+p) each is exact in the type, whatever the order. Infinities of
    one sign with such finite terms below the largest finite value give that infinity in any order; a NaN (or
    infinities of both signs) a NaN. The value is the exact sum (NaN where every order gives a NaN); a zero sum
    is +0 (round to nearest) but for two or more terms all -0, whose every tree of additions is -0 (an order that
    starts from +0, as the folds do, is not one of these)."""
    p = PRECISION[dt.name]
    finite = np.isfinite(v)
    fv = np.where(finite, v, 0.0)
    q = _low_exponent(fv).min(axis=-1)
    s = np.abs(fv).sum(axis=-1)
    with np.errstate(over="ignore"):
        exact = (s == 0) | (s < np.exp2(np.minimum(q + p, 1024.0)))
    total = fv.sum(axis=-1)  # exact where ``exact``
    negzero = (v.shape[-1] >= 2) & ((v == 0) & np.signbit(v)).all(axis=-1)
    total = np.where(negzero, -0.0, np.where(total == 0, 0.0, total))
    nan = np.isnan(v).any(axis=-1)
    pos, neg = (v == np.inf).any(axis=-1), (v == -np.inf).any(axis=-1)
    nan |= pos & neg
    inf = (pos | neg) & ~nan
    ok = nan | (exact & ~inf) | (inf & (s < MAX_FINITE[dt.name]))
    value = np.where(nan, np.nan, np.where(inf, np.where(pos, np.inf, -np.inf), total))
    return ok, value


def repeat_elements(dt: DType) -> int:
    return REPEAT_BYTES // dt.itemsize


# ---- the platforms' sums: a case and its source bits -> an Outcome ---------------------------------------

#: (op, platform kind) -> the order of a float sum where the sources fix it; ``binary`` cases of TCOLSUM use
#: the second entry. ``None``: the hardware's vcadd tree (see :func:`npu_rows`).
NPU_ORDER: dict[tuple[str, str], tuple[Order | None, Order | None]] = {
    ("TROWSUM", "a2a3"): (None, None), ("TROWSUM", "a5"): (None, None),
    ("TCOLSUM", "a2a3"): (fold_from_first, tree_a2a3), ("TCOLSUM", "a5"): (fold_pairs, tree_a5),
}
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16", "int8", "uint8")


def terms(case: Case, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The source's valid region with the reduced axis last: TROWSUM ``[..., rows, cols]``, TCOLSUM
    ``[..., cols, rows]`` (bits)."""
    r, c = case.tile("src").valid
    a: np.ndarray = inputs["src"][..., :r, :c]
    return a if case.op == "TROWSUM" else np.swapaxes(a, -1, -2)


def _subnormal(v: np.ndarray, dt: DType) -> np.ndarray:
    out: np.ndarray = (v != 0) & (np.abs(v) < ieee.min_normal(dt))
    return out


def _tracking(dt: DType) -> tuple[Callable[[np.ndarray], np.ndarray], list[np.ndarray]]:
    """A rounder that also records where a rounded partial sum is subnormal (the NPUs' open flushing)."""
    base = rounder(dt)
    seen: list[np.ndarray] = []

    def rnd(v: np.ndarray) -> np.ndarray:
        out = base(v)
        seen.append(_subnormal(out, dt))
        return out
    return rnd, seen


def _bounded(v: np.ndarray, s: np.ndarray, dt: DType, flush: bool) -> tuple[np.ndarray, np.ndarray]:
    """Where an order is not known: (which sums a ULP bound can state, the bound): every term finite and the
    terms' magnitudes summing below the type's largest finite value (no order overflows); ``s`` one order's
    sums; ``flush``: the platform may flush subnormal partial sums (each addition may lose up to the smallest
    normal)."""
    finite = np.isfinite(v).all(axis=-1)
    mags = np.abs(np.where(np.isfinite(v), v, 0.0)).sum(axis=-1)
    can = finite & (mags < MAX_FINITE[dt.name]) & np.isfinite(s)
    n = v.shape[-1]
    slack = n * ieee.min_normal(dt) if flush else 0.0
    bits = ieee.from_float64(np.where(can, s, 0.0), dt)
    return can, order_bound(bits, mags, n, dt, dt, slack)


def float_sums(case: Case, x: np.ndarray, platform: str, dt: DType
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(sums as float64, classes, ULP bounds or None) of the float terms ``x`` (bits, reduced axis last) on
    ``platform``'s kind (``spec``, ``cpu``, ``a2a3``, ``a5``). Where the sources leave the order open (the
    NPUs' vcadd tree, the tree of the cpu's binary TCOLSUM) and the order matters, the sum is BOUNDED: one
    order's value (the in-order fold, of each repeat on a5) and :func:`ptofuzz.oracles.orderbound.order_bound`."""
    v = ieee.to_float64(x, dt)
    v = np.where(ieee.is_nan(x, dt), np.nan, v)
    shape = v.shape[:-1]
    cls = np.zeros(shape, np.uint8)
    binary = bool(case.param("binary"))
    if platform == "spec":
        return fold_from_zero(v, rounder(dt)), cls, None
    if platform == "cpu":
        bound = None
        if case.op == "TCOLSUM" and binary:
            ok, s = order_free(v, dt)
            if v.shape[-1] == 1:  # a tree of one term: the term, or the term added to +0 (as a5's is)
                cls[s == 0] = ZERO
            s = np.where(ok, s, fold_from_zero(v, rounder(dt)))
            can, bound = _bounded(v, s, dt, flush=False)
            cls[~ok] = np.where(can, BOUNDED, UNDEFINED)[~ok]
        elif case.op == "TROWSUM" and dt.name != "float32":
            s = fold_widened(v, rounder(dt))
        else:
            s = fold_from_zero(v, rounder(dt))
        cls[np.isnan(s) & (cls == EXACT)] = NAN
        return s, cls, bound
    rnd, seen = _tracking(dt)
    undefined = _subnormal(v, dt).any(axis=-1)
    order = NPU_ORDER[(case.op, platform)][1 if binary else 0]
    zero_open = np.zeros(shape, bool)
    free: np.ndarray = np.ones(shape, bool)  # the order cannot matter
    bound = None
    if order is not None:
        s = order(v, rnd)
    elif platform == "a2a3":  # one hardware tree over the whole row
        row_free, s = order_free(v, dt)
        free = np.asarray(row_free, dtype=bool)
        s = np.where(free, s, fold_from_zero(v, rounder(dt)))
        zero_open |= True
    else:  # a5: vcadd per repeat, then an in-order fold from zero of the repeats' sums
        e = repeat_elements(dt)
        k = v.shape[-1]
        pad = -k % e
        chunks = np.concatenate([v, np.zeros(shape + (pad,))], axis=-1).reshape(shape + ((k + pad) // e, e))
        ok, parts = order_free(chunks, dt)
        free = np.asarray(ok.all(axis=-1), dtype=bool)
        parts = np.where(ok, parts, fold_from_zero(chunks, rounder(dt)))
        undefined |= _subnormal(np.where(ok, parts, 0.0), dt).any(axis=-1)
        s = fold_from_zero(parts, rnd)
        zero_open |= True
    for sub in seen:
        undefined |= sub
    undefined |= _subnormal(s, dt)
    cls[zero_open & (s == 0)] = ZERO
    cls[np.isnan(s)] = NAN
    if not free.all():
        can, bound = _bounded(v, s, dt, flush=True)
        cls[~free & can] = BOUNDED
        undefined |= ~free & ~can
    cls[undefined] = UNDEFINED
    return s, cls, bound


def int_sums(x: np.ndarray, dt: DType, wrap: bool) -> tuple[np.ndarray, np.ndarray]:
    """(sums as bits, classes) of integer terms: the exact sum, wrapped; undefined where it does not fit unless
    ``wrap`` (pto-spec)."""
    v = x.view(value_dtype(dt)).astype(object if dt.bits == 64 else np.int64)  # 64-bit: exact Python ints
    total = v.sum(axis=-1)
    wrapped = np.asarray(total & dt.bit_mask).astype(np.uint64)
    bits = wrapped.astype(dt.bits_dtype)
    cls = np.zeros(np.shape(total), np.uint8)
    if not wrap:
        cls[np.asarray((total < dt.int_min) | (total > dt.int_max), dtype=bool)] = UNDEFINED
    return bits, cls


def spec_legality(case: Case) -> Outcome | None:
    """Fault_TileLegality (trap 5) where the tiles break pto-spec's TROWSUM/TCOLSUM legality
    (``TileOperandsLegal_ExecuteTileReduction``, ``asl/tile/model/legality/reduction-and-expansion.asl``): both
    tiles legal descriptors (``TileDescriptorLegal``: a 128 B * 2**k capacity, power-of-two columns; the source
    may be a Shared tile), a non-empty valid source; TROWSUM's destination one physical column of at least the
    source's valid rows with valid region ``valid_rows x 1``, TCOLSUM's ``1 x valid_cols`` with the source's
    physical columns; else None."""
    s, d = case.tile("src"), case.tile("dst")
    dt = get(case.dtype)
    why = next((f"{role}: {p}" for role, tile, limit in (("dst", d, descriptors.LOCAL_MAX),
                                                         ("src", s, descriptors.SHARED_MAX))
                if (p := descriptors.problem(tile, dt, max_bytes=limit))), "")
    if why:
        pass  # the descriptors first, as TileOperandsLegal_ExecuteTileReduction checks them
    elif 0 in s.valid:
        why = "an empty valid source (LB0 must be nonzero)"
    elif case.op == "TROWSUM" and (d.valid != (s.valid_rows, 1) or d.cols != 1 or d.rows < s.valid_rows):
        why = "the destination must be one physical column of at least valid_rows rows, valid_rows x 1 valid"
    elif case.op == "TCOLSUM" and (d.valid != (1, s.valid_cols) or d.cols != s.cols):
        why = "the destination must be 1 x valid_cols with the source's physical columns"
    if why:
        return Outcome.faulted("Fault_TileLegality", 5, f"{case.op}: {why}", COMMIT)
    return None


def outside_contract(case: Case) -> Outcome | None:
    """'unsupported' where docs/isa/T{ROW,COL}SUM.md's runtime checks fail (empty source, the valid rows
    (TROWSUM) or columns (TCOLSUM) of source and destination differ), else None."""
    s, d = case.tile("src"), case.tile("dst")
    if 0 in s.valid:
        return Outcome.unsupported(f"{case.op}: an empty valid source")
    if case.op == "TROWSUM" and d.valid != (s.valid_rows, 1):
        return Outcome.unsupported("TROWSUM: dst valid region must be src.valid_rows x 1")
    if case.op == "TCOLSUM" and d.valid != (1, s.valid_cols):
        return Outcome.unsupported("TCOLSUM: dst valid region must be 1 x src.valid_cols")
    return None


def evaluate(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """The outcome on a platform kind (``spec``, ``cpu``, ``a2a3``, ``a5``): ``dst`` at its physical shape, the
    sums in its valid column (TROWSUM) or row (TCOLSUM), undefined elsewhere."""
    bad = spec_legality(case) if platform == "spec" else outside_contract(case)
    if bad is not None:
        return bad
    dt = get(case.dtype)
    x = terms(case, inputs)
    bound = None
    if dt.is_float:
        s, cls, bound = float_sums(case, x, platform, dt)
        bits = ieee.from_float64(s, dt)
        # a NaN's bits: pto-spec's canonical NaN; elsewhere "some NaN" (NAN or UNDEFINED), written as that one
        # pattern too, since the sign numpy's float64 arithmetic gives a made NaN varies with its loops (numpy 1.x:
        # with the array's alignment), and the same seed must give the same bytes
        bits = np.where(np.isnan(s), np.array(dt.canonical_nan, bits.dtype), bits)
    else:
        bits, cls = int_sums(x, dt, wrap=platform == "spec")
    d = case.tile("dst")
    shape = x.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=x.dtype)
    classes = np.full(shape, UNDEFINED, dtype=np.uint8)
    n = x.shape[-2]
    bounds: dict[str, np.ndarray] = {}
    ulps = np.zeros(shape, dtype=np.uint32)
    if case.op == "TROWSUM":
        out[..., :n, 0], classes[..., :n, 0] = bits, cls
        if bound is not None:
            ulps[..., :n, 0] = bound
    else:
        out[..., 0, :n], classes[..., 0, :n] = bits, cls
        if bound is not None:
            ulps[..., 0, :n] = bound
    if (classes == BOUNDED).any():
        bounds["dst"] = ulps
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=None, bounds=bounds)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "spec")


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "cpu")


def a2a3(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "a2a3")


def a5(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """a5, kirin9030 and kirinDev0000 (which build a5's headers)."""
    return evaluate(case, inputs, "a5")
