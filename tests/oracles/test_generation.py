"""The generation oracles (TEXPANDS, TCI, TTRI): hand-worked examples from pto-isa's pages and pto-spec, what
the pages leave open (classed, never filled), legality on both sides of each rule, and recomputation by
independent means (Python integers, numpy's tril/triu, ml_dtypes)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ptofuzz.core import dtypes
from ptofuzz.core.case import EXACT, NAN, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import generation as fam
from ptofuzz.instructions import registry

SCALAR = Tile(1, 1, 1, 1)
NPUS = ("a2a3", "a5", "kirin9030", "kirinDev0000")


def _texpands(platform: str, dtype: str, tile: Tile, bits: int):
    case = Case("TEXPANDS", platform, dtype, (("dst", tile), ("scalar", SCALAR)))
    s = np.array([[bits]], dtype=dtypes.get(dtype).bits_dtype)
    return registry.get("TEXPANDS").evaluate(case, {"scalar": s})


def _tci(platform: str, dtype: str, n: int, start: int, descending: int, tile: Tile | None = None):
    dt = dtypes.get(dtype)
    case = Case("TCI", platform, dtype, (("dst", tile or Tile(1, 64, 1, n)),),
                (("start", start & ((1 << dt.bits) - 1)), ("descending", descending)))
    return registry.get("TCI").evaluate(case, {})


def _ttri(platform: str, dtype: str, tile: Tile, upper: int, diagonal: int):
    case = Case("TTRI", platform, dtype, (("dst", tile),), (("upper", upper), ("diagonal", diagonal)))
    return registry.get("TTRI").evaluate(case, {})


# ---- TEXPANDS ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ("spec", "cpu", *NPUS))
def test_texpands_copies_the_scalar_bits_over_the_valid_region_only(platform):
    """docs/isa/TEXPANDS.md: dst = scalar over the valid region; pto-spec: the scalar's raw low-width bits. A
    signaling NaN with a payload and -0 are copied as they are; outside the valid region nothing is written."""
    for bits in (0x7F800001, 0xFFC01234, 0x80000000, 0x3FC00000):  # sNaN, qNaN with payload, -0, 1.5
        out = _texpands(platform, "float32", Tile(4, 32, 2, 3), bits)
        assert out.kind is OutcomeKind.OK
        d, c = out.outputs["dst"], out.classes["dst"]
        assert (d[:2, :3] == bits).all() and (c[:2, :3] == EXACT).all()
        inside = np.zeros((4, 32), bool)
        inside[:2, :3] = True
        assert (c[~inside] == UNDEFINED).all()


def test_texpands_float16_nan_is_open_only_where_a_float32_file_carries_it():
    """cpu, a2a3 and kirin read a float32 and the kernel converts it to half (a NaN's payload after that is no
    document's): some NaN. a5 reads the element itself, and a number is pinned everywhere."""
    for platform in ("cpu", "a2a3", "kirin9030"):
        assert (_texpands(platform, "float16", Tile(1, 16, 1, 16), 0x7D01).classes["dst"] == NAN).all()
        assert (_texpands(platform, "bfloat16", Tile(1, 16, 1, 16), 0xFF81).classes["dst"] == NAN).all()
        assert (_texpands(platform, "float16", Tile(1, 16, 1, 16), 0x3C00).classes["dst"] == EXACT).all()
        assert (_texpands(platform, "float32", Tile(1, 8, 1, 8), 0x7F800001).classes["dst"] == EXACT).all()
    out = _texpands("a5", "float16", Tile(1, 16, 1, 16), 0x7D01)
    assert (out.classes["dst"] == EXACT).all() and (out.outputs["dst"] == 0x7D01).all()


def test_texpands_takes_64_bit_integers_on_spec_and_a5_and_not_on_a2a3():
    out = _texpands("a5", "int64", Tile(5, 16, 5, 16), 0xFFFFFFFF1BA8B5F9)
    assert (out.outputs["dst"] == 0xFFFFFFFF1BA8B5F9).all()
    assert _texpands("spec", "uint64", Tile(2, 16, 2, 16), 10_000_000_019).kind is OutcomeKind.OK
    assert _texpands("a2a3", "int64", Tile(5, 16, 5, 16), 1).kind is OutcomeKind.UNSUPPORTED


def test_texpands_spec_faults_on_an_empty_region_and_no_descriptor_and_pto_isa_does_not():
    assert _texpands("spec", "float32", Tile(4, 32, 0, 3), 1).kind is OutcomeKind.FAULT
    assert _texpands("spec", "float32", Tile(4, 24, 4, 24), 1).kind is OutcomeKind.FAULT  # 24 columns
    assert _texpands("spec", "float32", Tile(4, 32, 4, 3), 1).kind is OutcomeKind.OK
    out = _texpands("cpu", "float32", Tile(4, 24, 0, 3), 1)
    assert out.kind is OutcomeKind.OK and (out.classes["dst"] == UNDEFINED).all()


def test_texpands_mat_tile_is_filled_whole_with_the_kernels_immediate():
    """docs/isa/TEXPANDS.md: a Mat tile is filled over Rows x Cols; texpands_mat's kernels pass half(2)."""
    prof = registry.get("TEXPANDS").support("a2a3").profile
    case = prof.parse("TEXPANDSTest.case1")
    assert case.param("mat") == "tile" and case.param("value") == 0x4000 and case.tile("dst").shape == (128, 128)
    out = registry.get("TEXPANDS").evaluate(case, {})
    assert (out.outputs["dst"] == 0x4000).all() and (out.classes["dst"] == EXACT).all()
    conv = prof.parse("TEXPANDSTest.case9")
    assert conv.dtype == "int32" and conv.tile("dst").shape == (3, 160)
    assert (registry.get("TEXPANDS").evaluate(conv, {}).outputs["dst"] == 11).all()


def test_texpands_explain_names_a_rounded_int32_golden_and_nothing_else():
    """cpu's script draws 1269542645, the float32 file holds 1269542656: the golden of the drawn one is wrong."""
    case = registry.get("TEXPANDS").support("cpu").profile.parse(
        "TEXPANDSTest.case_int32_64x64_64x64_64x64_PAD_VALUE_NULL")
    received = {"scalar": np.array([[1269542656]], np.uint32)}
    wrong = {"dst": np.full((64, 64), 1269542645, np.uint32)}
    assert "computed with the scalar 1269542645, but the kernel receives 1269542656" in fam.explain(case, received,
                                                                                                      wrong)
    assert fam.explain(case, received, {"dst": np.full((64, 64), 1269542656, np.uint32)}) == ""  # right golden
    assert fam.explain(case, received, {"dst": np.full((64, 64), 7, np.uint32)}) == ""  # wrong for another reason
    a5 = registry.get("TEXPANDS").support("a5").profile.parse(
        "TEXPANDSTest.case_int32_64x64_64x64_64x64_PAD_VALUE_NULL")
    assert fam.explain(a5, received, wrong) == ""  # a5 writes the element: no float32 in between


# ---- TCI ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ("spec", "cpu", *NPUS))
def test_tci_pages_example_descending_from_100(platform):
    """docs/isa/TCI.md's manual example: TCI<..., descending=1>(dst, 100) writes 100, 99, 98, ..."""
    out = _tci(platform, "int32", 16, 100, 1, Tile(1, 32, 1, 16) if platform == "spec" else None)
    assert out.kind is OutcomeKind.OK
    assert out.outputs["dst"][0, :16].view(np.int32).tolist() == list(range(100, 84, -1))
    assert (out.classes["dst"][0, :16] == EXACT).all() and (out.classes["dst"][0, 16:] == UNDEFINED).all()


def test_tci_past_the_type_range_wraps_on_spec_and_is_undefined_on_the_pages():
    """int16 from 32766 upward: 32766, 32767, then past INT16_MAX: pto-spec wraps (-32768, -32767); the pages
    are silent, so undefined. uint16 from 1 downward: 1, 0, then 65535 (spec) / undefined."""
    for platform, tile in (("spec", Tile(1, 64, 1, 4)), ("cpu", None), ("a5", None)):
        out = _tci(platform, "int16", 4, 32766, 0, tile)
        assert out.outputs["dst"][0, :4].view(np.int16).tolist() == [32766, 32767, -32768, -32767]
        want = [EXACT] * 4 if platform == "spec" else [EXACT, EXACT, UNDEFINED, UNDEFINED]
        assert out.classes["dst"][0, :4].tolist() == want
        out = _tci(platform, "uint16", 3, 1, 1, tile)
        assert out.outputs["dst"][0, :3].tolist() == [1, 0, 65535]
        assert out.classes["dst"][0, 2] == (EXACT if platform == "spec" else UNDEFINED)


def test_tci_rows_rule_spec_wants_one_valid_row_pages_one_physical_row():
    """pto-spec: valid rows exactly 1 (a descriptor may have more physical rows); the pages: TileData::Rows ==
    1, GetValidRow() not consulted (row 0 is written even with zero valid rows)."""
    assert _tci("spec", "int32", 16, 0, 0, Tile(2, 16, 1, 16)).kind is OutcomeKind.OK
    assert _tci("spec", "int32", 16, 0, 0, Tile(2, 16, 2, 16)).kind is OutcomeKind.FAULT
    assert _tci("spec", "int32", 16, 0, 0, Tile(2, 16, 0, 16)).kind is OutcomeKind.FAULT
    assert _tci("cpu", "int32", 16, 0, 0, Tile(2, 16, 1, 16)).kind is OutcomeKind.UNSUPPORTED
    out = _tci("cpu", "int32", 4, 5, 0, Tile(1, 8, 0, 4))
    assert out.kind is OutcomeKind.OK and out.outputs["dst"][0, :4].tolist() == [5, 6, 7, 8]


def test_tci_floats_on_a2a3_are_exact_where_the_type_holds_the_value():
    """float16 from 2048: 2048, 2049 (no float16: undefined, the page gives no rounding), 2050; a NaN start is
    some NaN; -0 + 0 is some zero, -0 + 1 is 1; spec and a5 take no float TCI."""
    h = np.array([2048.0, -0.0, np.nan], np.float16).view(np.uint16)
    out = _tci("a2a3", "float16", 3, int(h[0]), 0)
    assert out.outputs["dst"][0, [0, 2]].view(np.float16).tolist() == [2048.0, 2050.0]
    assert out.classes["dst"][0, :3].tolist() == [EXACT, UNDEFINED, EXACT]
    out = _tci("a2a3", "float16", 2, int(h[1]), 0)
    assert out.classes["dst"][0, :2].tolist() == [ZERO, EXACT] and out.outputs["dst"][0, 1] == 0x3C00
    assert (_tci("a2a3", "float16", 5, int(h[2]), 1).classes["dst"][0, :5] == NAN).all()
    inf = int(np.array([np.inf], np.float32).view(np.uint32)[0])
    out = _tci("a2a3", "float32", 3, inf, 1)
    assert (out.outputs["dst"][0, :3] == inf).all() and (out.classes["dst"][0, :3] == EXACT).all()
    assert _tci("spec", "float32", 16, 0, 0, Tile(2, 16, 1, 16)).kind is OutcomeKind.FAULT
    assert _tci("a5", "float32", 16, 0, 0).kind is OutcomeKind.UNSUPPORTED


def test_tci_recomputed_with_python_integers():
    src = seeded(7, "tci-recompute")
    for _ in range(200):
        dt = dtypes.get(src.choice(("int32", "int16", "uint32", "uint16")))
        start = int(src.integers(dt.int_min, dt.int_max))
        desc, n = int(src.integers(0, 1)), int(src.integers(1, 64))
        out = _tci("cpu", dt.name, n, start, desc)
        for k in range(n):
            v = start - k if desc else start + k
            inside = dt.int_min <= v <= dt.int_max
            assert out.classes["dst"][0, k] == (EXACT if inside else UNDEFINED)
            assert int(out.outputs["dst"][0, k]) == v % (1 << dt.bits)


# ---- TTRI ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("platform", ("spec", "cpu", *NPUS))
def test_ttri_hand_worked_lower_and_upper(platform):
    """docs/isa/TTRI.md: lower 1 where j <= i + d; upper 0 where j < i + d, else 1; float ones are 1.0."""
    tile = Tile(4, 32, 3, 4)
    lower = _ttri(platform, "float32", tile, 0, 0)
    assert (lower.outputs["dst"][:3, :4] == 0x3F800000).astype(int).tolist() == [[1, 0, 0, 0], [1, 1, 0, 0],
                                                                                  [1, 1, 1, 0]]
    assert set(lower.outputs["dst"][:3, :4].ravel().tolist()) == {0, 0x3F800000}
    upper = _ttri(platform, "int16", Tile(4, 32, 3, 4), 1, 1)
    assert upper.outputs["dst"][:3, :4].tolist() == [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]
    assert (upper.classes["dst"][:3, :4] == EXACT).all() and (upper.classes["dst"][3:, :] == UNDEFINED).all()
    assert (upper.classes["dst"][:, 4:] == UNDEFINED).all()


def test_ttri_diagonal_bounds_spec_at_65535_pages_any_int():
    for d, spec_ok in ((65535, True), (-65535, True), (65536, False), (-65536, False), (2**31 - 1, False)):
        assert (_ttri("spec", "float32", Tile(4, 32, 4, 32), 0, d).kind is OutcomeKind.OK) == spec_ok
        out = _ttri("cpu", "float32", Tile(4, 32, 4, 32), 0, d)
        assert out.kind is OutcomeKind.OK
        assert (out.outputs["dst"] == (0x3F800000 if d > 0 else 0)).all()  # every j <= i + d, or none


def test_ttri_matches_numpy_tril_triu_on_random_geometries():
    src = seeded(3, "ttri-recompute")
    for _ in range(200):
        vr, vc = int(src.integers(1, 40)), int(src.integers(1, 70))
        d, u = int(src.integers(-45, 75)), int(src.integers(0, 1))
        out = _ttri("a5", "uint8", Tile(vr, 96, vr, vc), u, d)
        want = np.triu(np.ones((vr, vc), np.uint8), k=d) if u else np.tril(np.ones((vr, vc), np.uint8), k=d)
        assert out.outputs["dst"][:, :vc].tolist() == want.tolist()


def test_ttri_ones_are_the_types_one():
    for dt, ml in (("float16", np.float16), ("bfloat16", ml_dtypes.bfloat16)):
        out = _ttri("cpu", dt, Tile(1, 16, 1, 16), 1, 0)
        assert out.outputs["dst"][0].view(ml).astype(np.float32).tolist() == [1.0] * 16
    assert _ttri("spec", "bfloat16", Tile(1, 64, 1, 64), 1, 0).kind is OutcomeKind.FAULT  # not pto-spec's type


# ---- registry facts -------------------------------------------------------------------------------------------

def test_documented_differences_name_only_the_spec_fault_rules():
    from ptofuzz.core.signature import Signature

    for geometry in ("empty", "nodesc", "rows", "diagonal", "dtype"):
        sig = Signature("TTRI", "float", "cpu~spec", "fault-vs-value", "-", geometry)
        assert fam.known_difference(sig)
    assert fam.known_difference(Signature("TTRI", "float", "cpu~spec", "fault-vs-value", "-", "spec-legal")) is None
    assert fam.known_difference(Signature("TTRI", "float", "cpu~cpusim", "value", "op", "full")) is None


def test_fault_class_names_the_broken_rule():
    def c(op: str, dtype: str, tile: Tile, **params: int) -> str:
        roles = (("dst", tile), *((("scalar", SCALAR),) if op == "TEXPANDS" else ()))
        return fam.fault_class(Case(op, "spec", dtype, roles, tuple(params.items())))
    assert c("TTRI", "float32", Tile(4, 32, 4, 32), upper=0, diagonal=70000) == "diagonal"
    assert c("TTRI", "float32", Tile(4, 32, 4, 32), upper=0, diagonal=7) == "spec-legal"
    assert c("TTRI", "bfloat16", Tile(4, 64, 4, 64), upper=0, diagonal=7) == "dtype"
    assert c("TCI", "int32", Tile(2, 16, 2, 16), start=0, descending=0) == "rows"
    assert c("TEXPANDS", "int8", Tile(4, 32, 0, 32)) == "empty"
    assert c("TEXPANDS", "int8", Tile(4, 33, 4, 32)) == "nodesc"
