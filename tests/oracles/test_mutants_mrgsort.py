"""oracles/mrgsort.py behaviours the mutation run (tests/README.md) found unpinned: argument checks and their
messages, the registry entry's defaults, the NPU exhausted stop point, the head-by-head loop's near-zero and
cap rules, and the per-group near-zero ambiguity of the single-list form. Expected merges are worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.oracles import mrgsort as M
from ptofuzz.oracles import mrgsort_records, sort_batch

E, U = EXACT, UNDEFINED
NAN = float("nan")


def recs(values, idx=None):
    """float32 record words from Python floats (indices 0, 1, ... unless given)."""
    v = np.array(values, np.float32).view(np.uint32)
    i = np.arange(len(values)) if idx is None else np.array(idx)
    return M.join_records(v, i.astype(np.uint32), "float32")


def bits_recs(value_bits, idx):
    return M.join_records(np.array(value_bits, np.uint32), np.array(idx, np.uint32), "float32")


def record_classes(result):
    return result.classes[0::2].tolist()


# ---- argument checks ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "message"), [
    (lambda: M.merge([recs([1.0])], "float32", dst_records=1, exhausted=False, platform="cpu"),
     "TMRGSORT merges 2..4 lists, not 1"),
    (lambda: M.merge([recs([1.0])] * 2, "float32", dst_records=-1, exhausted=False, platform="cpu"),
     "dst_records must be a non-negative integer, got -1"),
    (lambda: M.single(recs([1.0] * 4), "float32", block_len=2, dst_records=-2, platform="cpu"),
     "dst_records must be a non-negative integer, got -2"),
    (lambda: M.topk(recs([1.0] * 64), "float32", cols=128, topk=0, platform="cpu"),
     "topk=0 must be a positive multiple of 2 elements for float32"),
    (lambda: M.topk(recs([1.0] * 64), "float32", cols=127, topk=64, platform="cpu"),
     "cols=127 must be a positive multiple of 2 elements for float32"),
    (lambda: M.topk(recs([1.0] * 64), "float32", cols=-2, topk=64, platform="cpu"),
     "cols=-2 must be a positive multiple of 2 elements for float32"),
    (lambda: M.topk(recs([1.0] * 64), "float32", cols=1 << 16, topk=64, platform="cpu"),
     "cols=65536 overflows the kernel's uint16 column counters"),
    (lambda: M.topk(recs([1.0] * 64), "float32", cols=128, topk=130, platform="cpu"),
     "topk=130 exceeds cols=128: the kernel would copy past its src tile"),
    (lambda: M.topk(recs([1.0] * 32), "float32", cols=128, topk=64, platform="cpu"),
     "words hold 32 records, the kernel reads 64"),
    (lambda: M.split_records(np.array([1, 2, 3]), "float32"),
     "a record stream has an even number of words, got shape (3,)"),
    (lambda: M.split_records(np.array([-1, 2]), "float32"), "record words must be uint32"),
    (lambda: M.split_records(np.array([1 << 32, 2]), "float32"), "record words must be uint32"),
    (lambda: M.split_records(np.array([1.0, 2.0]), "float32"), "record words must be uint32"),
    (lambda: M.split_records(np.array([1, 2]), "int32"), "TMRGSORT records hold float32 or float16 values, not int32"),
    (lambda: M.join_records([1], [2], "float32", pad=1), "float32 records have no pad bytes"),
    (lambda: M.merge([np.zeros((2, 2), np.uint32)] * 2, "float32", dst_records=1, exhausted=False, platform="cpu"),
     "a record stream is one tile row (1-D words), got shape (2, 2)"),
    (lambda: M.merge([recs([1.0])] * 2, "float32", dst_records=1, exhausted=False, platform="spec"),
     "pto-spec has no TMRGSORT model; use cpu or an NPU platform"),
])
def test_bad_arguments_say_what_is_wrong(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message


def test_the_largest_topk_width_is_65534_columns():
    """The kernel counts columns in uint16: 65534 float32 elements (32767 records) still fit."""
    vals = np.arange(32767, 0, -1, dtype=np.float32)  # one descending list: every block is sorted
    r = M.topk(recs(vals), "float32", cols=65534, topk=64, platform="cpu")
    assert record_classes(r) == [E] * 32
    assert M.split_records(r.words, "float32")[0].view(np.float32).tolist() == vals[:32].tolist()


# ---- the registry entry: a case and its tiles ----------------------------------------------------------------


def _case(tiles, **params):
    return Case("TMRGSORT", "cpu", "float32", tuple(tiles), tuple(sorted(params.items())))


def test_a_case_without_params_is_the_single_list_form_with_32_record_blocks():
    """Four descending blocks of 32 records (64 float32 elements each): one group, merged."""
    vals = np.concatenate([np.arange(32, dtype=np.float32) * 4 + k for k in range(4)][::-1])
    blocks = np.concatenate([np.sort(vals[32 * k:32 * k + 32])[::-1] for k in range(4)])
    words = recs(blocks)[None, :]
    case = _case([("dst", Tile(1, 256, 1, 256)), ("src0", Tile(1, 256, 1, 256))])
    out = M.tmrgsort(case, {"src0": words}, "cpu")
    assert out.kind == "ok" and out.outputs["dst"].shape == (1, 256) and out.classes["dst"].dtype == np.uint8
    got = out.outputs["dst"][0, 0::2].view(np.float32).tolist()
    assert got == sorted(blocks.tolist(), reverse=True)
    assert (out.classes["dst"] == E).all() and "executed" not in out.extra


def test_a_case_with_a_block_param_merges_groups_of_four_such_blocks():
    """block=16 records: 128 records are 2 groups of 4 descending blocks, each group merged on its own."""
    rng = np.random.default_rng(4)
    vals = rng.permutation(128).astype(np.float32)
    blocks = np.concatenate([np.sort(vals[16 * k:16 * k + 16])[::-1] for k in range(8)])
    case = _case([("dst", Tile(1, 256, 1, 256)), ("src0", Tile(1, 256, 1, 256))], block=16)
    out = M.tmrgsort(case, {"src0": recs(blocks)[None, :]}, "cpu")
    got = out.outputs["dst"][0, 0::2].view(np.float32).tolist()
    assert got == sorted(blocks[:64].tolist(), reverse=True) + sorted(blocks[64:].tolist(), reverse=True)
    assert (out.classes["dst"] == E).all()


def test_a_case_with_exhausted_stops_when_a_list_runs_out():
    a, b = recs([5.0, 3.0]), recs([4.0, 2.0, 1.0], [10, 11, 12])
    tiles = [("dst", Tile(1, 10, 1, 10)), ("src0", Tile(1, 4, 1, 4)), ("src1", Tile(1, 6, 1, 6))]
    inputs = {"src0": a[None, :], "src1": b[None, :]}
    full = M.tmrgsort(_case(tiles, lists=2), inputs, "cpu")
    assert full.extra["executed"] == [2, 3, 0, 0] and (full.classes["dst"] == E).all()
    stop = M.tmrgsort(_case(tiles, lists=2, exhausted=1), inputs, "cpu")
    assert stop.extra["executed"] == [2, 1, 0, 0]  # 5, 4, 3: list 0 is empty
    assert stop.outputs["dst"][0, :6].tolist() == recs([5.0, 4.0, 3.0], [0, 10, 1]).tolist()
    assert stop.classes["dst"][0, 0::2].tolist() == [E] * 3 + [U] * 2


def test_a_case_with_topk_runs_the_topk_kernel():
    vals = np.arange(64, 0, -1, dtype=np.float32)  # 64 records = 128 float32 elements
    case = _case([("dst", Tile(1, 64, 1, 64)), ("src0", Tile(1, 128, 1, 128))], topk=1)
    out = M.tmrgsort(case, {"src0": recs(vals)[None, :]}, "cpu")
    assert out.outputs["dst"][0, 0::2].view(np.float32).tolist() == vals[:32].tolist()
    assert (out.classes["dst"] == E).all()


# ---- NPU exhausted mode: the stop point --------------------------------------------------------------------


def test_npu_exhausted_stop_before_an_ambiguous_zero_run_is_known():
    """list 0 = [5.0] runs out with the first output, just before the +0/-0 run from lists 1 and 2: the unit
    stops there, so the order of the zeros never matters and the executed counts are known."""
    lists = [recs([5.0]), bits_recs([0x00000000], [10]), bits_recs([0x80000000], [20])]
    r = M.merge(lists, "float32", dst_records=3, exhausted=True, platform="a5")
    assert r.executed == (1, 0, 0, 0)
    assert record_classes(r)[0] == E and r.words[:2].tolist() == recs([5.0]).tolist()


# ---- the head-by-head loop (a list holding a NaN) ------------------------------------------------------------


def test_npu_loop_stops_being_defined_at_an_ambiguous_zero():
    """A NaN deep in list 1 sends the merge through the loop; +0 (list 0) and -0 (list 1) tie in an undocumented
    order, so the NPU output is defined only up to them: 4, 3, then undefined."""
    lists = [bits_recs([0x40800000, 0x00000000], [0, 1]),  # 4.0, +0
             bits_recs([0x40400000, 0x80000000, 0xBF800000, 0x7FC00000], [10, 11, 12, 13])]  # 3, -0, -1, NaN
    r = M.merge(lists, "float32", dst_records=6, exhausted=False, platform="a5")
    assert record_classes(r) == [E, E, U, U, U, U]
    assert r.words[:4].tolist() == bits_recs([0x40800000, 0x40400000], [0, 10]).tolist()
    stop = M.merge(lists, "float32", dst_records=6, exhausted=True, platform="a5")
    assert record_classes(stop)[:2] == [E, E] and stop.executed is None  # the stop point lies past the zeros


def test_npu_loop_without_zeros_is_defined_until_the_nan():
    lists = [recs([4.0, 2.0, 0.5]), recs([3.0, 1.0, NAN], [10, 11, 12])]
    r = M.merge(lists, "float32", dst_records=6, exhausted=False, platform="a5")
    assert record_classes(r) == [E, E, E, E, U, U]  # 4, 3, 2, 1, then list 1's head is the NaN
    assert r.words[:8].tolist() == recs([4.0, 3.0, 2.0, 1.0], [0, 10, 1, 11]).tolist()


def test_npu_exhausted_counts_run_to_the_hardware_stop_not_to_dst():
    """dst holds 1 record, but the unit merges on until list 0 is empty (5, 4, 3): counts 2 and 1. The NaN in
    list 1 never reaches its head."""
    lists = [recs([5.0, 3.0]), recs([4.0, 2.0, 1.0, NAN], [10, 11, 12, 13])]
    r = M.merge(lists, "float32", dst_records=1, exhausted=True, platform="a5")
    assert r.executed == (2, 1, 0, 0)
    assert record_classes(r) == [E] and r.words.tolist() == recs([5.0]).tolist()


def test_cpu_loop_counts_stop_at_dst():
    """cpu, not exhausted, dst of 2 records: it writes 5 and 4 and stops (a NaN elsewhere forces the loop)."""
    lists = [recs([5.0, 3.0]), recs([4.0, 2.0, NAN], [10, 11, 12])]
    r = M.merge(lists, "float32", dst_records=2, exhausted=False, platform="cpu")
    assert r.executed == (1, 1, 0, 0)
    assert r.words.tolist() == recs([5.0, 4.0], [0, 10]).tolist()


# ---- single-list form on the NPU ---------------------------------------------------------------------------


def test_npu_single_block_len_too_small_for_a_record_is_undefined():
    r = M.single(recs([3.0, 2.0, 1.0, 0.0]), "float32", block_len=1, dst_records=4, platform="a5")
    assert record_classes(r) == [U] * 4


def _block(tail_bits, start):
    """32 descending float32 records: 29..(33 - len(tail)) as values, then ``tail_bits`` (near-zero values)."""
    head = np.arange(32 - len(tail_bits), 0, -1, dtype=np.float32).view(np.uint32).tolist()
    return head + list(tail_bits), list(range(start, start + 32))


def test_npu_single_near_zero_ambiguity_is_judged_per_group():
    """Group 0: the smallest subnormal in blocks 0 and 1 (two lists, one bit pattern: their order is
    immaterial, defined). Group 1: +0 and 2 * smallest subnormal both in block 4 (one list keeps its own order:
    defined). Judged over both groups at once, either group would look ambiguous."""
    bits, idx = [], []
    for k, tail in enumerate([[1], [1], [], [], [2, 0], [], [], []]):
        b, i = _block(tail, 32 * k)
        bits += b
        idx += i
    r = M.single(bits_recs(bits, idx), "float32", block_len=64, dst_records=256, platform="a5")
    assert record_classes(r) == [E] * 256
    v, i = M.split_records(r.words, "float32")
    assert v[126:128].tolist() == [1, 1] and i[126:128].tolist() == [31, 63]  # block 0's before block 1's
    assert v[254:256].tolist() == [2, 0] and i[254:256].tolist() == [158, 159]


def test_npu_single_equal_zeros_from_two_lists_are_defined():
    bits, idx = [], []
    for k, tail in enumerate([[0], [0], [], []]):
        b, i = _block(tail, 32 * k)
        bits += b
        idx += i
    r = M.single(bits_recs(bits, idx), "float32", block_len=64, dst_records=128, platform="a5")
    assert record_classes(r) == [E] * 128


def _topk_blocks_with_a_nan():
    """128 float32 records in 4 descending blocks of 32: block k holds 127 - (4j + k) for j = 0..31, except that
    block 3's last record (0) is a NaN. Indices are the input positions."""
    vals = np.array([[127 - (4 * j + k) for j in range(32)] for k in range(4)], np.float32).reshape(-1)
    vals[127] = np.nan
    return vals, recs(vals, np.arange(128))


