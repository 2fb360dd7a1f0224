"""oracles/sort.py behaviours the mutation run (tests/README.md) found unpinned: batched inputs, integer
TSORT32 order, the empty and idx-mismatch paths, the NPU tie-run and 255-block rules, and TSORT's
legality and allocation messages. Expected values are worked by hand or recomputed with plain Python sorts."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.layouts import spec_physical
from ptofuzz.oracles import descriptors, sort


def f32(*vals) -> list[int]:
    return np.array(vals, np.float32).view(np.uint32).tolist()


def t32_case(platform, dtype, src, idx, form=None):
    """A TSORT32 case: src and idx tiles, dst of 2 record words per src column."""
    r, c = src.rows, src.cols
    tiles = (("src", src), ("idx", idx), ("dst", Tile(r, 2 * c, r, 2 * c)), ("tmp", Tile(1, c, 1, c)))
    return Case("TSORT32", platform, dtype, tiles, (("form", form),) if form else ())


def run32(platform, bits, idx, dtype="float32", idx_tile=None, src_tile=None, form=None):
    bits = np.asarray(bits, dtypes.get(dtype).bits_dtype)
    idx = np.asarray(idx, np.uint32)
    r, c = bits.shape[-2:]
    src_tile = src_tile or Tile(r, c, r, c)
    idx_tile = idx_tile or Tile(idx.shape[-2], c, idx.shape[-2], c)
    return sort.tsort32(t32_case(platform, dtype, src_tile, idx_tile, form), {"src": bits, "idx": idx}, platform)


def words(values, index):
    """Expected record words: value bits then index, per record."""
    out = []
    for v, i in zip(values, index):
        out += [int(v), int(i)]
    return out


# ---- batches: a leading axis is one case per entry -------------------------------------------------------


def _tsort32_rows(rng, rows, cols, dtype):
    v = rng.integers(-4, 4, (rows, cols)).astype(np.float32)  # many ties
    v[0, 3] = np.nan
    if dtype == "float16":
        return v.astype(np.float16).view(np.uint16)
    return v.view(np.uint32)


@pytest.mark.parametrize(("platform", "dtype", "cols"), [("cpu", "float32", 40), ("cpu", "float16", 64),
                                                         ("a5", "float32", 64), ("a2a3", "float16", 40)])
def test_tsort32_batches_equal_one_case_at_a_time(platform, dtype, cols):
    rng = np.random.default_rng(7)
    bits = np.stack([_tsort32_rows(rng, 3, cols, dtype) for _ in range(3)])
    idx = rng.permutation(3 * 3 * cols).reshape(3, 3, cols).astype(np.uint32)
    together = run32(platform, bits, idx, dtype)
    assert together.outputs["dst"].dtype == np.uint32 and together.classes["dst"].dtype == np.uint8
    for k in range(3):
        alone = run32(platform, bits[k], idx[k], dtype)
        assert together.outputs["dst"][k].tolist() == alone.outputs["dst"].tolist()
        assert together.classes["dst"][k].tolist() == alone.classes["dst"].tolist()
    # the entries really differ, so a mixed-up batch axis would show
    assert together.outputs["dst"][0].tolist() != together.outputs["dst"][1].tolist()


def test_tsort32_broadcast_idx_row_in_a_batch():
    rng = np.random.default_rng(3)
    bits = np.stack([_tsort32_rows(rng, 3, 32, "float32") for _ in range(2)])
    idx = np.stack([rng.permutation(32).astype(np.uint32)[None, :] for _ in range(2)])
    together = run32("a5", bits, idx)
    for k in range(2):
        alone = run32("a5", bits[k], idx[k])
        assert together.outputs["dst"][k].tolist() == alone.outputs["dst"].tolist()
        assert together.classes["dst"][k].tolist() == alone.classes["dst"].tolist()


def test_tsort_batches_equal_one_case_at_a_time():
    rng = np.random.default_rng(11)
    f = dtypes.get("float32")
    bits = rng.integers(-3, 3, (2, 3, 8)).astype(np.float32).view(np.uint32)
    t = Tile(*spec_physical(3, 8, f), 3, 8)
    padded = np.zeros((2,) + t.shape, np.uint32)
    padded[:, :3, :8] = bits
    case = Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)), (("sort_width", 3),))
    together = sort.tsort(case, {"src": padded})
    assert together.classes["dst"].dtype == np.uint8
    for k in range(2):
        alone = sort.tsort(case, {"src": padded[k]})
        for role in ("dst", "idx"):
            assert together.outputs[role][k].tolist() == alone.outputs[role].tolist()
            assert together.classes[role][k].tolist() == alone.classes[role].tolist()
        # and each group of 3 is sorted ascending with its in-group column offset (plain Python)
        row = bits[k, 0].view(np.float32).tolist()
        for g in range(0, 8, 3):
            grp = row[g:g + 3]
            order = sorted(range(len(grp)), key=lambda i: (grp[i], i))
            assert alone.outputs["idx"][0, g:g + len(grp)].tolist() == order


# ---- integer TSORT32 (cpu takes int32 and int16): descending by signed value ------------------------------


@pytest.mark.parametrize("dtype", ["int32", "int16"])
def test_cpu_integer_tsort32_is_descending_by_signed_value(dtype):
    info = np.iinfo(dtype)
    vals = [5, -3, 0, int(info.max), int(info.min), 7, -1, 1 << (info.bits - 2), (1 << (info.bits - 2)) + 1,
            -(1 << (info.bits - 2)), 2, 2]
    vals += [0] * (32 - len(vals))
    bits = np.array([vals], dtype).view(f"<u{info.bits // 8}")
    idx = np.arange(32, dtype=np.uint32)[None, :]
    out = run32("cpu", bits, idx, dtype)
    order = sorted(range(32), key=lambda i: (-vals[i], i))  # value descending, then idx ascending
    expected = words([np.array(vals[i], dtype).view(f"<u{info.bits // 8}") for i in order], order)
    assert out.outputs["dst"][0].tolist() == expected
    assert (out.classes["dst"] == EXACT).all()


# ---- the early returns -----------------------------------------------------------------------------------


@pytest.mark.parametrize("valid", [(0, 32), (2, 0)])
@pytest.mark.parametrize("platform", ["cpu", "a5"])
def test_an_empty_source_writes_nothing(platform, valid):
    bits = np.ones((2, 32), np.uint32)
    out = run32(platform, bits, np.zeros((2, 32), np.uint32), src_tile=Tile(2, 32, *valid),
                idx_tile=Tile(2, 32, *valid))
    assert out.kind == "ok" and set(out.outputs) == {"dst"} and set(out.classes) == {"dst"}
    assert out.outputs["dst"].shape == (2, 64) and not out.outputs["dst"].any()
    assert (out.classes["dst"] == UNDEFINED).all()


def test_one_column_sorts_to_its_own_record():
    out = run32("cpu", np.array([f32(2.5)], np.uint32), np.array([[9]], np.uint32))
    assert out.outputs["dst"].tolist() == [[f32(2.5)[0], 9]]
    assert out.classes["dst"].tolist() == [[EXACT, EXACT]]


def test_an_idx_tile_that_fits_neither_rule():
    """idx valid 2x32 under a 4x32 source: the cpu returns silently (nothing written), the NPUs (which
    broadcast only a 1-row idx) are not modelled."""
    bits = np.arange(128, dtype=np.float32).reshape(4, 32).view(np.uint32)
    idx = np.zeros((2, 32), np.uint32)
    cpu = run32("cpu", bits, idx)
    assert cpu.kind == "ok" and set(cpu.outputs) == {"dst"}
    assert not cpu.outputs["dst"].any() and (cpu.classes["dst"] == UNDEFINED).all()
    npu = run32("a5", bits, idx)
    assert npu.kind == "unsupported"
    assert npu.reason == "idx valid region 2x32 is neither src's 4x32 nor one broadcast row"


def test_a_one_row_idx_in_a_taller_idx_tile_is_broadcast():
    """NPU: idx valid 1x32 (physical 4x32) under a 4x32 source uses idx row 0 for every row."""
    vals = np.arange(32, dtype=np.float32)  # ascending, so descending order reverses the columns
    bits = np.tile(vals, (4, 1)).view(np.uint32)
    idx = np.stack([np.arange(32) + 100 * r for r in range(4)]).astype(np.uint32)
    out = run32("a5", bits, idx, idx_tile=Tile(4, 32, 1, 32))
    expected = words(f32(*range(31, -1, -1)), range(31, -1, -1))  # row 0's idx, reversed
    assert out.outputs["dst"].tolist() == [expected] * 4
    assert (out.classes["dst"] == EXACT).all()


# ---- NPU ties: the docs order ties by index; position order must agree ------------------------------------


def test_npu_tie_runs_are_judged_per_row_and_per_block():
    """Row 0: a tie of three 7.0s whose idx rise with position (defined). Row 1: the same tie with idx
    0, 5, 3 (5 before 3 by position: index words undefined, values still exact), a tie whose idx repeat
    (1, 1: either order is the same record, defined) and, in the second block, a tie with idx 40, 39."""
    c = 64
    vals = np.tile(-np.arange(c, dtype=np.float32) - 10, (2, 1))  # distinct, descending
    vals[:, 0:3] = 7.0
    vals[1, 10:12] = 3.0
    vals[1, 40:42] = 1.0
    idx = np.tile(np.arange(c, dtype=np.uint32), (2, 1))
    idx[1, 0:3] = [0, 5, 3]
    idx[1, 10:12] = [1, 1]
    idx[1, 40:42] = [40, 39]
    out = run32("a5", vals.view(np.uint32), idx)
    cls = out.classes["dst"]
    values, index = cls[:, 0::2], cls[:, 1::2]
    assert (values == EXACT).all()
    assert (index[0] == EXACT).all()
    # row 1, block 0 sorted: 7.0 x3 (positions 0-2), 3.0 x2, then the rest; block 1: 1.0 x2 first
    assert index[1, :3].tolist() == [UNDEFINED] * 3
    assert (index[1, 3:32] == EXACT).all()
    assert index[1, 32:34].tolist() == [UNDEFINED] * 2
    assert (index[1, 34:] == EXACT).all()
    assert out.outputs["dst"][1, 6:10].tolist() == words(f32(3.0, 3.0), [1, 1])


@pytest.mark.parametrize(("blocks", "defined_blocks"), [(255, 255), (510, 255)])
def test_npu_rows_of_a_multiple_of_255_blocks_lose_their_last_chunk(blocks, defined_blocks):
    """Rows are cut into chunks of 255 blocks; with a multiple of 255 the last chunk gets a repeat count of 0
    (a2a3) or wraps (a5): undefined. Exactly 255 blocks is one whole chunk and fully defined."""
    c = 32 * blocks
    vals = -np.arange(c, dtype=np.float32)  # already descending: sorting keeps it
    out = run32("a5", vals.view(np.uint32)[None, :], np.arange(c, dtype=np.uint32)[None, :])
    cls = out.classes["dst"][0]
    cut = 2 * 32 * defined_blocks
    assert (cls[:cut] == EXACT).all() and (cls[cut:] == UNDEFINED).all()
    assert out.outputs["dst"][0, :cut:2].tolist() == vals.view(np.uint32)[:cut // 2].tolist()


# ---- TSORT legality and allocation (asl/tile/model/legality/sorting.asl, sorting-schema.asl) --------------


def tsort_case(dtype, src, dst=None, idx=None, **params):
    tiles = (("src", src), ("dst", dst or src), ("idx", idx or src))
    return Case("TSORT", "spec", dtype, tiles, tuple(params.items()))


def tsort_run(case):
    t = case.tile("src")
    return sort.tsort(case, {"src": np.zeros(t.shape, dtypes.get(case.dtype).bits_dtype)})


def test_sort_width_64_is_the_largest_legal():
    t = Tile(1, 64, 1, 64)
    assert tsort_run(tsort_case("float32", t, sort_width=64)).kind == "ok"
    out = tsort_run(tsort_case("float32", t, sort_width=65))
    assert out.kind == "fault" and out.fault.reason == "sort_width 65 is outside 1..64"


@pytest.mark.parametrize(("case", "reason"), [
    (tsort_case("bfloat16", Tile(1, 64, 1, 4)),
     "BF16 TSORT is illegal in pto-spec 0.58.3's executable model (the contract header lists it)"),
    (tsort_case("float32", Tile(1, 32, 1, 4), layout="col_major"), "layout col_major is not row-major"),
    (tsort_case("float32", Tile(1, 32, 0, 4)), "source valid region 0x4 is empty"),
    (tsort_case("float32", Tile(1, 32, 1, 4), idx=Tile(1, 32, 1, 3)),
     "idx shape 1x32 (valid 1x3) differs from the source 1x32 (valid 1x4)"),
])
def test_tsort_legality_faults_say_why(case, reason):
    out = tsort_run(case)
    assert out.kind == "fault" and (out.fault.name, out.fault.trap) == ("Fault_TileLegality", 5)
    assert out.fault.reason == reason


@pytest.mark.parametrize(("dtype", "role"), [("float32", "dst"), ("float16", "idx")])
def test_tsort_destinations_that_do_not_fit_a_local_tile(dtype, role):
    """A Shared source of 128 KiB (float32 256x128) needs a 128 KiB value destination; a 64 KiB float16 source
    (256x128) fits its value destination but its U32 index destination is 128 KiB. Local tiles hold 64 KiB."""
    out = tsort_run(tsort_case(dtype, Tile(256, 128, 1, 4)))
    assert out.kind == "fault" and (out.fault.name, out.fault.trap) == ("Fault_TileAllocation", 5)
    assert out.fault.reason == (f"{role} destination: a 256x128 {'uint32' if role == 'idx' else dtype} tile is "
                                f"131072 bytes; a tile is 128 B * 2**k up to 64 KiB")


@pytest.mark.parametrize(("tile", "reason"), [
    (Tile(8, 32, 9, 4), "valid region 9x4 exceeds the tile 8x32"),  # rows only
    (Tile(8, 32, 2, 33), "valid region 2x33 exceeds the tile 8x32"),  # columns only
    (Tile(8, 32, 8, 32), ""),
])
def test_a_descriptor_holds_its_valid_region_in_both_dimensions(tile, reason):
    assert descriptors.problem(tile, dtypes.get("float32"), max_bytes=descriptors.LOCAL_MAX) == reason


def test_tsort_orders_neighbouring_floats_one_ulp_apart():
    """1 + 2**-23 and 1.0 differ only in the last fraction bit: ascending puts 1.0 first, descending last."""
    up, one = 0x3F800001, 0x3F800000
    t = Tile(1, 32, 1, 2)
    src = np.zeros((1, 32), np.uint32)
    src[0, :2] = [up, one]
    for descending, expected in ((0, [one, up]), (1, [up, one])):
        out = sort.tsort(tsort_case("float32", t, descending=descending), {"src": src})
        assert out.outputs["dst"][0, :2].tolist() == expected
