"""TPAIRREDUCESUM through the real pto-isa CPU simulator: hand-worked pair sums, random agreement with the cpu model
for every cpu dtype, and the simulator's defects of it (each matches its own signature and no neighbour's).

- ``cpusim-tpairreducesum-zero-cols``: a case of valid rows and no valid column wraps the size_t loop bound
  (include/pto/cpu/TPairReduceSum.hpp:28, :33) and runs past both tiles until the harness dies.
- ``cpusim-tpairreducesum-signed-overflow-ub``: an int32 pair sum past int32's range (UBSan's report).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from backend_helpers import PTO_ISA, needs_sim, simulator

from ptofuzz.backends.cpusim import build, pairsum
from ptofuzz.backends.cpusim.simulator import Simulator
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.core.signature import Signature
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import defects, registry

OP = "TPAIRREDUCESUM"
INST = registry.get(OP)


@pytest.fixture(scope="module")
def sim():
    yield from simulator(OP)


def _case(dtype: str, dst: Tile, src: Tile) -> Case:
    return Case(OP, "cpu", dtype, (("dst", dst), ("src", src)))


@needs_sim
def test_an_odd_half_row_through_the_simulator(sim):
    """[1, 2, 3, 4, 5 | 7 ...] over 2x5: [3, 7, 5, 0, 0] (src[i, 5] = 7 is inactive: the last pair is 5 + 0); the
    simulator agrees with the model bit for bit inside the valid region and writes nothing it defines outside."""
    src = np.full((2, 16), 7.0, np.float16)
    src[0, :5] = [1, 2, 3, 4, 5]
    src[1, :5] = [0.5, 0.25, -1, 1, 2.5]
    case = _case("float16", Tile(2, 16, 2, 5), Tile(2, 16, 2, 5))
    out = pairsum.evaluate(sim, case, {"src": src.view(np.uint16)})
    assert out.kind is OutcomeKind.OK, out.reason
    assert out.outputs["dst"].view(np.float16)[:, :5].tolist() == [[3, 7, 5, 0, 0], [0.75, 0, 2.5, 0, 0]]
    assert (out.classes["dst"][:, 5:] == UNDEFINED).all()


@needs_sim
def test_signed_zero_pairs_and_infinities(sim):
    """(+0, -0) -> +0, (-0, -0) -> -0, (inf, inf) -> inf, (-inf, 2) -> -inf: the host's IEEE addition, as the model."""
    row = np.array([[0, 0x80000000, 0x80000000, 0x80000000, 0x7F800000, 0x7F800000, 0xFF800000, 0x40000000]],
                   np.uint32)
    case = _case("float32", Tile(1, 8, 1, 8), Tile(1, 8, 1, 8))
    out = pairsum.evaluate(sim, case, {"src": row})
    assert out.outputs["dst"][0].tolist() == [0, 0x80000000, 0x7F800000, 0xFF800000, 0, 0, 0, 0]
    model = INST.evaluate(case, {"src": row})
    assert np.array_equal(model.outputs["dst"], out.outputs["dst"]) and (model.classes["dst"] == EXACT).all()


@needs_sim
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int16"])
def test_random_cases_agree_with_the_cpu_model(sim, dtype):
    """Random geometries (odd and even widths, strided tiles, empty rows) and edge pairs: wherever the model pins
    an element the simulator gives its bits (cases of no valid column are the zero-cols defect's: left out)."""
    compared = 0
    for n in range(40):
        source = seeded(21, dtype, str(n))
        case = INST.random_case(source, "cpu", {"dtype": dtype})
        if case.tile("dst").valid_cols == 0 and case.tile("dst").valid_rows:
            continue
        bits = INST.draw_inputs(source, case, values.ValueMix(0.2))["src"]
        if dtype == "int32":  # a pair past int32 is UB in the simulator (a defect): plain values there
            new = INST.redraw([(source, case, {"src": bits}, INST.evaluate(case, {"src": bits}))])[0]
            bits = new[0]["src"] if new is not None else bits
        model = INST.evaluate(case, {"src": bits})
        got = pairsum.evaluate(sim, case, {"src": bits})
        assert got.kind is OutcomeKind.OK, got.reason
        pinned = model.classes["dst"] == EXACT
        assert np.array_equal(got.outputs["dst"][pinned], model.outputs["dst"][pinned]), case
        compared += int(pinned.sum())
    assert compared > 1000