@pytest.mark.parametrize(("platform", "topk_records", "defined"), [("cpu", 128, 128), ("npu", 128, 124),
                                                                   ("npu", 32, 32)])
def test_topk_merges_a_group_holding_a_nan(platform, topk_records, defined):
    """cols 256 elements: one single-list pass with blockLen 64 merges the 4 blocks, and dst is its front.
    cpu: the NaN heads the highest list and waits until every lower list is empty, so it comes last after
    127..1. npu: from the output position where the NaN reaches a head (after list 3's 4) on, undefined."""
    vals, words = _topk_blocks_with_a_nan()
    r = M.topk(words, "float32", cols=256, topk=2 * topk_records, platform=platform)
    assert record_classes(r) == [E] * defined + [U] * (topk_records - defined)
    v, i = M.split_records(r.words, "float32")
    expected = list(range(127, 0, -1))[:defined]  # the numbers, without the NaN
    assert v[:len(expected)].view(np.float32).tolist() == expected
    assert i[:len(expected)].tolist() == [int(np.flatnonzero(vals == x)[0]) for x in expected]
    if defined == 128:
        assert np.isnan(v[127:].view(np.float32)).all() and i[127] == 127


# ---- record words in, record words out ------------------------------------------------------------------------


def test_an_unknown_platform_lists_the_ones_that_merge():
    with pytest.raises(ValueError) as e:
        M.merge([recs([1.0])] * 2, "float32", dst_records=1, exhausted=False, platform="gpu")
    message = str(e.value)
    assert message.startswith("unknown TMRGSORT platform 'gpu'; use one of: cpu, npu, ")
    assert {"a2a3", "a5", "kirin9030", "kirinDev0000"} <= set(message.split(": ", 1)[1].split(", "))
    assert "spec" not in message.split(": ", 1)[1].split(", ")
    named = message.split(": ", 1)[1].split(", ")
    assert len(named) == len(set(named))  # each once ("cpu" is a platform and an implementation)


