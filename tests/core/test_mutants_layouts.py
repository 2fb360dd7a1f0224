"""ptofuzz/layouts.py behaviours the mutation run (tests/README.md) found unpinned: the cpu tests' general
``case_<dt>_<R>x<C>_src1_<r>x<c>`` names, the index dtype in TPARTARG* names, and what each unreadable folder
name is told."""

from __future__ import annotations

import pytest

from ptofuzz.core.case import Case, Tile
from ptofuzz.core.errors import CaseFolderError
from ptofuzz.instructions import registry


def profile(op, platform):
    return registry.get(op).support(platform).profile


@pytest.mark.parametrize("op", ["TPARTADD", "TPARTMAX"])
def test_cpu_src1_names_of_any_size_parse(op):
    """Full R x C dst and src0, src1 valid r x c in an R x C tile (the cpu kernel's one tile type)."""
    prof = profile(op, "cpu")
    got = prof.parse(f"{op}_Test.case_half_16x24_src1_8x4")
    full = Tile(16, 24, 16, 24)
    assert got == Case(op, "cpu", "float16", (("dst", full), ("src0", full), ("src1", Tile(16, 24, 8, 4))), ())


def test_a_src1_name_with_an_unknown_dtype_says_so():
    with pytest.raises(CaseFolderError) as e:
        profile("TPARTADD", "cpu").parse("TPARTADD_Test.case_quad_16x16_src1_8x8")
    assert str(e.value) == "folder name 'TPARTADD_Test.case_quad_16x16_src1_8x8': unknown dtype spelling 'quad'"


def test_tpartarg_names_carry_the_index_dtype():
    got = profile("TPARTARGMAX", "a2a3").parse("TPARTARGMAXTest.case_half_int16_4x4_4x4_4x2")
    assert got.dtype == "float16" and got.param("idx") == "int16"
    assert got.tile("src1_idx") == Tile(4, 2, 4, 2)
    with pytest.raises(CaseFolderError) as e:
        profile("TPARTARGMAX", "a2a3").parse("TPARTARGMAXTest.case_half_int99_4x4_4x4_4x2")
    assert str(e.value) == "folder name 'TPARTARGMAXTest.case_half_int99_4x4_4x4_4x2': unknown dtype spelling 'int99'"


@pytest.mark.parametrize(("op", "platform", "name", "message"), [
    # a dot inside the case part is no suite boundary
    ("TPARTADD", "cpu", "TPARTADD_Test.case_float_16x16.x",
     ("cannot parse folder name 'TPARTADD_Test.case_float_16x16.x': expected TPARTADD_Test.case_<dtype>_<R>x<C>_"
     "<R>x<C>_<R>x<C> or one of the canonical names (case_float_64x64_src1_32x32...)")),
    # the first three canonical names are offered
    ("TPARTMAX", "a2a3", "TPARTMAXTest.bogus",
     ("cannot parse folder name 'TPARTMAXTest.bogus': expected TPARTMAXTest.case_<dtype>_<R>x<C>_<R>x<C>_<R>x<C> "
     "or one of the canonical names (test0, test1, test2...)")),
    # a test with no canonical names
    ("TPARTMUL", "cpu", "TPARTMUL_Test.bogus",
     ("cannot parse folder name 'TPARTMUL_Test.bogus': expected TPARTMUL_Test.case_<dtype>_<R>x<C>_<R>x<C>_<R>x<C> "
     "or one of the canonical names (none...)")),
    # only the cpu profiles read src1 names
    ("TPARTMAX", "a2a3", "TPARTMAXTest.case_float_16x16_src1_8x8",
     ("cannot parse folder name 'TPARTMAXTest.case_float_16x16_src1_8x8': expected TPARTMAXTest.case_<dtype>_"
      "<R>x<C>_<R>x<C>_<R>x<C> or one of the canonical names (test0, test1, test2...)")),
    # a src1 region larger than the tile
    ("TPARTADD", "cpu", "TPARTADD_Test.case_float_8x8_src1_16x4",
     "folder name 'TPARTADD_Test.case_float_8x8_src1_16x4': src1 valid region 16x4 is larger than its tile 8x8"),
    # two tiles where three roles are named (only TMRGSORT's list count varies)
    ("TPARTADD", "cpu", "TPARTADD_Test.case_float_16x16_8x8",
     "folder name 'TPARTADD_Test.case_float_16x16_8x8' has 2 tiles; TPARTADD_Test names 3 (dst, src0, src1)"),
    # in place must name a source ...
    ("TPARTADD", "cpu", "TPARTADD_Test.case_float_4x4_4x4_4x4_inplace_dst",
     ("folder name 'TPARTADD_Test.case_float_4x4_4x4_4x4_inplace_dst': in-place 'dst' must name a source whose "
     "tile equals the destination's")),
    # ... whose tile is the destination's
    ("TPARTADD", "cpu", "TPARTADD_Test.case_float_4x4_4x4_2x4_inplace_src1",
     ("folder name 'TPARTADD_Test.case_float_4x4_4x4_2x4_inplace_src1': in-place 'src1' must name a source whose "
     "tile equals the destination's")),
])
def test_unreadable_folder_names_say_why(op, platform, name, message):
    with pytest.raises(CaseFolderError) as e:
        profile(op, platform).parse(name)
    assert str(e.value) == message


def test_tmrgsort_names_may_list_two_to_four_sources():
    prof = profile("TMRGSORT", "cpu")
    got = prof.parse("TMRGSORTTest.case_float_1x64_1x32_1x32")
    assert [r for r, _ in got.tiles][:3] == ["dst", "src0", "src1"]
    with pytest.raises(CaseFolderError) as e:
        prof.parse("TMRGSORTTest.case_float_1x64_1x32_1x32_1x32_1x32_1x32")
    assert str(e.value) == ("folder name 'TMRGSORTTest.case_float_1x64_1x32_1x32_1x32_1x32_1x32' has 6 tiles; "
                            "TMRGSORTTest names 5 (dst, src0, src1, src2, src3)")


@pytest.mark.parametrize(("valid", "physical"), [
    # columns: the next power of two (1 stays 1); rows: 128 B * 2**k over the row's bytes, at least one row
    ((4, 1, "float32"), (32, 1)),
    ((1, 1, "float32"), (32, 1)),
    ((1, 32, "float32"), (1, 32)),    # one 128 B row fills the smallest capacity
    ((2, 32, "float32"), (2, 32)),
    ((1, 64, "float32"), (1, 64)),    # a 256 B row: capacity 256, one row
    ((3, 5, "float16"), (8, 8)),
    ((0, 0, "float32"), (32, 1)),
])
def test_spec_physical_is_the_smallest_legal_descriptor(valid, physical):
    from ptofuzz.core.dtypes import get as get_dtype
    from ptofuzz.core.layouts import spec_physical

    assert spec_physical(*valid[:2], get_dtype(valid[2])) == physical
