"""The sorts fuzz in batches: stacked inputs (a leading axis of N cases of one geometry) through every oracle of
TSORT (spec, bundle), TSORT32 and TMRGSORT give each case exactly its own outcome, and a batch's signatures are
the per-case ones summed. The vectorised TMRGSORT merge is checked against the head-by-head reference."""

from __future__ import annotations

import numpy as np
import pytest
from backend_helpers import evaluate

from ptofuzz.core import dtypes
from ptofuzz.core.case import Case, Outcome, OutcomeKind, Tile
from ptofuzz.core.records import replace
from ptofuzz.engine import campaign, differential
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee, mrgsort, mrgsort_records

PROFILES = ("default", "sort", "nan", "zero,subnormal", "tie,equal")
SORTS = {"TSORT": ("spec", "bundle"), "TSORT32": ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000"),
         "TMRGSORT": ("cpu", "a2a3", "a5", "kirin9030", "kirinDev0000")}


def _item(inputs, i):
    return {r: np.array(v[i]) for r, v in inputs.items()}


def _executed(outcome: Outcome, i: int | None):
    ex = outcome.extra.get("executed")
    if i is None or ex is None:
        return ex
    row = ex[i]
    return None if row[0] < 0 else [int(c) for c in row]


def assert_stacked_is_per_case(inst, case: Case, inputs) -> Outcome:
    """The stacked outcome against each case evaluated alone: kind, fault, reason, every output and class
    element, executed counts; the batch's flags are those any case raises."""
    n = next(iter(inputs.values())).shape[0]
    stacked = evaluate(inst, case, inputs)
    flags: set[str] = set()
    for i in range(n):
        one = evaluate(inst, case, _item(inputs, i))
        assert (one.kind, one.fault, one.reason) == (stacked.kind, stacked.fault, stacked.reason), (case, i)
        flags |= set(one.flags or ())
        if one.kind is not OutcomeKind.OK:
            continue
        assert one.outputs.keys() == stacked.outputs.keys()
        for role in one.outputs:
            np.testing.assert_array_equal(one.outputs[role], stacked.outputs[role][i], err_msg=f"{case} {i} {role}")
            np.testing.assert_array_equal(one.classes[role], stacked.classes[role][i], err_msg=f"{case} {i} {role}")
        assert _executed(one, None) == _executed(stacked, i), (case, i)
    if stacked.kind is OutcomeKind.OK and stacked.flags is not None:
        assert set(stacked.flags) == flags
    return stacked


@pytest.mark.parametrize("op", sorted(SORTS))
def test_random_batches_evaluate_each_case_as_alone(op):
    inst = registry.get(op)
    seen = set()
    for k in range(60):
        src = seeded(31, op, str(k))
        oracle = SORTS[op][k % len(SORTS[op])]
        case = inst.random_case(src, "spec" if oracle == "bundle" else oracle, {})
        mix = values.ValueMix.parse(PROFILES[k % len(PROFILES)], (0.05, 0.3)[k % 2])
        inputs = inst.draw_batch(src, case, mix, 6)
        for o in SORTS[op]:
            if o == "bundle" or oracle != "bundle":
                out = assert_stacked_is_per_case(inst, case.on(o), inputs)
                seen.add(str(out.kind))
    assert "ok" in seen


def test_batches_of_faulting_and_unsupported_geometries():
    """Faults and unsupported cases depend on the geometry alone: the whole batch gives the one outcome."""
    f16 = dtypes.get("float16")
    t = Tile(4, 32, 4, 32)
    tsort = registry.get("TSORT")
    mix = values.ValueMix.parse("nan", 0.3)
    cases = [Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)), (("sort_width", 65),)),
             Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)), (("descending", 2),)),
             Case("TSORT", "spec", "bfloat16", (("src", t), ("dst", t), ("idx", t)), (("contract", 1),)),
             Case("TSORT", "spec", "bfloat16", (("src", t), ("dst", t), ("idx", t)), ())]
    kinds = []
    for case in cases:
        inputs = tsort.draw_batch(seeded(1, "f"), case, mix, 5)
        kinds += [str(assert_stacked_is_per_case(tsort, case.on(o), inputs).kind) for o in ("spec", "bundle")]
    assert {"fault", "unsupported", "ok"} <= set(kinds)
    t32 = registry.get("TSORT32")
    src, idx = Tile(3, 40, 3, 40), Tile(2, 40, 2, 40)  # idx neither src's region nor one broadcast row
    case = Case("TSORT32", "a5", f16.name, t32.platforms["a5"].profile.derive({"src": src, "idx": idx}))
    inputs = t32.draw_batch(seeded(2, "f"), case, mix, 4)
    assert str(assert_stacked_is_per_case(t32, case, inputs).kind) == "unsupported"
    assert str(assert_stacked_is_per_case(t32, case.on("cpu"), inputs).kind) == "ok"  # cpu returns silently