def test_words_may_be_any_integer_array_within_uint32():
    """0 and 0xFFFFFFFF are the edges; plain Python ints, int64 and empty int arrays are accepted and come back
    as uint32."""
    v, i = M.split_records(np.array([0, 0xFFFFFFFF], np.int64), "float32")
    assert (v.tolist(), i.tolist(), v.dtype, i.dtype) == ([0], [0xFFFFFFFF], np.uint32, np.uint32)
    v, i = M.split_records(np.array([], np.int64), "float32")
    assert v.size == 0 and i.size == 0
    a = [int(w) for w in recs([5.0, 3.0])]
    b = [int(w) for w in recs([4.0], [10])]
    r = M.merge([a, b], "float32", dst_records=3, exhausted=False, platform="a5")
    assert r.words.dtype == np.uint32 and r.classes.dtype == np.uint8
    assert r.words.tolist() == recs([5.0, 4.0, 3.0], [0, 10, 1]).tolist()
    assert r.classes.tolist() == [E] * 6


def test_npu_exhausted_stop_inside_an_ambiguous_zero_run_is_unknown():
    """list 1 = [+0] runs out inside the +0/-0 run it shares with list 2: whether the unit stops after +0 or
    after -0 is unknown, so everything from the run on is undefined and so are the executed counts."""
    lists = [recs([5.0, -1.0]), bits_recs([0x00000000], [10]), bits_recs([0x80000000, 0xC0000000], [20, 21])]
    r = M.merge(lists, "float32", dst_records=5, exhausted=True, platform="a5")
    assert r.executed is None
    assert record_classes(r) == [E, U, U, U, U] and r.words[:2].tolist() == recs([5.0]).tolist()