@needs_sim
def test_no_valid_column_crashes_the_simulator(sim):
    """validCol 0 with valid rows: TPairReduceSum.hpp:33's bound mid - 1 wraps; the harness dies (a finding), where
    no valid row at all runs clean (the row loop does not start)."""
    bits = np.zeros((4, 8), np.uint32)
    dead = pairsum.evaluate(sim, _case("float32", Tile(4, 8, 4, 0), Tile(4, 8, 4, 0)), {"src": bits})
    assert dead.kind is OutcomeKind.CRASH and dead.extra["cause"] in defects.OUT_OF_BOUNDS
    fine = pairsum.evaluate(sim, _case("float32", Tile(4, 8, 0, 8), Tile(4, 8, 0, 8)), {"src": bits})
    assert fine.kind is OutcomeKind.OK and (fine.classes["dst"] == UNDEFINED).all()


@needs_sim
@pytest.mark.slow
def test_an_int32_overflow_is_reported_by_ubsan():
    s = Simulator(build.Settings(pto_isa=Path(str(PTO_ISA)), ops=(OP,), sanitize=("undefined",)))
    try:
        case = _case("int32", Tile(1, 8, 1, 2), Tile(1, 8, 1, 2))
        out = pairsum.evaluate(s, case, {"src": np.array([[2**31 - 1, 1, 0, 0, 0, 0, 0, 0]], np.int32)})
    finally:
        s.close()
    assert out.kind is OutcomeKind.CRASH and out.extra["cause"] == "signed-integer-overflow"
    sig = Signature(OP, "int", "cpusim", "crash", out.extra["cause"], "-")
    assert defects.matching(sig).name == "cpusim-tpairreducesum-signed-overflow-ub"


# ---- the defects' signatures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("key, name", [
    ("TPAIRREDUCESUM/float/cpusim/crash/SIGSEGV/-", "cpusim-tpairreducesum-zero-cols"),
    ("TPAIRREDUCESUM/int/cpusim-clang/crash/heap-buffer-overflow/-", "cpusim-tpairreducesum-zero-cols"),
    ("TPAIRREDUCESUM/int/cpusim/crash/signed-integer-overflow/-", "cpusim-tpairreducesum-signed-overflow-ub"),
    ("TPAIRREDUCESUM/int/cpusim-clang/crash/signed-integer-overflow/-", "cpusim-tpairreducesum-signed-overflow-ub"),
])
def test_the_pair_sum_defects_match_their_signatures(key, name):
    assert defects.matching(Signature.from_key(key)).name == name


@pytest.mark.parametrize("key", [
    "TPAIRREDUCESUM/float/cpusim/hang/timeout/-",  # no known hang
    "TPAIRREDUCESUM/int/cpusim/crash/shift-exponent-too-large/-",
    "TPAIRREDUCESUM/int/cpu~cpusim/int-value/pairs/-",  # a wrapped value is no UB report
    "TPAIRREDUCESUM/float/cpu~cpusim/signed-zero/pairs/odd,<=repeat,packed",
    "TROWSUM/float/cpusim/crash/SIGSEGV/-",  # another instruction's crash
    "TROWSUM/int/cpusim/crash/heap-buffer-overflow/-",
    "TCOLSUM/int/cpusim/crash/signed-integer-overflow/-",
])
def test_the_pair_sum_defects_excuse_no_neighbour(key):
    assert defects.matching(Signature.from_key(key)) is None
