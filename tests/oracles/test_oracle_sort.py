"""TSORT (spec) and TSORT32 (cpu, a2a3, a5): worked vectors, platform rules and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tpart_helpers import cropped

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.layouts import spec_physical
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee
from ptofuzz.oracles.sort import sort_keys

F32 = dtypes.get("float32")


def f32(*vals) -> list[int]:
    return [int(np.array([v], np.float32).view(np.uint32)[0]) for v in vals]


def tsort(bits, dtype="float32", **params):
    """TSORT of ``bits`` (the valid region) in the smallest legal pto-spec tile; outputs cut to the region."""
    bits = np.asarray(bits, dtypes.get(dtype).bits_dtype)
    if bits.ndim == 1:
        bits = bits[None, :]
    r, c = bits.shape
    t = Tile(*spec_physical(r, c, dtypes.get(dtype)), r, c)
    case = Case("TSORT", "spec", dtype, (("src", t), ("dst", t), ("idx", t)), tuple(params.items()))
    return cropped(registry.get("TSORT").evaluate(case, {"src": bits}), r, c)


def tsort32(platform, bits, idx, dtype="float32", idx_rows=None, form=None):
    bits = np.asarray(bits, dtypes.get(dtype).bits_dtype)
    r, c = bits.shape
    idx = np.asarray(idx, np.uint32)
    src = Tile(r, c, r, c)
    it = Tile(idx.shape[0], c, idx.shape[0], c)
    case = Case("TSORT32", platform, dtype, (("src", src), ("idx", it), ("dst", Tile(r, 2 * c, r, 2 * c)),
                                             ("tmp", Tile(1, c, 1, c))), (("form", form),))
    return registry.get("TSORT32").evaluate(case, {"src": bits, "idx": idx, "tmp": np.zeros((1, c))})


# ---- worked vectors: pto-spec's TSORT tests, spec/evidence/pto-isa-0583-hardware-numeric-vectors.json ----

QNAN0, QNAN1 = 0x7FC00000, 0x7FC00001
HW_INPUT = (f32(3, 0.0) + [QNAN0] + f32(-0.0, 2, 2, -1) + [QNAN1]
            + f32(4, -4, 5, -5, 6, -6, 7, -7, 8, -8, 9, -9, 10, -10, 11, -11, 12, -12, 13, -13, 14, -14, 15, -15))
HW_ASC = [31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 6, 1, 3, 4, 5, 0, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
          30, 2, 7]
HW_DESC = [30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 0, 4, 5, 1, 3, 6, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29,
           31, 2, 7]


@pytest.mark.parametrize("descending,expected", [(0, HW_ASC), (1, HW_DESC)])
def test_hardware_conformance_sort_vector(descending, expected):
    out = tsort(HW_INPUT, descending=descending or None)
    assert out.kind == "ok" and out.flags == ()
    assert out.outputs["idx"][0].tolist() == expected
    assert out.outputs["dst"][0].tolist() == [HW_INPUT[i] for i in expected]  # bits moved, NaN payloads kept


def test_snan_vector_sets_nv():
    out = tsort([0x7F800001, 0x3F800000], sort_width=2)
    assert out.outputs["dst"][0].tolist() == [0x3F800000, 0x7F800001]
    assert out.outputs["idx"][0].tolist() == [1, 0]
    assert out.flags == ("NV",)


def test_width_three_groups():
    out = tsort([f32(3, 1, 2, 0), f32(6, 4, 5, 7)], sort_width=3)
    assert out.outputs["dst"].view(np.float32).tolist() == [[1, 2, 3, 0], [4, 5, 6, 7]]
    assert out.outputs["idx"].tolist() == [[1, 2, 0, 0], [1, 2, 0, 0]]


def test_bundle_vector_lb0_3():
    out = tsort([f32(3.0, 1.0, 2.0, 0.0)], sort_width=3)
    assert out.outputs["dst"].view(np.float32)[0].tolist() == [1.0, 2.0, 3.0, 0.0]
    assert out.outputs["idx"][0].tolist() == [1, 2, 0, 0]


def test_plus_zero_stays_before_minus_zero_and_nan_after_numbers():
    for desc in (None, 1):
        out = tsort([f32(0.0, -0.0)[0], f32(-0.0)[0], QNAN0, f32(1.0)[0]], sort_width=4, descending=desc)
        vals = out.outputs["dst"][0].tolist()
        assert vals[-1] == QNAN0
        assert vals.index(0x00000000) < vals.index(0x80000000)


@pytest.mark.parametrize("params,why", [
    ({"sort_width": 65}, "sort_width 65"), ({"descending": 2}, "descending flag 2"),
    ({"layout": "col_major"}, "not row-major"),
])
def test_illegal_parameters_fault(params, why):
    out = tsort(f32(1, 2), **params)
    assert out.kind == "fault" and out.fault.trap == 5 and why in out.fault.reason


def test_empty_region_and_bf16_choice():
    t = Tile(32, 4, 0, 2)
    c = Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)))
    assert registry.get("TSORT").evaluate(c, {"src": np.zeros((32, 4), np.uint32)}).kind == "fault"
    bf = np.array([[0x4000, 0x3F80]], np.uint16)
    assert tsort(bf, "bfloat16").kind == "fault"  # the executable model
    out = tsort(bf, "bfloat16", contract=1)  # the contract header
    assert out.kind == "ok" and out.outputs["dst"].tolist() == [[0x3F80, 0x4000]]


def test_mismatched_destination_shape_faults():
    s, d = Tile(32, 4, 1, 4), Tile(16, 8, 1, 4)
    c = Case("TSORT", "spec", "float32", (("src", s), ("dst", d), ("idx", s)))
    out = registry.get("TSORT").evaluate(c, {"src": np.zeros((32, 4), np.uint32)})
    assert out.kind == "fault" and "dst shape 16x8" in out.fault.reason


def test_tile_descriptor_rules():
    # TileOperandsLegal_TSORT (asl/tile/model/legality/sorting.asl): a source that is no legal descriptor is
    # illegal; destinations too big for a Local tile (the U32 index copy of a 64 KiB FP16 source is 128 KiB)
    # cannot be allocated.
    bad = Tile(3, 3, 3, 3)
    c = Case("TSORT", "spec", "float32", (("src", bad), ("dst", bad), ("idx", bad)))
    out = registry.get("TSORT").evaluate(c, {"src": np.zeros((3, 3), np.uint32)})
    assert out.kind == "fault" and out.fault.name == "Fault_TileLegality" and "power of two" in out.fault.reason
    big = Tile(32, 1024, 32, 1024)  # 64 KiB of FP16
    c = Case("TSORT", "spec", "float16", (("src", big), ("dst", big), ("idx", big)))
    out = registry.get("TSORT").evaluate(c, {"src": np.zeros((32, 1024), np.uint16)})
    assert out.kind == "fault" and out.fault.name == "Fault_TileAllocation" and "idx" in out.fault.reason


def test_outside_valid_region_is_undefined():
    t = Tile(4, 8, 2, 5)  # 128 B
    c = Case("TSORT", "spec", "float32", (("src", t), ("dst", t), ("idx", t)))
    out = registry.get("TSORT").evaluate(c, {"src": np.arange(32, dtype=np.uint32).reshape(4, 8)})
    cls = out.classes["dst"]
    assert (cls[:2, :5] == EXACT).all() and (cls[2:, :] == UNDEFINED).all() and (cls[:, 5:] == UNDEFINED).all()


# ---- properties ------------------------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(dtype=st.sampled_from(["float32", "float16"]), rows=st.integers(1, 4), cols=st.integers(1, 80),
       width=st.integers(1, 64), desc=st.booleans(), seed=st.integers(0, 2**32 - 1),
       special=st.sampled_from(["sort", "default", "nan"]))
def test_tsort_properties(dtype, rows, cols, width, desc, seed, special):
    dt = dtypes.get(dtype)
    bits = values.draw(seeded(seed), dt, (rows, cols), values.ValueMix.parse(special, 0.4))
    out = tsort(bits, dtype, sort_width=width, descending=int(desc) or None)
    vals, idx = out.outputs["dst"], out.outputs["idx"]
    for r in range(rows):
        for g0 in range(0, cols, width):
            g = slice(g0, min(g0 + width, cols))
            src, got, ix = bits[r, g], vals[r, g], idx[r, g]
            n = len(src)
            assert sorted(ix.tolist()) == list(range(n))  # indices: a permutation of 0..n-1
            assert got.tolist() == src[ix].tolist()  # consistent with the values, bit for bit
            nan = ieee.is_nan(got, dt)
            assert not np.any(nan[:-1] & ~nan[1:])  # NaNs last in both directions
            keys = sort_keys(got, dt, descending=desc)
            assert np.all(keys[:-1] <= keys[1:])  # ordered (+0 == -0)
            ties = keys[:-1] == keys[1:]
            assert np.all(ix[:-1][ties] < ix[1:][ties])  # stable: ties (and NaNs) keep their input order


# ---- TSORT32 ------------------------------------------------------------------------------------------------------

def _recs(out):
    words = out.outputs["dst"]
    return words[..., 0::2], words[..., 1::2], out.classes["dst"]


def test_tsort32_descending_ties_by_index_and_records():
    bits = np.array([f32(1, 3, 2, 3) + f32(*([0] * 28)) + f32(5, 4)], np.uint32)
    for platform in ("cpu", "a2a3", "a5"):
        v, i, cls = _recs(tsort32(platform, bits, [np.arange(34)]))
        assert v[0, :4].view(np.float32).tolist() == [3, 3, 2, 1] and i[0, :4].tolist() == [1, 3, 2, 0]
        assert v[0, 32:].view(np.float32).tolist() == [5, 4] and i[0, 32:].tolist() == [32, 33]
        assert (cls[0] == EXACT).all()


def test_tsort32_half_records_have_zero_pad_and_cpu_tie_uses_index_value():
    half = np.array([[0x3C00, 0x3C00, 0x4000]], np.uint16)  # 1, 1, 2
    idx = [[7, 5, 9]]
    v, i, cls = _recs(tsort32("cpu", half, idx, "float16"))
    assert v.tolist() == [[0x4000, 0x3C00, 0x3C00]] and i.tolist() == [[9, 5, 7]]  # tie: smaller idx value
    v, i, cls = _recs(tsort32("a5", half, idx, "float16"))
    assert v.tolist() == [[0x4000, 0x3C00, 0x3C00]]
    # the tied 1.0s: position order (idx 7 first) disagrees with index order (idx 5 first), so which index
    # lands in which record is unknown; the value words are 1.0 either way
    assert cls[0].tolist() == [EXACT, EXACT, EXACT, UNDEFINED, EXACT, UNDEFINED]
    # +0 tied with -0: value and index words unknown
    z = np.array([[0x0000, 0x8000, 0x4000]], np.uint16)
    v, i, cls = _recs(tsort32("a5", z, [[0, 1, 2]], "float16"))
    assert cls[0].tolist() == [EXACT, EXACT, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED]


def test_tsort32_npu_last_chunk_of_a_multiple_of_255_blocks_is_undefined():
    """a2a3/a5 split rows into 255-block chunks; with 510 blocks the last chunk's repeat count is 0."""
    row = np.arange(510 * 32, dtype=np.float32).view(np.uint32)[None, :]
    out = tsort32("a2a3", row, [np.arange(510 * 32)])
    cls = out.classes["dst"][0]
    assert (cls[:2 * 255 * 32] == EXACT).all() and (cls[2 * 255 * 32:] == UNDEFINED).all()
    cpu = tsort32("cpu", row, [np.arange(510 * 32)])
    assert (cpu.classes["dst"] == EXACT).all()