def test_npu_loop_zeros_from_one_list_keep_their_order():
    """The only near-zero record (+0) is in list 0, so its place is certain although a NaN (list 1) forces the
    loop: 4, 3, +0, -1 are defined; then the NaN heads list 1."""
    lists = [bits_recs([0x40800000, 0x00000000], [0, 1]), recs([3.0, -1.0, NAN], [10, 11, 12])]
    r = M.merge(lists, "float32", dst_records=5, exhausted=False, platform="a5")
    assert record_classes(r) == [E, E, E, E, U]
    assert r.words[:8].tolist() == bits_recs([0x40800000, 0x40400000, 0x00000000, 0xBF800000], [0, 10, 1, 11]).tolist()


def test_cpu_exhausted_loop_stops_at_dst_too():
    """cpu, exhausted, dst of 1 record: it writes 5 and stops there (counts 1, 0), before any list is empty."""
    lists = [recs([5.0, 3.0]), recs([4.0, 2.0, NAN], [10, 11, 12])]
    r = M.merge(lists, "float32", dst_records=1, exhausted=True, platform="cpu")
    assert r.executed == (1, 0, 0, 0) and r.words.tolist() == recs([5.0]).tolist()


# ---- the registry oracle: stacked cases, the vectorised merge, executed counts (second mutation run) -------------

from ptofuzz import api  # noqa: E402 - this section's own imports
from ptofuzz.generators import values as _values  # noqa: E402
from ptofuzz.generators.source import seeded  # noqa: E402
from ptofuzz.instructions import registry  # noqa: E402


def _geometries(platform: str) -> list[Case]:
    planned = [c for _, c, _ in api.plan("tmrgsort", platform)]
    return planned + [c for _, c, _ in api.plan("tmrgsort", platform, seed=5, random=30)]