def _planted_tsort32() -> registry.Instruction:
    """TSORT32 whose cpu model flips the lowest bit of a row's first record value wherever the row's first source
    element is odd: a disagreement of some items of a batch and not others, item by item as a batch."""
    inst = registry.get("TSORT32")
    cpu = inst.platforms["cpu"]

    def flipped(case, inputs):
        out = cpu.oracle(case, inputs)
        if out.kind is OutcomeKind.OK:
            dst = out.outputs["dst"].copy()
            dst[..., :, 0] ^= (inputs["src"][..., :dst.shape[-2], 0] & 1).astype(dst.dtype)
            out = replace(out, outputs={"dst": dst})
        return out

    return replace(inst, platforms={**inst.platforms, "cpu": replace(cpu, oracle=flipped)})


def test_batch_signatures_are_the_per_case_signatures_summed():
    """What the campaign takes from a batch outcome (hit counts and the first item of each signature) is
    what comparing case by case gives (a planted cpu difference makes sure some items of a batch differ)."""
    planted = _planted_tsort32()
    for op, oracles, fixed in (("TSORT32", ("cpu", "a2a3", "a5"), {"dtype": "float16", "shape": (3, 70)}),
                               ("TSORT32", ("cpu", "a2a3", "a5"), {}), ("TMRGSORT", ("cpu", "a2a3", "a5"), {}),
                               ("TSORT", ("spec", "bundle"), {})):
        inst = planted if fixed else registry.get(op)
        plan = campaign.make_plan(op, oracles, seed=3, special="sort", rate=0.2, instruction=inst, **fixed)
        backends = plan.backends
        hit = False
        for k in range(12):
            case, size = campaign.batch_geometry(inst, plan, k)
            size = min(size, 40)
            inputs = inst.draw_batch(seeded(3, op, str(k)), case, plan.mix, size)
            stacked = differential.compare_batch(inst, case, differential.run_oracles(inst, case, inputs, backends),
                                                 size)
            counts: dict = {}
            first: dict = {}
            for i in range(size):
                one = _item(inputs, i)
                for sig in differential.compare_batch(inst, case, differential.run_oracles(inst, case, one, backends),
                                                      None).counts:
                    counts[sig] = counts.get(sig, 0) + 1
                    first.setdefault(sig, i)
            assert stacked.counts == counts and stacked.first == first, (op, k)
            hit |= bool(counts)
        assert hit or not fixed, op  # the planted difference shows


# ---- the vectorised merge against the head-by-head reference ----------------------------------------------


def _lists(rng, dt, lens, n):
    """n merges' lists: sorted with NaN tails mostly, sometimes unsorted, a NaN inside, zeros and subnormals
    from several lists, ties across lists."""
    pool = np.array([0, dt.sign_mask, 1, dt.sign_mask | 1, dt.exp_mask | 1, dt.exp_mask, 0x3C00 if dt.bits == 16
                     else 0x3F800000], np.uint64).astype(dt.bits_dtype)
    out = []
    for length in lens:
        vals = np.where(rng.random((n, length)) < 0.4, rng.choice(pool, (n, length)),
                        rng.integers(0, 1 << dt.bits, (n, length))).astype(dt.bits_dtype)
        keys = np.where(ieee.is_nan(vals, dt), np.iinfo(np.int64).max, mrgsort_records._desc_key(vals, dt))
        vals = np.take_along_axis(vals, np.argsort(keys, axis=1, kind="stable"), axis=1)
        mode = rng.integers(0, 6, n)
        for k in np.flatnonzero(mode == 0):
            rng.shuffle(vals[k])
        for k in np.flatnonzero((mode == 1) & (length > 2)):
            vals[k, rng.integers(0, length)] = dt.exp_mask | 3  # a NaN anywhere
        idx = rng.integers(0, 1 << 32, (n, length), dtype=np.uint64).astype(np.uint32)
        out.append(mrgsort.join_records(vals, idx, dt).reshape(n, length, 2))
    return out


