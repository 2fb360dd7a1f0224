"""TROWSUM and TCOLSUM through the real pto-isa CPU simulator: hand-worked sums whose order shows in the bits, and
the simulator's defects of this family (each matches its own signature and no neighbour's).

- ``cpusim-tcolsum-binary-ignored``: TCOLSUM's isBinary form runs the sequential fold from +0
  (include/pto/cpu/TColSum.hpp:60-64), so a column of -0 terms sums to +0 where any tree gives -0.
- ``cpusim-trowsum-order-by-compiler`` / ``cpusim-trowsum-clang-reorders``: clang's forced vectorization of the row
  sum (include/pto/cpu/parallel.hpp:29-31) reassociates it into 8 partial sums; g++ keeps the loop's order.
- ``cpusim-trowsum-signed-overflow-ub``: an int32 row sum past int32's range (UBSan's report).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from backend_helpers import PTO_ISA, needs_sim, simulator

from ptofuzz.backends.cpusim import build, ordered
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.core.case import EXACT, UNDEFINED, ZERO, Case, OutcomeKind, Tile
from ptofuzz.core.errors import UsageError
from ptofuzz.core.signature import Signature
from ptofuzz.instructions import defects, registry

TROWSUM, TCOLSUM = registry.get("TROWSUM"), registry.get("TCOLSUM")
NEG0, TWO24 = 0x80000000, 0x4B800000  # float32 -0 and 2^24


@pytest.fixture(scope="module")
def sim():
    yield from simulator("TROWSUM", "TCOLSUM")


def _rowsum(dtype: str, rows: np.ndarray, bits: type) -> tuple[Case, dict[str, np.ndarray]]:
    r, n = rows.shape
    cols = max(32, n)
    tile = np.zeros((r, cols), bits)
    tile[:, :n] = rows
    return Case("TROWSUM", "cpu", dtype, (("dst", Tile(r, 32 // np.dtype(bits).itemsize, r, 1)),
                                          ("src", Tile(r, cols, r, n)))), {"src": tile}


def _colsum(column: list[int], binary: int) -> tuple[Case, dict[str, np.ndarray]]:
    k = len(column)
    src = np.zeros((k, 8), np.uint32)
    src[:, 0] = column
    src[:, 1] = 0x3F800000  # 1.0: column 1 sums to k in any order
    case = Case("TCOLSUM", "cpu", "float32", (("dst", Tile(1, 8, 1, 2)), ("src", Tile(k, 8, k, 2))),
                (("binary", binary),))
    return case, {"src": src}


# ---- the simulator's bits ----------------------------------------------------------------------------------

@needs_sim
def test_g_plus_plus_sums_a_float32_row_in_the_loop_s_order(sim):
    """2^24 then fifteen 1s: in order every +1 is a tie that rounds back to 2^24 (even), so the row sums to 2^24,
    the cpu model's value; -1, -0.75, ..., 2.75 is exact in any order (14); 0.1, 0.2, 0.3 rounds as the fold."""
    rows = np.zeros((3, 16), np.float32)
    rows[0] = [2.0**24] + [1.0] * 15
    rows[1] = np.arange(16) * 0.25 - 1.0
    rows[2, :3] = [0.1, 0.2, 0.3]  # then 13 zeros
    case, inputs = _rowsum("float32", rows.view(np.uint32), np.uint32)
    out = ordered.evaluate(sim, case, inputs)
    assert out.kind is OutcomeKind.OK, out.reason
    got = out.outputs["dst"][:, 0]
    third = np.float32(np.float32(np.float32(0.1) + np.float32(0.2)) + np.float32(0.3))
    assert got.tolist() == [TWO24, np.float32(14.0).view(np.uint32), third.view(np.uint32)]
    model = TROWSUM.evaluate(case, inputs)
    assert np.array_equal(model.outputs["dst"][:, 0], got) and (model.classes["dst"][:, 0] == EXACT).all()
    assert (out.classes["dst"][:, 1:] == UNDEFINED).all()  # one valid column of sums


@needs_sim
def test_a_half_row_is_summed_in_a_float_accumulator(sim):
    """half 2048 + 1 + 1: in half each +1 is a tie back to 2048; the simulator's float accumulator holds 2050,
    which half represents (the cpu model's value); pto-spec's fold in half gives 2048."""
    row = np.array([[2048.0, 1.0, 1.0]], np.float16).view(np.uint16)
    case, inputs = _rowsum("float16", row, np.uint16)
    out = ordered.evaluate(sim, case, inputs)
    assert out.outputs["dst"][0, 0] == np.float16(2050).view(np.uint16) == 0x6801
    assert TROWSUM.evaluate(case, inputs).outputs["dst"][0, 0] == 0x6801
    # pto-spec's tiles are legal descriptors: 128 B of one column (64 rows) and 128 B of 16 columns (4 rows)
    spec = Case("TROWSUM", "spec", "float16", (("dst", Tile(64, 1, 1, 1)), ("src", Tile(4, 16, 1, 3))))
    src = np.zeros((4, 16), np.uint16)
    src[0, :3] = row[0]
    assert TROWSUM.evaluate(spec, {"src": src}).outputs["dst"][0, 0] == 0x6800