def _executed_rows(outcome, n):
    rows = outcome.extra.get("executed")
    return np.full((n, 4), -1) if rows is None else np.asarray(rows).reshape(n, 4)


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("rate", [0.0, 0.2, 0.6])
def test_stacked_tmrgsort_gives_each_case_its_own_outcome(platform, rate):
    """Fuzzing evaluates a batch of one geometry stacked on a leading axis: every slice must be what the case gives
    alone (records, classes, executed counts; a case without counts has none alone)."""
    inst = registry.get("TMRGSORT")
    mix = _values.ValueMix(rate)
    for k, case in enumerate(_geometries(platform)):
        stacked = inst.draw_batch(seeded(9, f"m{k}"), case, mix, 6)
        together = inst.evaluate(case, stacked)
        assert together.outputs["dst"].shape == (6, *case.tile("dst").shape)
        rows = _executed_rows(together, 6)
        for j in range(6):
            alone = inst.evaluate(case, {r: v[j] for r, v in stacked.items()})
            np.testing.assert_array_equal(together.outputs["dst"][j], alone.outputs["dst"])
            np.testing.assert_array_equal(together.classes["dst"][j], alone.classes["dst"])
            if rows[j, 0] < 0:  # documented: a row of -1 where a case has no counts
                assert rows[j].tolist() == [-1] * 4
                assert "executed" not in alone.extra
            else:
                assert alone.extra["executed"] == rows[j].tolist()


@pytest.mark.parametrize("plat", ["cpu", "npu"])
@pytest.mark.parametrize("exhausted", [False, True])
@pytest.mark.parametrize("rate", [0.0, 0.3, 0.7])
def test_vectorised_merge_is_the_head_by_head_merge(plat, exhausted, rate):
    """_merge_many (ranks, NaN tails, near-zero runs) against the reference simulation _merge_impl, merge by
    merge, on lists drawn as the generator draws them (sorted, NaNs at the end, zeros and subnormals mixed in)."""
    inst = registry.get("TMRGSORT")
    mix = _values.ValueMix(rate)
    seen_nan = 0
    for k, case in enumerate(c for c in _geometries("cpu" if plat == "cpu" else "a5") if c.param("lists", 1) > 1):
        dt = M._dtype(case.dtype)
        drawn = inst.draw_batch(seeded(3, f"v{k}"), case, mix, 5)
        srcs = [mrgsort_records._words(drawn[f"src{i}"][:, 0, :case.tile(f"src{i}").valid_cols]).reshape(5, -1, 2)
                for i in range(case.param("lists"))]
        cap = case.tile("dst").valid_cols // 2
        many = M._merge_many(srcs, [np.ones(s.shape[:2], bool) for s in srcs], dt, plat, cap, exhausted)
        for j in range(5):
            lists = [M._Recs(s[j], np.ones(len(s[j]), bool)) for s in srcs]
            seen_nan += any(M.ieee.is_nan(M._List.value_bits(r.recs, dt), dt).any() for r in lists)
            ref = M._merge_impl(lists, dt, plat, cap, exhausted)
            np.testing.assert_array_equal(many.defined[j], ref.defined)
            np.testing.assert_array_equal(many.written[j], ref.written)
            np.testing.assert_array_equal(np.where(ref.defined[:, None], many.recs[j], 0),
                                          np.where(ref.defined[:, None], ref.recs, 0))
            assert many.counts(j) == ref.executed
    if rate:
        assert seen_nan, "the draw should have put NaN tails in some lists"


def _two_lists(platform, a, b, keep, **params):
    case = Case("TMRGSORT", platform, "float32", (("dst", Tile(1, 2 * keep, 1, 2 * keep)),
                                                   ("src0", Tile(1, 2 * len(a), 1, 2 * len(a))),
                                                   ("src1", Tile(1, 2 * len(b), 1, 2 * len(b)))),
                (("lists", 2), *params.items()))
    inputs = {"src0": recs(a)[None, :], "src1": recs(b, range(len(a), len(a) + len(b)))[None, :]}
    return registry.get("TMRGSORT").evaluate(case, inputs)


def test_the_npus_leave_everything_from_a_nan_head_undefined_and_the_cpu_does_not():
    """[3, 1] and [2, NaN]: after 3 and 2 list 1's head is its NaN. The cpu scans heads from list 0 and a NaN never
    replaces a candidate, so 1 goes out, then the NaN (all defined); the NPUs' NaN order is undocumented, so
    positions 2 and 3 are undefined."""
    cpu = _two_lists("cpu", [3.0, 1.0], [2.0, NAN], 4)
    words = cpu.outputs["dst"][0]
    assert words[0::2][:3].view(np.float32).tolist() == [3.0, 2.0, 1.0]
    assert np.isnan(words[0::2][3:].view(np.float32)).all()
    assert words[1::2].tolist() == [0, 2, 1, 3]
    assert cpu.classes["dst"][0].tolist() == [E] * 8
    for npu in ("a2a3", "a5"):
        out = _two_lists(npu, [3.0, 1.0], [2.0, NAN], 4)
        assert out.classes["dst"][0].tolist() == [E] * 4 + [U] * 4
        assert out.outputs["dst"][0][:4].tolist() == words[:4].tolist()


def test_executed_counts_reach_the_outcome_even_when_list_0_gave_none():
    """cpu, dst of one record: [1] and [3] put out 3 from list 1, so the counts are (0, 1, 0, 0): a leading 0 is
    still a count. The NPUs report counts only in exhausted mode: none here."""
    assert _two_lists("cpu", [1.0], [3.0], 1).extra["executed"] == [0, 1, 0, 0]
    assert "executed" not in _two_lists("a5", [1.0], [3.0], 1).extra
    assert _two_lists("a5", [1.0], [3.0], 1, exhausted=1).extra["executed"] == [0, 1, 0, 0]


