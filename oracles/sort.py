"""Sorting semantics: pto-spec TSORT (the seed contract; ``asl/tile/model/execution/sorting.asl``, order in
``asl/tile/model/ordering/sorting.asl``).

Each valid row is cut from column 0 into groups of ``sort_width`` columns (the last may be short and never reads
padding); each group is sorted stably, ascending or descending, numbers before every NaN in both directions, +0
and -0 equal, values moved bit for bit; the U32 index is the column offset within the group.

Vectorised: one stable argsort per row over a composite key ``(group, NaN?, order key)``; no Python loop over
elements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ptofuzz.core import platforms
from ptofuzz.core.case import COMMIT, EXACT, UNDEFINED, Case, Outcome, OutcomeKind
from ptofuzz.core.dtypes import DType, get
from ptofuzz.oracles import descriptors, ieee
from ptofuzz.oracles.sort_memo import filled, shared_outcome

DEFAULT_SORT_WIDTH = 32
MAX_SORT_WIDTH = 64


def sort_keys(bits: np.ndarray, dt: DType, *, descending: bool) -> np.ndarray:
    """Unsigned keys whose ascending order is the requested order: numbers by value (+0 == -0), then NaNs.

    Ties (equal keys) are left to the stable sort, so equal values and all NaNs keep their input order.
    """
    wide = bits.astype(np.uint64)
    key = ieee.order_key(wide, dt) & np.uint64((1 << dt.bits) - 1)  # only dt's sign bit is used
    zero_key = np.uint64(dt.sign_mask)  # the key of +0; -0 gets it too
    key = np.where(ieee.is_zero(bits, dt), zero_key, key)
    if descending:
        key = np.uint64((1 << dt.bits) - 1) - key
    return np.where(ieee.is_nan(bits, dt), np.uint64(1 << dt.bits), key)


def segment_order(bits: np.ndarray, segment: np.ndarray, dt: DType, *, descending: bool) -> np.ndarray:
    """The stable order along the last axis that sorts ``bits`` within each segment (see :func:`sort_keys`),
    segments in ascending order; ``segment`` numbers each element's segment (broadcast against ``bits``)."""
    keys = sort_keys(bits, dt, descending=descending) | (np.asarray(segment).astype(np.uint64)
                                                         << np.uint64(dt.bits + 1))
    return np.argsort(keys, axis=-1, kind="stable")