@needs_sim
def test_int16_rows_wrap_in_the_simulator_and_are_open_in_the_cpu_model(sim):
    row = np.array([[30000, 30000, 7]], np.int16).view(np.uint16)
    case, inputs = _rowsum("int16", row, np.uint16)
    out = ordered.evaluate(sim, case, inputs)
    assert int(out.outputs["dst"][0, 0].view(np.int16)) == 60007 - 65536
    assert TROWSUM.evaluate(case, inputs).classes["dst"][0, 0] == UNDEFINED


@needs_sim
@pytest.mark.parametrize("binary", [0, 1])
def test_the_binary_form_runs_the_sequential_fold_from_plus_zero(sim, binary):
    """A column of three -0 terms: the simulator gives +0 in both forms (its fold starts at +0); the cpu model gives
    +0 for the sequential form and -0 for the binary one (any tree of -0 terms), so the binary form disagrees in
    exactly that element: cpusim-tcolsum-binary-ignored."""
    case, inputs = _colsum([NEG0] * 3, binary)
    out = ordered.evaluate(sim, case, inputs)
    assert out.outputs["dst"][0, :2].tolist() == [0, 0x40400000]  # +0 and 3.0
    model = TCOLSUM.evaluate(case, inputs)
    assert model.outputs["dst"][0, :2].tolist() == [NEG0 if binary else 0, 0x40400000]
    assert (model.classes["dst"][0, :2] == EXACT).all()


@needs_sim
def test_one_row_s_binary_zero_is_open_in_the_model(sim):
    case, inputs = _colsum([NEG0], 1)
    assert ordered.evaluate(sim, case, inputs).outputs["dst"][0, 0] == 0
    assert TCOLSUM.evaluate(case, inputs).classes["dst"][0, 0] == ZERO  # the term, or the term added to +0


def _clang_or_skip() -> None:
    try:
        build.find_clang()
    except UsageError as e:
        pytest.skip(str(e))


@needs_sim
@pytest.mark.slow
def test_clang_sums_a_float32_row_in_eight_partial_sums():
    """The same row 2^24, 1 x 15 with clang: lanes j mod 8 of two 4-lane accumulators. Lane 0 holds 2^24 + 1 (a tie:
    2^24), lanes 1-7 two 1s each; the vectors added lanewise: 2^24 + 2, 4, 4, 4; folded in order: 2^24 + 14."""
    _clang_or_skip()
    s = Simulator(build.Settings(pto_isa=Path(str(PTO_ISA)), ops=("TROWSUM",)).with_clang())
    try:
        rows = np.array([[2.0**24] + [1.0] * 15], np.float32).view(np.uint32)
        case, inputs = _rowsum("float32", rows, np.uint32)
        got = ordered.evaluate(s, case, inputs).outputs["dst"][0, 0]
    finally:
        s.close()
    assert got == np.float32(2.0**24 + 14).view(np.uint32) == TWO24 + 7


@needs_sim
@pytest.mark.slow
def test_a_campaign_names_the_binary_defect_and_nothing_else(cli, tmp_path):
    r = cli("fuzz", "tcolsum", "--oracles", "cpu,cpusim", "--dtype", "float32", "--runs", "1500", "--seed", "1",
            "--out", tmp_path, "--json")
    sigs = json.loads(r.out)["signatures"]
    assert sigs and {s["defect"] for s in sigs} == {"cpusim-tcolsum-binary-ignored"}, sigs
    assert all(s["signature"].endswith(",binary") for s in sigs)


