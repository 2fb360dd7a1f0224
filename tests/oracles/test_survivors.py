"""Behaviours a manual mutation test of the suite showed no test pinned down (issue 14's eight survivors): each
test here fails when its behaviour is mutated back."""

from __future__ import annotations

import numpy as np
import pytest

from ptofuzz.core.case import EXACT, UNDEFINED, Case, Tile
from ptofuzz.core.dtypes import get
from ptofuzz.core.layouts import spec_physical
from ptofuzz.engine import compare as cmp_mod
from ptofuzz.engine import differential
from ptofuzz.generators import tpart as gen
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import registry
from ptofuzz.oracles import ieee, mrgsort


def test_underflow_is_tininess_before_rounding():
    """(1 - 2**-24) * 2**-126 is 2**-126 - 2**-150 exactly: tiny, inexact, and rounds (to even) up to the
    smallest normal. Detected before rounding (oracles/ieee.add_mul's documented rule) that is UF; a rule
    reading the rounded result would not raise it."""
    f32 = get("float32")
    a, b = np.array([0x3F7FFFFF], np.uint32), np.array([0x00800000], np.uint32)
    out, flags = ieee.add_mul("mul", a, b, f32)
    assert out.tolist() == [0x00800000]  # the rounded result is normal ...
    assert flags["UF"].tolist() == [True] and flags["NX"].tolist() == [True]  # ... the exact one was tiny
    # an exact tiny product raises no UF (no inexact), a normal inexact one neither
    out, flags = ieee.add_mul("mul", np.array([0x3F000000], np.uint32), b, f32)  # 0.5 * 2**-126: exact
    assert flags["UF"].tolist() == [False]


def _blocks(groups: int, b: int) -> np.ndarray:
    """A float32 record stream of ``groups`` x 4 blocks of ``b`` records, each block descending."""
    n = groups * 4 * b
    vals = (np.tile(np.arange(b, 0, -1), groups * 4) + 1).astype(np.float32)
    words = np.zeros(2 * n, np.uint32)
    words[0::2] = vals.view(np.uint32)
    words[1::2] = np.arange(n, dtype=np.uint32)
    return words


def test_the_npu_single_list_merge_takes_at_most_255_repeats():
    """vmrgsort4's repeat count is 8 bits: 255 groups of 4 blocks are merged, 256 are outside the contract."""
    b = 32  # records per block: block_len 64 float32 elements, the NPU's block multiple
    assert mrgsort.NPU_MAX_REPEAT == 255
    ok = mrgsort.single(_blocks(255, b), "float32", block_len=64, dst_records=255 * 4 * b, platform="a5")
    assert (ok.classes == EXACT).all()
    over = mrgsort.single(_blocks(256, b), "float32", block_len=64, dst_records=256 * 4 * b, platform="a5")
    assert (over.classes == UNDEFINED).all()


def test_the_spec_generator_never_draws_an_empty_source():
    """pto-spec faults on an empty source (docs/reference/oracles.md): the spec generator redraws it as dst, so its
    random cases are spec-legal while the NPU generators do draw empty regions."""
    for platform, empty_seen in (("spec", False), ("a5", True)):
        src = seeded(5, "survivor", platform)
        seen = False
        for _ in range(400):
            case = gen.random_case(src, "TPARTADD", platform, ("float32",),
                                   spec_physical if platform == "spec" else None, platform != "spec", {})
            seen |= any(0 in case.tile(r).valid for r in ("src0", "src1"))
        assert seen is empty_seen, platform


def test_an_inplace_destination_aliases_the_source_that_covers_it():
    """In place, dst overwrites the source whose tile and valid region equal dst's (the big one); aliasing the
    small source would give dst a smaller valid region than its own."""
    src = seeded(9, "survivor-inplace")
    found, smaller_other = 0, 0
    for _ in range(600):
        case = gen.random_case(src, "TPARTADD", "spec", ("float32",), spec_physical, False, {})
        role = case.param("inplace")
        if role:
            found += 1
            assert case.tile(role) == case.tile("dst"), case
            other = "src1" if role == "src0" else "src0"
            smaller_other += case.tile(other).valid != case.tile("dst").valid  # the small source stays small
    assert found > 20 and smaller_other > found // 3