def test_tsort_width_is_taken_mod_2_16():
    out = tsort(f32(*range(40, 0, -1)), sort_width=65536 + 4)
    assert out.kind == "ok" and out.outputs["idx"][0, :4].tolist() == [3, 2, 1, 0]
    assert tsort(f32(3, 2, 1), sort_width=65536).outputs["idx"][0].tolist() == [2, 1, 0]  # 0 -> 32


def test_tsort32_nan_block_is_undefined_and_3_arg_form_ignores_the_tail():
    bits = np.array([f32(*range(32)) + f32(1.0, float("nan"), 2.0)], np.uint32)
    out = tsort32("a5", bits, [np.arange(35)])
    assert (out.classes["dst"][0, :64] == EXACT).all() and (out.classes["dst"][0, 64:] == UNDEFINED).all()
    out = tsort32("a2a3", bits[:, :34], [np.arange(34)], form=3)
    assert (out.classes["dst"][0, :64] == EXACT).all() and (out.classes["dst"][0, 64:] == UNDEFINED).all()


def test_tsort32_npu_broadcasts_one_idx_row_cpu_does_not():
    bits = np.array([f32(1, 2), f32(4, 3)], np.uint32)
    out = tsort32("a2a3", bits, [[10, 20]])
    assert out.outputs["dst"][:, 1::2].tolist() == [[20, 10], [10, 20]]
    cpu = tsort32("cpu", bits, [[10, 20]])
    assert (cpu.classes["dst"] == UNDEFINED).all()  # idx valid != src valid: returns without writing


def test_tsort32_cpu_16bit_blocks_land_where_the_page_says():
    """docs/isa/TSORT32.md: block b writes from record 32*b (coef 4 for half), for every type: the cpu golden has
    both blocks side by side. The simulator's record 16*b is its defect cpusim-tsort32-16bit-overlap, not the
    model's (tests/backends/test_cpusim.py pins it)."""
    row = np.arange(64, dtype=np.float16).astype(np.float16).view(np.uint16)[None, :]
    for platform in ("cpu", "a5"):
        out = tsort32(platform, row, [np.arange(64)], "float16")
        v, i, cls = _recs(out)
        assert i[0, :32].tolist() == list(range(31, -1, -1))  # block 0 at records 0..31
        assert i[0, 32:64].tolist() == list(range(63, 31, -1))  # block 1 at records 32..63
        assert (cls[0, :128] == EXACT).all()


def test_tsort32_dtype_sets():
    bits = np.array([[1, 2]], np.uint16)
    assert tsort32("a5", bits, [[0, 1]], "int16").kind == "unsupported"
    out = tsort32("cpu", bits, [[0, 1]], "int16")
    assert out.kind == "ok" and out.outputs["dst"][0].tolist() == [2, 1, 1, 0]
