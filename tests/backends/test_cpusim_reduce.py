"""TROWMAX, TROWMIN, TCOLMAX and TCOLMIN through the real pto-isa CPU simulator (a harness of these four only):
hand-worked reductions, the simulator's behaviour where the page says nothing is written, the named defect of
TCOLMAX's 16-bit row count, and random cases agreeing with the cpu model. Skips with the reason when PTO_ISA_DIR
is unset."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from ptofuzz.backends.cpusim import build
from ptofuzz.backends.cpusim.backend import CpusimBackend
from ptofuzz.core.case import EXACT, UNDEFINED, Case, OutcomeKind, Tile
from ptofuzz.engine.differential import compare_batch
from ptofuzz.generators import values
from ptofuzz.generators.source import seeded
from ptofuzz.instructions import defects, registry

PTO_ISA = os.environ.get("PTO_ISA_DIR")
pytestmark = [pytest.mark.cpusim,
              pytest.mark.skipif(not PTO_ISA, reason="PTO_ISA_DIR is unset: set it to a pto-isa tree to run the "
                                                     "real simulator")]
OPS = ("TROWMAX", "TROWMIN", "TCOLMAX", "TCOLMIN")


@pytest.fixture(scope="module")
def real() -> CpusimBackend:
    return CpusimBackend(build.Settings(pto_isa=Path(PTO_ISA or "."), ops=OPS))


def _run(real, op, dtype, dst, src, bits):
    return real.evaluate(registry.get(op), Case(op, "cpusim", dtype, (("dst", dst), ("src", src))), {"src": bits})


def test_hand_worked_row_reductions(real):
    """float32 rows over the valid 2x3 of a 3x8 tile (a larger value beyond the valid columns and rows):
    [-inf, -1.5, 2] -> max 2, min -inf; [7, 7, -0.25] -> max 7, min -0.25."""
    src = np.full((3, 8), 1e30, np.float32)
    src[0, :3] = [-np.inf, -1.5, 2.0]
    src[1, :3] = [7.0, 7.0, -0.25]
    for op, want in (("TROWMAX", [2.0, 7.0]), ("TROWMIN", [-np.inf, -0.25])):
        out = _run(real, op, "float32", Tile(2, 1, 2, 1), Tile(3, 8, 2, 3), src.view(np.uint32))
        assert out.kind is OutcomeKind.OK, out
        assert out.outputs["dst"].view(np.float32)[:, 0].tolist() == want
        assert (out.classes["dst"] == EXACT).all()


def test_hand_worked_column_reductions(real):
    """int8 columns over the valid 3x4 of a 4x32 tile: [-128, 5, 127], [0, -1, 0], [3, 3, 3], [1, 2, -3] ->
    max [127, 0, 3, 2], min [-128, -1, 3, -3] (row 3, outside the valid region, holds 100)."""
    src = np.full((4, 32), 100, np.int8)
    src[:3, :4] = np.array([[-128, 0, 3, 1], [5, -1, 3, 2], [127, 0, 3, -3]], np.int8)
    for op, want in (("TCOLMAX", [127, 0, 3, 2]), ("TCOLMIN", [-128, -1, 3, -3])):
        out = _run(real, op, "int8", Tile(1, 32, 1, 4), Tile(4, 32, 3, 4), src.view(np.uint8))
        assert out.kind is OutcomeKind.OK, out
        assert out.outputs["dst"][0, :4].view(np.int8).tolist() == want
        assert (out.classes["dst"][0, 4:] == UNDEFINED).all()


def test_tcolmax_of_no_valid_rows_writes_row_zero(real):
    """docs/isa/TCOLMAX.md: an empty source returns early. TColMax.hpp:145-157 has no such return: for 0 valid
    rows it writes each column's row 0 (TColMin.hpp:213 returns). The model leaves the destination undefined
    (the unwritten elements are no input), so a campaign cannot see it: this shows it."""
    src = np.arange(1, 9, dtype=np.float32).reshape(1, 8)
    src = np.vstack([src, src * 10])
    for op, want in (("TCOLMAX", [1.0, 2.0, 3.0]), ("TCOLMIN", [0.0, 0.0, 0.0])):  # the harness zeroes dst
        case = Case(op, "cpusim", "float32", (("dst", Tile(1, 8, 1, 3)), ("src", Tile(2, 8, 0, 3))))
        from ptofuzz.backends.cpusim import reduce

        out = reduce.evaluate(real.simulator(), case, {"src": src.view(np.uint32)})
        assert out.outputs["dst"].view(np.float32)[0, :3].tolist() == want, op
        model = registry.get(op).evaluate(case.on("cpu"), {"src": src.view(np.uint32)})
        assert (model.classes["dst"] == UNDEFINED).all()


@pytest.mark.slow
def test_tcolmax_counts_rows_in_16_bits(real):
    """cpusim-tcolmax-uint16-rows, minimal: int8 columns of 65536 valid rows, the largest in the last row: the
    simulator returns row 0; of 65535 rows (one fewer) the true maximum; TCOLMIN counts all 65536."""
    rows = 1 << 16
    src = np.zeros((rows, 32), np.int8)
    src[0, :2] = [-5, 1]
    src[rows - 1, :2] = [9, 8]
    got = _run(real, "TCOLMAX", "int8", Tile(1, 32, 1, 2), Tile(rows, 32, rows, 2), src.view(np.uint8))
    assert got.outputs["dst"][0, :2].view(np.int8).tolist() == [-5, 1]
    fewer = src[1:].copy()
    got = _run(real, "TCOLMAX", "int8", Tile(1, 32, 1, 2), Tile(rows - 1, 32, rows - 1, 2), fewer.view(np.uint8))
    assert got.outputs["dst"][0, :2].view(np.int8).tolist() == [9, 8]
    got = _run(real, "TCOLMIN", "int8", Tile(1, 32, 1, 2), Tile(rows, 32, rows, 2), src.view(np.uint8))
    assert got.outputs["dst"][0, :2].view(np.int8).tolist() == [-5, 0]
    case = Case("TCOLMAX", "cpu", "int8", (("dst", Tile(1, 32, 1, 2)), ("src", Tile(rows, 32, rows, 2))))
    assert registry.get("TCOLMAX").geometry_class(case) == "rows>65535"
    assert defects.BY_NAME["cpusim-tcolmax-uint16-rows"].ops == ("TCOLMAX",)


@pytest.mark.parametrize("op", OPS)
def test_random_cpu_cases_agree_with_the_cpu_model(real, op):
    """Random cpu cases (special values, tiles larger than their valid regions): no disagreement with the cpu
    model, every dtype the simulator compiles."""
    inst = registry.get(op)
    mix = values.ValueMix(rate=0.3)
    dts = ("float32", "float16", "int8", "uint8") + (() if op == "TCOLMAX" else ("int32", "int16"))
    seen = 0
    for k in range(60):
        src = seeded(k, op, "cpusim-test")
        case = inst.random_case(src, "cpu", {"dtype": dts[k % len(dts)]})
        inputs = inst.draw_inputs(src, case, mix)
        model = inst.evaluate(case, inputs)
        sim = real.evaluate(inst, case.on("cpusim"), inputs)
        if model.kind is not OutcomeKind.OK or sim.kind is not OutcomeKind.OK:
            continue
        seen += 1
        assert not compare_batch(inst, case.on("cpusim"), {"cpu": model, "cpusim": sim}, None).counts, case
    assert seen >= 40
