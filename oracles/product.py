"""The ordered product reductions (TROWPROD, TCOLPROD): an explicit evaluation order per platform, so that a
golden is bit-exact where the sources fix the order (every platform's does) and says which elements they leave
open.

A float product depends on the order of its multiplications as a sum does on its additions: each rounds, and an
intermediate product can overflow to an infinity (then ``inf * 0`` is a NaN) or underflow to zero where another
order stays finite. Each platform's order is a function below, taking the factors as float64 carriers of the
element type's values with the reduced axis last (``v[..., n, k]``) and returning the ``n`` products, rounded
after every multiplication (:func:`ptofuzz.oracles.ordered.rounder`). The product of two float32 (and so of two
half or bfloat16) values is exact in float64 (2 * 24 <= 53), so each step is the IEEE multiplication of the
type, round to nearest even, overflow to an infinity included.

The orders (sources: pto-spec 0.58 ``asl/tile/reduce-and-expand/{row,column}-reduction/T{ROW,COL}PROD.asl``;
pto-isa 3186c381 headers as cited):

- ``spec``: "a typed increasing-column (row) left fold from one using TMUL; tree reassociation is not permitted":
  ``((1 * x0) * x1) * ...`` in the element type (:func:`fold_from_one`); integers wrap; a NaN result is the
  canonical NaN.
- ``cpu``: ``include/pto/cpu/TRowProd.hpp:21-24`` and ``TColProd.hpp:20-26`` start an element-type accumulator at
  1 and multiply in increasing column (row) order, casting each product to the element type: :func:`fold_from_one`
  (no widened accumulator, unlike TRowSum.hpp's ``TypeSum``).
- a2a3 TCOLPROD (``include/pto/npu/a2a3/TColProd.hpp:18-35`` through ``a2a3/TColReduceOps.hpp:50-72``): the first
  row copied (line 56), then ``dst = dst * src[i]`` for i = 1.. (lines 21-46): :func:`fold_from_first`.
- a5 TCOLPROD (``a5/TColProd.hpp:18-36``, the default ``VFIMPL`` path of ``a5/TColReduceOps.hpp:45-92``): the
  first row, then ``acc * (src[2j+1] * src[2j+2])`` per pair of rows, then an odd last row: :func:`fold_pairs`.
- a2a3 TROWPROD (``a2a3/TRowProd.hpp:37-73``): a one-block (32-byte) accumulator of ``E`` lanes (8 float/int32,
  16 half/int16) set to 1 (line 40), each full block then the partial last one multiplied in lane by lane
  (``vmul``, lines 43-53, lanes past the valid columns keep 1); then the scalar unit multiplies the lanes left to
  right: float in float (line 57), half converted to float and the float product cast to half once (lines 59-62):
  :func:`lanes_a2a3`.
- a5 TROWPROD (``a5/TRowProd.hpp:85-109``): a 256-byte register of ``E`` lanes (64 float/int32, 128 half/int16)
  set to 1, each repeat multiplied in (``vmul`` merging: lanes past the valid columns keep their value), then
  ``log2(E)`` rounds (``TROW_PROD_LOOP_B32/B16`` = 6/7, ``include/pto/common/constants.hpp:49-50``) of ``vintlv``
  with a register of ones and ``vmul``: docs/isa/vector/ops/data-rearrangement/vintlv.md gives the interleave
  (``low = {d0, 1, d1, 1, ...}``, ``high = {d[E/2], 1, ...}``), so each round sets lane ``2m`` to
  ``d[m] * d[m + E/2]`` and the odd lanes to ``1 * 1``; lane 0 is stored: :func:`tree_a5`.

kirin9030 and kirinDev0000 build a5's headers. Every order is read from its sources, so no product is BOUNDED
(:func:`ptofuzz.oracles.orderbound.product_bound` states the bound such a product would carry). What the sources
leave open is classed: the NPU vector units' subnormal handling (a factor, or a product that IEEE rounding leaves
nonzero but whose exact value is below the smallest normal, which a flush to zero before or after rounding
changes: ``undefined``), a NaN's payload (``nan``; pto-spec's canonical NaN is pinned), and an integer product
that does not fit the type (``undefined`` as TMUL's overflow is: signed overflow is undefined behaviour in the
cpu's C++ and the pages state no wrap; pto-spec wraps). Integer products do not depend on the order (wrapping
multiplication is associative and commutative).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from ptofuzz.core.case import NAN, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get, value_dtype
from ptofuzz.oracles import ieee
from ptofuzz.oracles.ordered import outside_contract, round32, rounder, spec_legality

Rounder = Callable[[np.ndarray], np.ndarray]
Order = Callable[[np.ndarray, Rounder], np.ndarray]
#: pto-spec's product types: ``TileOperandsLegal_ExecuteTileReduction`` (``asl/tile/model/legality/
#: reduction-and-expansion.asl``) takes ``TileVecArithmeticDataTypeSupported``'s, the sums' (8-bit integers
#: included: its own TROWPROD-ONE-001 and TCOLPROD-COLUMNS-001 run U8), not the seven the pages' "Legality" lists
#: (docs/reference/bundles.md, "Findings"); 64-bit integers left out as for the sums
SPEC_DTYPES = ("float32", "float16", "bfloat16", "int32", "uint32", "int16", "uint16", "int8", "uint8")
#: the bytes of a2a3's accumulator block (BLOCK_BYTE_SIZE) and of a5's vector register (CCE_VL)
BLOCK_BYTES, VL_BYTES = 32, 256


def _mul(a: np.ndarray, b: np.ndarray, rnd: Rounder) -> np.ndarray:
    with np.errstate(all="ignore"):
        return rnd(a * b)


# ---- the orders: v[..., n, k] -> products[..., n], each multiplication rounded by rnd ------------------------

def fold_from_one(v: np.ndarray, rnd: Rounder) -> np.ndarray:
    """``((1 * v0) * v1) * ...``: pto-spec's fold; the cpu simulator's."""
    acc = np.ones(v.shape[:-1])
    for j in range(v.shape[-1]):
        acc = _mul(acc, v[..., j], rnd)
    return acc


def fold_from_first(v: np.ndarray, rnd: Rounder) -> np.ndarray:
    """``(v0 * v1) * v2 ...`` with v0 itself as the start: a2a3's TCOLPROD."""
    acc: np.ndarray = v[..., 0].copy()
    for j in range(1, v.shape[-1]):
        acc = _mul(acc, v[..., j], rnd)
    return acc