def test_topk_single_list_pass_follows_each_platforms_nan_rule():
    """cols 256 float32 elements: one single-list pass merges 4 blocks of 32 records, then dst is the first 32
    records. Block 0 holds the 31 largest numbers and ends in a NaN: after them the NaN heads list 0. The cpu puts
    it out at once (a NaN heading the lowest non-empty list is the first candidate); the NPUs' NaN order is
    undocumented, so record 31 is undefined there."""
    blocks = [[1000.0 - i for i in range(31)] + [NAN]] + [[500.0 - 40 * b - i for i in range(32)] for b in range(3)]
    words = recs([v for blk in blocks for v in blk])
    cpu = M.topk(words, "float32", cols=256, topk=64, platform="cpu")
    assert record_classes(cpu) == [E] * 32
    vals = cpu.words[0::2].view(np.float32)
    assert vals[:31].tolist() == [1000.0 - i for i in range(31)] and np.isnan(vals[31])
    for npu in ("a2a3", "a5"):
        out = M.topk(words, "float32", cols=256, topk=64, platform=npu)
        assert record_classes(out) == [E] * 31 + [U]
        assert out.words[:62].tolist() == cpu.words[:62].tolist()


def test_shared_work_keeps_the_cpu_and_npu_merges_apart():
    """Inside shared_work the NPUs share one vmrgsort4 outcome; the cpu must still get its own merge: with a NaN
    heading list 1 the cpu defines every record and a5 does not."""

    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", "cpu", "float32", (("dst", Tile(1, 8, 1, 8)), ("src0", Tile(1, 4, 1, 4)),
                                               ("src1", Tile(1, 4, 1, 4))), (("lists", 2),))
    inputs = {"src0": recs([3.0, 1.0])[None, :], "src1": recs([NAN, 2.0], [2, 3])[None, :]}
    with sort_batch.shared_work():
        a5 = inst.evaluate(case.on("a5"), inputs)
        cpu = inst.evaluate(case, inputs)
        a2a3 = inst.evaluate(case.on("a2a3"), inputs)
    assert cpu.classes["dst"][0].tolist() == [E] * 8
    assert a5.classes["dst"][0].tolist() == [U] * 8 == a2a3.classes["dst"][0].tolist()


def test_a_stacked_npu_merge_of_plus_zeros_from_two_lists_is_defined():
    """Equal bits are no ambiguity: [1, +0] and [+0] merge to 1, +0, +0 with every record defined on the NPUs,
    stacked as alone."""
    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", "a5", "float32", (("dst", Tile(1, 6, 1, 6)), ("src0", Tile(1, 4, 1, 4)),
                                              ("src1", Tile(1, 2, 1, 2))), (("lists", 2),))
    one = {"src0": recs([1.0, 0.0])[None, :], "src1": recs([0.0], [2])[None, :]}
    stacked = {r: np.stack([v, v]) for r, v in one.items()}
    for out in (inst.evaluate(case, one).classes["dst"][None], inst.evaluate(case, stacked).classes["dst"]):
        assert out[:, 0].tolist() == [[E] * 6] * len(out)


# ---- edge batches a direct oracle call can make (second mutation run, argued survivors) -----------------------


def _stack(inputs, n):
    return {r: np.stack([v] * n) for r, v in inputs.items()}


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
def test_stacked_merge_of_empty_lists_leaves_dst_undefined(platform):
    """Two lists of valid width 0: nothing to merge, every dst word is UNDEFINED, stacked as alone; the cpu still
    counts (0, 0, 0, 0)."""
    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", platform, "float32", (("dst", Tile(1, 4, 1, 4)), ("src0", Tile(1, 4, 1, 0)),
                                                  ("src1", Tile(1, 4, 1, 0))), (("lists", 2),))
    one = {"src0": np.zeros((1, 4), np.uint32), "src1": np.zeros((1, 4), np.uint32)}
    stacked = inst.evaluate(case, _stack(one, 3))
    alone = inst.evaluate(case, one)
    assert stacked.classes["dst"].tolist() == [[[U] * 4]] * 3 and alone.classes["dst"].tolist() == [[U] * 4]
    if platform == "cpu":
        assert np.asarray(stacked.extra["executed"]).tolist() == [[0] * 4] * 3
        assert alone.extra["executed"] == [0] * 4
    else:
        assert "executed" not in stacked.extra and "executed" not in alone.extra


def test_a_stacked_cpu_merge_into_an_empty_dst_still_reports_zero_counts():
    """dst valid width 0 (keep 0): the cpu merges nothing and counts (0, 0, 0, 0) for every stacked case."""
    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", "cpu", "float32", (("dst", Tile(1, 4, 1, 0)), ("src0", Tile(1, 4, 1, 4)),
                                               ("src1", Tile(1, 4, 1, 4))), (("lists", 2),))
    one = {"src0": recs([2.0, 1.0])[None, :], "src1": recs([3.0, 0.5], [2, 3])[None, :]}
    out = inst.evaluate(case, _stack(one, 2))
    assert np.asarray(out.extra["executed"]).tolist() == [[0] * 4] * 2
    assert out.classes["dst"].tolist() == [[[U] * 4]] * 2