def test_no_rule_excuses_a_nan_or_signed_zero_mismatch_of_cpu_max_in_any_region():
    """cpu TPARTMAX/MIN follow their pages, which leave a NaN operand open (undefined, never a mismatch): a NaN or
    signed-zero mismatch against spec, where both pin the element, is a bug in the op region and in a copy."""
    for op in ("TPARTMAX", "TPARTMIN"):
        inst = registry.get(op)
        for kind in ("nan-vs-number", "nan-encoding", "signed-zero"):
            for region, geometry in (("op", "-"), ("src0-only", "src0=eq,src1=in")):
                sig = differential.Signature(op, "float", "cpu~spec", kind, region, geometry)
                assert inst.known_difference(sig) is None


def test_the_compare_engine_calls_a_row_half_zero_in_the_golden_missing():
    """"missing": a row left all zero where at least half of the golden's elements are non-zero (so exactly
    half counts)."""
    i32 = get("int32")
    expected = np.array([[1, 2, 0, 0]], np.uint32)
    c = cmp_mod.compare(expected, None, np.zeros((1, 4), np.uint32), i32, valid=(1, 4))
    assert c.counts == {"missing": 2}
    fewer = np.array([[1, 0, 0, 0]], np.uint32)  # a quarter non-zero: an ordinary value error
    assert "missing" not in cmp_mod.compare(fewer, None, np.zeros((1, 4), np.uint32), i32, valid=(1, 4)).counts


def test_tsort32_three_argument_form_leaves_the_tail_block_unsorted():
    """TSORT32(dst, src, idx) on an NPU sorts whole 32-wide blocks only: a tail block is not written
    (undefined); the 4-argument form (with tmp) sorts it too."""
    inst = registry.get("TSORT32")
    for form, tail in ((3, UNDEFINED), (4, EXACT)):
        case = Case("TSORT32", "a5", "float32", (("src", Tile(1, 40, 1, 40)), ("idx", Tile(1, 40, 1, 40)),
                                                 ("dst", Tile(1, 80, 1, 80)), ("tmp", Tile(1, 40, 1, 40))),
                    (("form", form),))
        vals = np.arange(40, dtype=np.float32)[None]
        out = inst.evaluate(case, {"src": vals.view(np.uint32), "idx": np.arange(40, dtype=np.uint32)[None],
                                   "tmp": np.zeros((1, 40), np.uint32)})
        assert (out.classes["dst"][0, :64] == EXACT).all()  # the full block: 32 records, 64 words
        assert (out.classes["dst"][0, 64:80] == tail).all(), form


def test_a_compact_layouts_file_holds_the_valid_region_only():
    prof = registry.get("TPARTADD").support("a5").profile
    assert prof.compact and prof.file_shape(Tile(8, 64, 3, 17)) == (3, 17)
    full = registry.get("TPARTADD").support("cpu").profile
    assert not full.compact and full.file_shape(Tile(8, 64, 3, 17)) == (8, 64)


@pytest.mark.parametrize("op", ["TPARTARGMAX", "TPARTARGMIN"])
def test_the_known_tie_rule_of_cpu_argmax_is_for_cpu_against_an_npu_only(op):
    """On a tie cpu takes src1's index and the NPUs src0's: documented for cpu against a2a3/a5/kirin. cpu
    against an external target running cpu cases, or against cpusim, is no such difference (it excused a target
    that wrote wrong indices)."""
    inst = registry.get(op)
    for npu in ("a2a3", "a5", "kirin9030", "kirinDev0000"):
        pair = "~".join(sorted(("cpu", npu)))
        assert inst.known_difference(differential.Signature(op, "float", pair, "index", "op", "-")), npu
    for pair in ("cpu~target", "cpu~cpusim", "a5~target", "a2a3~a5"):
        assert inst.known_difference(differential.Signature(op, "float", pair, "index", "op", "-")) is None, pair
    for kind, region in (("int-value", "op"), ("index", "src0-only")):
        assert inst.known_difference(differential.Signature(op, "float", "a5~cpu", kind, region, "-")) is None