def group_sort(bits: np.ndarray, valid_cols: int, width: int, dt: DType, *, descending: bool
               ) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row's first ``valid_cols`` columns in groups of ``width``: (sorted bits, U32 indices)."""
    perm = segment_order(bits[..., :valid_cols], np.arange(valid_cols) // width, dt, descending=descending)
    values = np.take_along_axis(bits[..., :valid_cols], perm, axis=-1)
    index = (perm - (perm // width) * width).astype(np.uint32)
    return values, index


def tsort(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-spec 0.58.3 TSORT on a source tile; outputs ``dst`` (values) and ``idx`` (U32 indices).

    Params: ``sort_width`` (omitted or 0 -> 32; 1..64), ``descending`` (0 or 1), ``contract`` (1: accept BF16 as
    the contract header says; otherwise BF16 is Fault_TileLegality as in the executable model and ADR 0083).
    """
    dt = get(case.dtype)
    src = case.tile("src")
    width = (case.param("sort_width", 0) % 65536) or DEFAULT_SORT_WIDTH  # LB0 is (GPR + uimm17) mod 2**16
    flag = case.param("descending", 0)
    fault = tsort_legality(case, dt, width, flag)
    if fault:
        return Outcome.faulted("Fault_TileLegality", 5, fault, COMMIT)
    for role, rdt in (("dst", dt), ("idx", get("uint32"))):  # new Local destinations shaped like the source
        bad = descriptors.problem(src, rdt, max_bytes=descriptors.LOCAL_MAX)
        if bad:
            return Outcome.faulted("Fault_TileAllocation", 5, f"{role} destination: {bad}", COMMIT)
    vr, vc = src.valid
    bits = inputs["src"]
    values, index = group_sort(bits[..., :vr, :], vc, width, dt, descending=bool(flag))
    shape = bits.shape[:-2] + src.shape
    out = np.zeros(shape, bits.dtype)
    idx = np.zeros(shape, np.uint32)
    classes = np.full(shape, UNDEFINED, np.uint8)
    out[..., :vr, :vc] = values
    idx[..., :vr, :vc] = index
    classes[..., :vr, :vc] = EXACT
    snan = bool(np.any(ieee.is_snan(bits[..., :vr, :vc], dt)))
    return Outcome(OutcomeKind.OK, outputs={"dst": out, "idx": idx}, classes={"dst": classes, "idx": classes.copy()},
                   flags=(ieee.NV,) if snan else ())


def tsort_legality(case: Case, dt: DType, width: int, flag: int) -> str:
    """Why TSORT is Fault_TileLegality on ``case`` ("" when legal): the sorting schema, checked at commit before
    the destinations are allocated."""
    if not 1 <= width <= MAX_SORT_WIDTH:
        return f"sort_width {width} is outside 1..{MAX_SORT_WIDTH}"
    if flag not in (0, 1):
        return f"descending flag {flag} is neither 0 nor 1"
    if dt.name == "bfloat16" and not case.param("contract"):
        return "BF16 TSORT is illegal in pto-spec 0.58.3's executable model (the contract header lists it)"
    if case.param("layout", "row_major") != "row_major":
        return f"layout {case.param('layout')} is not row-major"
    src = case.tile("src")
    if 0 in src.valid:
        return f"source valid region {src.valid[0]}x{src.valid[1]} is empty"
    bad = descriptors.problem(src, dt, max_bytes=descriptors.SHARED_MAX)
    if bad:
        return f"source: {bad}"
    for role in ("dst", "idx"):
        t = dict(case.tiles).get(role)
        if t is not None and (t.shape, t.valid) != (src.shape, src.valid):
            return (f"{role} shape {t.rows}x{t.cols} (valid {t.valid_rows}x{t.valid_cols}) differs from the "
                    f"source {src.rows}x{src.cols} (valid {src.valid_rows}x{src.valid_cols})")
    return ""


# ---------------------------------------------------------------------------------------------------------
# pto-isa TSORT32: 32-wide blocks, descending, 8-byte records [value (+2 zero bytes for 16-bit types)][u32 idx]

BLOCK = 32


def records(values: np.ndarray, index: np.ndarray, dt: DType) -> np.ndarray:
    """Pack (value bits, u32 index) into little-endian record words: (..., 2n) uint32."""
    out = np.empty(values.shape[:-1] + (2 * values.shape[-1],), np.uint32)
    out[..., 0::2] = values.astype(np.uint32)  # 16-bit values: the two pad bytes above them are zero
    out[..., 1::2] = index
    return out


def _value_keys(bits: np.ndarray, dt: DType) -> np.ndarray:
    """Descending order keys (smaller sorts first) for TSORT32: floats by value with +0 == -0, integers by
    signed value."""
    if dt.is_float:
        return sort_keys(bits, dt, descending=True)
    signed = bits.view(f"<i{dt.itemsize}").astype(np.int64)
    return (np.int64((1 << (dt.bits - 1)) - 1) - signed).astype(np.uint64)


def tsort32(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """:func:`tsort32_model` on ``platform``; inside ``sort_batch.shared_work`` the NPU platforms share one outcome, and
    a batch's outcomes come from one :func:`tsort32_many` call."""
    return shared_outcome(case, inputs, tsort32_model_name(platform), lambda: tsort32_model(case, inputs, platform))


def tsort32_model_name(platform: str) -> str:
    return "vbitsort" if platforms.get(platform).is_npu else "tsort32-cpu"


def tsort32_model(case: Case, inputs: Mapping[str, np.ndarray], platform: str) -> Outcome:
    """pto-isa TSORT32(dst, src, idx[, tmp]) on cpu, a2a3 or a5 (``docs/isa/TSORT32.md``,
    ``include/pto/cpu/TSort32.hpp``, ``include/pto/npu/{a2a3,a5}/TSort32.hpp``).

    Each valid row is cut into blocks of 32 columns and sorted descending; ``idx`` is permuted with the
    values (on the NPUs a 1-row idx tile is broadcast to every row); ``dst`` receives 8-byte records.

    cpu: ``std::stable_sort`` by (value desc, idx value asc); a block holding a NaN has no strict weak order,
    so its records are undefined; returns without writing when idx's valid region differs from src's. Block b
    of a row lands at record 32*b on every platform, as ``docs/isa/TSORT32.md`` says (``coef`` 4 for half): the
    simulator's 16-bit blocks at record 16*b are its defect ``cpusim-tsort32-16bit-overlap``
    (:mod:`ptofuzz.instructions.defects`), not this model's.
    a2a3/a5: hardware vbitsort; ties go to the smaller index, which the Ascend docs describe by position, so
    a tie whose index order disagrees with its position order, or a tie of +0 with -0, leaves those records
    undefined; NaN order is undocumented, so a block holding a NaN is undefined; the 3-argument form
    (param ``form=3``) ignores a tail block (undefined), the 4-argument form pads it so that the padding
    sorts last.
    """
    operands = _tsort32_operands(case, inputs, platform)
    if isinstance(operands, Outcome):
        return operands
    v, ix = operands
    cols = v.shape[-1]
    rec, rec_cls = _sorted_records(v.reshape(-1, cols), np.ascontiguousarray(ix).reshape(-1, cols),
                                   np.arange(cols) // BLOCK, get(case.dtype), cpu=not platforms.get(platform).is_npu)
    return _tsort32_outcome(case, inputs, platform, v.shape, rec, rec_cls)


def tsort32_many(items: Sequence[tuple[Case, Mapping[str, np.ndarray]]]) -> list[Outcome]:
    """:func:`tsort32_model` of many cases, each on its own ``case.platform``: the same outcomes, from one
    sort over the blocks of all the cases of a dtype and platform kind (cpu or NPU), so that a batch of small
    cases pays numpy's per-call cost once instead of once a case."""
    outcomes: list[Outcome | None] = [None] * len(items)
    groups: dict[tuple[str, bool], list[tuple[int, np.ndarray, np.ndarray]]] = {}
    for k, (case, inputs) in enumerate(items):
        operands = _tsort32_operands(case, inputs, case.platform)
        if isinstance(operands, Outcome):
            outcomes[k] = operands
        else:
            groups.setdefault((case.dtype, not platforms.get(case.platform).is_npu), []).append((k, *operands))
    for (dtype, cpu), members in groups.items():
        sizes = np.array([v.size for _, v, _ in members])
        cols = np.array([v.shape[-1] for _, v, _ in members])
        rec, rec_cls = _sorted_records(np.concatenate([v.reshape(-1) for _, v, _ in members])[None, :],
                                       np.concatenate([ix.reshape(-1) for _, _, ix in members])[None, :],
                                       batch_block_ids(sizes, cols)[None, :], get(dtype), cpu=cpu)
        rec, rec_cls = rec[0], rec_cls[0]
        start = 0
        for k, v, _ in members:
            case, inputs = items[k]
            end = start + 2 * v.size
            outcomes[k] = _tsort32_outcome(case, inputs, case.platform, v.shape, rec[start:end], rec_cls[start:end])
            start = end
    return filled(outcomes)


def _tsort32_empty(case: Case, inputs: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A zero dst tile and all-undefined classes, with the inputs' leading (stacked) axes."""
    out = np.zeros(inputs["src"].shape[:-2] + case.tile("dst").shape, np.uint32)
    return out, np.full(out.shape, UNDEFINED, np.uint8)


def _tsort32_operands(case: Case, inputs: Mapping[str, np.ndarray], platform: str
                      ) -> Outcome | tuple[np.ndarray, np.ndarray]:
    """The values and indices TSORT32 sorts, (..., valid rows, sorted columns) each, or the whole outcome when
    nothing is sorted (an empty region, an idx region the platform does not take, a 3-argument form with no
    full block)."""
    src, idx_tile = case.tile("src"), case.tile("idx")
    vr, vc = src.valid
    bits = inputs["src"]
    idx_in = inputs["idx"]
    cpu = not platforms.get(platform).is_npu
    if vr == 0 or vc == 0:
        out, classes = _tsort32_empty(case, inputs)
        return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
    if idx_tile.valid == (1, vc) and vr > 1 and not cpu:
        idx = np.broadcast_to(idx_in[..., :1, :vc], bits.shape[:-2] + (vr, vc))
    elif idx_tile.valid == (vr, vc):
        idx = idx_in[..., :vr, :vc]
    else:
        if cpu:  # TSort32.hpp returns silently
            out, classes = _tsort32_empty(case, inputs)
            return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
        return Outcome.unsupported(f"idx valid region {idx_tile.valid_rows}x{idx_tile.valid_cols} is neither "
                                   f"src's {vr}x{vc} nor one broadcast row")
    full = vc - vc % BLOCK
    sorted_cols = vc if (cpu or case.param("form", 4) == 4) else full
    if sorted_cols == 0:
        out, classes = _tsort32_empty(case, inputs)
        return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})
    return bits[..., :vr, :sorted_cols], idx[..., :sorted_cols]


def batch_block_ids(sizes: np.ndarray, cols: np.ndarray, block: int | np.ndarray = BLOCK) -> np.ndarray:
    """The block of every element of cases laid end to end, each ``sizes[k]`` elements in row-major rows of
    ``cols[k]`` columns (at least 1) cut into blocks of ``block`` (or ``block[k]``) columns: one number per row and
    block, increasing over the whole batch (each block's first element counted by a running sum, so that only the
    blocks, not the elements, are placed one by one)."""
    block = np.broadcast_to(np.asarray(block, np.int64), sizes.shape)
    rows, per_row = sizes // cols, -(-cols // block)
    blocks = rows * per_row
    starts, first = np.cumsum(sizes) - sizes, np.cumsum(blocks) - blocks
    nth = np.arange(int(blocks.sum()), dtype=np.int64) - np.repeat(first, blocks)  # within its case
    width = np.repeat(per_row, blocks)
    begins = (np.repeat(starts, blocks) + nth // width * np.repeat(cols, blocks)
              + nth % width * np.repeat(block, blocks))
    marks = np.zeros(int(sizes.sum()), np.int64)
    marks[begins] = 1
    return np.cumsum(marks) - 1


def _sorted_records(v: np.ndarray, ix: np.ndarray, block: np.ndarray, dt: DType, *, cpu: bool
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Sort the values ``v`` (rows, n) with their indices ``ix`` descending within each block of ``block`` (block
    numbers, non-decreasing along each row; broadcast to ``v``): the record words and their classes, (rows, 2n).

    A model call passes a case's rows with the same blocks in every row; a batch passes one row holding all its
    cases' rows, with a block number of their own each."""
    block = np.broadcast_to(block, v.shape)
    vkey = _value_keys(v, dt)
    if cpu:  # ties by index value
        perm = np.lexsort((ix.astype(np.uint64), vkey, block), axis=-1)
    else:  # ties by position: a stable sort of (block, value key)
        perm = np.argsort(vkey | (block.astype(np.uint64) << np.uint64(dt.bits + 1)), axis=-1, kind="stable")
    sv = np.take_along_axis(v, perm, axis=-1)
    si = np.take_along_axis(ix, perm, axis=-1)
    rec = records(sv, si, dt)
    rec_cls = np.zeros(rec.shape, np.uint8)
    # blocks holding a NaN: no defined order on any platform (a block keeps its elements in place, so its
    # records are where its elements were)
    if dt.is_float:
        nan = ieee.is_nan(v, dt)
        if nan.any():
            per_row = int(block[:, -1].max()) + 1
            ids = block + np.arange(v.shape[0])[:, None] * per_row
            tainted = np.zeros(v.shape[0] * per_row, bool)
            tainted[ids[nan]] = True
            rec_cls[np.repeat(tainted[ids], 2, axis=-1)] = UNDEFINED
    if not cpu:
        skey = np.take_along_axis(vkey, perm, axis=-1)
        mixed = _tie_runs(skey, block, sv[..., 1:] != sv[..., :-1])  # +0 with -0: value and index unknown
        reordered = _tie_runs(skey, block, si[..., 1:] < si[..., :-1])  # index order != position order
        rec_cls[..., 0::2][mixed] = UNDEFINED
        rec_cls[..., 1::2][mixed | reordered] = UNDEFINED
    return rec, rec_cls


def _tsort32_outcome(case: Case, inputs: Mapping[str, np.ndarray], platform: str, shape: tuple[int, ...],
                     rec: np.ndarray, rec_cls: np.ndarray) -> Outcome:
    """The dst tile holding one case's sorted records (``shape``: its sorted values' shape)."""
    vr, sorted_cols = shape[-2:]
    rec = rec.reshape(shape[:-1] + (2 * sorted_cols,))
    rec_cls = rec_cls.reshape(rec.shape)
    out, classes = _tsort32_empty(case, inputs)
    cpu = not platforms.get(platform).is_npu
    if not cpu:
        blocks = -(-sorted_cols // BLOCK)
        if blocks > 255 and blocks % 255 == 0:  # the last 255-block chunk gets repeat 0 (a2a3) / 0-1 (a5)
            rec_cls[..., 2 * (blocks - 255) * BLOCK:] = UNDEFINED
    out[..., :vr, :2 * sorted_cols] = rec
    classes[..., :vr, :2 * sorted_cols] = rec_cls
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes})


def _tie_runs(keys: np.ndarray, block: np.ndarray, bad_pair: np.ndarray) -> np.ndarray:
    """Members of every run of equal sort keys (within a block) that holds a neighbouring pair flagged in
    ``bad_pair`` (shape (..., n-1))."""
    same = (keys[..., 1:] == keys[..., :-1]) & (block[..., 1:] == block[..., :-1])
    bad = same & bad_pair
    starts = np.concatenate([np.ones(same.shape[:-1] + (1,), bool), ~same], axis=-1)
    run = np.cumsum(starts.reshape(-1)).reshape(keys.shape)  # run ids, unique over the whole array
    tainted = np.zeros(int(run.max()) + 1, bool)
    tainted[run[..., 1:][bad]] = True
    return tainted[run]


# ---------------------------------------------------------------------------------------------------------
# pto-spec TMRGSORT: a stable merge of two sorted one-row value tiles (asl/tile/model/execution/sorting.asl)

MRG_DTYPES = ("float32", "float16")  # TileSortDataTypeSupported


def tmrgsort_legality(case: Case, inputs: Mapping[str, np.ndarray], dt: DType, flag: int) -> str:
    """Why pto-spec TMRGSORT is Fault_TileLegality on ``case`` ("" when legal): legal descriptors, FP32 or
    FP16, one-row non-empty sources, a destination valid region of both sources' columns, and each source
    ordered in the requested direction (``asl/tile/model/legality/sorting.asl``, TileOperandsLegal_TMRGSORT).
    Stacked inputs must agree on the order rule (they are drawn ordered)."""
    if flag not in (0, 1):
        return f"descending flag {flag} is neither 0 nor 1"
    if dt.name not in MRG_DTYPES:
        return f"TMRGSORT merges FP32 or FP16 values, not {dt.name}"
    a, b, d = case.tile("src0"), case.tile("src1"), case.tile("dst")
    for role, t in (("src0", a), ("src1", b)):
        bad = descriptors.problem(t, dt, max_bytes=descriptors.SHARED_MAX)
        if bad:
            return f"{role}: {bad}"
        if t.valid_rows != 1 or t.valid_cols == 0:
            return f"{role} valid region {t.valid_rows}x{t.valid_cols} is not one non-empty row"
    if d.valid != (1, a.valid_cols + b.valid_cols):
        return (f"destination valid region {d.valid_rows}x{d.valid_cols} is not 1x{a.valid_cols + b.valid_cols} "
                "(both sources' columns)")
    ordered = [_ordered(inputs[role][..., 0, :t.valid_cols], dt, bool(flag)) for role, t in (("src0", a), ("src1", b))]
    together = ordered[0] & ordered[1]
    if not together.all():
        if together.any():
            raise ValueError("stacked TMRGSORT cases disagree on whether their sources are ordered")
        role = "src0" if not ordered[0].all() else "src1"
        return f"{role} is not sorted {'descending' if flag else 'ascending'} (numbers, then NaNs)"
    return ""


def _ordered(bits: np.ndarray, dt: DType, descending: bool) -> np.ndarray:
    """Per stacked row: whether each element may precede the next (TileSortSequenceOrdered)."""
    keys = sort_keys(bits, dt, descending=descending)
    return np.all(keys[..., 1:] >= keys[..., :-1], axis=-1)


def tmrgsort(case: Case, inputs: Mapping[str, np.ndarray]) -> Outcome:
    """pto-spec 0.58.3 TMRGSORT(dst, src0, src1, descending) on two one-row value tiles: the merge takes the left
    (src0) element while it may precede the right one (numbers by value, +0 and -0 equal, every NaN after every
    number in both directions, ties to the left), values moved bit for bit; a signalling NaN in a source sets NV.
    Faults (Fault_TileLegality, then Fault_TileAllocation for a destination no legal descriptor) are raised at
    commit. Param ``descending`` (0 or 1). Inputs may carry a leading axis of cases."""
    dt = get(case.dtype)
    flag = case.param("descending", 0)
    fault = tmrgsort_legality(case, inputs, dt, flag)
    if fault:
        return Outcome.faulted("Fault_TileLegality", 5, fault, COMMIT)
    dst = case.tile("dst")
    bad = descriptors.problem(dst, dt, max_bytes=descriptors.LOCAL_MAX)
    if bad:
        return Outcome.faulted("Fault_TileAllocation", 5, f"destination: {bad}", COMMIT)
    a, b = (inputs[r][..., 0, :case.tile(r).valid_cols] for r in ("src0", "src1"))
    both = np.concatenate([a, b], axis=-1)  # two ordered runs: a stable sort of both is their left-first merge
    perm = np.argsort(sort_keys(both, dt, descending=bool(flag)), axis=-1, kind="stable")
    out = np.zeros(both.shape[:-1] + dst.shape, both.dtype)
    out[..., 0, :both.shape[-1]] = np.take_along_axis(both, perm, axis=-1)
    classes = np.full(out.shape, UNDEFINED, np.uint8)
    classes[..., 0, :both.shape[-1]] = EXACT
    snan = bool(np.any(ieee.is_snan(both, dt)))
    return Outcome(OutcomeKind.OK, outputs={"dst": out}, classes={"dst": classes}, flags=(ieee.NV,) if snan else ())