@pytest.mark.parametrize("platform", ["cpu", "a5"])
@pytest.mark.parametrize("dst_cols", [64, 128])
def test_a_stacked_topk_batch_of_no_cases_is_empty(platform, dst_cols):
    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", platform, "float32", (("dst", Tile(1, dst_cols, 1, 64)), ("src0", Tile(1, 128, 1, 128))),
                (("topk", 1),))
    out = inst.evaluate(case, {"src0": np.zeros((0, 1, 128), np.uint32)})
    assert out.outputs["dst"].shape == (0, 1, dst_cols) and out.outputs["dst"].dtype == np.uint32
    assert out.classes["dst"].shape == (0, 1, dst_cols) and out.classes["dst"].dtype == np.uint8
    assert "executed" not in out.extra


@pytest.mark.parametrize("lists", [0, 5])
def test_a_case_asking_for_other_than_2_to_4_lists_is_refused_by_name(lists):
    case = Case("TMRGSORT", "cpu", "float32", (("dst", Tile(1, 4, 1, 4)), ("src0", Tile(1, 4, 1, 4))),
                (("lists", lists),))
    with pytest.raises(ValueError, match=f"^TMRGSORT merges 2..4 lists, not {lists}$"):
        M.tmrgsort_model(case, {"src0": recs([2.0, 1.0])[None, :]}, "cpu")


@pytest.mark.parametrize("platform", ["cpu", "a5"])
def test_stacked_unsorted_lists_give_what_each_case_gives_alone(platform):
    """Lists that are not descending (only a direct call makes them): the cpu merges head by head ([1, 3] and
    [4, 0.5] give 4, 1, 3, 0.5), the NPUs leave the result undefined; stacked equals alone."""
    inst = registry.get("TMRGSORT")
    case = Case("TMRGSORT", platform, "float32", (("dst", Tile(1, 8, 1, 8)), ("src0", Tile(1, 4, 1, 4)),
                                                  ("src1", Tile(1, 4, 1, 4))), (("lists", 2),))
    a = np.stack([recs([1.0, 3.0]), recs([2.0, 5.0])])[:, None]
    b = np.stack([recs([4.0, 0.5], [2, 3]), recs([1.0, 2.5], [2, 3])])[:, None]
    together = inst.evaluate(case, {"src0": a, "src1": b})
    for j, want in enumerate([[4.0, 1.0, 3.0, 0.5], [2.0, 5.0, 1.0, 2.5]]):
        alone = inst.evaluate(case, {"src0": a[j], "src1": b[j]})
        np.testing.assert_array_equal(together.outputs["dst"][j], alone.outputs["dst"])
        np.testing.assert_array_equal(together.classes["dst"][j], alone.classes["dst"])
        if platform == "cpu":
            assert alone.outputs["dst"][0, 0::2].view(np.float32).tolist() == want
            assert alone.classes["dst"].tolist() == [[E] * 8]
        else:
            assert alone.classes["dst"].tolist() == [[U] * 8]


@pytest.mark.parametrize(("lists", "values"), [
    ([[5.0], [3.0, 4.0, NAN]], [5.0, 3.0, 4.0, NAN]),  # list 1 not descending: the cpu still takes heads in turn
    ([[NAN], [3.0, 4.0]], [NAN, 3.0, 4.0]),             # a NaN head of list 0 goes first, then 3 and 4 as they come
    ([[], [NAN], [5.0]], [NAN, 5.0]),                   # an empty list 0: list 1's NaN head is the first candidate
])
def test_the_cpu_merges_heads_in_list_order_whatever_they_hold(lists, values):
    """The cpu simulator compares heads only: a list out of order or headed by a NaN is merged as it comes (the
    NPUs leave such merges undefined)."""
    words, k = [], 0
    for vals in lists:
        words.append(recs(vals, range(k, k + len(vals))))
        k += len(vals)
    r = M.merge(words, "float32", dst_records=k, exhausted=False, platform="cpu")
    got = r.words[0::2].view(np.float32).tolist()
    assert [("nan" if v != v else v) for v in got] == [("nan" if v != v else v) for v in values]
    assert record_classes(r) == [E] * k


# ---- third mutation run: the undefined fill, topk's NPU rules, stacked exhausted merges case by case -----------