def fold_pairs(v: np.ndarray, rnd: Rounder) -> np.ndarray:
    """``v0 * (v1 * v2) * (v3 * v4) * ... [* v_last]``: a5's TCOLPROD."""
    k = v.shape[-1]
    acc: np.ndarray = v[..., 0].copy()
    for j in range((k - 1) // 2):
        acc = _mul(acc, _mul(v[..., 2 * j + 1], v[..., 2 * j + 2], rnd), rnd)
    if (k - 1) % 2:
        acc = _mul(acc, v[..., k - 1], rnd)
    return acc


def lane_fold(v: np.ndarray, lanes: int, rnd: Rounder) -> np.ndarray:
    """``[..., lanes]``: lane ``l`` the fold from one of terms ``l, l + lanes, l + 2*lanes, ...`` (lanes with no
    term keep 1): a vector accumulator multiplied a block (repeat) at a time."""
    k = v.shape[-1]
    pad = -k % lanes
    lead = tuple(v.shape[:-1])
    blocks = np.concatenate([v, np.ones((*lead, pad))], axis=-1).reshape((*lead, -1, lanes))
    acc = np.ones((*lead, lanes))
    for b in range(blocks.shape[-2]):
        acc = _mul(acc, blocks[..., b, :], rnd)
    return acc


def lanes_a2a3(v: np.ndarray, rnd: Rounder, dt: DType, scalar: Rounder | None = None) -> np.ndarray:
    """a2a3's TROWPROD: :func:`lane_fold` over one 32-byte block in the element type, then the lanes multiplied
    left to right by the scalar unit: float32 in float32, half in float (``scalar``, default float32 rounding) and
    rounded to half once."""
    lanes = lane_fold(v, BLOCK_BYTES // dt.itemsize, rnd)
    if dt.name == "float32":
        return fold_from_first(lanes, rnd)
    return rnd(fold_from_first(lanes, scalar or round32))


def tree_a5(v: np.ndarray, rnd: Rounder, dt: DType) -> np.ndarray:
    """a5's TROWPROD: :func:`lane_fold` over one 256-byte register, then ``log2(lanes)`` rounds of lane ``2m`` =
    ``d[m] * d[m + lanes/2]``, odd lanes ``1 * 1``; lane 0."""
    lanes = VL_BYTES // dt.itemsize
    d = lane_fold(v, lanes, rnd)
    half = lanes // 2
    for _ in range(lanes.bit_length() - 1):  # log2(lanes): TROW_PROD_LOOP_B32 = 6, _B16 = 7
        nxt = np.ones_like(d)
        nxt[..., 0::2] = _mul(d[..., :half], d[..., half:], rnd)
        d = nxt
    out: np.ndarray = d[..., 0]
    return out


#: (op, platform kind) -> the float order (a2a3 and a5 TROWPROD take the type too: see :func:`float_products`)
NPU_ORDER: dict[tuple[str, str], Order] = {("TCOLPROD", "a2a3"): fold_from_first, ("TCOLPROD", "a5"): fold_pairs}


# ---- the platforms' products: a case and its source bits -> an Outcome ------------------------------------

def terms(case: Case, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The source's valid region with the reduced axis last: TROWPROD ``[..., rows, cols]``, TCOLPROD
    ``[..., cols, rows]`` (bits)."""
    r, c = case.tile("src").valid
    a: np.ndarray = inputs["src"][..., :r, :c]
    return a if case.op == "TROWPROD" else np.swapaxes(a, -1, -2)


def _tracking(dt: DType, seen: list[np.ndarray]) -> Rounder:
    """A rounder to ``dt`` that records where a flush of subnormals could change the product: its exact value is
    nonzero and below the smallest normal, and IEEE rounding leaves it nonzero (a product that rounds to zero is
    zero, of the same sign, under a flush too)."""
    base = rounder(dt)
    tiny = ieee.min_normal(dt)

    def rnd(v: np.ndarray) -> np.ndarray:
        out = base(v)
        with np.errstate(invalid="ignore"):
            seen.append((np.abs(v) < tiny) & (v != 0) & (out != 0))
        return out
    return rnd


def float_products(case: Case, x: np.ndarray, platform: str, dt: DType) -> tuple[np.ndarray, np.ndarray]:
    """(products as float64, classes) of the float factors ``x`` (bits, reduced axis last) on ``platform``'s kind
    (``spec``, ``cpu``, ``a2a3``, ``a5``)."""
    v = ieee.to_float64(x, dt)
    v = np.where(ieee.is_nan(x, dt), np.nan, v)
    cls = np.zeros(v.shape[:-1], np.uint8)
    if platform in ("spec", "cpu"):
        s = fold_from_one(v, rounder(dt))
        if platform == "cpu":
            cls[np.isnan(s)] = NAN
        return s, cls
    seen: list[np.ndarray] = []
    rnd = _tracking(dt, seen)
    if case.op == "TCOLPROD":
        s = NPU_ORDER[(case.op, platform)](v, rnd)
    elif platform == "a2a3":
        s = lanes_a2a3(v, rnd, dt, _tracking(get("float32"), seen))
    else:
        s = tree_a5(v, rnd, dt)
    undefined = ieee.is_subnormal(x, dt).any(axis=-1)
    for flags in seen:
        undefined |= flags if flags.shape == undefined.shape else flags.any(axis=-1)
    cls[np.isnan(s)] = NAN
    cls[undefined] = UNDEFINED
    return s, cls


def int_products(x: np.ndarray, dt: DType, wrap: bool) -> tuple[np.ndarray, np.ndarray]:
    """(products as bits, classes) of integer factors: the exact product modulo 2^bits (two's complement);
    undefined unless ``wrap`` (pto-spec) where some order's partial product may not fit: the product of the
    nonzero factors' magnitudes above the type's largest value (a float64 product of integers is exact below
    2^53 and stays above 2^53 past it, so the test is exact)."""
    signed = x.view(value_dtype(dt)).astype(np.int64)
    wrapped = np.multiply.reduce(signed.astype(np.uint64), axis=-1)
    bits = (wrapped & np.uint64(dt.bit_mask)).astype(dt.bits_dtype)
    cls = np.zeros(bits.shape, np.uint8)
    if not wrap:
        mags = np.abs(signed.astype(np.float64))
        with np.errstate(over="ignore"):
            big = np.multiply.reduce(np.where(mags == 0, 1.0, mags), axis=-1) > dt.int_max
        cls[big] = UNDEFINED
    return bits, cls


def evaluate(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """The outcome on a platform kind (``spec``, ``cpu``, ``a2a3``, ``a5``): ``dst`` at its physical shape, the
    products in its valid column (TROWPROD) or row (TCOLPROD), undefined elsewhere."""
    bad = spec_legality(as_sum(case)) if platform == "spec" else outside_contract(as_sum(case))
    if bad is not None:
        return bad
    dt = get(case.dtype)
    x = terms(case, inputs)
    if dt.is_float:
        s, cls = float_products(case, x, platform, dt)
        bits = ieee.from_float64(s, dt)
        # a NaN's bits: pto-spec's canonical NaN; elsewhere "some NaN" (NAN or UNDEFINED), written as that one
        # pattern too, since the sign numpy's float64 arithmetic gives a made NaN varies with its loops (numpy 1.x:
        # with the array's alignment), and the same seed must give the same bytes
        bits = np.where(np.isnan(s), np.array(dt.canonical_nan, bits.dtype), bits)
    else:
        bits, cls = int_products(x, dt, wrap=platform == "spec")
    d = case.tile("dst")
    shape = x.shape[:-2] + d.shape
    out = np.zeros(shape, dtype=x.dtype)
    classes = np.full(shape, UNDEFINED, dtype=np.uint8)
    n = x.shape[-2]
    if case.op == "TROWPROD":
        out[..., :n, 0], classes[..., :n, 0] = bits, cls
    else:
        out[..., 0, :n], classes[..., 0, :n] = bits, cls
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=None)


#: each product's sum: the same legality rules and runtime checks, the same shapes
SUM_OF = {"TROWPROD": "TROWSUM", "TCOLPROD": "TCOLSUM"}


def as_sum(case: Case) -> Case:
    """The case as its sum's (the legality rules and runtime checks are the same shapes)."""
    return Case(SUM_OF[case.op], case.platform, case.dtype, case.tiles, case.params)


def spec(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "spec")


def cpu(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "cpu")


def a2a3(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    return evaluate(case, inputs, "a2a3")


def a5(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """a5, kirin9030 and kirinDev0000 (which build a5's headers)."""
    return evaluate(case, inputs, "a5")

