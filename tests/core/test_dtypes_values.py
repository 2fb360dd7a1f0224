"""Dtypes, spellings and value generation: bits survive every step, special values are really there."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ptofuzz import api
from ptofuzz.core import dtypes
from ptofuzz.core.errors import UsageError
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.oracles import ieee

FLOATS = ("float32", "float16", "bfloat16")


@pytest.mark.parametrize("spelling,name", [
    ("float", "float32"), ("fp32", "float32"), ("half", "float16"), ("fp16", "float16"), ("bf16", "bfloat16"),
    ("s8", "int8"), ("int16", "int16"), ("s32", "int32"), ("u16", "uint16"), ("u64", "uint64"),
    ("FP32", "float32"), ("U8", "uint8"),
])
def test_spellings(spelling, name):
    assert dtypes.get(spelling).name == name


def test_unknown_dtype_is_a_usage_error():
    with pytest.raises(UsageError, match="unknown dtype 'f8'"):
        dtypes.get("f8")


@pytest.mark.parametrize("name,nan", [("float32", 0x7FC00000), ("float16", 0x7E00), ("bfloat16", 0x7FC0)])
def test_canonical_nans_and_spec_codes(name, nan):
    dt = dtypes.get(name)
    assert dt.canonical_nan == nan
    assert {"float32": 1, "float16": 4, "bfloat16": 5}[name] == dt.spec_code


def test_format_bits():
    f32, bf = dtypes.get("float32"), dtypes.get("bfloat16")
    assert dtypes.format_bits(0x3F800000, f32) == "0x3f800000 (1.0)"
    assert dtypes.format_bits(0x7F800001, f32) == "0x7f800001 (sNaN)"
    assert dtypes.format_bits(0xFFC00000, f32) == "0xffc00000 (-qNaN)"
    assert dtypes.format_bits(0x80000000, f32) == "0x80000000 (-0.0)"
    assert dtypes.format_bits(0x4049, bf) == "0x4049 (3.140625)"
    assert dtypes.format_bits(0xFF, dtypes.get("int8")) == "0xff (-1)"


@pytest.mark.parametrize("name", list(dtypes.DTYPES))
def test_values_cover_the_range_and_are_not_all_zero(name):
    dt = dtypes.get(name)
    bits = values.draw(seeded(1, name), dt, (64, 64), 0.1)
    assert bits.dtype == np.dtype(dt.bits_dtype) and bits.shape == (64, 64)
    assert np.count_nonzero(bits) > 3000
    if not dt.is_float:
        v = bits.view(f"<i{dt.itemsize}") if dt.kind == "int" else bits
        if dt.bits < 8:  # int4: a two's complement nibble, the high nibble 0
            assert (bits >> dt.bits == 0).all()
            v = bits.astype(np.int16) - ((bits.astype(np.int16) >> (dt.bits - 1)) << dt.bits)
        assert v.min() == dt.int_min and v.max() == dt.int_max  # edge values mixed in
        if dt.bits > 8:  # full-range values, not only small ones
            assert np.count_nonzero(np.abs(v.astype(np.float64)) > 1000) > 1000


@pytest.mark.parametrize("name", FLOATS)
def test_float_specials_present(name):
    dt = dtypes.get(name)
    bits = values.draw(seeded(2, name), dt, (128, 128), 0.2)
    for what in (ieee.is_snan, ieee.is_inf, ieee.is_zero, ieee.is_subnormal):
        assert np.any(what(bits, dt)), what.__name__
    assert np.any(ieee.is_nan(bits, dt) & ~ieee.is_snan(bits, dt) & (bits != dt.canonical_nan))  # payload qNaN
    assert np.any(ieee.is_zero(bits, dt) & ieee.is_negative(bits, dt))
    finite = ~ieee.is_nan(bits, dt) & ~ieee.is_inf(bits, dt)
    exponents = np.unique((bits[finite] & dt.exp_mask) >> dt.man_bits)
    assert len(exponents) > (1 << dt.exp_bits) // 2  # the whole exponent range, not just [-8, 8)


def test_special_rate_zero_has_no_nans():
    dt = dtypes.get("float16")
    bits = values.draw(seeded(3), dt, (64, 64), 0.0)
    assert not np.any(ieee.is_nan(bits, dt) | ieee.is_inf(bits, dt))


@pytest.mark.parametrize("name", FLOATS)
def test_snan_bits_survive_gen_write_and_read_back(name, tmp_path):
    """sNaNs (quiet bit clear, payload nonzero) written by gen are still sNaNs in the files, and where
    the golden copies a source element it holds exactly the same sNaN bits."""
    dt = dtypes.get(name)
    platform = "spec"
    api.generate("tpartadd", platform, tmp_path, explicit={"dtype": name, "dst": (16, 16), "src1": (8, 8)},
                 special_rate=0.5)
    (case,) = tmp_path.iterdir()
    src0 = np.fromfile(case / "input1.bin", dtype=dt.bits_dtype)
    golden = np.fromfile(case / "golden.bin", dtype=dt.bits_dtype).reshape(16, 16)
    src0 = src0.reshape(golden.shape)
    snan = ieee.is_snan(src0, dt)
    assert np.count_nonzero(snan) > 5
    copy_region = np.ones((16, 16), bool)
    copy_region[:8, :8] = False
    assert np.array_equal(golden[copy_region], src0[copy_region])
    assert np.any(ieee.is_snan(golden, dt) & copy_region)
    m = json.loads((case / "ptofuzz.json").read_text())
    assert "NV" in m["expected"]["flags"]


def test_list_shows_the_matrix(cli):
    res = cli("list")
    assert res.code == 0
    row = next(line for line in res.out.splitlines() if "TPARTMUL" in line and " a5 " in line)
    assert "TPARTMULTest: 9 cases, compact-valid" in row
    res = cli("list", "--json")
    rows = json.loads(res.out)
    a2a3 = next(r for r in rows if r["op"] == "TPARTADD" and r["platform"] == "a2a3")
    assert a2a3["dtypes"] == ["float32", "float16", "int32", "int16"] and a2a3["canonical_cases"] == 9
    cpu_mul = next(r for r in rows if r["op"] == "TPARTMUL" and r["platform"] == "cpu")
    assert cpu_mul["system_test"] is False


@pytest.mark.parametrize("name", FLOATS)
def test_sort_profile_rows_ties_and_specials(name):
    """--special sort: duplicates within rows, rows already sorted, reverse sorted and all equal, plus the
    element kinds, all from bit patterns."""
    from ptofuzz.oracles.sort import sort_keys

    dt = dtypes.get(name)
    mix = values.ValueMix.parse("sort", 0.3)
    bits = values.draw(seeded(5, name), dt, (64, 40), mix)
    keys_up = sort_keys(bits, dt, descending=False)
    keys_down = sort_keys(bits, dt, descending=True)
    ascending = np.all(keys_up[:, :-1] <= keys_up[:, 1:], axis=1)
    descending = np.all(keys_down[:, :-1] <= keys_down[:, 1:], axis=1)
    equal = np.all(bits == bits[:, :1], axis=1)
    assert (ascending & ~equal).any() and (descending & ~equal).any() and equal.any()
    dup_rows = [len(set(r.tolist())) < len(r) for r in bits[~equal]]
    assert sum(dup_rows) > 10
    assert np.any(ieee.is_snan(bits, dt)) and np.any(ieee.is_zero(bits, dt) & ieee.is_negative(bits, dt))


def test_special_kinds_select_only_those_values():
    dt = dtypes.get("float16")
    bits = values.draw(seeded(6), dt, (64, 64), values.ValueMix.parse("snan,zero", 1.0))
    assert np.all(ieee.is_snan(bits, dt) | ieee.is_zero(bits, dt))
    assert np.any(ieee.is_snan(bits, dt)) and np.any(ieee.is_zero(bits, dt))
    ints = values.draw(seeded(6), dtypes.get("int8"), (8, 8), values.ValueMix.parse("extreme", 1.0))
    assert set(ints.view(np.int8).ravel().tolist()) <= {1, 127, 126, -128, -127, -1}


@pytest.mark.parametrize("name", ["float32", "float16", "bfloat16", "int8", "uint16", "int32"])
@pytest.mark.parametrize("profile", ["default", "nan", "zero,subnormal,inf"])
def test_draw_many_is_each_draw_alone(name, profile):
    """Many draws at once, one source appearing several times and sizes down to zero, give exactly the bits of
    drawing them one after another, and leave each source where drawing alone leaves it."""
    dt = dtypes.get(name)
    mix = values.ValueMix.parse(profile, 0.3)
    shapes = [(1, 7), (0,), (5, 3), (40,), (1, 1), (2, 0), (16, 16)]
    keys = ["a", "b", "a", "c", "b", "a", "d"]  # "a" three times: its draws must stay in order
    batched = values.draw_many([(src, s) for src, s in zip(_sources(keys), shapes)], dt, mix)
    sources = _sources(keys)
    one_by_one = [values.draw(src, dt, shape, mix) for src, shape in zip(sources, shapes)]
    specials = 0
    for got, alone, shape in zip(batched, one_by_one, shapes):
        assert got.shape == shape and got.dtype == alone.dtype
        np.testing.assert_array_equal(got, alone)
        specials += int(np.isin(got, values.special_pool(dt, mix.kinds)).sum())
    assert specials > 10 or not len(values.special_pool(dt, mix.kinds))  # int8 has no NaN to mix in
    after = _sources(keys)
    values.draw_many([(src, s) for src, s in zip(after, shapes)], dt, mix)
    assert [int(s.bits(32, 1)[0]) for s in dict(zip(keys, after)).values()] == \
        [int(s.bits(32, 1)[0]) for s in dict(zip(keys, sources)).values()]


def _sources(keys):
    made = {}
    return [made.setdefault(k, seeded(3, k)) for k in keys]


def test_draw_mixed_is_each_draw_alone_whatever_its_dtype():
    mix = values.ValueMix.parse("default", 0.3)
    kinds = ["float32", "int8", "float32", "float16", "int8", "bfloat16"]
    shapes = [(3, 5), (7,), (0,), (2, 9), (1, 1), (4, 4)]
    keys = ["a", "b", "c", "e", "b", "d"]  # "b" twice, as int8 both times
    batched = values.draw_mixed([(src, dtypes.get(k), s) for src, k, s in zip(_sources(keys), kinds, shapes)], mix)
    alone = [values.draw(src, dtypes.get(k), s, mix) for src, k, s in zip(_sources(keys), kinds, shapes)]
    assert len(batched) == len(alone)
    for got, want in zip(batched, alone):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    src = _sources(["a"])[0]
    with pytest.raises(ValueError, match="float32 and as int8"):
        values.draw_mixed([(src, dtypes.get("float32"), (2,)), (src, dtypes.get("int8"), (2,))], mix)


def test_draw_many_with_row_level_kinds_keeps_each_source_in_order():
    """Ties and row patterns draw again after the elements, so draw_many then draws one at a time."""
    dt = dtypes.get("float32")
    mix = values.ValueMix.parse("tie,equal,sorted", 0.4)
    shapes = [(3, 9), (4, 4), (2, 5)]
    batched = values.draw_many([(s, sh) for s, sh in zip(_sources(["a", "a", "b"]), shapes)], dt, mix)
    alone_sources = _sources(["a", "a", "b"])
    for got, src, shape in zip(batched, alone_sources, shapes):
        np.testing.assert_array_equal(got, values.draw(src, dt, shape, mix))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_zero_or_subnormal_is_zero_or_subnormal_for_every_16_bit_pattern(name):
    dt = dtypes.get(name)
    bits = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    got = ieee.is_zero_or_subnormal(bits, dt)
    np.testing.assert_array_equal(got, ieee.is_zero(bits, dt) | ieee.is_subnormal(bits, dt))
    assert int(got.sum()) == 2 * (dt.man_mask + 1)  # +-0 and the subnormals of both signs