@pytest.mark.parametrize("plat", ["cpu", "npu"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_vectorised_merge_is_the_reference_merge(plat, dtype):
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(5)
    merges = 0
    for trial in range(120):
        lens = [int(x) for x in rng.choice([0, 1, 2, 5, 9, 17], rng.integers(2, 5))]
        cap = int(rng.choice([0, 1, 4, sum(lens), sum(lens) + 3, max(1, sum(lens) // 2)]))
        exhausted = bool(trial % 2)
        lists = _lists(rng, dt, lens, 8)
        known = [np.ones(x.shape[:2], bool) for x in lists]
        many = mrgsort._merge_many(lists, known, dt, plat, cap, exhausted)
        for k in range(8):
            ref = mrgsort._merge_impl([mrgsort._Recs(x[k].copy(), np.ones(len(x[k]), bool)) for x in lists], dt,
                                      plat, cap, exhausted)
            np.testing.assert_array_equal(many.recs[k], ref.recs)
            np.testing.assert_array_equal(many.defined[k], ref.defined)
            np.testing.assert_array_equal(many.written[k], ref.written)
            assert many.counts(k) == ref.executed, (lens, cap, exhausted, k)
            merges += 1
    assert merges == 960


@pytest.mark.parametrize("plat", ["cpu", "npu"])
def test_single_list_groups_are_four_list_merges(plat):
    """Each group of the batched single-list form is the reference 4-list merge of its blocks."""
    dt = dtypes.get("float32")
    rng = np.random.default_rng(6)
    b, groups, n = 32, 3, 5
    blocks = _lists(rng, dt, [b] * (4 * groups), n)  # each block sorted (mostly), as the generator draws them
    recs = np.concatenate(blocks, axis=1)
    got, defined, written = mrgsort._single_many(recs, np.ones(recs.shape[:2], bool), dt, plat,
                                                 2 * b, 4 * b * groups)  # block_len in float32 elements
    for k in range(n):
        for g in range(groups):
            ref = mrgsort._merge_impl([mrgsort._Recs(blocks[4 * g + i][k].copy(), np.ones(b, bool))
                                       for i in range(4)], dt, plat, 4 * b, False)
            span = slice(4 * b * g, 4 * b * (g + 1))
            np.testing.assert_array_equal(got[k, span], ref.recs)
            np.testing.assert_array_equal(defined[k, span], ref.defined)
            np.testing.assert_array_equal(written[k, span], ref.written)


# ---- generation batches: tsort32_many over cases of many geometries -------------------------------------------

def _tsort32_batch(seed: int, platform: str, n: int, mix: values.ValueMix):
    inst = registry.get("TSORT32")
    geo = seeded(seed, "geometry", platform)
    items = []
    for k in range(n):
        case = inst.random_case(geo, platform, {})
        items.append((case, inst.draw_inputs(seeded(seed, platform, str(k)), case, mix)))
    return items


def _edge_cases(platform: str):
    """Geometries the random draw rarely meets: empty regions, an idx region no platform takes, a 3-argument
    form with no full block, 255 blocks of a row, a 1-row idx broadcast."""
    from ptofuzz.instructions.tsort32 import _tsort32_case

    shapes = [("float32", 0, 5, {}), ("float32", 3, 0, {}), ("float32", 2, 20, {"form": 3}),
              ("float32", 1, 255 * 32, {}), ("float16", 3, 70, {"idx_rows": 1}), ("float16", 2, 96, {}),
              ("bfloat16" if platform == "cpu" else "float16", 4, 33, {})]
    out = []
    for k, (dt, r, c, kw) in enumerate(shapes):
        case = _tsort32_case(platform, dt, r, c, **kw)
        inputs = registry.get("TSORT32").draw_inputs(seeded(5, str(k)), case, values.ValueMix(0.3))
        out.append((case, inputs))
    bad_idx = Case("TSORT32", platform, "float32", (("dst", Tile(2, 64, 2, 64)), ("src", Tile(2, 32, 2, 32)),
                                                    ("idx", Tile(2, 32, 2, 16)), ("tmp", Tile(1, 32, 1, 32))))
    out.append((bad_idx, {"src": np.zeros((2, 32), np.uint32), "idx": np.zeros((2, 32), np.uint32),
                          "tmp": np.zeros((1, 32), np.uint32)}))
    return out


def _assert_same(one: Outcome, many: Outcome, what) -> None:
    assert (one.kind, one.fault, one.reason) == (many.kind, many.fault, many.reason), what
    assert one.outputs.keys() == many.outputs.keys(), what
    for role in one.outputs:
        np.testing.assert_array_equal(one.outputs[role], many.outputs[role], err_msg=str(what))
        np.testing.assert_array_equal(one.classes[role], many.classes[role], err_msg=str(what))


@pytest.mark.parametrize("platform", SORTS["TSORT32"])
@pytest.mark.parametrize("profile", PROFILES)
def test_tsort32_many_gives_each_case_its_own_outcome(platform, profile):
    from ptofuzz.oracles import sort

    items = _tsort32_batch(3, platform, 40, values.ValueMix.parse(profile, 0.25)) + _edge_cases(platform)
    many = sort.tsort32_many(items)
    assert len(many) == len(items)
    for (case, inputs), got in zip(items, many):
        _assert_same(sort.tsort32_model(case, inputs, platform), got, case)
    kinds = {o.kind for o in many}
    assert OutcomeKind.OK in kinds and (platform == "cpu" or OutcomeKind.UNSUPPORTED in kinds)


def testbatch_block_ids_equal_the_element_by_element_formula():
    from ptofuzz.oracles import sort

    rng = np.random.default_rng(5)
    for _ in range(200):
        rows, cols = rng.integers(1, 5, rng.integers(1, 9)), rng.integers(1, 130, 8)
        cols = cols[:rows.size]
        sizes = rows * cols
        want = []  # each element's block: blocks numbered row by row, case after case
        for r, c in zip(rows, cols):
            base = want[-1] + 1 if want else 0
            per_row = -(-int(c) // 32)
            want += [base + row * per_row + col // 32 for row in range(int(r)) for col in range(int(c))]
        got = sort.batch_block_ids(sizes, cols)
        assert got.dtype == np.int64 and got.tolist() == want


def testbatch_block_ids_number_each_row_block_over_the_batch():
    from ptofuzz.oracles import sort

    # 2 rows of 40 columns (blocks 32 + 8 per row), 1 row of 32, 3 rows of 1
    got = sort.batch_block_ids(np.array([80, 32, 3]), np.array([40, 32, 1]))
    want = [0] * 32 + [1] * 8 + [2] * 32 + [3] * 8 + [4] * 32 + [5, 6, 7]
    assert got.tolist() == want


def _reference_records(case: Case, inputs, platform: str) -> list[list[tuple[int, int]]]:
    """Independent of the vectorised model: each valid row's 32-blocks sorted by Python's ``sorted`` on
    (value descending, then index on cpu, position on the NPUs); (value bits, index) per record."""
    dt = dtypes.get(case.dtype)
    vr, vc = case.tile("src").valid
    vals = dtypes.view_values(inputs["src"], dt).astype(np.float64)
    idx = inputs["idx"] if case.tile("idx").valid == (vr, vc) else np.repeat(inputs["idx"][:1], vr, axis=0)
    def key(r: int, c: int) -> tuple[float, int]:
        return -float(vals[r, c]) + 0.0, int(idx[r, c]) if platform == "cpu" else c

    rows = []
    for r in range(vr):
        order = [c for b0 in range(0, vc, 32) for c in sorted(range(b0, min(b0 + 32, vc)), key=lambda c: key(r, c))]
        rows.append([(int(inputs["src"][r, c]), int(idx[r, c])) for c in order])
    return rows


@pytest.mark.parametrize("platform", ["cpu", "a5"])
def test_tsort32_many_agrees_with_python_sorted_on_every_defined_record(platform):
    from ptofuzz.oracles import sort

    items = [(c, i) for c, i in _tsort32_batch(8, platform, 60, values.ValueMix.parse("tie,equal", 0.3))
             if not (platform == "cpu" and dtypes.get(c.dtype).bits == 16 and c.tile("src").valid_cols > 32)
             and c.param("form") != 3]
    checked = 0
    for (case, inputs), got in zip(items, sort.tsort32_many(items)):
        words, cls = got.outputs["dst"], got.classes["dst"]
        for r, rec in enumerate(_reference_records(case, inputs, platform)):
            for k, (value, index) in enumerate(rec):
                if cls[r, 2 * k] == 0:
                    assert words[r, 2 * k] == value, (case, r, k)
                    checked += 1
                if cls[r, 2 * k + 1] == 0:
                    assert words[r, 2 * k + 1] == index, (case, r, k)
    assert checked > 2000


# ---- generation batches: TMRGSORT merges of many geometries at once --------------------------------------------

@pytest.mark.parametrize("plat", ["cpu", "npu"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ragged_rows_merge_each_row_as_the_reference_merge(plat, dtype):
    """One _merge_rows call over rows of different list counts, lengths (empty ones too), caps and modes: each
    row is exactly the head-by-head reference merge of its own lists."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(9)
    rows, geometry = [], []
    for _ in range(150):
        lens = [int(x) for x in rng.choice([0, 1, 2, 5, 9, 17], rng.integers(2, 5))]
        rows.append([x[0] for x in _lists(rng, dt, lens, 1)])
        geometry.append((lens, int(rng.choice([0, 1, 4, sum(lens), sum(lens) + 3, max(1, sum(lens) // 2)])),
                         bool(rng.integers(0, 2))))
    width = max(sum(lens) for lens, _, _ in geometry)
    recs = np.zeros((len(rows), width, 2), np.uint32)
    lens_table = np.zeros((len(rows), mrgsort.MAX_LISTS), np.int64)
    for m, (lists, (lens, _, _)) in enumerate(zip(rows, geometry)):
        flat = np.concatenate(lists) if sum(lens) else np.zeros((0, 2), np.uint32)
        recs[m, :len(flat)] = flat
        lens_table[m, :len(lens)] = lens
    caps = np.array([cap for _, cap, _ in geometry])
    got = mrgsort._merge_rows(mrgsort._Rows.of_lists(recs, np.ones(recs.shape[:2], bool), lens_table,
                                                     np.array([len(lens) for lens, _, _ in geometry])),
                              dt, plat, caps, np.array([ex for _, _, ex in geometry]), int(caps.max()))
    seen_counts = 0
    for m, (lists, (lens, cap, exhausted)) in enumerate(zip(rows, geometry)):
        ref = mrgsort._merge_impl([mrgsort._Recs(x.copy(), np.ones(len(x), bool)) for x in lists], dt, plat, cap,
                                  exhausted)
        np.testing.assert_array_equal(got.recs[m, :cap], ref.recs, err_msg=str((lens, cap, exhausted)))
        np.testing.assert_array_equal(got.defined[m, :cap], ref.defined, err_msg=str((lens, cap, exhausted)))
        np.testing.assert_array_equal(got.written[m, :cap], ref.written, err_msg=str((lens, cap, exhausted)))
        assert not got.defined[m, cap:].any() and not got.written[m, cap:].any()
        assert got.counts(m) == ref.executed, (lens, cap, exhausted)
        seen_counts += ref.executed is not None
    assert seen_counts > (10 if plat == "npu" else 100)  # npu: exhausted mode only


def _mrg_batch_items(seed: int, platform: str, n: int, mix: values.ValueMix):
    inst = registry.get("TMRGSORT")
    geo = seeded(seed, "geometry", platform)
    cases = [inst.random_case(geo, platform, {}) for _ in range(n)]
    return [(case, inst.draw_inputs(seeded(seed, platform, str(k)), case, mix)) for k, case in enumerate(cases)]


def _mrg_edge_cases(platform: str):
    """Geometries the random draw rarely meets: single-list blocks the NPUs reject or that hold no whole group,
    groups of one block length over different record counts (one merge pool), an empty list, a dst of no
    records, exhausted mode with an empty list, four lists."""
    from ptofuzz.instructions.tmrgsort import _mrg_case, _row

    out = [_mrg_case(platform, dt, {"dst": _row(recs, recs), "src0": _row(recs, recs)}, lists=1, block=block)
           for dt, recs, block in (("float32", 20, 8), ("float32", 40, 16), ("float32", 96, 32), ("float32", 130, 32),
                                   ("float16", 8, 32), ("float16", 128, 32), ("float16", 288, 32))]
    for lens, keep, exhausted in (((0, 5), 5, None), ((3, 4), 0, None), ((0, 6, 2), 8, 1), ((5, 5, 5, 5), 20, 1),
                                  ((1, 9, 2, 7), 11, None)):
        tiles = {"dst": _row(sum(lens), keep)} | {f"src{i}": _row(max(max(lens), 1), n) for i, n in enumerate(lens)}
        out.append(_mrg_case(platform, "float32", tiles, lists=len(lens), exhausted=exhausted))
    return out


@pytest.mark.parametrize("platform", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("profile", PROFILES)
def test_tmrgsort_many_gives_each_case_its_own_outcome(platform, profile):
    """tmrgsort_many over random geometries (multi-list and single-list, both dtypes) and the canonical cases is
    tmrgsort_model case by case: outputs, classes and executed counts."""
    from ptofuzz.instructions.tmrgsort import _mrg_canonical

    mix = values.ValueMix.parse(profile, 0.25)
    inst = registry.get("TMRGSORT")
    items = _mrg_batch_items(4, platform, 50, mix) + [
        (case, inst.draw_inputs(seeded(4, name), case, mix)) for name, case in _mrg_canonical(platform)] + [
        (case, inst.draw_inputs(seeded(4, str(k)), case, mix)) for k, case in enumerate(_mrg_edge_cases(platform))]
    many = mrgsort.tmrgsort_many(items)
    assert len(many) == len(items)
    forms = set()
    for (case, inputs), got in zip(items, many):
        one = mrgsort.tmrgsort_model(case, inputs, platform)
        _assert_same(one, got, case)
        assert one.extra.get("executed") == got.extra.get("executed"), case
        forms.add((case.param("lists", 1) > 1, bool(case.param("topk")), case.dtype))
    assert len(forms) >= 5


@pytest.mark.parametrize("platform", ["cpu", "a5", "spec"])
def test_draw_many_draws_what_draw_inputs_draws(platform):
    """The batched drawing of TMRGSORT inputs (all the lists' runs sorted in one call) gives each case the bytes
    draw_inputs gives it alone, from its own source; and each list is sorted descending within its runs."""
    from ptofuzz.instructions.tmrgsort_records import TOPK_RUN_RECORDS
    from ptofuzz.oracles.sort import sort_keys

    inst = registry.get("TMRGSORT")
    mix = values.ValueMix.parse("sort", 0.3)
    geo = seeded(6, "geometry", platform)
    cases = [inst.random_case(geo, platform, {}) for _ in range(60)]
    many = inst.draw_each([(seeded(6, str(k)), c) for k, c in enumerate(cases)], mix)
    runs_checked = 0
    for k, (case, got) in enumerate(zip(cases, many)):
        alone = inst.draw_inputs(seeded(6, str(k)), case, mix)
        assert got.keys() == alone.keys()
        for role in alone:
            np.testing.assert_array_equal(got[role], alone[role], err_msg=f"{case} {role}")
            assert got[role].dtype == alone[role].dtype and got[role].shape == alone[role].shape
        if platform == "spec":
            continue
        dt = dtypes.get(case.dtype)
        for role in got:
            vals, _ = mrgsort.split_records(got[role][0], dt)
            run = vals.size if case.param("lists", 1) > 1 else (case.param("block") or TOPK_RUN_RECORDS)
            for lo in range(0, vals.size, max(run, 1)):
                keys = sort_keys(vals[lo:lo + run], dt, descending=True)
                assert (np.diff(keys.astype(np.int64)) >= 0).all(), (case, role, lo)
                runs_checked += 1
    assert platform == "spec" or runs_checked > 100


@pytest.mark.parametrize("dtype", ["float32", "float16", "int16"])
def test_plain_stream_is_every_length_of_the_structural_plain_draw(dtype):
    from ptofuzz.instructions import sort_inputs as isort

    dt = dtypes.get(dtype)
    isort._PLAIN_STREAMS.pop(dt.name, None)
    for n in (5, 1, 1024, 1025, 3000, 0, 7000):  # shorter ones from what is kept, longer ones grow it
        got = isort.plain_stream(dt, n)
        assert got.dtype == dt.bits_dtype and not got.flags.writeable
        assert np.array_equal(got, values.plain(isort.seeded_plain(), dt, n)), n


def test_batch_block_ids_with_a_block_length_per_case():
    from ptofuzz.oracles import sort

    # one row each: 5 elements in runs of 2, an empty list, 4 in one run of 4
    got = sort.batch_block_ids(np.array([5, 0, 4]), np.array([5, 1, 4]), np.array([2, 3, 4]))
    assert got.tolist() == [0, 0, 1, 1, 2, 3, 3, 3, 3]


@pytest.mark.parametrize("plat", ["cpu", "npu"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_ragged_rows_with_unknown_records_merge_as_the_reference_merge(plat, dtype):
    """Rows whose lists hold unknown records (never-written memory, as the topk kernel reads): none, a run at a
    list's end, a run inside, or scattered, over lists sorted, unsorted, with NaNs anywhere and near-zero values
    from several lists. Each row is exactly the head-by-head reference merge, which stops at the first unknown
    head (the npu path merges them all vectorised, the cpu one simulates them)."""
    dt = dtypes.get(dtype)
    rng = np.random.default_rng(17)
    rows, known_rows, geometry = [], [], []
    for _ in range(1000):
        lens = [int(x) for x in rng.choice([0, 1, 3, 6, 11], rng.integers(2, 5))]
        lists = [x[0] for x in _lists(rng, dt, lens, 1)]
        known = []
        for x in lists:
            k = np.ones(len(x), bool)
            mode = rng.integers(0, 4)
            if len(x) and mode == 1:
                k[rng.integers(0, len(x)):] = False
            elif len(x) and mode == 2:
                lo = int(rng.integers(0, len(x)))
                k[lo:lo + int(rng.integers(1, 4))] = False
            elif mode == 3:
                k &= rng.random(len(x)) < 0.7
            if rng.integers(0, 2):
                x[~k] = 0  # the placeholder of a never-written record (a zero: near zero, if it were read)
            known.append(k)
        rows.append(lists)
        known_rows.append(known)
        geometry.append((lens, int(rng.choice([0, 1, 4, sum(lens), sum(lens) + 3, max(1, sum(lens) // 2)])),
                         bool(rng.integers(0, 2))))
    width = max(sum(lens) for lens, _, _ in geometry)
    recs = np.zeros((len(rows), width, 2), np.uint32)
    known_table = np.ones((len(rows), width), bool)
    lens_table = np.zeros((len(rows), mrgsort.MAX_LISTS), np.int64)
    for m, (lists, known, (lens, _, _)) in enumerate(zip(rows, known_rows, geometry)):
        if sum(lens):
            recs[m, :sum(lens)] = np.concatenate(lists)
            known_table[m, :sum(lens)] = np.concatenate(known)
        lens_table[m, :len(lens)] = lens
    caps = np.array([cap for _, cap, _ in geometry])
    got = mrgsort._merge_rows(mrgsort._Rows.of_lists(recs, known_table, lens_table,
                                                     np.array([len(lens) for lens, _, _ in geometry])),
                              dt, plat, caps, np.array([ex for _, _, ex in geometry]), int(caps.max()))
    cut_short = 0
    for m, (lists, known, (lens, cap, exhausted)) in enumerate(zip(rows, known_rows, geometry)):
        ref = mrgsort._merge_impl([mrgsort._Recs(x.copy(), k.copy()) for x, k in zip(lists, known)], dt, plat, cap,
                                  exhausted)
        what = str((lens, cap, exhausted, [k.tolist() for k in known]))
        np.testing.assert_array_equal(got.recs[m, :cap], ref.recs, err_msg=what)
        np.testing.assert_array_equal(got.defined[m, :cap], ref.defined, err_msg=what)
        np.testing.assert_array_equal(got.written[m, :cap], ref.written, err_msg=what)
        assert got.counts(m) == ref.executed, what
        cut_short += bool(ref.defined.any() and not ref.defined.all() and not all(k.all() for k in known))
    assert cut_short > 30  # merges defined up to an unknown head, not only all-or-nothing ones