# ---- the defects' signatures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key, name", [
    ("TCOLSUM/float/cpu~cpusim/signed-zero/-/<=repeat,binary", "cpusim-tcolsum-binary-ignored"),
    ("TCOLSUM/float/cpu~cpusim-clang/signed-zero/-/>repeat,binary", "cpusim-tcolsum-binary-ignored"),
    ("TCOLSUM/float/a5~cpusim/signed-zero/-/k*repeat,binary", "cpusim-tcolsum-binary-ignored"),
    ("TROWSUM/float/cpusim~cpusim-clang/ulp-1/-/>repeat", "cpusim-trowsum-order-by-compiler"),
    ("TROWSUM/float/cpusim~cpusim-clang/inf-vs-finite/-/<=repeat,16-bit", "cpusim-trowsum-order-by-compiler"),
    ("TROWSUM/float/cpu~cpusim-clang/ulp-large/-/<=repeat", "cpusim-trowsum-clang-reorders"),
    ("TROWSUM/float/cpusim-clang~spec/ulp-2..16/-/>repeat", "cpusim-trowsum-clang-reorders"),
    ("TROWSUM/int/cpusim/crash/signed-integer-overflow/-", "cpusim-trowsum-signed-overflow-ub"),
    ("TROWSUM/int/cpusim-clang/crash/signed-integer-overflow/-", "cpusim-trowsum-signed-overflow-ub"),
])
def test_the_ordered_defects_match_their_signatures(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TCOLSUM/float/cpu~cpusim/signed-zero/-/<=repeat",  # the sequential form folds from +0 as the page says
    "TCOLSUM/float/cpu~spec/signed-zero/-/<=repeat,binary",  # two models: no defect of the code
    "TCOLSUM/float/cpu~cpusim/ulp-1/-/<=repeat,binary",  # a value the model pins in every tree
    "TCOLSUM/float/cpusim~cpusim-clang/signed-zero/-/<=repeat,binary",  # the builds agree on the fold
    "TROWSUM/float/cpu~cpusim/signed-zero/-/<=repeat,binary",
    "TROWSUM/float/cpu~cpusim/ulp-1/-/<=repeat",  # the g++ build keeps the loop's order
    "TROWSUM/float/cpusim~spec/ulp-1/-/>repeat",
    "TROWSUM/float/cpu~spec/ulp-1/-/<=repeat",  # two models
    "TROWSUM/int/cpusim~cpusim-clang/int-value/-/>repeat",  # integer sums do not depend on the order
    "TROWSUM/float/cpusim~cpusim-clang/signed-zero/-/>repeat",
    "TROWSUM/float/cpusim~cpusim-clang/fault-vs-value/-/dst-cols>1",
    "TCOLSUM/float/cpusim~cpusim-clang/ulp-1/-/>repeat",  # the column loop has no vectorize pragma
    "TCOLSUM/int/cpusim/crash/signed-integer-overflow/-",  # the cpu's TCOLSUM has no integer types
    "TROWSUM/int/cpusim/crash/heap-buffer-overflow/-",
    "TROWSUM/int/cpu~cpusim/int-value/-/>repeat",  # a wrapped value is no UB report
])
def test_the_ordered_defects_excuse_no_neighbour(key):
    assert defects.matching(Signature.from_key(key)) is None


@pytest.mark.parametrize("key, known", [
    ("TROWSUM/float/cpu~spec/fault-vs-value/-/dst-cols>1", True),
    ("TROWSUM/float/cpu~spec/fault-vs-value/-/dst-valid", False),
    ("TROWSUM/int/cpu~spec/fault-vs-value/-/descriptor", True),  # pto-spec's TileDescriptorLegal
    ("TCOLSUM/float/cpu~spec/fault-vs-value/-/descriptor", True),
    ("TCOLSUM/float/cpu~spec/fault-vs-value/-/empty", False),
    ("TROWSUM/float/a5~spec/fault-vs-value/-/descriptor", True),  # pto-spec against any page's platform
    ("TROWSUM/float/a2a3~spec/fault-vs-value/-/dst-cols>1", True),
    ("TROWSUM/float/a2a3~a5/fault-vs-value/-/descriptor", False),  # no pto-spec in the pair
    ("TROWPROD/int/a5~spec/fault-vs-value/-/empty", False),
    ("TROWSUM/float/bundle~spec/fault-vs-value/-/descriptor", False),  # the executor against pto-spec's model
    ("TROWSUM/float/cpu~spec/fault-kind/-/descriptor", False),
    ("TROWPROD/float/cpu~spec/fault-vs-value/-/dst-cols>1", True),  # the products: the sums' rules
    ("TCOLPROD/int/cpu~spec/fault-vs-value/-/descriptor", True),
    ("TCOLPROD/int/cpu~spec/fault-vs-value/-/dst-cols", False),
    ("TROWPROD/float/cpu~spec/ulp-1/-/>repeat", False),
    ("TROWSUM/float/cpu~spec/ulp-1/-/>repeat,16-bit", True),
    ("TROWSUM/float/cpu~spec/ulp-1/-/>repeat", False),  # float32: the cpu folds as pto-spec does
    ("TROWSUM/float/a5~spec/ulp-1/-/>repeat,16-bit", False),
    ("TCOLSUM/float/cpu~spec/signed-zero/-/<=repeat,binary", True),
    ("TCOLSUM/float/cpu~spec/signed-zero/-/<=repeat", False),
    ("TCOLSUM/float/cpu~spec/ulp-1/-/<=repeat,binary", False),
])
def test_the_documented_differences_with_pto_spec(key, known):
    sig = Signature.from_key(key)
    assert (registry.get(sig.op).known_difference(sig) is not None) is known