@pytest.mark.parametrize("stacked", [False, True])
def test_an_npu_single_list_case_outside_the_contract_is_undefined_and_zero_filled(stacked):
    """a5, block=16 records (32 float32 elements, not a multiple of 64): outside the documented contract, so every
    dst word is UNDEFINED, and an UNDEFINED word is written as 0 (golden bytes stay deterministic)."""
    vals = np.arange(64, 0, -1, dtype=np.float32)
    case = Case("TMRGSORT", "a5", "float32", (("dst", Tile(1, 128, 1, 128)), ("src0", Tile(1, 128, 1, 128))),
                (("block", 16),))
    words = recs(vals)[None, :]
    out = M.tmrgsort_model(case, {"src0": words[None] if stacked else words}, "a5")
    assert (out.classes["dst"] == U).all() and (out.outputs["dst"] == 0).all()
    assert out.outputs["dst"].shape == ((1, 1, 128) if stacked else (1, 128))


def test_a_topk_case_reports_no_executed_counts():
    """The topk kernel ends in non-exhausted merges: no VMS4_SR counts, alone or stacked."""
    vals = np.arange(64, 0, -1, dtype=np.float32)
    case = _case([("dst", Tile(1, 64, 1, 64)), ("src0", Tile(1, 128, 1, 128))], topk=1)
    words = recs(vals)[None, :]
    for platform in ("cpu", "a5"):
        alone = M.tmrgsort_model(case, {"src0": words}, platform)
        stacked = M.tmrgsort_model(case, {"src0": np.stack([words, words])}, platform)
        assert "executed" not in alone.extra and "executed" not in stacked.extra
        assert (alone.classes["dst"] == E).all()


def test_topk_on_an_npu_leaves_a_mixed_zero_run_from_two_blocks_undefined():
    """cols 256 float32 elements: one single-list pass over 4 blocks of 32. Blocks 0 and 1 each end in a zero, +0
    and -0: two lists, two bit patterns, so their order is undocumented on the NPUs (the last two records are
    UNDEFINED); the cpu merges stably, block 0's +0 first."""
    bits, idx = [], []
    for k, tail in enumerate([[0x00000000], [0x80000000], [], []]):
        b, i = _block(tail, 32 * k)
        bits += b
        idx += i
    words = bits_recs(bits, idx)
    cpu = M.topk(words, "float32", cols=256, topk=256, platform="cpu")
    assert record_classes(cpu) == [E] * 128
    v, i = M.split_records(cpu.words, "float32")
    assert v[126:].tolist() == [0x00000000, 0x80000000] and i[126:].tolist() == [31, 63]
    for npu in ("a2a3", "a5"):
        out = M.topk(words, "float32", cols=256, topk=256, platform=npu)
        assert record_classes(out) == [E] * 126 + [U] * 2
        assert out.words[:252].tolist() == cpu.words[:252].tolist()


def _exhausted_a5(lists_per_case):
    """Stacked and alone a5 exhausted merges of the given cases (each a list of float32 lists, one geometry)."""
    inst = registry.get("TMRGSORT")
    lens = [len(x) for x in lists_per_case[0]]
    total = sum(lens)
    tiles = (("dst", Tile(1, 2 * total, 1, 2 * total)),
             *((f"src{i}", Tile(1, 2 * n, 1, 2 * n)) for i, n in enumerate(lens)))
    case = Case("TMRGSORT", "a5", "float32", tiles, (("exhausted", 1), ("lists", len(lens))))
    starts = np.cumsum([0] + lens)  # record indices run on across the lists
    per_case = [{f"src{i}": recs(x, range(starts[i], starts[i] + len(x)))[None, :] for i, x in enumerate(lists)}
                for lists in lists_per_case]
    stacked = inst.evaluate(case, {r: np.stack([c[r] for c in per_case]) for r in per_case[0]})
    return stacked, [inst.evaluate(case, c) for c in per_case]


@pytest.mark.parametrize("lists_per_case", [
    # a list ending inside the ambiguous +0/-0 run (stop point unknown) stacked with one whose lists end after it
    [[[1.0, 0.0], [-0.0, -3.0]], [[0.0, -1.0], [-0.0, -2.0]]],
    # list 0 runs out just before the +0/-0 run: the stop point is known although lists 1 and 2 end in the run
    [[[1.0, 0.5], [0.0], [-0.0]], [[1.0, 0.5], [0.0], [-0.0]]],
])
def test_stacked_npu_exhausted_merges_judge_a_zero_run_case_by_case(lists_per_case):
    """The vectorised stacked merge decides per case whether an ambiguous near-zero run is reached and whether a
    list ends inside it; each case must get what it gets alone (the head-by-head merge)."""
    stacked, alone = _exhausted_a5(lists_per_case)
    for j, one in enumerate(alone):
        np.testing.assert_array_equal(stacked.outputs["dst"][j], one.outputs["dst"])
        np.testing.assert_array_equal(stacked.classes["dst"][j], one.classes["dst"])
        want = one.extra.get("executed", [-1] * 4)
        assert stacked.extra["executed"][j].tolist() == list(want)
    if len(lists_per_case[0]) == 3:
        assert alone[0].extra["executed"] == [2, 0, 0, 0]  # 1 and 0.5 out, then list 0 is empty
    else:
        assert "executed" not in alone[0].extra and alone[1].extra["executed"] == [2, 1, 0, 0]
