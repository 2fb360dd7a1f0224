"""TMRGSORT oracles (``oracles/mrgsort.py``: split/join_records, merge, single, topk).

References (expected values are worked by hand from these):
- pto-isa ``docs/isa/TSORT32.md`` (record layout), ``docs/isa/TMRGSORT.md`` and
  ``include/pto/{cpu,npu/a2a3,npu/a5}/TMrgSort.hpp`` (TMRGSORT); pto-spec 0.58.3 TMRGSORT in
  ``asl/tile/model/execution/sorting.asl``.
- cpu: strict ``>`` on the value, heads scanned from list 0 (ties to the lower list, NaN never replaces or is
  replaced by a candidate), whole records copied, exhausted stop right after the write that empties a list.
- npu: stable merge, ties to the lower list; NaN, -0/+0 and subnormal ordering undocumented -> UNDEFINED.
- pto-isa's golden recipe (tests/{cpu,npu/a5}/.../tmrgsort/gen_data.py), re-implemented here from its
  description: one legacy RandomState seeded 19 shared by the cases in list order; values uniform(0, 1) cast to
  the dtype; idx = arange; lists pre-sorted with a stable argsort of the negated values; golden = stable
  global argsort, top k, zero-filled (exhausted: zeroed after the last golden value equal to each list's last
  value); single-list golden = stable sort per group of 4 blocks, zero-filled partial group.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptofuzz.core.case import EXACT, UNDEFINED
from ptofuzz.oracles import mrgsort as M

NP = {"float32": np.float32, "float16": np.float16}
BITS = {"float32": np.uint32, "float16": np.uint16}
NAN = float("nan")


def recs(values, idx=None, dtype="float32", pad=0):
    """Record words from Python floats (and indices, default 0, 1, ...)."""
    v = np.array(values, NP[dtype]).view(BITS[dtype])
    i = np.arange(len(values)) if idx is None else np.array(idx)
    return M.join_records(v, i.astype(np.uint32), dtype, pad)


def decode(result, dtype="float32"):
    """(values as floats, indices, record classes) of a MergeResult."""
    v, i = M.split_records(result.words, dtype)
    cls = result.classes.reshape(-1, 2)
    assert np.all(cls[:, 0] == cls[:, 1])
    return v.view(NP[dtype]).astype(float).tolist(), i.tolist(), cls[:, 0].tolist()


def exact_part(result, dtype="float32"):
    """(value, index) of every record up to the first non-EXACT one."""
    v, i, c = decode(result, dtype)
    n = c.index(UNDEFINED) if UNDEFINED in c else len(c)
    return list(zip(v[:n], i[:n]))


E, U = EXACT, UNDEFINED


# ---------------------------------------------------------------------------------------------------------
# record streams


def test_split_join_roundtrip_and_layout():
    w = recs([1.0, -2.5], [7, 9])
    assert w.tolist() == [0x3F800000, 7, 0xC0200000, 9]
    v, i = M.split_records(w, "float32")
    assert v.dtype == np.uint32 and v.tolist() == [0x3F800000, 0xC0200000] and i.tolist() == [7, 9]
    h = recs([1.0, -0.0], [3, 4], "float16", pad=np.array([0xABCD, 0]))
    assert h.tolist() == [0xABCD3C00, 3, 0x00008000, 4]  # value in the low half, pad in the high half
    v, i = M.split_records(h, "float16")
    assert v.dtype == np.uint16 and v.tolist() == [0x3C00, 0x8000] and i.tolist() == [3, 4]
    batch = np.stack([w, w])
    assert M.split_records(batch, "float32")[1].tolist() == [[7, 9], [7, 9]]
    assert np.array_equal(M.join_records(*M.split_records(batch, "float32"), "float32"), batch)
    assert M.elements_per_record("float32") == 2 and M.elements_per_record("half") == 4


def test_bad_arguments():
    with pytest.raises(ValueError):
        M.split_records(np.zeros(3, np.uint32), "float32")
    with pytest.raises(ValueError):
        M.merge([recs([1.0])], "float32", dst_records=1, exhausted=False, platform="cpu")
    with pytest.raises(ValueError):
        M.merge([recs([1.0])] * 2, "int32", dst_records=1, exhausted=False, platform="cpu")
    with pytest.raises(ValueError):
        M.merge([recs([1.0])] * 2, "float32", dst_records=1, exhausted=False, platform="spec")
    with pytest.raises(ValueError):
        M.topk(recs([1.0] * 64), "float32", cols=128, topk=256, platform="cpu")


# ---------------------------------------------------------------------------------------------------------
# multi-list: hand-worked examples


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_ties_go_to_the_lower_list(platform):
    a = recs([2.0, 1.0, 1.0], [0, 1, 2])
    b = recs([2.0, 2.0, 1.0], [10, 11, 12])
    c = recs([1.0], [20])
    before = [x.copy() for x in (a, b, c)]
    r = M.merge([a, b, c], "float32", dst_records=8, exhausted=False, platform=platform)
    assert all(np.array_equal(x, y) for x, y in zip(before, (a, b, c)))  # pure: inputs untouched
    v, i, cls = decode(r)
    assert i[:7] == [0, 10, 11, 1, 2, 12, 20]
    assert v[:7] == [2, 2, 2, 1, 1, 1, 1]
    assert cls == [E] * 7 + [U]  # dst past the merged count: cpu untouched, npu stale tmp
    assert r.executed == ((3, 3, 1, 0) if platform == "cpu" else None)


def test_signed_zero_tie_cpu_lower_list_npu_undefined():
    a = recs([1.0, -0.0, -1.0], [0, 1, 2])
    b = recs([0.0, -2.0], [10, 11])
    cpu = M.merge([a, b], "float32", dst_records=5, exhausted=False, platform="cpu")
    v, i, cls = decode(cpu)
    assert i == [0, 1, 10, 2, 11] and cls == [E] * 5
    assert np.signbit(v[1]) and not np.signbit(v[2])  # -0 from list 0 first: -0 == +0, ties to the lower list
    npu = M.merge([a, b], "float32", dst_records=5, exhausted=False, platform="npu")
    v, i, cls = decode(npu)
    assert cls == [E, U, U, E, E]  # only the zero run is in doubt
    assert [i[0], i[3], i[4]] == [0, 2, 11]
    # same-sign zeros from two lists are a true tie: stable, exact
    b2 = recs([-0.0, -2.0], [10, 11])
    v, i, cls = decode(M.merge([a, b2], "float32", dst_records=5, exhausted=False, platform="npu"))
    assert i == [0, 1, 10, 2, 11] and cls == [E] * 5


def test_npu_subnormal_run_from_two_lists_is_undefined():
    tiny = float(np.float32(1e-40))  # float32 subnormal
    a = recs([1.0, tiny], [0, 1])
    b = recs([2 * tiny, -1.0], [10, 11])
    v, i, cls = decode(M.merge([a, b], "float32", dst_records=4, exhausted=False, platform="cpu"))
    assert i == [0, 10, 1, 11] and cls == [E] * 4
    v, i, cls = decode(M.merge([a, b], "float32", dst_records=4, exhausted=False, platform="npu"))
    assert cls == [E, U, U, E] and i[3] == 11


def test_cpu_nan_at_head_of_list0_is_emitted_at_once():
    a = recs([NAN, 1.0], [0, 1])
    b = recs([3.0], [10])
    c = recs([2.0], [20])
    v, i, cls = decode(M.merge([a, b, c], "float32", dst_records=4, exhausted=False, platform="cpu"))
    assert i == [0, 10, 20, 1] and np.isnan(v[0]) and cls == [E] * 4


def test_cpu_nan_at_head_of_list2_waits_until_lower_lists_are_empty():
    a = recs([1.0], [0])
    b = recs([3.0], [10])
    c = recs([NAN, 2.0], [20, 21])
    r = M.merge([a, b, c], "float32", dst_records=4, exhausted=False, platform="cpu")
    v, i, cls = decode(r)
    # 3 beats 1; NaN never replaces a candidate, so 1 goes next and the 2 behind the NaN comes last
    assert i == [10, 0, 20, 21] and np.isnan(v[2]) and cls == [E] * 4
    assert r.executed == (1, 1, 2, 0)


def test_cpu_nan_candidate_blocks_larger_heads():
    a = recs([NAN, 1.0], [0, 1])
    b = recs([5.0], [10])
    r = M.merge([b, a], "float32", dst_records=3, exhausted=False, platform="cpu")
    assert decode(r)[1] == [10, 0, 1]
    r = M.merge([a, b], "float32", dst_records=3, exhausted=False, platform="cpu")
    assert decode(r)[1] == [0, 10, 1]


def test_npu_nan_marks_everything_from_its_first_head_position():
    a = recs([5.0, NAN, 1.0], [0, 1, 2])
    b = recs([4.0, 3.0], [10, 11])
    cpu = M.merge([a, b], "float32", dst_records=5, exhausted=False, platform="cpu")
    assert decode(cpu)[1] == [0, 1, 10, 11, 2]
    npu = M.merge([a, b], "float32", dst_records=5, exhausted=False, platform="npu")
    v, i, cls = decode(npu)
    assert cls == [E, U, U, U, U] and i[0] == 0  # the NaN reaches a head after one output
    assert v[1:] == [0.0] * 4 and i[1:] == [0] * 4  # placeholders
    # a NaN that never reaches a head before dst is full changes nothing
    a = recs([5.0, 4.5, 2.0, NAN], [0, 1, 2, 3])
    v, i, cls = decode(M.merge([a, b], "float32", dst_records=3, exhausted=False, platform="npu"))
    assert i == [0, 1, 10] and cls == [E] * 3
    r = M.merge([a, b], "float32", dst_records=5, exhausted=True, platform="npu")  # list 1 empties first
    assert decode(r)[1][:4] == [0, 1, 10, 11] and decode(r)[2] == [E, E, E, E, U] and r.executed == (2, 2, 0, 0)
    # exhausted: the NaN reaches a head before the stop, so the stop and the counts are unknown
    a = recs([5.0, 4.5, NAN], [0, 1, 2])
    r = M.merge([a, b], "float32", dst_records=5, exhausted=True, platform="npu")
    assert r.executed is None and decode(r)[2] == [E, E, U, U, U]
    # NaN at a head at the very start
    r = M.merge([b, recs([NAN])], "float32", dst_records=3, exhausted=False, platform="npu")
    assert decode(r)[2] == [U] * 3


def test_unsorted_input_cpu_simulated_npu_undefined():
    a = recs([1.0, 5.0], [0, 1])
    b = recs([3.0, 2.0], [10, 11])
    assert decode(M.merge([a, b], "float32", dst_records=4, exhausted=False, platform="cpu"))[1] == [10, 11, 0, 1]
    r = M.merge([a, b], "float32", dst_records=4, exhausted=False, platform="npu")
    assert decode(r)[2] == [U] * 4


@pytest.mark.parametrize("platform", ["cpu", "npu"])
def test_exhausted_stop_point_and_executed_counts(platform):
    a = recs([5.0, 3.0], [0, 1])
    b = recs([4.0, 2.0, 1.0], [10, 11, 12])
    r = M.merge([a, b], "float32", dst_records=5, exhausted=True, platform=platform)
    v, i, cls = decode(r)
    assert i[:3] == [0, 10, 1] and cls == [E, E, E, U, U]  # list 0 empties on the third write
    assert r.executed == (2, 1, 0, 0)
    r = M.merge([a, b], "float32", dst_records=4, exhausted=False, platform=platform)
    assert decode(r)[1] == [0, 10, 1, 11]
    assert r.executed == ((2, 2, 0, 0) if platform == "cpu" else None)
    # dst narrower than the stop point: the cpu counts what it wrote, the npu unit runs to its own stop
    r = M.merge([a, b], "float32", dst_records=2, exhausted=True, platform=platform)
    assert decode(r)[1] == [0, 10]
    assert r.executed == ((1, 1, 0, 0) if platform == "cpu" else (2, 1, 0, 0))


def test_exhausted_with_an_empty_list():
    a = recs([5.0, 3.0], [0, 1])
    b = recs([4.0], [10])
    empty = recs([])
    r = M.merge([a, b, empty], "float32", dst_records=3, exhausted=True, platform="cpu")
    assert decode(r)[1][:1] == [0] and decode(r)[2] == [E, U, U]  # stops after the first write
    assert r.executed == (1, 0, 0, 0)
    r = M.merge([a, b, empty], "float32", dst_records=3, exhausted=False, platform="cpu")
    assert decode(r)[1] == [0, 10, 1] and r.executed == (2, 1, 0, 0)
    r = M.merge([a, b, empty], "float32", dst_records=3, exhausted=True, platform="npu")
    assert decode(r)[2] == [U] * 3 and r.executed is None
    r = M.merge([empty, empty], "float32", dst_records=2, exhausted=True, platform="cpu")
    assert decode(r)[2] == [U, U] and r.executed == (0, 0, 0, 0)


def test_npu_exhausted_stop_inside_an_ambiguous_zero_run():
    a = recs([1.0, -0.0], [0, 1])  # list 0 ends with a zero inside the run
    b = recs([0.0, -1.0], [10, 11])
    cpu = M.merge([a, b], "float32", dst_records=4, exhausted=True, platform="cpu")
    assert decode(cpu)[1][:2] == [0, 1] and decode(cpu)[2] == [E, E, U, U] and cpu.executed == (2, 0, 0, 0)
    npu = M.merge([a, b], "float32", dst_records=4, exhausted=True, platform="npu")
    assert decode(npu)[2] == [E, U, U, U] and npu.executed is None
    # no list ends inside the run: the stop is certain, only the run is in doubt
    a = recs([1.0, -0.0, -3.0], [0, 1, 2])
    b = recs([0.0, -1.0, -5.0], [10, 11, 12])
    npu = M.merge([a, b], "float32", dst_records=5, exhausted=True, platform="npu")
    assert decode(npu)[2] == [E, U, U, E, E] and npu.executed == (3, 2, 0, 0)
    assert decode(npu)[1][3:] == [11, 2]


def test_float16_pad_bytes_travel_with_their_record():
    a = recs([3.0, 1.0], [0, 1], "float16", pad=np.array([0x1111, 0x2222]))
    b = recs([2.0], [10], "float16", pad=0xFFFF)
    for platform in ("cpu", "npu"):
        r = M.merge([a, b], "float16", dst_records=3, exhausted=False, platform=platform)
        assert r.words.tolist() == [0x11114200, 0, 0xFFFF4000, 10, 0x22223C00, 1]
        assert r.classes.tolist() == [E] * 6


# ---------------------------------------------------------------------------------------------------------
# single-list form


def test_single_full_and_partial_groups_cpu():
    # blockLen 4 float32 elements = 2 records; a group is 8 records; 10 records leave a partial group
    vals = [8, 1, 7, 2, 6, 3, 5, 4, 9, 0]
    w = recs(vals)
    r = M.single(w, "float32", block_len=4, dst_records=10, platform="cpu")
    v, i, cls = decode(r)
    assert v[:8] == [8, 7, 6, 5, 4, 3, 2, 1] and i[:8] == [0, 2, 4, 6, 7, 5, 3, 1]
    assert cls == [E] * 8 + [U, U]  # the partial group leaves dst untouched
    # the cpu takes the extent from dst: a wider dst makes it read src past its valid width
    r = M.single(w[:16], "float32", block_len=4, dst_records=16, platform="cpu")
    assert decode(r)[2] == [E] * 8 + [U] * 8
    # ... and a narrower dst merges fewer groups
    r = M.single(recs(vals[:8] * 2), "float32", block_len=4, dst_records=15, platform="cpu")
    assert decode(r)[2] == [E] * 8 + [U] * 7
    # float16: 4 elements per record, so blockLen 8 = 2 records
    r = M.single(recs(vals[:8], dtype="float16"), "float16", block_len=8, dst_records=8, platform="cpu")
    assert decode(r, "float16")[1] == [0, 2, 4, 6, 7, 5, 3, 1]
    # blockLen 0 or not a whole number of records: nothing is written
    assert decode(M.single(w, "float32", block_len=3, dst_records=10, platform="cpu"))[2] == [U] * 10
    assert decode(M.single(w, "float32", block_len=0, dst_records=10, platform="cpu"))[2] == [U] * 10


def test_single_ties_and_nan_within_a_group():
    w = recs([2, 1, 2, 1, 2, NAN, 2, 1], dtype="float32")
    r = M.single(w, "float32", block_len=4, dst_records=8, platform="cpu")
    v, i, cls = decode(r)
    # ties to the lower block; block 2's NaN is never chosen over a candidate, but once blocks 0 and 1 are
    # empty it is the first candidate and goes out at once, ahead of block 3's 1
    assert i == [0, 2, 4, 6, 1, 3, 5, 7] and np.isnan(v[6]) and cls == [E] * 8


def npu_block(dtype):
    """Records per 64-element NPU block."""
    return 64 // M.elements_per_record(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_single_npu_extent_from_src_and_constraints(dtype):
    b = npu_block(dtype)
    rng = np.random.default_rng(5)
    vals = -np.sort(-rng.integers(0, 50, size=(5, b)), axis=1).astype(float)  # 5 sorted blocks
    w = recs(vals.ravel().tolist(), dtype=dtype)
    r = M.single(w, dtype, block_len=64, dst_records=5 * b, platform="npu")
    v, i, cls = decode(r, dtype)
    expect = np.argsort(-vals[:4].ravel(), kind="stable")
    assert i[: 4 * b] == expect.tolist() and cls == [E] * (4 * b) + [U] * b
    assert r.executed is None
    # same result on the cpu (extent from dst: 5 blocks -> 1 group too)
    assert M.single(w, dtype, block_len=64, dst_records=5 * b, platform="cpu").words[: 8 * b].tolist() == \
        r.words[: 8 * b].tolist()
    # npu: src narrower than one group -> repeatTimes 0, outside [1, 255]: undefined
    r = M.single(w[: 2 * 3 * b], dtype, block_len=64, dst_records=5 * b, platform="npu")
    assert decode(r, dtype)[2] == [U] * (5 * b)
    # npu: blockLen must be a multiple of 64
    r = M.single(w, dtype, block_len=32, dst_records=5 * b, platform="npu")
    assert decode(r, dtype)[2] == [U] * (5 * b)
    # dst narrower than the merged group: cut off
    r = M.single(w, dtype, block_len=64, dst_records=3, platform="npu")
    assert decode(r, dtype)[1] == expect[:3].tolist()


def test_single_npu_nan_and_zero_groups():
    b = npu_block("float32")
    g0 = [float(4 * b - k) for k in range(4 * b)]  # one group of four positive descending blocks...
    g1 = list(g0)
    g1[b] = NAN  # ... and a copy whose block 1 starts with a NaN
    g2 = list(g0)
    g2[b - 1], g2[2 * b - 1] = -0.0, 0.0  # blocks 0 and 1 end in -0 and +0
    w = recs(g0 + g1 + g2)
    r = M.single(w, "float32", block_len=64, dst_records=12 * b, platform="npu")
    cls = decode(r)[2]
    assert cls[: 4 * b] == [E] * (4 * b)
    assert cls[4 * b: 8 * b] == [U] * (4 * b)  # NaN at a head from the start
    assert cls[8 * b:] == [E] * (4 * b - 2) + [U, U]  # only the -0/+0 pair (the smallest values) is in doubt
    cpu = M.single(w, "float32", block_len=64, dst_records=12 * b, platform="cpu")
    assert decode(cpu)[2] == [E] * (12 * b)


# ---------------------------------------------------------------------------------------------------------
# properties: the vectorised path against a simple merge loop


def simple_merge(lists, cap, exhausted):
    """The cpu rule, one record at a time: [(list, position)], consumed counts."""
    heads = [0] * len(lists)
    out = []
    while len(out) < cap:
        best = None
        for j, lst in enumerate(lists):
            if heads[j] < len(lst) and (best is None or lst[heads[j]] > lists[best][heads[best]]):
                best = j
        if best is None:
            break
        out.append((best, heads[best]))
        heads[best] += 1
        if exhausted and any(h == len(lst) for h, lst in zip(heads, lists)):
            break
    return out, heads


POOL = {
    "float32": [float("-inf"), -3.0, -1.0, -1e-40, -0.0, 0.0, 1e-40, 2e-40, 0.5, 1.0, 1.0, 3.0, float("inf")],
    "float16": [float("-inf"), -3.0, -1.0, -6e-8, -0.0, 0.0, 6e-8, 1.2e-7, 0.5, 1.0, 1.0, 3.0, float("inf")],
}


@st.composite
def sorted_lists(draw, dtype):
    n = draw(st.integers(2, 4))
    lists = []
    for _ in range(n):
        vals = draw(st.lists(st.sampled_from(POOL[dtype]), max_size=7))
        lists.append(sorted(vals, reverse=True))  # -0 and +0 compare equal: any order of them is sorted
    return lists


def as_words(lists, dtype):
    base = 0
    out = []
    for lst in lists:
        out.append(recs(lst, list(range(base, base + len(lst))), dtype))
        base += 100
    return out


def check_against_simple(lists, dtype, cap, exhausted, platform, allow_undefined):
    words = as_words(lists, dtype)
    r = M.merge(words, dtype, dst_records=cap, exhausted=exhausted, platform=platform)
    vals = [np.array(lst, NP[dtype]).astype(float).tolist() for lst in lists]
    picks, heads = simple_merge(vals, cap, exhausted)
    flat = np.concatenate([w.reshape(-1, 2) for w in words]) if words else np.zeros((0, 2), np.uint32)
    offs = np.cumsum([0] + [len(lst) for lst in lists])
    expect = [flat[offs[j] + p].tolist() for j, p in picks]
    got = r.words.reshape(-1, 2)
    cls = r.classes[::2]
    for k in range(cap):
        if k < len(expect):
            if cls[k] == EXACT:
                assert got[k].tolist() == expect[k], (k, lists)
            else:
                assert allow_undefined, (k, lists)
        else:
            assert cls[k] == UNDEFINED
    return r, heads


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_sorted_merge_equals_simple_loop(dtype, data):
    lists = data.draw(sorted_lists(dtype))
    cap = data.draw(st.integers(0, 30))
    exhausted = data.draw(st.booleans())
    r, heads = check_against_simple(lists, dtype, cap, exhausted, "cpu", allow_undefined=False)
    assert r.executed == tuple(heads + [0] * (4 - len(heads)))
    r, heads = check_against_simple(lists, dtype, cap, exhausted, "npu", allow_undefined=True)
    if exhausted and r.executed is not None:
        assert sum(r.executed) >= sum(heads)  # the unit's stop is not capped by dst
    tiny_lists = {j for j, lst in enumerate(lists) for x in lst if abs(x) < 1e-4}  # zeros and subnormals
    if len(tiny_lists) < 2 and not (exhausted and any(len(lst) == 0 for lst in lists)):
        assert UNDEFINED not in r.classes[: 2 * min(cap, len(simple_merge(lists, cap, exhausted)[0]))]


@st.composite
def any_lists(draw, dtype):
    n = draw(st.integers(2, 4))
    return [draw(st.lists(st.sampled_from(POOL[dtype] + [NAN]), max_size=6)) for _ in range(n)]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_cpu_fallback_loop_equals_simple_loop(dtype, data):
    """Unsorted lists and NaNs (the simulation path) follow the same cpu rule."""
    lists = data.draw(any_lists(dtype))
    cap = data.draw(st.integers(0, 26))
    exhausted = data.draw(st.booleans())
    r, heads = check_against_simple(lists, dtype, cap, exhausted, "cpu", allow_undefined=False)
    assert r.executed == tuple(heads + [0] * (4 - len(heads)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_single_groups_equal_simple_loop(dtype, data):
    e = M.elements_per_record(dtype)
    blk = data.draw(st.integers(1, 4))
    groups = data.draw(st.integers(1, 4))
    extra = data.draw(st.integers(0, 4 * blk - 1))
    pool = POOL[dtype] + ([NAN] if data.draw(st.booleans()) else [])
    blocks = [sorted(data.draw(st.lists(st.sampled_from(POOL[dtype]), min_size=blk, max_size=blk)),
                     reverse=True) for _ in range(4 * groups)]
    if NAN in pool:
        blocks[data.draw(st.integers(0, len(blocks) - 1))][data.draw(st.integers(0, blk - 1))] = NAN
    vals = [x for b in blocks for x in b] + [1.0] * extra
    w = recs(vals, dtype=dtype)
    n = len(vals)
    r = M.single(w, dtype, block_len=blk * e, dst_records=n, platform="cpu")
    got = r.words.reshape(-1, 2)
    cls = r.classes[::2]
    fl = np.array(vals, NP[dtype]).astype(float).tolist()
    for g in range(groups):
        lists = [fl[(4 * g + k) * blk:(4 * g + k + 1) * blk] for k in range(4)]
        picks, _ = simple_merge(lists, 4 * blk, False)
        for k, (j, p) in enumerate(picks):
            assert got[4 * g * blk + k].tolist() == w.reshape(-1, 2)[(4 * g + j) * blk + p].tolist()
    assert cls.tolist() == [E] * (4 * blk * groups) + [U] * extra


# ---------------------------------------------------------------------------------------------------------
# topk kernel


def sorted_blocks(rng, n_rec, block_rec, dtype, low=0.0, high=1.0):
    """pto-isa-style input: uniform values, idx = arange, each block pre-sorted (stable, descending)."""
    v = rng.uniform(low, high, size=n_rec).astype(NP[dtype]).reshape(-1, block_rec)
    i = np.arange(n_rec, dtype=np.uint32).reshape(-1, block_rec)
    o = np.argsort(-v, axis=1, kind="stable")
    return np.take_along_axis(v, o, axis=1).ravel(), np.take_along_axis(i, o, axis=1).ravel()


def stable_topk_words(v, i, k, dtype):
    o = np.argsort(-v, kind="stable")[:k]
    return M.join_records(v[o].view(BITS[dtype]), i[o], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("cols_rec,topk_rec", [(128, 128), (256, 100), (512, 512), (640, 256), (1024, 64),
                                               (160, 128), (1280, 256), (352, 96), (1088, 1024)])
@pytest.mark.parametrize("platform", ["cpu", "npu"])
def test_topk_equals_stable_global_sort(dtype, cols_rec, topk_rec, platform):
    e = M.elements_per_record(dtype)
    rng = np.random.default_rng(cols_rec * 7 + topk_rec)
    v, i = sorted_blocks(rng, cols_rec, 64 // e, dtype)  # sorted in 64-element blocks
    w = M.join_records(v.view(BITS[dtype]), i, dtype)
    r = M.topk(w, dtype, cols=cols_rec * e, topk=topk_rec * e, platform=platform)
    assert r.classes.tolist() == [E] * (2 * topk_rec)
    assert r.words.tolist() == stable_topk_words(v, i, topk_rec, dtype).tolist()
    assert r.executed is None


def test_topk_kernel_quirks_are_undefined():
    rng = np.random.default_rng(1)
    # float32, cols 1536: passes 64 and 256 leave blockLen 1024; tail chunks 1024, 256, 256. With topk 1536 the
    # first tail merge fills only 1280 records of dst, and copying dst back overwrites the third chunk with
    # never-written records: the second merge compares them at once.
    v, i = sorted_blocks(rng, 768, 32, "float32")
    w = M.join_records(v.view(np.uint32), i, "float32")
    r = M.topk(w, "float32", cols=1536, topk=1536, platform="cpu")
    assert r.classes.tolist() == [U] * (2 * 768)
    r = M.topk(w, "float32", cols=1536, topk=1280, platform="npu")  # topk within the first two chunks: fine
    assert r.words.tolist() == stable_topk_words(v, i, 640, "float32").tolist()
    # float16, cols 640 elements (160 records): one pass (blockLen 64), tail chunks 256, 256, 64, 64 elements;
    # topk 640 exceeds the first two chunks, so the second merge's src1 is never-written memory from the start
    v, i = sorted_blocks(rng, 160, 16, "float16")
    w16 = M.join_records(v.view(np.uint16), i, "float16")
    assert set(M.topk(w16, "float16", cols=640, topk=640, platform="cpu").classes.tolist()) == {U}
    r = M.topk(w16, "float16", cols=640, topk=512, platform="cpu")
    assert r.words.tolist() == stable_topk_words(v, i, 128, "float16").tolist()
    # a single tail chunk: no merge runs and dst is never written
    v, i = sorted_blocks(rng, 150, 2, "float32")
    w = M.join_records(v.view(np.uint32), i, "float32")
    assert set(M.topk(w, "float32", cols=300, topk=300, platform="cpu").classes.tolist()) == {U}
    # no pass and no tail: dst is copied from a never-written tmp
    assert set(M.topk(w[:128], "float32", cols=64, topk=64, platform="npu").classes.tolist()) == {U}


# ---------------------------------------------------------------------------------------------------------
# pto-isa's canonical cases: the golden recipe re-done with the same seed and case order

# (name, dtype, src*_col in 4-byte words, input_num, topk in words, block_len in words)
CPU_CASES = [
    ("multi1", "float32", (128, 128, 128, 128), 4, 512, 0),
    ("multi2", "float16", (128, 128, 128, 128), 4, 512, 0),
    ("exhausted1", "float32", (64, 64, 0, 0), 2, 128, 0),
    ("exhausted2", "float16", (256, 256, 256, 0), 3, 768, 0),
    ("single1", "float32", (256, 0, 0, 0), 1, 0, 64),
    ("single3", "float32", (512, 0, 0, 0), 1, 0, 64),
    ("single5", "float16", (256, 0, 0, 0), 1, 0, 64),
    ("single7", "float16", (512, 0, 0, 0), 1, 0, 64),
    ("single8", "float16", (1024, 0, 0, 0), 1, 0, 256),
    ("topk2", "float32", (2048, 0, 0, 0), 1, 2048, 64),
    ("topk5", "float16", (2048, 0, 0, 0), 1, 2048, 64),
]
NPU_CASES = [
    ("multi1", "float32", (128, 128, 128, 128), 4, 512, 0),
    ("multi2", "float16", (128, 128, 128, 128), 4, 512, 0),
    ("multi3", "float32", (128, 128, 128, 64), 4, 448, 0),
    ("multi4", "float32", (128, 128, 64, 0), 3, 128, 0),
    ("exhausted1", "float32", (64, 64, 0, 0), 2, 128, 0),
    ("exhausted2", "float16", (256, 256, 256, 0), 3, 768, 0),
    ("single1", "float32", (256, 0, 0, 0), 1, 0, 64),
    ("single2", "float32", (320, 0, 0, 0), 1, 0, 64),
    ("single3", "float32", (512, 0, 0, 0), 1, 0, 64),
    ("single4", "float32", (640, 0, 0, 0), 1, 0, 64),
    ("single5", "float16", (256, 0, 0, 0), 1, 0, 64),
    ("single6", "float16", (320, 0, 0, 0), 1, 0, 64),
    ("single7", "float16", (512, 0, 0, 0), 1, 0, 64),
    ("single8", "float16", (1024, 0, 0, 0), 1, 0, 256),
    ("topk1", "float32", (2048, 0, 0, 0), 1, 1024, 64),
    ("topk2", "float32", (2048, 0, 0, 0), 1, 2048, 64),
    ("topk3", "float32", (1280, 0, 0, 0), 1, 512, 64),
    ("topk4", "float16", (2048, 0, 0, 0), 1, 1024, 64),
    ("topk5", "float16", (2048, 0, 0, 0), 1, 2048, 64),
    ("topk6", "float16", (1280, 0, 0, 0), 1, 512, 64),
]


def golden_recipe(cases):
    """{name: (input record streams as the kernel sees them, golden words)} for one gen_data.py run."""
    rs = np.random.RandomState(19)
    out = {}
    for name, dtype, src_cols, n_in, topk_words, block_words in cases:
        cols, k, blk = src_cols[0] // 2, topk_words // 2, block_words // 2
        width = blk if n_in == 1 else cols
        vals = rs.uniform(low=0, high=1, size=(n_in, cols)).astype(NP[dtype])
        idx = np.arange(n_in * cols, dtype=np.uint32)
        v2, i2 = vals.reshape(-1, width), idx.reshape(-1, width)
        o = np.argsort(-v2, axis=1, kind="stable")
        sv, si = np.take_along_axis(v2, o, axis=1), np.take_along_axis(i2, o, axis=1)
        if n_in == 1:
            lists = [(sv.ravel(), si.ravel())]
            if name.startswith("single"):
                span = 4 * width
                full = cols // span * span
                gv, gi = sv.ravel()[:full].reshape(-1, span), si.ravel()[:full].reshape(-1, span)
                go = np.argsort(-gv, axis=1, kind="stable")
                gv = np.concatenate([np.take_along_axis(gv, go, axis=1).ravel(), np.zeros(cols - full, gv.dtype)])
                gi = np.concatenate([np.take_along_axis(gi, go, axis=1).ravel(), np.zeros(cols - full, np.uint32)])
                out[name] = (lists, M.join_records(gv.view(BITS[dtype]), gi, dtype))
                continue
        else:
            lists = [(sv[j, : src_cols[j] // 2], si[j, : src_cols[j] // 2]) for j in range(n_in)]
        fv = np.concatenate([lv for lv, _ in lists])
        fi = np.concatenate([li for _, li in lists])
        go = np.argsort(-fv, kind="stable")
        pad = n_in * cols - k
        gv = np.concatenate([fv[go][:k], np.zeros(pad, fv.dtype)])
        gi = np.concatenate([fi[go][:k], np.zeros(pad, np.uint32)])
        if name.startswith("exhausted"):
            for j in range(n_in):
                hit = np.flatnonzero(gv == sv[j, cols - 1])  # each list's last value, full row
                if len(hit):
                    gv[hit[-1] + 1:] = 0
                    gi[hit[-1] + 1:] = 0
        out[name] = (lists, M.join_records(gv.view(BITS[dtype]), gi, dtype))
    return out


GOLDEN = {"cpu": golden_recipe(CPU_CASES), "npu": golden_recipe(NPU_CASES)}
CASE_ROWS = [(s, c, p) for s, cases in (("cpu", CPU_CASES), ("npu", NPU_CASES)) for c in cases
             for p in ("cpu", "npu")]


@pytest.mark.parametrize("script,case,platform", CASE_ROWS,
                         ids=[f"{s}-{c[0]}-on-{p}" for s, c, p in CASE_ROWS])
def test_pto_isa_canonical_case(script, case, platform):
    name, dtype, src_cols, n_in, topk_words, block_words = case
    lists, golden = GOLDEN[script][name]
    words = [M.join_records(v.view(BITS[dtype]), i, dtype) for v, i in lists]
    coef = M.elements_per_record(dtype) // 2  # gen_data counts 4-byte words; half kernels double them
    cols_rec = src_cols[0] // 2
    if name.startswith("single"):
        r = M.single(words[0], dtype, block_len=block_words * coef, dst_records=cols_rec, platform=platform)
    elif name.startswith("topk"):
        r = M.topk(words[0], dtype, cols=src_cols[0] * coef, topk=topk_words * coef, platform=platform)
    else:
        r = M.merge(words, dtype, dst_records=topk_words // 2, exhausted=name.startswith("exhausted"),
                    platform=platform)
    n = len(r.words)
    exact = r.classes == EXACT
    assert np.array_equal(r.words[exact], golden[:n][exact])
    assert not np.any(golden[n:])  # golden past dst's width is zero fill
    if name.startswith("exhausted"):
        assert exact.any() and not np.any(golden[:n][~exact])  # the golden is zeroed where dst is not written
        assert r.executed is not None and 0 < sum(r.executed) == exact.sum() // 2
    elif name.startswith("single"):
        assert not np.any(golden[:n][~exact])  # zero fill where the partial group leaves dst untouched
        span = 4 * (block_words // 2)
        assert exact.sum() // 2 == cols_rec // span * span
    else:
        assert exact.all()
